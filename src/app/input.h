#pragma once
/// Keys and mouse: SDL events go to ImGui first; whatever ImGui does not claim becomes a command
/// for the lab, or moves the camera.
///
/// ImGui 1.86 has no input queue: it sees one state per frame, so a press and a release (or
/// two presses of a key) inside one slow frame would cancel out, and a click would land where
/// the pointer is when the frame starts rather than where it was made. poll() therefore hands
/// over events a frame at a time, stopping before the first one that would overwrite a change
/// made earlier in the same frame (the trickling queue recommended in ImGui's issue #2787 and
/// built into ImGui 1.87); the rest wait for the next frame, in order. At 2 FPS a click takes two frames, but
/// it is never lost.
///
/// Events are collected before ImGui's frame starts and applied after it, because only then
/// does io.WantCaptureMouse tell a click on the panel from a click in the world.

#include <SDL.h>

#include <vector>

#include "app/gui.h"
#include "app/lab.h"
#include "app/options.h"
#include "app/panel.h"
#include "app/queries.h"
#include "app/screen.h"
#include "app/window_request.h"

namespace ro::app {

class Input {
public:
    /// Drains SDL's event queue into the pending events, then hands this frame's share of
    /// them to ImGui (see above).
    void poll();
    /// The pointer as this frame's events left it, for Gui::beginFrame.
    [[nodiscard]] const PointerState& pointer() const { return m_pointer; }
    /// Takes this frame's events that ImGui did not capture (call after Gui::beginFrame): what
    /// changes the lab goes into `commands`, what asks the window for something (F12's
    /// screenshot) into `requests`; a button pressed inside `ui` (the panel and HUD as last
    /// drawn) never reaches the world.
    void apply(const Lab& lab, CommandQueue& commands, WindowRequests& requests, OverlayFlags& overlays,
               QueryTool& queries, Screen& screen, const UiRects& ui);
    /// True once the window was closed or Q pressed.
    [[nodiscard]] bool quitRequested() const { return m_quit; }
    /// H hides the panel and the HUD (and shows them again).
    [[nodiscard]] bool uiHidden() const { return m_uiHidden; }
    void setUiHidden(bool hidden) { m_uiHidden = hidden; }

private:
    /// True when `event` would overwrite a pointer or key change already handed over this frame.
    [[nodiscard]] bool waitsForNextFrame(const SDL_Event& event) const;
    void track(const SDL_Event& event);
    void onKey(const SDL_KeyboardEvent& key, const Lab& lab, CommandQueue& commands, WindowRequests& requests,
               OverlayFlags& overlays, QueryTool& queries, Screen& screen);
    void onMouse(const SDL_Event& event, const Lab& lab, CommandQueue& commands, QueryTool& queries, Screen& screen,
                 bool onUi);
    void spawn(const Lab& lab, CommandQueue& commands, const ViewTransform& view, int x, int y);

    /// Pixels the cursor must move, with the button held, before the spray adds another entity.
    static constexpr int kSprayDistance = 8;
    /// A right button that moves further than this before its release pans instead of removing.
    static constexpr int kDragThreshold = 4;

    std::vector<SDL_Event> m_pending;  ///< events not yet handed over, oldest first
    std::vector<SDL_Event> m_events;   ///< this frame's events, storage reused
    PointerState m_pointer;
    // What this frame's events changed already (see waitsForNextFrame).
    bool m_buttonChanged = false;
    bool m_moved = false;
    std::vector<SDL_Scancode> m_keysChanged;

    /// The modifiers as the last applied key event left them (not SDL_GetModState(), which is
    /// already past every queued event): Shift or Ctrl with a click makes a query drag.
    Uint16 m_mods = KMOD_NONE;

    bool m_quit = false;
    bool m_uiHidden = false;
    bool m_editJustEnded = false;  ///< a Return or Esc in the last frame ended a text field's edit
    bool m_spraying = false;  ///< left button went down in the world and is still held
    int m_lastSpawnX = 0;
    int m_lastSpawnY = 0;
    // A pan with the middle button, or the right one once it moved past kDragThreshold.
    bool m_panning = false;
    bool m_rightDown = false;  ///< right button went down in the world and is still held
    int m_rightDownX = 0, m_rightDownY = 0;
    int m_panX = 0, m_panY = 0;
};

}  // namespace ro::app

#pragma once
/// Keys and mouse: SDL events go to ImGui first; whatever ImGui does not claim acts on the lab.
///
/// Events are collected before ImGui's frame starts and applied after it, because only then
/// does io.WantCaptureMouse tell a click on the panel from a click in the world.

#include <SDL.h>

#include <vector>

#include "app/lab.h"
#include "app/options.h"
#include "app/panel.h"
#include "app/queries.h"
#include "app/screen.h"

namespace ro::app {

class Input {
public:
    /// Drains SDL's event queue, handing every event to ImGui.
    void poll();
    /// Applies the polled events that ImGui did not capture (call after Gui::beginFrame); a
    /// button pressed inside `ui` (the panel and HUD as last drawn) never reaches the world.
    void apply(Lab& lab, OverlayFlags& overlays, QueryTool& queries, const ViewTransform& view, const UiRects& ui);
    /// True once the window was closed or Q pressed.
    [[nodiscard]] bool quitRequested() const { return m_quit; }

private:
    void onKey(const SDL_KeyboardEvent& key, Lab& lab, OverlayFlags& overlays, QueryTool& queries);
    void onMouse(const SDL_Event& event, Lab& lab, QueryTool& queries, const ViewTransform& view);
    void spawn(Lab& lab, const ViewTransform& view, int x, int y);

    /// Pixels the cursor must move, with the button held, before the spray adds another entity.
    static constexpr int kSprayDistance = 8;

    std::vector<SDL_Event> m_events;  ///< this frame's events, storage reused
    bool m_quit = false;
    bool m_spraying = false;  ///< left button went down in the world and is still held
    int m_lastSpawnX = 0;
    int m_lastSpawnY = 0;
};

}  // namespace ro::app

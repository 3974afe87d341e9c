#pragma once
/// Dear ImGui's context and its SDL2 + SDL_Renderer backends, set up and torn down together.

#include <SDL.h>

#include "app/screen.h"

namespace ro::app {

/// The pointer as the events handed to ImGui this frame left it (not as it is now: a slow
/// frame may have seen a press, a move and a release, and only their order tells where each was).
struct PointerState {
    bool known = false;    ///< false until the first mouse event: ask SDL instead
    bool inWindow = true;  ///< false after the pointer left the window
    float x = 0.0f, y = 0.0f;
    bool down[3] = {};     ///< left, right, middle, as ImGui numbers them
    bool pressed[3] = {};  ///< went down this frame (held for a frame even if released since)
};

class Gui {
public:
    /// Creates the ImGui context (dark style, no imgui.ini) and initialises both backends.
    explicit Gui(const Screen& screen);
    /// Shuts the backends down and destroys the context, in reverse order.
    ~Gui();
    Gui(const Gui&) = delete;
    Gui& operator=(const Gui&) = delete;

    /// Hands one SDL event to ImGui.
    static void processEvent(const SDL_Event& event);
    /// Starts an ImGui frame with the pointer where this frame's events put it; afterwards
    /// io.WantCaptureMouse says who owns this frame's clicks.
    void beginFrame(const PointerState& pointer);
    /// Renders the frame's widgets through SDL_Renderer.
    static void render();

private:
    SDL_Window* m_window;
};

}  // namespace ro::app

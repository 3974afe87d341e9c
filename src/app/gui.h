#pragma once
/// Dear ImGui's context and its SDL2 + SDL_Renderer backends, set up and torn down together.

#include <SDL.h>

#include "app/screen.h"

namespace ro::app {

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
    /// Starts an ImGui frame; afterwards io.WantCaptureMouse says who owns this frame's clicks.
    void beginFrame();
    /// Renders the frame's widgets through SDL_Renderer.
    static void render();

private:
    SDL_Window* m_window;
};

}  // namespace ro::app

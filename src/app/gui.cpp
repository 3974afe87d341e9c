#include "app/gui.h"

#include <imgui.h>
#include <imgui_impl_sdl.h>
#include <imgui_impl_sdlrenderer.h>

#include <cfloat>

namespace ro::app {

Gui::Gui(const Screen& screen) : m_window(screen.window()) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no imgui.ini in whatever directory the app was started from
    // The panel and the HUD move by their title bars only: a drag that starts on an empty part
    // of the panel and ends in the world must not carry the panel along.
    io.ConfigWindowsMoveFromTitleBarOnly = true;
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.Colors[ImGuiCol_WindowBg].w = 0.88f;
    ImGui_ImplSDL2_InitForSDLRenderer(m_window);
    ImGui_ImplSDLRenderer_Init(screen.renderer());
}

Gui::~Gui() {
    ImGui_ImplSDLRenderer_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
}

void Gui::processEvent(const SDL_Event& event) { ImGui_ImplSDL2_ProcessEvent(&event); }

void Gui::beginFrame(const PointerState& pointer) {
    ImGui_ImplSDLRenderer_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    ImGuiIO& io = ImGui::GetIO();
    // ImGui 1.86 has no input queue: its backend reads the pointer's position and buttons as
    // they are when the frame starts, so a click made during a slow frame landed wherever the
    // pointer was by then, or not at all. Position and buttons come from the events instead
    // (Input hands them over a frame at a time, see input.h).
    if (pointer.known) {
        io.MousePos = pointer.inWindow ? ImVec2(pointer.x, pointer.y) : ImVec2(-FLT_MAX, -FLT_MAX);
        for (int b = 0; b < 3; ++b) io.MouseDown[b] = pointer.down[b] || pointer.pressed[b];
    } else if (SDL_GetMouseFocus() == m_window) {
        // No mouse event yet: SDL's own window-relative position (ImGui's global one misses
        // pointers warped by xdotool on X11).
        int x = 0;
        int y = 0;
        SDL_GetMouseState(&x, &y);
        io.MousePos = ImVec2(static_cast<float>(x), static_cast<float>(y));
    }
    ImGui::NewFrame();
}

void Gui::render() {
    ImGui::Render();
    ImGui_ImplSDLRenderer_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace ro::app

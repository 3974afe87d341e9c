#include "app/input.h"

#include <imgui.h>

#include "app/gui.h"

namespace ro::app {

void Input::poll() {
    m_events.clear();
    SDL_Event event;
    while (SDL_PollEvent(&event)) {
        Gui::processEvent(event);
        m_events.push_back(event);
    }
}

void Input::apply(Lab& lab, OverlayFlags& overlays, QueryTool& queries, const ViewTransform& view,
                  const UiRects& ui) {
    const ImGuiIO& io = ImGui::GetIO();
    for (const SDL_Event& event : m_events) {
        switch (event.type) {
            case SDL_QUIT:
                m_quit = true;
                break;
            case SDL_KEYDOWN:
                if (!io.WantCaptureKeyboard) onKey(event.key, lab, overlays, queries);
                break;
            case SDL_MOUSEBUTTONDOWN: {
                const bool onUi = ui.contains(static_cast<float>(event.button.x), static_cast<float>(event.button.y));
                if (!io.WantCaptureMouse && !onUi) onMouse(event, lab, queries, view);
                break;
            }
            case SDL_MOUSEMOTION: {
                // The point query follows the cursor while it is over the world, not the UI.
                const float x = static_cast<float>(event.motion.x), y = static_cast<float>(event.motion.y);
                const Vec2 p = view.toWorld(x, y);
                const bool overWorld = !io.WantCaptureMouse && !ui.contains(x, y) && lab.world().config().bounds.contains(p);
                queries.hover(overWorld ? std::optional<Vec2>(p) : std::nullopt);
                onMouse(event, lab, queries, view);  // a spray or drag started in the world continues over the UI
                break;
            }
            case SDL_MOUSEBUTTONUP:
                onMouse(event, lab, queries, view);
                break;
            case SDL_WINDOWEVENT:
                if (event.window.event == SDL_WINDOWEVENT_LEAVE) queries.hover(std::nullopt);
                break;
            default:
                break;
        }
    }
}

void Input::onKey(const SDL_KeyboardEvent& key, Lab& lab, OverlayFlags& overlays, QueryTool& queries) {
    const SDL_Keycode code = key.keysym.sym;
    // Holding a step key steps repeatedly; every other key acts once per press.
    if (code == SDLK_SPACE || code == SDLK_n) {
        lab.requestStep();
        return;
    }
    if (key.repeat != 0) return;
    switch (code) {
        case SDLK_ESCAPE: lab.togglePause(); break;
        case SDLK_g: overlays.grid = !overlays.grid; break;
        case SDLK_p: overlays.pairs = !overlays.pairs; break;
        case SDLK_b: overlays.bounds = !overlays.bounds; break;
        case SDLK_TAB: lab.nextTechnique(); break;
        case SDLK_c: queries.clear(); break;
        case SDLK_q: m_quit = true; break;
        default: break;
    }
}

void Input::onMouse(const SDL_Event& event, Lab& lab, QueryTool& queries, const ViewTransform& view) {
    const SDL_Keymod mods = SDL_GetModState();
    const bool left = event.button.button == SDL_BUTTON_LEFT;
    if (event.type == SDL_MOUSEBUTTONDOWN && left && (mods & (KMOD_SHIFT | KMOD_CTRL)) != 0) {
        const Vec2 p = view.toWorld(static_cast<float>(event.button.x), static_cast<float>(event.button.y));
        queries.beginDrag((mods & KMOD_CTRL) != 0 ? QueryTool::Shape::Ray : QueryTool::Shape::Box, p);
    } else if (event.type == SDL_MOUSEMOTION && queries.dragging()) {
        queries.drag(view.toWorld(static_cast<float>(event.motion.x), static_cast<float>(event.motion.y)));
    } else if (event.type == SDL_MOUSEBUTTONUP && left && queries.dragging()) {
        queries.drag(view.toWorld(static_cast<float>(event.button.x), static_cast<float>(event.button.y)));
        queries.endDrag();
    } else if (event.type == SDL_MOUSEBUTTONDOWN && left) {
        spawn(lab, view, event.button.x, event.button.y);
        m_spraying = true;
    } else if (event.type == SDL_MOUSEBUTTONDOWN && event.button.button == SDL_BUTTON_RIGHT) {
        lab.removeAt(view.toWorld(static_cast<float>(event.button.x), static_cast<float>(event.button.y)));
    } else if (event.type == SDL_MOUSEBUTTONUP && event.button.button == SDL_BUTTON_LEFT) {
        m_spraying = false;
    } else if (event.type == SDL_MOUSEMOTION && m_spraying && (event.motion.state & SDL_BUTTON_LMASK) != 0) {
        const int dx = event.motion.x - m_lastSpawnX;
        const int dy = event.motion.y - m_lastSpawnY;
        if (dx * dx + dy * dy > kSprayDistance * kSprayDistance) spawn(lab, view, event.motion.x, event.motion.y);
    }
}

void Input::spawn(Lab& lab, const ViewTransform& view, int x, int y) {
    m_lastSpawnX = x;
    m_lastSpawnY = y;
    const Vec2 p = view.toWorld(static_cast<float>(x), static_cast<float>(y));
    if (lab.world().config().bounds.contains(p)) lab.spawnAt(p);
}

}  // namespace ro::app

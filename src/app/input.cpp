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

void Input::apply(Lab& lab, OverlayFlags& overlays, const ViewTransform& view, const UiRects& ui) {
    const ImGuiIO& io = ImGui::GetIO();
    for (const SDL_Event& event : m_events) {
        switch (event.type) {
            case SDL_QUIT:
                m_quit = true;
                break;
            case SDL_KEYDOWN:
                if (!io.WantCaptureKeyboard) onKey(event.key, lab, overlays);
                break;
            case SDL_MOUSEBUTTONDOWN: {
                const bool onUi = ui.contains(static_cast<float>(event.button.x), static_cast<float>(event.button.y));
                if (!io.WantCaptureMouse && !onUi) onMouse(event, lab, view);
                break;
            }
            case SDL_MOUSEMOTION:
            case SDL_MOUSEBUTTONUP:
                onMouse(event, lab, view);  // a spray started in the world continues over the UI
                break;
            default:
                break;
        }
    }
}

void Input::onKey(const SDL_KeyboardEvent& key, Lab& lab, OverlayFlags& overlays) {
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
        case SDLK_q: m_quit = true; break;
        default: break;
    }
}

void Input::onMouse(const SDL_Event& event, Lab& lab, const ViewTransform& view) {
    if (event.type == SDL_MOUSEBUTTONDOWN && event.button.button == SDL_BUTTON_LEFT) {
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

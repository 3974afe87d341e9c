#include "app/input.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace ro::app {
namespace {

/// ImGui's mouse button index for an SDL button (0 left, 1 right, 2 middle), or -1.
int imguiButton(Uint8 button) {
    switch (button) {
        case SDL_BUTTON_LEFT: return 0;
        case SDL_BUTTON_RIGHT: return 1;
        case SDL_BUTTON_MIDDLE: return 2;
        default: return -1;
    }
}

bool isKey(const SDL_Event& event) { return event.type == SDL_KEYDOWN || event.type == SDL_KEYUP; }

bool isModifier(SDL_Scancode key) {
    switch (key) {
        case SDL_SCANCODE_LCTRL: case SDL_SCANCODE_RCTRL: case SDL_SCANCODE_LSHIFT: case SDL_SCANCODE_RSHIFT:
        case SDL_SCANCODE_LALT: case SDL_SCANCODE_RALT: case SDL_SCANCODE_LGUI: case SDL_SCANCODE_RGUI: return true;
        default: return false;
    }
}

/// The wheel zooms by this factor per notch.
constexpr float kZoomPerNotch = 1.25f;

}  // namespace

bool Input::waitsForNextFrame(const SDL_Event& event) const {
    switch (event.type) {
        // A second button event, or a move after one, would hide the first from ImGui; a
        // release right after a move would end a drag before ImGui saw where it went. A press
        // right after a move waits too: ImGui 1.86 lets an item that allows overlap (a tab)
        // take a press only once it was hovered a frame before.
        case SDL_MOUSEMOTION:
            return m_buttonChanged;
        case SDL_MOUSEBUTTONDOWN:
        case SDL_MOUSEBUTTONUP:
            return m_buttonChanged || m_moved;
        case SDL_KEYDOWN:
        case SDL_KEYUP:
            // An auto-repeat changes no key state: held back, repeats would pile up behind a
            // slow frame (and everything after them) for as long as the key was held.
            if (event.type == SDL_KEYDOWN && event.key.repeat != 0) return false;
            // A modifier let go after a click in the same frame would turn Ctrl+click into a
            // plain click: ImGui sees one modifier state per frame.
            if (m_buttonChanged && isModifier(event.key.keysym.scancode)) return true;
            return std::find(m_keysChanged.begin(), m_keysChanged.end(), event.key.keysym.scancode) !=
                   m_keysChanged.end();
        default:
            return false;
    }
}

void Input::track(const SDL_Event& event) {
    switch (event.type) {
        case SDL_MOUSEMOTION:
            m_moved = true;
            m_pointer.known = true;
            m_pointer.inWindow = true;
            m_pointer.x = static_cast<float>(event.motion.x);
            m_pointer.y = static_cast<float>(event.motion.y);
            break;
        case SDL_MOUSEBUTTONDOWN:
        case SDL_MOUSEBUTTONUP: {
            m_buttonChanged = true;
            m_pointer.known = true;
            m_pointer.x = static_cast<float>(event.button.x);
            m_pointer.y = static_cast<float>(event.button.y);
            const int b = imguiButton(event.button.button);
            if (b < 0) break;
            const bool down = event.type == SDL_MOUSEBUTTONDOWN;
            m_pointer.down[b] = down;
            if (down) m_pointer.pressed[b] = true;
            break;
        }
        case SDL_KEYDOWN:
        case SDL_KEYUP:
            m_keysChanged.push_back(event.key.keysym.scancode);
            break;
        case SDL_WINDOWEVENT:
            if (event.window.event == SDL_WINDOWEVENT_LEAVE) m_pointer.inWindow = false;
            if (event.window.event == SDL_WINDOWEVENT_ENTER) m_pointer.inWindow = true;
            break;
        default:
            break;
    }
}

void Input::poll() {
    SDL_Event event;
    while (SDL_PollEvent(&event)) m_pending.push_back(event);

    m_events.clear();
    m_buttonChanged = false;
    m_moved = false;
    m_keysChanged.clear();
    std::fill(std::begin(m_pointer.pressed), std::end(m_pointer.pressed), false);
    ImGuiIO& io = ImGui::GetIO();
    std::size_t handed = 0;
    for (; handed < m_pending.size(); ++handed) {
        const SDL_Event& e = m_pending[handed];
        if (waitsForNextFrame(e)) break;
        track(e);
        // Tab never reaches ImGui, which would move its focus to the next widget and turn a
        // slider into a text field that then swallows every shortcut. It is the app's (next
        // technique), and does nothing while a text field is edited: a Tab typed behind a
        // slow frame's queue reached ImGui while the field it followed was still open.
        if (!(isKey(e) && e.key.keysym.sym == SDLK_TAB)) Gui::processEvent(e);
        if (isKey(e)) {
            // ImGui 1.86's backend reads the modifiers from SDL_GetModState(): the state after
            // every event SDL has queued, so a quick Ctrl+click or Ctrl+A in a slow frame would
            // reach it without the Ctrl. Each key event carries the modifiers as they were.
            const Uint16 mods = e.key.keysym.mod;
            io.KeyCtrl = (mods & KMOD_CTRL) != 0;
            io.KeyShift = (mods & KMOD_SHIFT) != 0;
            io.KeyAlt = (mods & KMOD_ALT) != 0;
            io.KeySuper = (mods & KMOD_GUI) != 0;
        }
        m_events.push_back(e);
    }
    m_pending.erase(m_pending.begin(), m_pending.begin() + static_cast<std::ptrdiff_t>(handed));
}

void Input::apply(const Lab& lab, CommandQueue& commands, WindowRequests& requests, OverlayFlags& overlays,
                  QueryTool& queries, Screen& screen, const UiRects& ui) {
    const ImGuiIO& io = ImGui::GetIO();
    // Shortcuts work wherever the focus is, except while a text field takes typing. ImGui says
    // so as of the last frame, and its fields end an edit on Return or Esc: the keys behind one
    // (in this frame, or the next, which still reads the field as open) are shortcuts again.
    // A Tab right behind a Return was lost.
    bool typing = io.WantTextInput && !m_editJustEnded;
    m_editJustEnded = false;
    // The world takes clicks and the wheel only in its own rectangle, and never through a
    // window or a popup of ImGui's.
    const auto inWorld = [&](float x, float y) {
        return !io.WantCaptureMouse && !ui.contains(x, y) && screen.worldView().contains(x, y);
    };
    for (const SDL_Event& event : m_events) {
        if (isKey(event)) m_mods = event.key.keysym.mod;  // as of this event, for the clicks after it
        switch (event.type) {
            case SDL_QUIT:
                m_quit = true;
                break;
            case SDL_KEYDOWN: {
                if (!typing) {
                    onKey(event.key, lab, commands, requests, overlays, queries, screen);
                    break;
                }
                const SDL_Keycode code = event.key.keysym.sym;
                if (code == SDLK_RETURN || code == SDLK_KP_ENTER || code == SDLK_ESCAPE) {
                    typing = false;
                    m_editJustEnded = true;
                }
                break;
            }
            case SDL_MOUSEBUTTONDOWN: {
                const bool onUi = !inWorld(static_cast<float>(event.button.x), static_cast<float>(event.button.y));
                onMouse(event, lab, commands, queries, screen, onUi);
                break;
            }
            case SDL_MOUSEMOTION:
                // A spray or drag started in the world continues over the UI.
                onMouse(event, lab, commands, queries, screen, false);
                break;
            case SDL_MOUSEBUTTONUP:
                onMouse(event, lab, commands, queries, screen, false);
                break;
            case SDL_MOUSEWHEEL: {
                if (!inWorld(m_pointer.x, m_pointer.y)) break;
                const auto notches = static_cast<float>(event.wheel.y);
                if (notches != 0.0f) screen.zoomAt(m_pointer.x, m_pointer.y, std::pow(kZoomPerNotch, notches));
                break;
            }
            default:
                break;
        }
    }
    // The point query follows the cursor while it is over the world, not the UI; from where
    // the pointer is after this frame's events and the view they left (F, a pan or a zoom
    // under a still pointer moves the world under it).
    const float x = m_pointer.x, y = m_pointer.y;
    const Vec2 p = screen.view().toWorld(x, y);
    const bool overWorld = m_pointer.known && m_pointer.inWindow && inWorld(x, y) && lab.world().config().bounds.contains(p);
    queries.hover(overWorld ? std::optional<Vec2>(p) : std::nullopt);
}

void Input::onKey(const SDL_KeyboardEvent& key, const Lab& lab, CommandQueue& commands, WindowRequests& requests,
                  OverlayFlags& overlays, QueryTool& queries, Screen& screen) {
    const SDL_Keycode code = key.keysym.sym;
    // Holding a step key steps repeatedly; every other key acts once per press.
    if (code == SDLK_SPACE || code == SDLK_n) {
        commands.push(Command::step());
        return;
    }
    if (key.repeat != 0) return;
    switch (code) {
        case SDLK_ESCAPE:
            // With a list or tooltip popup open, Esc is ImGui's (it closes it), not the clock's.
            if (!ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) commands.push(Command::togglePause());
            break;
        case SDLK_g: overlays.grid = !overlays.grid; break;
        case SDLK_p: overlays.pairs = !overlays.pairs; break;
        case SDLK_b: overlays.bounds = !overlays.bounds; break;
        case SDLK_TAB: commands.push(Command::stepTechnique((key.keysym.mod & KMOD_SHIFT) != 0 ? -1 : +1)); break;
        case SDLK_c: queries.clear(); break;
        case SDLK_z:
            if ((key.keysym.mod & KMOD_CTRL) != 0) commands.push(Command::undo());
            break;
        case SDLK_f:
        case SDLK_HOME:
            screen.resetCamera();
            screen.limitOverdraw(lab.world());
            break;
        case SDLK_h: m_uiHidden = !m_uiHidden; break;
        case SDLK_F12: requests.push(WindowRequest::screenshot()); break;
        case SDLK_q: m_quit = true; break;
        default: break;
    }
}

void Input::onMouse(const SDL_Event& event, const Lab& lab, CommandQueue& commands, QueryTool& queries, Screen& screen,
                    bool onUi) {
    const ViewTransform& view = screen.view();
    const Uint16 mods = m_mods;
    const bool left = event.button.button == SDL_BUTTON_LEFT;
    const bool right = event.button.button == SDL_BUTTON_RIGHT;
    const bool middle = event.button.button == SDL_BUTTON_MIDDLE;
    if (event.type == SDL_MOUSEBUTTONDOWN) {
        if (onUi) return;  // a press on the panel or HUD never reaches the world
        const Vec2 p = view.toWorld(static_cast<float>(event.button.x), static_cast<float>(event.button.y));
        if (left && (mods & (KMOD_SHIFT | KMOD_CTRL)) != 0) {
            queries.beginDrag((mods & KMOD_CTRL) != 0 ? QueryTool::Shape::Ray : QueryTool::Shape::Box, p);
        } else if (left) {
            spawn(lab, commands, view, event.button.x, event.button.y);
            m_spraying = true;
        } else if (right || middle) {
            m_rightDown = right;
            m_panning = middle;
            m_rightDownX = m_panX = event.button.x;
            m_rightDownY = m_panY = event.button.y;
        }
        return;
    }
    if (event.type == SDL_MOUSEMOTION) {
        const int x = event.motion.x, y = event.motion.y;
        if (queries.dragging()) queries.drag(view.toWorld(static_cast<float>(x), static_cast<float>(y)));
        if (m_rightDown && !m_panning) {
            const int dx = x - m_rightDownX, dy = y - m_rightDownY;
            m_panning = dx * dx + dy * dy > kDragThreshold * kDragThreshold;
        }
        if (m_panning) {
            screen.pan(static_cast<float>(x - m_panX), static_cast<float>(y - m_panY));
            m_panX = x;
            m_panY = y;
        }
        if (m_spraying && (event.motion.state & SDL_BUTTON_LMASK) != 0) {
            const int dx = x - m_lastSpawnX, dy = y - m_lastSpawnY;
            if (dx * dx + dy * dy > kSprayDistance * kSprayDistance) spawn(lab, commands, view, x, y);
        }
        return;
    }
    // Button up.
    if (left && queries.dragging()) {
        queries.drag(view.toWorld(static_cast<float>(event.button.x), static_cast<float>(event.button.y)));
        queries.endDrag();
    }
    if (left) m_spraying = false;
    if (right && m_rightDown) {
        // A right click that did not drag removes the entity where it was pressed.
        if (!m_panning)
            commands.push(
                Command::remove(view.toWorld(static_cast<float>(m_rightDownX), static_cast<float>(m_rightDownY))));
        m_rightDown = false;
        m_panning = false;
    }
    if (middle) m_panning = false;
}

void Input::spawn(const Lab& lab, CommandQueue& commands, const ViewTransform& view, int x, int y) {
    m_lastSpawnX = x;
    m_lastSpawnY = y;
    const Vec2 p = view.toWorld(static_cast<float>(x), static_cast<float>(y));
    if (lab.world().config().bounds.contains(p)) commands.push(Command::spawn(p));
}

}  // namespace ro::app

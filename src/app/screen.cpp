#include "app/screen.h"

#include <fmt/core.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "app/palette.h"

namespace ro::app {

Screen::UnitPolygon Screen::makeUnitPolygon(int count) {
    UnitPolygon polygon;
    polygon.count = std::min<int>(count, static_cast<int>(polygon.x.size()));
    for (int k = 0; k < polygon.count; ++k) {
        const double angle = 2.0 * std::numbers::pi * k / polygon.count;
        polygon.x[k] = static_cast<float>(std::cos(angle));
        polygon.y[k] = static_cast<float>(std::sin(angle));
    }
    return polygon;
}

Screen::Screen(const char* title, int width, int height) {
    // Lines as lines: SDL's default turns each line into points on the CPU, which costs a
    // vertex per pixel for the long lines of the pair and AABB overlays.
    SDL_SetHint(SDL_HINT_RENDER_LINE_METHOD, "2");
    // SDL's SIGINT/SIGTERM handlers only queue SDL_QUIT, read between frames: the app's own
    // (stop_signal.h) end a long step at once.
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) throw std::runtime_error(fmt::format("SDL_Init: {}", SDL_GetError()));
    m_window = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, width, height,
                                SDL_WINDOW_RESIZABLE);
    if (!m_window) {
        const std::string error = SDL_GetError();
        SDL_Quit();
        throw std::runtime_error(fmt::format("SDL_CreateWindow: {}", error));
    }
    m_renderer = SDL_CreateRenderer(m_window, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
    // No GPU (Xvfb, offscreen, dummy): the software renderer draws the same frames.
    if (!m_renderer) m_renderer = SDL_CreateRenderer(m_window, -1, SDL_RENDERER_SOFTWARE);
    if (!m_renderer) {
        const std::string error = SDL_GetError();
        SDL_DestroyWindow(m_window);
        SDL_Quit();
        throw std::runtime_error(fmt::format("SDL_CreateRenderer: {}", error));
    }
}

Screen::~Screen() {
    SDL_DestroyRenderer(m_renderer);
    SDL_DestroyWindow(m_window);
    SDL_Quit();
}

void Screen::fitView(const Aabb& worldBounds) {
    int width = 0;
    int height = 0;
    SDL_GetRendererOutputSize(m_renderer, &width, &height);
    const float scale = std::min(static_cast<float>(width) / worldBounds.width(),
                                 static_cast<float>(height) / worldBounds.height());
    const float floorWidth = worldBounds.width() * scale;
    const float floorHeight = worldBounds.height() * scale;
    m_view = {scale, 0.5f * (static_cast<float>(width) - floorWidth), 0.5f * (static_cast<float>(height) - floorHeight),
              worldBounds.minX, worldBounds.minY};
    m_floor = {m_view.offsetX, m_view.offsetY, floorWidth, floorHeight};
}

void Screen::beginFrame() {
    // Floor and entities are opaque: without blending the software renderer copies pixels.
    SDL_SetRenderDrawBlendMode(m_renderer, SDL_BLENDMODE_NONE);
    palette::setDrawColor(m_renderer, palette::kBackground);
    SDL_RenderClear(m_renderer);
    // The world's floor, a shade lighter than the margins, shows where the walls are.
    palette::setDrawColor(m_renderer, palette::kWorldFloor);
    SDL_RenderFillRectF(m_renderer, &m_floor);
}

void Screen::drawEntities(const World& world) {
    const auto posX = world.posX();
    const auto posY = world.posY();
    const auto halfW = world.halfW();
    const auto halfH = world.halfH();
    const auto shapes = world.shapes();
    const auto overlapping = world.overlapping();
    const float scale = m_view.scale;

    m_entities.clear();
    m_entities.reserveQuads(world.size());
    for (std::uint32_t i = 0; i < world.size(); ++i) {
        const bool circle = shapes[i] == Shape::Circle;
        const bool dark = i < overlapping.size() && overlapping[i] != 0;
        const SDL_Color color = circle ? (dark ? palette::kCircleOverlap : palette::kCircle)
                                       : (dark ? palette::kBoxOverlap : palette::kBox);
        const float cx = m_view.toScreenX(posX[i]);
        const float cy = m_view.toScreenY(posY[i]);
        const float hw = halfW[i] * scale;
        const float hh = halfH[i] * scale;
        // A circle under two pixels across is indistinguishable from a square, and cheaper.
        if (circle && hw >= 1.0f) {
            const UnitPolygon& polygon = hw < 3.0f ? m_small : (hw < 8.0f ? m_medium : m_large);
            m_entities.addPolygon(cx, cy, hw, polygon.x.data(), polygon.y.data(), polygon.count, color);
        } else {
            m_entities.addRect(cx - hw, cy - hh, cx + hw, cy + hh, color);
        }
    }
    m_entities.draw(m_renderer);
}

bool Screen::saveScreenshot(const std::string& path) const {
    int width = 0;
    int height = 0;
    if (SDL_GetRendererOutputSize(m_renderer, &width, &height) != 0) return false;
    std::vector<unsigned char> pixels(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
    if (SDL_RenderReadPixels(m_renderer, nullptr, SDL_PIXELFORMAT_RGB24, pixels.data(), width * 3) != 0) return false;
    // stbi_write_png checks neither its writes nor the close (a full disk passed for a PNG):
    // the PNG is made in memory and written here, every step checked.
    std::string png;
    auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
    };
    if (stbi_write_png_to_func(append, &png, width, height, 3, pixels.data(), width * 3) == 0) return false;
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file) return false;
    const bool written = std::fwrite(png.data(), 1, png.size(), file) == png.size();
    return std::fclose(file) == 0 && written;
}

const char* Screen::rendererName() const {
    SDL_RendererInfo info{};
    return SDL_GetRendererInfo(m_renderer, &info) == 0 && info.name ? info.name : "unknown";
}

void Screen::present() { SDL_RenderPresent(m_renderer); }

}  // namespace ro::app

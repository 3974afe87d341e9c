#include "app/screen.h"

#include <bit>
#include <fmt/core.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "app/palette.h"
#include "core/box_helpers.h"
#include "files/safe_file.h"

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
    // When no display answers, SDL falls back to its offscreen driver: a window nobody sees,
    // running until killed. Only a person who asked for that (SDL_VIDEODRIVER) gets it.
    const std::string_view driver = SDL_GetCurrentVideoDriver() ? SDL_GetCurrentVideoDriver() : "";
    if (!SDL_getenv("SDL_VIDEODRIVER") && (driver == "offscreen" || driver == "dummy")) {
        const char* display = SDL_getenv("DISPLAY");
        SDL_Quit();
        throw std::runtime_error(fmt::format(
            "no display to open a window on (DISPLAY={}); for a run without a window set SDL_VIDEODRIVER=offscreen",
            display ? display : "unset"));
    }
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

namespace {

// Zoom range over the fitted view: from a quarter of the world's size to 10,000 times it.
constexpr float kMinZoom = Camera::kMinZoom;
constexpr float kMaxZoom = Camera::kMaxZoom;
/// Entities under this half-size in pixels go through the raster (8 px across or less): a
/// software triangle costs more than the few pixels of a small entity.
constexpr float kRasterBelowHalfPixels = 4.0f;

/// A screen coordinate kept a pixel beyond [0, limit]: SDL gets no huge floats when zoomed in.
float clipToOutput(float v, int limit) { return std::clamp(v, -1.0f, static_cast<float>(limit) + 1.0f); }

}  // namespace

void Screen::fitView(const Aabb& worldBounds) {
    // Walls that moved or grew (a preset's scene at another count: onecell's square sits in
    // the middle of a world that grows with it) keep a placed camera where it was among them.
    if (m_centred && !sameBox(worldBounds, m_worldBounds) && m_worldBounds.width() > 0.0f && m_worldBounds.height() > 0.0f)
        m_center = {worldBounds.minX + (m_center.x - m_worldBounds.minX) / m_worldBounds.width() * worldBounds.width(),
                    worldBounds.minY + (m_center.y - m_worldBounds.minY) / m_worldBounds.height() * worldBounds.height()};
    m_worldBounds = worldBounds;
    int width = 0;
    int height = 0;
    SDL_GetRendererOutputSize(m_renderer, &width, &height);
    m_outputWidth = std::max(width, 1);
    m_outputHeight = std::max(height, 1);
    // The layout's rectangle, kept inside the output (a resize may come before the next layout).
    const Rect output{0.0f, 0.0f, static_cast<float>(m_outputWidth), static_cast<float>(m_outputHeight)};
    if (m_area.empty()) {
        m_viewRect = output;
    } else {
        const float x0 = std::clamp(m_area.x, 0.0f, output.w), y0 = std::clamp(m_area.y, 0.0f, output.h);
        m_viewRect = {x0, y0, std::max(std::min(m_area.right(), output.w) - x0, 1.0f),
                      std::max(std::min(m_area.bottom(), output.h) - y0, 1.0f)};
    }
    const float fitted = std::min(m_viewRect.w / worldBounds.width(), m_viewRect.h / worldBounds.height());
    if (!m_centred) m_center = {0.5f * (worldBounds.minX + worldBounds.maxX), 0.5f * (worldBounds.minY + worldBounds.maxY)};
    const float scale = fitted * m_zoom;
    // The camera's centre sits at the world rectangle's centre.
    const float midX = m_viewRect.x + 0.5f * m_viewRect.w, midY = m_viewRect.y + 0.5f * m_viewRect.h;
    m_view = {scale, midX - (m_center.x - worldBounds.minX) * scale, midY - (m_center.y - worldBounds.minY) * scale,
              worldBounds.minX, worldBounds.minY};
    const float x0 = clipToOutput(m_view.toScreenX(worldBounds.minX), m_outputWidth);
    const float y0 = clipToOutput(m_view.toScreenY(worldBounds.minY), m_outputHeight);
    const float x1 = clipToOutput(m_view.toScreenX(worldBounds.maxX), m_outputWidth);
    const float y1 = clipToOutput(m_view.toScreenY(worldBounds.maxY), m_outputHeight);
    m_floor = {x0, y0, x1 - x0, y1 - y0};
}

void Screen::zoomAt(float px, float py, float factor) {
    const Vec2 anchor = m_view.toWorld(px, py);
    const float zoom = std::clamp(m_zoom * factor, kMinZoom, kMaxZoom);
    const float scale = m_view.scale / m_zoom * zoom;
    // The anchor stays at (px, py): solve the centre from toScreen(anchor) = (px, py).
    m_center = {anchor.x - (px - (m_viewRect.x + 0.5f * m_viewRect.w)) / scale,
                anchor.y - (py - (m_viewRect.y + 0.5f * m_viewRect.h)) / scale};
    m_zoom = zoom;
    m_centred = true;
    // Several wheel notches or pans in one frame each start from the view the last one left.
    fitView(m_worldBounds);
}

void Screen::pan(float dx, float dy) {
    if (!m_centred) m_center = m_view.toWorld(m_viewRect.x + 0.5f * m_viewRect.w, m_viewRect.y + 0.5f * m_viewRect.h);
    m_center.x -= dx / m_view.scale;
    m_center.y -= dy / m_view.scale;
    m_centred = true;
    fitView(m_worldBounds);
}

void Screen::setCamera(const Camera& camera, const Aabb& worldBounds) {
    m_zoom = std::clamp(camera.zoom, kMinZoom, kMaxZoom);
    m_centred = camera.centre.has_value();
    if (camera.centre) m_center = *camera.centre;
    m_worldBounds = worldBounds;  // the centre is in these walls' world: nothing to carry over
    fitView(worldBounds);
}

void Screen::resetCamera() {
    m_zoom = 1.0f;
    m_centred = false;
}

void Screen::limitOverdraw(const World& world) {
    fitView(world.config().bounds);
    const Rect area = m_viewRect;
    const double budget = kMaxOverdraw * static_cast<double>(area.w) * area.h;
    const auto posX = world.posX(), posY = world.posY(), halfW = world.halfW(), halfH = world.halfH();
    // Zooming out brings more entities on screen: a few rounds settle it.
    for (int round = 0; round < 4 && m_zoom > kMinZoom; ++round) {
        double covered = 0.0;
        for (std::uint32_t i = 0; i < world.size(); ++i) {
            const float cx = m_view.toScreenX(posX[i]), cy = m_view.toScreenY(posY[i]);
            const float hw = halfW[i] * m_view.scale, hh = halfH[i] * m_view.scale;
            const float w = std::min(cx + hw, area.right()) - std::max(cx - hw, area.x);
            const float h = std::min(cy + hh, area.bottom()) - std::max(cy - hh, area.y);
            if (w > 0.0f && h > 0.0f) covered += static_cast<double>(w) * h;
        }
        if (covered <= budget) break;
        m_zoom = std::max(kMinZoom, m_zoom * static_cast<float>(std::sqrt(budget / covered)));
        fitView(m_worldBounds);
    }
}

void Screen::measureBig(const World& world) {
    // The median of at most 1,024 entities spread over the arrays: enough to tell a few
    // big ones from the crowd, and cheap at a million.
    constexpr std::uint32_t kSample = 1024;
    const auto halfW = world.halfW(), halfH = world.halfH();
    const std::uint32_t n = world.size();
    m_bigHalf = std::numeric_limits<float>::infinity();
    if (n < 2) return;
    const std::uint32_t taken = std::min(n, kSample);
    m_sizeSample.resize(taken);
    for (std::uint32_t k = 0; k < taken; ++k) {
        const std::uint32_t i = static_cast<std::uint32_t>(static_cast<std::uint64_t>(k) * n / taken);
        m_sizeSample[k] = std::max(halfW[i], halfH[i]);
    }
    const auto middle = m_sizeSample.begin() + taken / 2;
    std::nth_element(m_sizeSample.begin(), middle, m_sizeSample.end());
    if (*middle > 0.0f) m_bigHalf = kBigSides * *middle;
}

void Screen::beginFrame(const World& world, bool linesOver) {
    measureBig(world);
    // The raster pays off once an entity is a few pixels across: pick it when the smallest is.
    float smallest = std::numeric_limits<float>::infinity();
    const auto halfW = world.halfW();
    const auto halfH = world.halfH();
    for (std::uint32_t i = 0; i < world.size(); ++i) smallest = std::min(smallest, std::min(halfW[i], halfH[i]));
    m_rasterFrame = m_drawPath == DrawPath::Raster ||
                    (m_drawPath == DrawPath::Auto && smallest * m_view.scale < kRasterBelowHalfPixels);
    // Entities drawn as geometry come after the raster and its lines, and would cover them (the
    // mixed preset's big boxes hid every AABB outline but their blob's edge).
    m_everyOneRasterized = m_drawPath == DrawPath::Raster || (m_rasterFrame && linesOver);
    // The whole window cleared (a clear ignores the clip), then nothing of the world is drawn
    // outside its rectangle: not under a window, nor in a gap between them.
    SDL_SetRenderDrawBlendMode(m_renderer, SDL_BLENDMODE_NONE);
    palette::setDrawColor(m_renderer, palette::kBackground);
    SDL_RenderClear(m_renderer);
    const SDL_Rect clip{static_cast<int>(m_viewRect.x), static_cast<int>(m_viewRect.y), static_cast<int>(m_viewRect.w),
                        static_cast<int>(m_viewRect.h)};
    SDL_RenderSetClipRect(m_renderer, &clip);
    if (m_rasterFrame) {
        m_raster.begin(m_outputWidth, m_outputHeight, m_floor, palette::kBackground, palette::kWorldFloor);
        // The density view outlines the larger entities in the raster: filled geometry would hide it.
        m_everyOneRasterized |= m_raster.densityView();
        return;
    }
    // The world's floor, a shade lighter than the margins, shows where the walls are.
    palette::setDrawColor(m_renderer, palette::kWorldFloor);
    SDL_RenderFillRectF(m_renderer, &m_floor);
}

void Screen::endWorld() { SDL_RenderSetClipRect(m_renderer, nullptr); }

void Screen::drawEntities(const World& world) {
    const auto posX = world.posX();
    const auto posY = world.posY();
    const auto halfW = world.halfW();
    const auto halfH = world.halfH();
    const auto shapes = world.shapes();
    const auto overlapping = world.overlapping();
    // With collision filters, entities are coloured by layer (the lowest bit of their category).
    const bool byLayer = world.hasFilters();
    const auto category = world.category();
    m_raster.colourByLayer(byLayer);
    const float scale = m_view.scale;
    const Rect area = m_viewRect;  // what lies outside is under a window, or off the window
    const bool everyOneRasterized = m_everyOneRasterized;

    m_drawn = {};
    m_entities.clear();
    m_bigFills.clear();
    m_bigOutlines.clear();
    for (std::uint32_t i = 0; i < world.size(); ++i) {
        const float cx = m_view.toScreenX(posX[i]);
        const float cy = m_view.toScreenY(posY[i]);
        const float hw = halfW[i] * scale;
        const float hh = halfH[i] * scale;
        if (cx + hw < area.x || cx - hw > area.right() || cy + hh < area.y || cy - hh > area.bottom()) {
            ++m_drawn.offScreen;
            continue;
        }
        const bool circle = shapes[i] == Shape::Circle;
        const bool dark = i < overlapping.size() && overlapping[i] != 0;
        // The common case at a million entities, kept free of branches on shape and overlap.
        const std::uint32_t layer = byLayer ? static_cast<std::uint32_t>(std::countr_zero(category[i] | 0x8u)) : 0u;
        const std::uint8_t kind = byLayer ? EntityRaster::layerKindOf(layer, dark) : EntityRaster::kindOf(circle, dark);
        if (outlinedBig(halfW[i], halfH[i])) {
            addBig(cx, cy, hw, hh, circle, entityColour(circle, dark, byLayer ? layer : kNoLayer));
            ++(m_rasterFrame && everyOneRasterized ? m_drawn.rasterized : m_drawn.geometry);
            continue;
        }
        if (m_rasterFrame && hw < EntityRaster::kDotHalfPixels && hh < EntityRaster::kDotHalfPixels) {
            m_raster.addDot(cx, cy, kind);
            ++m_drawn.rasterized;
            continue;
        }
        if (m_rasterFrame && (everyOneRasterized || std::max(hw, hh) < kRasterBelowHalfPixels)) {
            m_raster.addEntity(cx, cy, hw, hh, circle, kind);
            ++m_drawn.rasterized;
            continue;
        }
        ++m_drawn.geometry;
        const SDL_Color color = entityColour(circle, dark, byLayer ? layer : kNoLayer);
        // A circle under two pixels across is indistinguishable from a square, and cheaper.
        if (circle && hw >= 1.0f) {
            const UnitPolygon& polygon = hw < 3.0f ? m_small : (hw < 8.0f ? m_medium : m_large);
            m_entities.addPolygon(cx, cy, hw, polygon.x.data(), polygon.y.data(), polygon.count, color);
        } else {
            m_entities.addRect(cx - hw, cy - hh, cx + hw, cy + hh, color);
        }
    }
    if (m_rasterFrame) m_raster.draw(m_renderer);
    m_drawn.density = m_rasterFrame && m_raster.densityView();
    SDL_SetRenderDrawBlendMode(m_renderer, SDL_BLENDMODE_BLEND);
    m_bigFills.draw(m_renderer);
    SDL_SetRenderDrawBlendMode(m_renderer, SDL_BLENDMODE_NONE);
    m_entities.draw(m_renderer);
    m_bigOutlines.draw(m_renderer);
}

SDL_Color Screen::entityColour(bool circle, bool overlapping, std::uint32_t layer) {
    if (layer == kNoLayer)
        return circle ? (overlapping ? palette::kCircleOverlap : palette::kCircle)
                      : (overlapping ? palette::kBoxOverlap : palette::kBox);
    const SDL_Color c = palette::kLayers[layer];
    if (!overlapping) return c;
    return {static_cast<std::uint8_t>(c.r / 2), static_cast<std::uint8_t>(c.g / 2), static_cast<std::uint8_t>(c.b / 2), 255};
}

void Screen::addBig(float cx, float cy, float hw, float hh, bool circle, SDL_Color color) {
    SDL_Color faint = color;
    faint.a = kBigFillAlpha;
    if (m_rasterFrame && m_everyOneRasterized) {
        // Into the raster, under and over its entities; a circle's outline is its box's.
        m_raster.shadeRect(cx - hw, cy - hh, cx + hw, cy + hh, faint);
        m_raster.addOutline(cx - hw, cy - hh, cx + hw, cy + hh, color);
        return;
    }
    if (circle) {
        const UnitPolygon& polygon = m_large;
        m_bigFills.addPolygon(cx, cy, hw, polygon.x.data(), polygon.y.data(), polygon.count, faint);
        for (int k = 0; k < polygon.count; ++k) {
            const int next = (k + 1) % polygon.count;
            m_bigOutlines.addLine(cx + hw * polygon.x[k], cy + hw * polygon.y[k], cx + hw * polygon.x[next],
                                  cy + hw * polygon.y[next], kBigOutlineWidth, color);
        }
        return;
    }
    m_bigFills.addRect(cx - hw, cy - hh, cx + hw, cy + hh, faint);
    const float w = kBigOutlineWidth;
    m_bigOutlines.addRect(cx - hw, cy - hh, cx + hw, cy - hh + w, color);
    m_bigOutlines.addRect(cx - hw, cy + hh - w, cx + hw, cy + hh, color);
    m_bigOutlines.addRect(cx - hw, cy - hh, cx - hw + w, cy + hh, color);
    m_bigOutlines.addRect(cx + hw - w, cy - hh, cx + hw, cy + hh, color);
}

bool Screen::saveScreenshot(const std::string& path, const SDL_Rect* area) const {
    int outputWidth = 0;
    int outputHeight = 0;
    if (SDL_GetRendererOutputSize(m_renderer, &outputWidth, &outputHeight) != 0) return false;
    SDL_Rect rect{0, 0, outputWidth, outputHeight};
    if (area) {
        // Window pixels to output pixels (they differ on a high-density display).
        int windowWidth = 0, windowHeight = 0;
        SDL_GetWindowSize(m_window, &windowWidth, &windowHeight);
        const double sx = windowWidth > 0 ? static_cast<double>(outputWidth) / windowWidth : 1.0;
        const double sy = windowHeight > 0 ? static_cast<double>(outputHeight) / windowHeight : 1.0;
        const SDL_Rect scaled{static_cast<int>(area->x * sx), static_cast<int>(area->y * sy),
                              static_cast<int>(area->w * sx), static_cast<int>(area->h * sy)};
        const SDL_Rect whole = rect;
        if (!SDL_IntersectRect(&scaled, &whole, &rect)) return false;
    }
    const int width = rect.w, height = rect.h;
    std::vector<unsigned char> pixels(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
    if (SDL_RenderReadPixels(m_renderer, &rect, SDL_PIXELFORMAT_RGB24, pixels.data(), width * 3) != 0) return false;
    // stbi_write_png checks neither its writes nor the close (a full disk passed for a PNG):
    // the PNG is made in memory and written here, every step checked.
    std::string png;
    auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
    };
    if (stbi_write_png_to_func(append, &png, width, height, 3, pixels.data(), width * 3) == 0) return false;
    try {
        files::writeOutputFile(path, png);
        return true;
    } catch (const files::FileError&) {
        return false;
    }
}

const char* Screen::rendererName() const {
    SDL_RendererInfo info{};
    return SDL_GetRendererInfo(m_renderer, &info) == 0 && info.name ? info.name : "unknown";
}

void Screen::present() { SDL_RenderPresent(m_renderer); }

}  // namespace ro::app

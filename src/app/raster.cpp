#include "app/raster.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "app/palette.h"

namespace ro::app {
namespace {

std::uint32_t argb(SDL_Color c) {
    return 0xff000000u | static_cast<std::uint32_t>(c.r) << 16 | static_cast<std::uint32_t>(c.g) << 8 | c.b;
}

/// `c` moved toward white by `t` in [0, 1].
SDL_Color lighten(SDL_Color c, float t) {
    auto toward = [t](Uint8 v) { return static_cast<Uint8>(static_cast<float>(v) + (255.0f - static_cast<float>(v)) * t); };
    return {toward(c.r), toward(c.g), toward(c.b), 255};
}

/// `c` blended over an opaque ARGB8888 pixel with c's alpha.
void blend(std::uint32_t& pixel, SDL_Color c) {
    const std::uint32_t a = c.a, keep = 255 - a;
    const std::uint32_t r = (((pixel >> 16) & 0xff) * keep + c.r * a) / 255;
    const std::uint32_t g = (((pixel >> 8) & 0xff) * keep + c.g * a) / 255;
    const std::uint32_t b = ((pixel & 0xff) * keep + c.b * a) / 255;
    pixel = 0xff000000u | r << 16 | g << 8 | b;
}

/// The pixel an edge at `edge` starts (or, as an end, stops) at, clamped to [0, limit]: SDL's
/// software triangles truncate their vertices to whole pixels, so a box covers
/// [floor(min), floor(max)) and both paths light the same pixels for the same box.
int firstPixelFrom(float edge, int limit) {
    // Clamped first, so the conversion is defined (NaN to 0); for x >= 0 truncation is floor.
    if (!(edge >= 0.0f)) return 0;
    return static_cast<int>(std::min(edge, static_cast<float>(limit)));
}

}  // namespace

EntityRaster::~EntityRaster() {
    if (m_texture) SDL_DestroyTexture(m_texture);
}

void EntityRaster::begin(int width, int height, const SDL_FRect& floor, SDL_Color background, SDL_Color floorColor) {
    if (m_colors.empty()) buildColorTable();
    width = std::max(width, 1);
    height = std::max(height, 1);
    const auto pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    m_lines.clear();
    m_topLines.clear();
    m_small = m_all = 0;
    // The layer below the entities is redrawn only when it changed: a paused or unzoomed view
    // without cells keeps it from frame to frame.
    const Below below{width, height, floor.x, floor.y, floor.w, floor.h, argb(background), argb(floorColor)};
    if (!m_belowShaded && below == m_belowDrawn) {
        std::fill(m_coverage.begin(), m_coverage.end(), std::uint8_t{0});
        return;
    }
    m_width = width;
    m_height = height;
    // Sized once per output size: steady frames do not allocate.
    m_below.resize(pixels);
    m_coverage.assign(pixels, 0);
    std::fill(m_below.begin(), m_below.end(), below.background);
    const int x0 = firstPixelFrom(floor.x, width), x1 = firstPixelFrom(floor.x + floor.w, width);
    const int y0 = firstPixelFrom(floor.y, height), y1 = firstPixelFrom(floor.y + floor.h, height);
    for (int y = y0; y < y1; ++y) {
        std::uint32_t* row = m_below.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(width);
        std::fill(row + x0, row + x1, below.floor);
    }
    m_belowDrawn = below;
    m_belowShaded = false;
}

void EntityRaster::chooseView() {
    m_density = m_small >= kDensityMinEntities && 2ull * m_small > m_all;
    if (!m_density) return;
    // Squares of about 16 entities at the frame's mean: a ramp over counts of 0 to 3 per pixel
    // would be as noisy as the shapes.
    const double perPixel = static_cast<double>(m_small) / (static_cast<double>(m_width) * m_height);
    const int side = perPixel >= 8.0 ? 1 : perPixel >= 2.0 ? 2 : perPixel >= 0.5 ? 4 : 8;
    if (side == m_binSide) return;
    m_binSide = side;
    // A square's sum: at most 15 per pixel. One entity in the square is the ramp's bottom,
    // kDensityTop a pixel its top, on a log scale.
    const int most = 15 * side * side;
    m_densityColors.assign(static_cast<std::size_t>(most) + 1, 0u);
    const double top = std::log(kDensityTop * side * side);
    for (int sum = 1; sum <= most; ++sum) {
        const auto t = static_cast<float>(std::min(1.0, std::log(static_cast<double>(sum)) / top));
        m_densityColors[static_cast<std::size_t>(sum)] = argb(palette::lerpColour(palette::kDensityLow, palette::kDensityHigh, t));
    }
}

void EntityRaster::shadeRect(float x0, float y0, float x1, float y1, SDL_Color color) {
    m_belowShaded = true;
    // Under a pixel (a million cells): the pixel of its top-left corner, blended once.
    if (x1 - x0 < 1.0f && y1 - y0 < 1.0f) {
        if (x0 >= 0.0f && y0 >= 0.0f && x0 < static_cast<float>(m_width) && y0 < static_cast<float>(m_height))
            blend(m_below[static_cast<std::size_t>(y0) * static_cast<std::size_t>(m_width) + static_cast<std::size_t>(x0)],
                  color);
        return;
    }
    const int px0 = firstPixelFrom(x0, m_width), px1 = firstPixelFrom(x1, m_width);
    const int py0 = firstPixelFrom(y0, m_height), py1 = firstPixelFrom(y1, m_height);
    for (int y = py0; y < py1; ++y) {
        std::uint32_t* row = m_below.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(m_width);
        for (int x = px0; x < px1; ++x) blend(row[x], color);
    }
}

void EntityRaster::cover(int x0, int y0, int x1, int y1, std::uint8_t kind) {
    for (int y = y0; y < y1; ++y) {
        std::uint8_t* row = m_coverage.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(m_width);
        // Like an opaque quad: the entity drawn last decides the colour, and the count does not
        // grow (density shading is for entities under a pixel, see addDot).
        for (int x = x0; x < x1; ++x) {
            const std::uint8_t count = row[x] & kCountMask;
            row[x] = static_cast<std::uint8_t>(kind | (count == 0 ? 1 : count));
        }
    }
}

void EntityRaster::addEntity(float cx, float cy, float hw, float hh, bool circle, bool overlapping) {
    static_assert(kHasBox << 1 == kHasCircle && kHasOverlap == 1 << 6, "kindOf shifts into these bits");
    addEntity(cx, cy, hw, hh, circle, kindOf(circle, overlapping));
}

void EntityRaster::addEntity(float cx, float cy, float hw, float hh, bool circle, std::uint8_t kind) {
    if ((hw < kDotHalfPixels && hh < kDotHalfPixels) || (m_density && hw < kOutlineHalfPixels && hh < kOutlineHalfPixels)) {
        addDot(cx, cy, kind);
        return;
    }
    ++m_all;
    if (hw < kSmallHalfPixels && hh < kSmallHalfPixels) ++m_small;
    if (m_density) {
        // Faint: the mixed preset's big boxes cover its world several times over.
        SDL_Color c = circle ? palette::kCircle : palette::kBox;
        c.a = kOutlineAlpha;
        addOutline(cx - hw, cy - hh, cx + hw, cy + hh, c);
        return;
    }
    if (circle && hw >= 1.5f) {
        // Row by row, the pixels whose centres fall inside the circle, its centre moved half a
        // pixel up and left as SDL's truncated polygon vertices move it. (+0.5: the first
        // pixel whose centre is at or past the edge, as floor(edge + 0.5) for non-negative edges.)
        const float sx = cx - 0.5f, sy = cy - 0.5f;
        const int y0 = firstPixelFrom(sy - hw + 0.5f, m_height), y1 = firstPixelFrom(sy + hw + 0.5f, m_height);
        for (int y = y0; y < y1; ++y) {
            const float dy = static_cast<float>(y) + 0.5f - sy;
            const float half = std::sqrt(std::max(hw * hw - dy * dy, 0.0f));
            cover(firstPixelFrom(sx - half + 0.5f, m_width), y, firstPixelFrom(sx + half + 0.5f, m_width), y + 1, kind);
        }
        return;
    }
    int x0 = firstPixelFrom(cx - hw, m_width), x1 = firstPixelFrom(cx + hw, m_width);
    int y0 = firstPixelFrom(cy - hh, m_height), y1 = firstPixelFrom(cy + hh, m_height);
    // Smaller than a pixel (no pixel centre inside): the pixel under its centre, so nothing vanishes.
    if (x0 == x1 && cx >= 0.0f && cx < static_cast<float>(m_width)) x0 = static_cast<int>(cx), x1 = x0 + 1;
    if (y0 == y1 && cy >= 0.0f && cy < static_cast<float>(m_height)) y0 = static_cast<int>(cy), y1 = y0 + 1;
    cover(x0, y0, x1, y1, kind);
}

void EntityRaster::addLine(float x0, float y0, float x1, float y1, int width, SDL_Color color, bool onTop) {
    (onTop ? m_topLines : m_lines).push_back({x0, y0, x1, y1, width, color});
}

void EntityRaster::addOutline(float x0, float y0, float x1, float y1, SDL_Color color) {
    addLine(x0, y0, x1, y0, 1, color);
    addLine(x1, y0, x1, y1, 1, color);
    addLine(x1, y1, x0, y1, 1, color);
    addLine(x0, y1, x0, y0, 1, color);
}

namespace {

/// Clips the segment to [0, w) x [0, h) (Liang-Barsky); false when nothing is left.
bool clipSegment(float& x0, float& y0, float& x1, float& y1, float w, float h) {
    float t0 = 0.0f, t1 = 1.0f;
    const float dx = x1 - x0, dy = y1 - y0;
    const float p[4] = {-dx, dx, -dy, dy};
    const float q[4] = {x0, w - 1e-3f - x0, y0, h - 1e-3f - y0};
    for (int k = 0; k < 4; ++k) {
        if (p[k] == 0.0f) {
            if (q[k] < 0.0f) return false;
            continue;
        }
        const float t = q[k] / p[k];
        if (p[k] < 0.0f) t0 = std::max(t0, t);
        else t1 = std::min(t1, t);
        if (t0 > t1) return false;
    }
    x1 = x0 + t1 * dx, y1 = y0 + t1 * dy;
    x0 = x0 + t0 * dx, y0 = y0 + t0 * dy;
    return true;
}

}  // namespace

void EntityRaster::drawLines(const std::vector<Line>& lines, std::uint32_t* pixels, int pitchPixels) const {
    const auto w = static_cast<float>(m_width), h = static_cast<float>(m_height);
    for (Line line : lines) {
        if (!(std::isfinite(line.x0) && std::isfinite(line.y0) && std::isfinite(line.x1) && std::isfinite(line.y1)))
            continue;
        if (!clipSegment(line.x0, line.y0, line.x1, line.y1, w, h)) continue;
        // One step per pixel along the longer axis; a second pixel beside it for width 2.
        const float dx = line.x1 - line.x0, dy = line.y1 - line.y0;
        const int steps = std::max(1, static_cast<int>(std::ceil(std::max(std::abs(dx), std::abs(dy)))));
        const float sx = dx / static_cast<float>(steps), sy = dy / static_cast<float>(steps);
        const bool steep = std::abs(dy) > std::abs(dx);
        float x = line.x0, y = line.y0;
        for (int k = 0; k <= steps; ++k, x += sx, y += sy) {
            const int px = std::clamp(static_cast<int>(x), 0, m_width - 1);
            const int py = std::clamp(static_cast<int>(y), 0, m_height - 1);
            blend(pixels[static_cast<std::ptrdiff_t>(py) * pitchPixels + px], line.color);
            if (line.width < 2) continue;
            const int qx = steep ? std::min(px + 1, m_width - 1) : px;
            const int qy = steep ? py : std::min(py + 1, m_height - 1);
            blend(pixels[static_cast<std::ptrdiff_t>(qy) * pitchPixels + qx], line.color);
        }
    }
}

void EntityRaster::buildColorTable() {
    m_colors.assign(kCoverageValues, 0u);
    for (int v = 1; v < kCoverageValues; ++v) {
        const int count = v & kCountMask;
        if (count == 0) continue;
        const bool circleOnly = (v & kHasCircle) != 0 && (v & kHasBox) == 0;
        const bool dark = (v & kHasOverlap) != 0;
        SDL_Color base = circleOnly ? (dark ? palette::kCircleOverlap : palette::kCircle)
                                    : (dark ? palette::kBoxOverlap : palette::kBox);
        if (m_byLayer) {  // layerKindOf: the layer + 1 in the kind bits, 0 for layer 3
            const int layer = (((v >> 4) & 3) + 3) % 4;
            base = palette::kLayers[layer];
            if (dark) base = {static_cast<std::uint8_t>(base.r / 2), static_cast<std::uint8_t>(base.g / 2),
                              static_cast<std::uint8_t>(base.b / 2), 255};
        }
        // Density: each further entity on the pixel lightens it, up to 8 of them.
        m_colors[static_cast<std::size_t>(v)] = argb(lighten(base, 0.07f * static_cast<float>(std::min(count - 1, 7))));
    }
}

void EntityRaster::draw(SDL_Renderer* renderer) {
    if (!m_texture || m_textureOwner != renderer || m_textureWidth != m_width || m_textureHeight != m_height) {
        if (m_texture) SDL_DestroyTexture(m_texture);
        m_texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING, m_width, m_height);
        if (!m_texture) throw std::runtime_error(fmt::format("SDL_CreateTexture: {}", SDL_GetError()));
        m_textureOwner = renderer;
        m_textureWidth = m_width;
        m_textureHeight = m_height;
        SDL_SetTextureBlendMode(m_texture, SDL_BLENDMODE_NONE);
    }
    // Composed straight into the texture's memory (for the software renderer, the texture
    // itself): one upload per frame without a further copy of the frame.
    void* locked = nullptr;
    int pitch = 0;
    if (SDL_LockTexture(m_texture, nullptr, &locked, &pitch) != 0)
        throw std::runtime_error(fmt::format("SDL_LockTexture: {}", SDL_GetError()));
    // This frame's entities decide its view (a single frame at a million shows the density);
    // the next frame draws its entities for it (outlines, dots) from the start.
    chooseView();
    if (m_density) {
        composeDensity(static_cast<std::uint32_t*>(locked), pitch / static_cast<int>(sizeof(std::uint32_t)));
    } else {
        composeShapes(static_cast<std::uint32_t*>(locked), pitch / static_cast<int>(sizeof(std::uint32_t)));
    }
    const int pitchPixels = pitch / static_cast<int>(sizeof(std::uint32_t));
    drawLines(m_lines, static_cast<std::uint32_t*>(locked), pitchPixels);
    drawLines(m_topLines, static_cast<std::uint32_t*>(locked), pitchPixels);
    SDL_UnlockTexture(m_texture);
    SDL_RenderCopy(renderer, m_texture, nullptr, nullptr);
}

void EntityRaster::composeShapes(std::uint32_t* pixels, int pitchPixels) const {
    const std::uint32_t* colors = m_colors.data();
    for (int y = 0; y < m_height; ++y) {
        const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(m_width);
        const std::uint8_t* coverage = m_coverage.data() + row;
        const std::uint32_t* below = m_below.data() + row;
        std::uint32_t* out = pixels + static_cast<std::ptrdiff_t>(y) * pitchPixels;
        // Branch-free select: about half the pixels are covered, in no pattern.
        for (int x = 0; x < m_width; ++x) {
            const std::uint8_t v = coverage[x];
            const std::uint32_t empty = 0u - static_cast<std::uint32_t>(v == 0);
            out[x] = (below[x] & empty) | (colors[v] & ~empty);
        }
    }
}

void EntityRaster::composeDensity(std::uint32_t* pixels, int pitchPixels) {
    const int side = m_binSide;
    const int shift = std::countr_zero(static_cast<unsigned>(side));  // sides are powers of 2: x >> shift is x / side
    const int columns = (m_width + side - 1) / side;
    const int rows = (m_height + side - 1) / side;
    m_bins.assign(static_cast<std::size_t>(columns) * static_cast<std::size_t>(rows), 0);  // capacity kept
    for (int y = 0; y < m_height; ++y) {
        const std::uint8_t* coverage = m_coverage.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(m_width);
        std::uint16_t* bins = m_bins.data() + static_cast<std::size_t>(y >> shift) * static_cast<std::size_t>(columns);
        for (int x = 0; x < m_width; ++x)
            bins[x >> shift] = static_cast<std::uint16_t>(bins[x >> shift] + (coverage[x] & kCountMask));
    }
    const std::uint32_t* colors = m_densityColors.data();
    for (int y = 0; y < m_height; ++y) {
        const std::uint32_t* below = m_below.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(m_width);
        const std::uint16_t* bins = m_bins.data() + static_cast<std::size_t>(y >> shift) * static_cast<std::size_t>(columns);
        std::uint32_t* out = pixels + static_cast<std::ptrdiff_t>(y) * pitchPixels;
        for (int x = 0; x < m_width; ++x) {
            const std::uint16_t sum = bins[x >> shift];
            out[x] = sum == 0 ? below[x] : colors[sum];
        }
    }
}

}  // namespace ro::app

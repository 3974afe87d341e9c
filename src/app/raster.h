#pragma once
/// The level of detail for entities a few pixels across: the CPU draws them into one pixel
/// buffer, composed into one streaming texture per frame and copied opaque. At a million entities this
/// costs a pass over the entities and one over the pixels, where a quad per entity cost the
/// software renderer 150 ms and more; entities large on screen stay batched geometry.
///
/// The buffer holds the whole frame below the entities: the background, the world's floor and
/// the structure overlay's cells (blended in per cell), then the entities on top, each pixel
/// coloured by what covers it: box or circle, darker when an overlapping entity covers it, and
/// lighter the more entities share it.
///
/// Density view: when most entities of the last frame were under 2 pixels across (100,000 and
/// more in the whole world), shapes and kinds are noise. The frame then counts the entities
/// per pixel, sums them over squares of a few pixels and colours each square by entities per
/// pixel on a ramp; entities 4 pixels across or more are outlined in their shape's colour, so
/// that the density under them shows.

#include <SDL.h>

#include <cstdint>
#include <vector>

namespace ro::app {

class EntityRaster {
public:
    EntityRaster() = default;
    ~EntityRaster();
    EntityRaster(const EntityRaster&) = delete;
    EntityRaster& operator=(const EntityRaster&) = delete;

    /// Starts a frame of `width` x `height` pixels: background everywhere, floor inside `floor`.
    void begin(int width, int height, const SDL_FRect& floor, SDL_Color background, SDL_Color floorColor);
    /// Blends `color` (its alpha applies) over the pixels whose centres lie in [x0, x1) x [y0, y1).
    void shadeRect(float x0, float y0, float x1, float y1, SDL_Color color);
    /// Covers the pixels of a box centred on (cx, cy) with half-size (hw, hh), or of a circle of
    /// radius hw; an entity smaller than a pixel covers the pixel of its centre.
    void addEntity(float cx, float cy, float hw, float hh, bool circle, bool overlapping);
    /// The same, coloured by `kind` (kindOf or layerKindOf) rather than by its shape.
    void addEntity(float cx, float cy, float hw, float hh, bool circle, std::uint8_t kind);
    /// Colours by collision layer (layerKindOf) rather than by shape; rebuilds the table on a change.
    void colourByLayer(bool byLayer) {
        if (byLayer != m_byLayer) m_colors.clear();
        m_byLayer = byLayer;
    }
    /// Whether the density view is on: decided by draw() from the entities of its frame, and
    /// kept for the next frame's entities (larger ones outlined, not filled).
    [[nodiscard]] bool densityView() const { return m_density; }
    /// Entities under this half-size in pixels count as under a pixel for the density view.
    static constexpr float kSmallHalfPixels = 1.0f;
    /// In the density view, entities this many pixels across or more are outlined; smaller
    /// ones count as one entity at their centre's pixel (an outline of a pixel or two is a fill).
    static constexpr float kOutlineHalfPixels = 2.0f;
    static constexpr Uint8 kOutlineAlpha = 110;
    /// At least this many small entities (and most of those drawn) for the density view: a
    /// scene of a few thousand keeps its shapes at any zoom.
    static constexpr std::uint32_t kDensityMinEntities = 50'000;
    /// The ramp's top: entities per pixel drawn white.
    static constexpr float kDensityTop = 8.0f;
    /// Entities under this half-size in pixels (on both axes) cover one pixel: see addDot.
    static constexpr float kDotHalfPixels = 0.5f;
    /// A line over the entities (overlays in a raster frame), blended with `color`'s alpha,
    /// `width` 1 or 2 pixels; drawn by draw() after the entities, clipped to the output, and
    /// after every other line when `onTop`.
    void addLine(float x0, float y0, float x1, float y1, int width, SDL_Color color, bool onTop = false);
    /// A rectangle's outline over the entities, one pixel wide.
    void addOutline(float x0, float y0, float x1, float y1, SDL_Color color);

    /// Coverage bits of an entity: box or circle, overlapping or not. Branch-free: at a million
    /// entities in random order, a branch on the shape mispredicts half the time.
    [[nodiscard]] static std::uint8_t kindOf(bool circle, bool overlapping) {
        return static_cast<std::uint8_t>((kHasBox << static_cast<int>(circle)) | (static_cast<int>(overlapping) << 6));
    }
    /// Coverage bits of an entity of collision layer 0-3 (with colourByLayer): the layer in the
    /// two kind bits (layer 3 as none of them; a pixel of several layers shows one of them).
    [[nodiscard]] static std::uint8_t layerKindOf(std::uint32_t layer, bool overlapping) {
        return static_cast<std::uint8_t>((((layer + 1) & 3u) << 4) | (static_cast<unsigned>(overlapping) << 6));
    }
    /// An entity under a pixel across at (cx, cy): covers the pixel under its centre.
    void addDot(float cx, float cy, std::uint8_t kind) {
        ++m_small;
        ++m_all;
        if (cx >= 0.0f && cy >= 0.0f && cx < static_cast<float>(m_width) && cy < static_cast<float>(m_height)) {
            std::uint8_t& v = m_coverage[static_cast<std::size_t>(cy) * static_cast<std::size_t>(m_width) +
                                         static_cast<std::size_t>(cx)];
            v = covered(v, kind);
        }
    }
    /// Turns coverage into colours, uploads them and copies them over the whole output.
    /// Throws std::runtime_error with SDL's message when the texture cannot be made.
    void draw(SDL_Renderer* renderer);

private:
    // Coverage of one pixel in one byte (a million entities land at random pixels: the smaller
    // the buffer, the fewer cache misses): how many entities cover it, saturating at 15, and
    // which kinds.
    static constexpr std::uint8_t kCountMask = 0x0f;
    static constexpr std::uint8_t kHasBox = 0x10;
    static constexpr std::uint8_t kHasCircle = 0x20;
    static constexpr std::uint8_t kHasOverlap = 0x40;
    static constexpr int kCoverageValues = 0x80;
    bool m_byLayer = false;

    static std::uint8_t covered(std::uint8_t v, std::uint8_t kind) {
        return static_cast<std::uint8_t>((v | kind) + ((v & kCountMask) != kCountMask ? 1 : 0));
    }
    void cover(int x0, int y0, int x1, int y1, std::uint8_t kind);
    struct Line {
        float x0, y0, x1, y1;
        int width;
        SDL_Color color;
    };
    void drawLines(const std::vector<Line>& lines, std::uint32_t* pixels, int pitchPixels) const;

    void buildColorTable();
    /// Sets m_density (and the ramp for its square size) from the frame's counts.
    void chooseView();
    /// The shapes view's composition: each covered pixel coloured by its coverage.
    void composeShapes(std::uint32_t* pixels, int pitchPixels) const;
    /// The density view's composition: square sums of the per-pixel counts, coloured.
    void composeDensity(std::uint32_t* pixels, int pitchPixels);

    // Entities drawn this frame under kSmallHalfPixels, and all of them: the next frame's view.
    std::uint32_t m_small = 0;
    std::uint32_t m_all = 0;
    bool m_density = false;
    int m_binSide = 0;                          ///< pixels per side of a density square
    std::vector<std::uint16_t> m_bins;          ///< per square: entities (pixel counts saturate at 15)
    std::vector<std::uint32_t> m_densityColors; ///< ARGB8888 per square sum, for m_binSide

    int m_width = 0;
    int m_height = 0;
    /// What m_below was last drawn for; m_belowShaded: cells were blended into it since.
    struct Below {
        int width = 0, height = 0;
        float floorX = 0, floorY = 0, floorW = 0, floorH = 0;
        std::uint32_t background = 0, floor = 0;
        bool operator==(const Below&) const = default;
    };
    Below m_belowDrawn;
    bool m_belowShaded = false;
    std::vector<std::uint32_t> m_below;     ///< ARGB8888: background, floor and cells
    std::vector<std::uint8_t> m_coverage;   ///< per pixel: count and kind bits
    std::vector<Line> m_lines;              ///< overlay lines, drawn over the composed frame
    std::vector<Line> m_topLines;           ///< then these (overlap pairs over candidates)
    std::vector<std::uint32_t> m_colors;    ///< ARGB8888 per coverage value (0: see m_below)
    SDL_Texture* m_texture = nullptr;
    SDL_Renderer* m_textureOwner = nullptr;
    int m_textureWidth = 0;
    int m_textureHeight = 0;
};

}  // namespace ro::app

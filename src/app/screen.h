#pragma once
/// ro.Screen: the SDL window and renderer, the camera (world-to-screen transform, zoom and
/// pan), entity drawing at any count (see raster.h for the level of detail) and screenshots.

#include <SDL.h>

#include <array>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "app/batch.h"
#include "app/camera.h"
#include "app/layout.h"
#include "app/options.h"
#include "app/raster.h"
#include "ro/aabb.h"
#include "ro/world.h"

namespace ro::app {

/// Maps world coordinates to window pixels. With the camera at rest the world bounds fit the
/// world's rectangle of the window (see Layout), centred, aspect kept; zoom and pan move it
/// from there.
struct ViewTransform {
    float scale = 1.0f;
    float offsetX = 0.0f;  ///< pixel x of the world's minX
    float offsetY = 0.0f;  ///< pixel y of the world's minY
    float worldMinX = 0.0f;
    float worldMinY = 0.0f;

    [[nodiscard]] float toScreenX(float x) const { return offsetX + (x - worldMinX) * scale; }
    [[nodiscard]] float toScreenY(float y) const { return offsetY + (y - worldMinY) * scale; }
    [[nodiscard]] Vec2 toWorld(float px, float py) const {
        return {worldMinX + (px - offsetX) / scale, worldMinY + (py - offsetY) / scale};
    }
};

/// What the last drawEntities drew, for the HUD.
struct DrawnEntities {
    std::uint32_t rasterized = 0;
    std::uint32_t geometry = 0;
    std::uint32_t offScreen = 0;
    bool density = false;  ///< the raster's density view (EntityRaster::densityView)
};

class Screen {
public:
    /// Initialises SDL video, opens the window and a renderer (accelerated with vsync, else
    /// software). Throws std::runtime_error with SDL's message on failure.
    Screen(const char* title, int width, int height);
    ~Screen();
    Screen(const Screen&) = delete;
    Screen& operator=(const Screen&) = delete;

    [[nodiscard]] SDL_Window* window() const { return m_window; }
    [[nodiscard]] SDL_Renderer* renderer() const { return m_renderer; }
    [[nodiscard]] const ViewTransform& view() const { return m_view; }
    /// Name of the SDL render driver in use ("software", "opengl", ...).
    [[nodiscard]] const char* rendererName() const;

    /// The rectangle of the window the world is drawn in (the layout's; empty: the whole
    /// window). Fitting, zoom, pan and drawing keep to it from the next fitView.
    void setWorldView(const Rect& area) { m_area = area; }
    /// The world's rectangle as last fitted, in window pixels.
    [[nodiscard]] const Rect& worldView() const { return m_viewRect; }
    /// Updates the view for `worldBounds`, the current output size (the window may have been
    /// resized), the world's rectangle and the camera.
    void fitView(const Aabb& worldBounds);
    /// Zooms by `factor` around window pixel (px, py): the world point under it stays under it.
    void zoomAt(float px, float py, float factor);
    /// Moves the view by (dx, dy) window pixels.
    void pan(float dx, float dy);
    /// Back to the whole world in the world's rectangle.
    void resetCamera();
    /// Zooms out about the view's centre, as far as needed for the entities on screen to cover
    /// the output at most kMaxOverdraw times over (or to the least zoom): every pixel of every
    /// box is filled, and onecell's 2,000 boxes in their 2 x 2 square, fitted to the window,
    /// cover it 300 times (a second a frame in the software renderer).
    void limitOverdraw(const World& world);
    static constexpr double kMaxOverdraw = 16.0;
    [[nodiscard]] float zoom() const { return m_zoom; }
    [[nodiscard]] Camera camera() const {
        return {m_zoom, m_centred ? std::optional<Vec2>(m_center) : std::nullopt};
    }
    /// Takes a saved camera, its centre in the world of `worldBounds` (the zoom clamped to what
    /// the wheel allows).
    void setCamera(const Camera& camera, const Aabb& worldBounds);

    void setDrawPath(DrawPath path) { m_drawPath = path; }
    /// Starts a frame: picks the entities' level of detail, then clears to the background and
    /// draws the world's floor (into the raster when it is in use). With `linesOver` (overlay
    /// lines go into the raster, over the entities), a raster frame draws every entity there.
    void beginFrame(const World& world, bool linesOver);
    /// True when this frame draws (some) entities through the raster: the structure overlay
    /// then shades its cells into it, under the entities.
    [[nodiscard]] bool rasterFrame() const { return m_rasterFrame; }
    [[nodiscard]] EntityRaster& raster() { return m_raster; }
    /// Ends the world's drawing: what follows (the UI) may draw anywhere again.
    void endWorld();
    /// Draws the entities on screen, overlapping ones darker: those a few pixels across into the
    /// raster (then shown), larger ones in one SDL_RenderGeometry call.
    void drawEntities(const World& world);
    [[nodiscard]] const DrawnEntities& drawn() const { return m_drawn; }
    /// Entities drawn as geometry with a side over kBigSides median sides are big: outlined
    /// over a faint fill, so the small ones they cover stay visible (the mixed preset's 10 %
    /// of boxes 10-40 wide filled its world). Infinite when the sizes are even.
    static constexpr float kBigSides = 4.0f;
    /// This frame's threshold on an entity's larger half side, in world units.
    [[nodiscard]] float bigHalf() const { return m_bigHalf; }
    [[nodiscard]] bool isBig(float halfW, float halfH) const { return std::max(halfW, halfH) > m_bigHalf; }
    /// Whether this frame draws an entity of these half sides (world units) as a big outline.
    [[nodiscard]] bool outlinedBig(float halfW, float halfH) const {
        return isBig(halfW, halfH) && std::min(halfW, halfH) * m_view.scale >= kBigOutlinePixels &&
               !(m_rasterFrame && m_raster.densityView());
    }
    /// Writes the current back buffer (call before present) to a PNG, or only the part in
    /// `area` (window pixels, clipped to the window); false on failure.
    [[nodiscard]] bool saveScreenshot(const std::string& path, const SDL_Rect* area = nullptr) const;
    void present();

private:
    /// Points on the unit circle, for circles drawn as polygons.
    struct UnitPolygon {
        std::array<float, 24> x{};
        std::array<float, 24> y{};
        int count = 0;
    };
    [[nodiscard]] static UnitPolygon makeUnitPolygon(int count);
    /// m_bigHalf from a sample of the entities' sizes.
    void measureBig(const World& world);
    static constexpr std::uint32_t kNoLayer = ~0u;
    /// An entity's colour: by shape, or by collision layer (kNoLayer: by shape), darker overlapping.
    [[nodiscard]] static SDL_Color entityColour(bool circle, bool overlapping, std::uint32_t layer);
    /// A big entity: its faint fill and its outline, in window pixels.
    void addBig(float cx, float cy, float hw, float hh, bool circle, SDL_Color color);
    static constexpr float kBigOutlinePixels = 4.0f;  ///< smaller on screen: filled as any other
    static constexpr float kBigOutlineWidth = 1.5f;
    static constexpr Uint8 kBigFillAlpha = 40;

    SDL_Window* m_window = nullptr;
    SDL_Renderer* m_renderer = nullptr;
    ViewTransform m_view;
    SDL_FRect m_floor{};  ///< the world's rectangle on screen, clipped to a pixel beyond the output
    Aabb m_worldBounds{0.0f, 0.0f, 1.0f, 1.0f};  ///< as last fitted: zoom and pan rebuild the view at once
    int m_outputWidth = 1;
    int m_outputHeight = 1;
    Rect m_area;      ///< the world's rectangle as the layout gives it (empty: the whole output)
    Rect m_viewRect;  ///< as last fitted: m_area within the output, in output pixels
    // The camera: zoom over the fitted scale, and the world point at the window's centre.
    float m_zoom = 1.0f;
    bool m_centred = false;  ///< false: the centre follows the world bounds' centre
    Vec2 m_center{};
    DrawPath m_drawPath = DrawPath::Auto;
    bool m_rasterFrame = false;
    bool m_everyOneRasterized = false;  ///< this frame draws no entity as geometry
    EntityRaster m_raster;
    DrawnEntities m_drawn;
    GeometryBatch m_entities;
    GeometryBatch m_bigFills, m_bigOutlines;  ///< big entities, under and over the others
    float m_bigHalf = std::numeric_limits<float>::infinity();
    std::vector<float> m_sizeSample;
    // Corners per circle grow with its size on screen: software rasterising costs per triangle.
    UnitPolygon m_small = makeUnitPolygon(6);    ///< radius under 3 px
    UnitPolygon m_medium = makeUnitPolygon(12);  ///< radius under 8 px
    UnitPolygon m_large = makeUnitPolygon(24);
};

}  // namespace ro::app

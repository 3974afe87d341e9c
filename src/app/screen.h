#pragma once
/// ro.Screen: the SDL window and renderer, the world-to-screen transform, entity drawing
/// (every entity in one batched call) and screenshots.

#include <SDL.h>

#include <array>
#include <string>

#include "app/batch.h"
#include "core/aabb.h"
#include "world/world.h"

namespace ro::app {

/// Maps world coordinates to window pixels: the world bounds fit the window, centred, aspect kept.
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

    /// Fits `worldBounds` into the current output size (the window may have been resized).
    void fitView(const Aabb& worldBounds);
    /// Clears to the background and draws the world's floor.
    void beginFrame();
    /// Draws every entity in one SDL_RenderGeometry call; overlapping ones darker.
    void drawEntities(const World& world);
    /// Writes the current back buffer (call before present) to a PNG; false on failure.
    [[nodiscard]] bool saveScreenshot(const std::string& path) const;
    void present();

private:
    /// Points on the unit circle, for circles drawn as polygons.
    struct UnitPolygon {
        std::array<float, 24> x{};
        std::array<float, 24> y{};
        int count = 0;
    };
    [[nodiscard]] static UnitPolygon makeUnitPolygon(int count);

    SDL_Window* m_window = nullptr;
    SDL_Renderer* m_renderer = nullptr;
    ViewTransform m_view;
    SDL_FRect m_floor{};  ///< the world's rectangle on screen
    GeometryBatch m_entities;
    // Corners per circle grow with its size on screen: software rasterising costs per triangle.
    UnitPolygon m_small = makeUnitPolygon(6);    ///< radius under 3 px
    UnitPolygon m_medium = makeUnitPolygon(12);  ///< radius under 8 px
    UnitPolygon m_large = makeUnitPolygon(24);
};

}  // namespace ro::app

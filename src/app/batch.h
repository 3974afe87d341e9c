#pragma once
/// A reusable list of coloured triangles drawn with ONE SDL_RenderGeometry call.
/// Vectors keep their capacity across frames, so steady-state frames do not allocate.

#include <SDL.h>

#include <vector>

namespace ro::app {

class GeometryBatch {
public:
    /// Empties the batch, keeping its memory.
    void clear();
    /// Reserves room for `quads` quads (4 vertices, 6 indices each).
    void reserveQuads(std::size_t quads);
    /// An axis-aligned rectangle, screen pixels.
    void addRect(float x0, float y0, float x1, float y1, SDL_Color color);
    /// A line from (x0, y0) to (x1, y1) as a quad `width` pixels thick.
    void addLine(float x0, float y0, float x1, float y1, float width, SDL_Color color);
    /// A regular polygon centred on (cx, cy): `unitX`/`unitY` hold `count` points on the unit
    /// circle, scaled by `radius`. Fanned from its first corner: count - 2 triangles, no centre.
    void addPolygon(float cx, float cy, float radius, const float* unitX, const float* unitY, int count,
                    SDL_Color color);
    /// Draws everything in one call; the renderer's draw blend mode applies.
    void draw(SDL_Renderer* renderer) const;
    [[nodiscard]] bool empty() const { return m_indices.empty(); }

private:
    void addVertex(float x, float y, SDL_Color color) { m_vertices.push_back({{x, y}, color, {0.0f, 0.0f}}); }

    std::vector<SDL_Vertex> m_vertices;
    std::vector<int> m_indices;
};

}  // namespace ro::app

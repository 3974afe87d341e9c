#include "app/batch.h"

#include <cmath>

namespace ro::app {

void GeometryBatch::clear() {
    m_vertices.clear();
    m_indices.clear();
}

void GeometryBatch::reserveQuads(std::size_t quads) {
    m_vertices.reserve(quads * 4);
    m_indices.reserve(quads * 6);
}

void GeometryBatch::addRect(float x0, float y0, float x1, float y1, SDL_Color color) {
    const int base = static_cast<int>(m_vertices.size());
    addVertex(x0, y0, color);
    addVertex(x1, y0, color);
    addVertex(x1, y1, color);
    addVertex(x0, y1, color);
    m_indices.insert(m_indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
}

void GeometryBatch::addLine(float x0, float y0, float x1, float y1, float width, SDL_Color color) {
    const float dx = x1 - x0;
    const float dy = y1 - y0;
    const float length = std::sqrt(dx * dx + dy * dy);
    if (length <= 0.0f) return;
    // Offset both ends by half the width along the line's normal.
    const float nx = -dy / length * 0.5f * width;
    const float ny = dx / length * 0.5f * width;
    const int base = static_cast<int>(m_vertices.size());
    addVertex(x0 + nx, y0 + ny, color);
    addVertex(x1 + nx, y1 + ny, color);
    addVertex(x1 - nx, y1 - ny, color);
    addVertex(x0 - nx, y0 - ny, color);
    m_indices.insert(m_indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
}

void GeometryBatch::addPolygon(float cx, float cy, float radius, const float* unitX, const float* unitY, int count,
                               SDL_Color color) {
    const int base = static_cast<int>(m_vertices.size());
    for (int k = 0; k < count; ++k) addVertex(cx + radius * unitX[k], cy + radius * unitY[k], color);
    for (int k = 1; k + 1 < count; ++k) m_indices.insert(m_indices.end(), {base, base + k, base + k + 1});
}

void GeometryBatch::draw(SDL_Renderer* renderer) const {
    if (m_indices.empty()) return;
    SDL_RenderGeometry(renderer, nullptr, m_vertices.data(), static_cast<int>(m_vertices.size()), m_indices.data(),
                       static_cast<int>(m_indices.size()));
}

}  // namespace ro::app

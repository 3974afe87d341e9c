#pragma once
/// Axis-aligned boxes and the small vector type the library is built on.

#include <cmath>

namespace ro {

/// A 2D vector of floats.
struct Vec2 {
    float x = 0.0f;
    float y = 0.0f;
};

/// An axis-aligned box. Bounds are closed: boxes that touch at an edge overlap.
struct Aabb {
    float minX = 0.0f;
    float minY = 0.0f;
    float maxX = 0.0f;
    float maxY = 0.0f;

    [[nodiscard]] float width() const { return maxX - minX; }
    [[nodiscard]] float height() const { return maxY - minY; }
    [[nodiscard]] bool contains(Vec2 p) const {
        return p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY;
    }
    [[nodiscard]] bool isFinite() const {
        return std::isfinite(minX) && std::isfinite(minY) && std::isfinite(maxX) && std::isfinite(maxY);
    }
    /// Finite corners, max > min, and a width and height that do not overflow to infinity
    /// (-3e38..3e38 has finite corners but an infinite width).
    [[nodiscard]] bool hasFiniteArea() const {
        return isFinite() && maxX > minX && maxY > minY && std::isfinite(width()) && std::isfinite(height());
    }
    friend bool operator==(const Aabb&, const Aabb&) = default;
};

/// Closed-interval overlap test: the one AABB test every technique is judged by.
[[nodiscard]] inline bool overlaps(const Aabb& a, const Aabb& b) {
    return a.minX <= b.maxX && b.minX <= a.maxX && a.minY <= b.maxY && b.minY <= a.maxY;
}

}  // namespace ro

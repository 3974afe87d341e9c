#pragma once
/// Axis-aligned boxes and the small vector type the library is built on.

#include <algorithm>
#include <cmath>
#include <cstdint>

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

// Small box helpers the techniques share (once, here).

/// overlaps() with one branch instead of four: in pair loops the outcome of each comparison is
/// a coin toss, the combined one mostly "no".
[[nodiscard]] inline bool touches(const Aabb& a, const Aabb& b) {
    return (a.minX <= b.maxX) & (b.minX <= a.maxX) & (a.minY <= b.maxY) & (b.minY <= a.maxY);
}

/// The smallest box holding both.
[[nodiscard]] inline Aabb unite(const Aabb& a, const Aabb& b) {
    return {std::min(a.minX, b.minX), std::min(a.minY, b.minY), std::max(a.maxX, b.maxX), std::max(a.maxY, b.maxY)};
}

/// True when `inner` lies inside `outer` (closed).
[[nodiscard]] inline bool containsBox(const Aabb& outer, const Aabb& inner) {
    return outer.minX <= inner.minX && outer.minY <= inner.minY && inner.maxX <= outer.maxX && inner.maxY <= outer.maxY;
}

/// Equal corners (no tolerance).
[[nodiscard]] inline bool sameBox(const Aabb& a, const Aabb& b) {
    return a.minX == b.minX && a.minY == b.minY && a.maxX == b.maxX && a.maxY == b.maxY;
}

/// floor((value - origin) * inverse), clamped to [0, last]; NaN clamps to 0. Monotonic in
/// value: the cell of a coordinate on a bounded lattice (the grid's, the quadtree's).
[[nodiscard]] inline std::uint32_t clampedCell(float value, float origin, float inverse, std::uint32_t last) {
    const float f = (value - origin) * inverse;
    if (!(f > 0.0f)) return 0;
    if (f >= static_cast<float>(last)) return last;
    return static_cast<std::uint32_t>(f);
}

}  // namespace ro

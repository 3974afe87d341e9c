#pragma once
/// Small box helpers the techniques share (once, here).

#include <algorithm>
#include <cstdint>

#include "ro/aabb.h"

namespace ro {

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

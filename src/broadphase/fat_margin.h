#pragma once
/// The automatic fat margin (a "fat_margin" of 0): a tenth of the boxes' median side, so that
/// fat boxes follow the scene's scale, as Box2D's 0.1 m does for its ~1 m shapes. One rule for
/// every technique that keeps fat boxes (the coherence layer; the tree measures the same way).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ro/broadphase.h"
#include "core/box_helpers.h"
#include "core/buffers.h"

namespace ro::fat_margin {

/// The automatic margin as a share of the median side (the larger of width and height).
inline constexpr float kAutoShare = 0.1f;
/// Boxes sampled (evenly spaced) to measure the median side: a few microseconds.
inline constexpr std::uint32_t kSamples = 1024;

/// The median side of (a sample of) the movers' boxes, or of all if every box is static
/// (statics take no margin, and a level's long walls are not typical); for points, their
/// spacing. At most `cap`; 0 for no boxes or a side that is not finite. `scratch` is reused.
[[nodiscard]] inline float medianSide(const BoxView& boxes, double cap, std::vector<float>& scratch) {
    const std::uint32_t n = boxes.count;
    if (n == 0) return 0.0f;
    const std::uint32_t stride = std::max(1u, n / kSamples);
    reserveWithHeadroom(scratch, n / stride + 1);
    Aabb extent = boxes.box(0);
    const auto sample = [&](bool movers) {
        scratch.clear();
        for (std::uint32_t i = 0; i < n; i += stride) {
            if (movers && boxes.isStatic != nullptr && boxes.isStatic[i] != 0) continue;
            const Aabb box = boxes.box(i);
            scratch.push_back(std::max(box.width(), box.height()));
            extent = unite(extent, box);
        }
    };
    sample(true);
    if (scratch.empty()) sample(false);
    const auto middle = scratch.begin() + static_cast<std::ptrdiff_t>(scratch.size() / 2);
    std::nth_element(scratch.begin(), middle, scratch.end());
    double side = *middle;
    if (!(side > 0.0))
        side = std::sqrt((static_cast<double>(extent.maxX) - extent.minX) * (static_cast<double>(extent.maxY) - extent.minY) / n);
    side = std::min(side, cap);
    return std::isfinite(side) ? static_cast<float>(side) : 0.0f;
}

/// The automatic margin for boxes of median side `side`, at most `cap`.
[[nodiscard]] inline float automatic(float side, double cap) {
    return std::min(kAutoShare * side, static_cast<float>(cap));
}

}  // namespace ro::fat_margin

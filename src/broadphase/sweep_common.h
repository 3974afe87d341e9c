#pragma once
/// What the two sweeps (Wells; Lembcke and Korth) share: choosing the sweep axis by the variance of the centres, an order-keeping
/// key for floats, and a segment's span on an axis widened so no box the exact test would hit
/// is left out.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "ro/broadphase.h"

namespace ro {

/// Which axis a sweep sorts along; Auto picks the one along which the centres vary most.
enum class SweepAxis : std::uint8_t { Auto, X, Y };

}  // namespace ro

namespace ro::sweep {

inline constexpr std::string_view kAxisNames[] = {"auto", "x", "y"};
/// The one parameter of both sweeps: the axis to sort along (SweepAxis by its number).
inline constexpr ParameterSpec kAxisParameter{
    .key = "sweep_axis",
    .label = "Sweep axis",
    .kind = ParameterKind::Choice,
    .min = 0,
    .max = 2,
    .offeredMin = 0,
    .offeredMax = 2,
    .defaultValue = 0,
    .unit = "",
    .help = "the axis to sort along; auto picks the one along which the centres spread most",
    .choices = kAxisNames,
};
inline constexpr ParameterSpec kParameters[] = {kAxisParameter};
/// Sort swaps of the last update: the counter that shows how coherent the motion was.
inline constexpr std::string_view kSortSwapsCounter = "sort_swaps";

/// Chooses the sweep axis (0 x, 1 y). Auto picks the axis along which the centres vary most
/// (Wells: fewer boxes share a stretch of it, so more delimiters touch void), and
/// reconsiders every kCheckInterval steps; it switches only when the other axis varies
/// kSwitchRatio times more, since each switch rebuilds the sorted order from scratch.
class AxisChooser {
public:
    static constexpr std::uint32_t kCheckInterval = 32;
    static constexpr double kSwitchRatio = 1.25;

    /// The axis for this step. `setting` X or Y forces it.
    std::uint32_t choose(const BoxView& boxes, SweepAxis setting);
    /// The next choose() decides afresh (after new settings).
    void reset() { m_decided = false; }

private:
    std::uint32_t m_axis = 0;
    std::uint32_t m_stepsSinceCheck = 0;
    bool m_decided = false;
};

/// Variance of the box centres along x and y (in double: coordinates may be huge).
[[nodiscard]] std::pair<double, double> centreVariance(const BoxView& boxes);

/// An unsigned key that orders like the float (finite or infinite; -0 and +0 share a key).
[[nodiscard]] inline std::uint32_t sortableKey(float value) {
    const auto bits = std::bit_cast<std::uint32_t>(value + 0.0f);  // -0 + 0 is +0
    return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
}

/// Whether [aMin, aMax] and [bMin, bMax] meet (closed), with one branch rather than two: the
/// sweep has already paired the boxes on its axis, and on the other axis either comparison
/// alone is a coin toss. Compiled as two branches (gcc turns `&` of two comparisons back
/// into them), the mispredictions took three quarters of the pair search at 100k boxes.
/// Exact: a difference of finite floats has the sign of the exact difference (rounding or
/// overflow never crosses zero), so this agrees with overlaps() bit for bit.
[[nodiscard]] inline bool overlapOnAxis(float aMin, float aMax, float bMin, float bMax) {
    return std::max(aMin - bMax, bMin - aMax) <= 0.0f;
}

/// Calls hit(k) for every k < count whose [mins[k], maxs[k]] meets [lo, hi]. Hits are rare in
/// a sweep: a first loop without branches writes a flag per interval, which the compiler
/// vectorizes, and a second reads the flags eight at a time, stopping only at hits.
/// `flags` holds count rounded up to 8 bytes.
template <typename Hit>
void forEachOverlap(const float* mins, const float* maxs, std::uint32_t count, float lo, float hi,
                    std::uint8_t* flags, Hit hit) {
    for (std::uint32_t k = 0; k < count; ++k) flags[k] = overlapOnAxis(mins[k], maxs[k], lo, hi);
    const std::uint32_t padded = (count + 7) & ~7u;
    for (std::uint32_t k = count; k < padded; ++k) flags[k] = 0;
    for (std::uint32_t k = 0; k < padded; k += 8) {
        std::uint64_t word;
        std::memcpy(&word, flags + k, sizeof word);
        for (; word != 0; word &= word - 1) hit(k + static_cast<std::uint32_t>(std::countr_zero(word)) / 8);
    }
}

/// The segment's extent along one axis, widened by a few ulps of its coordinates: segmentEntry
/// divides rounded differences, so it can hit a box that lies a rounding error beyond the
/// segment's end (a box at 1.5 from a segment from -1e8 to 1, say). The widened span is a
/// superset of the exact test's hits; every candidate in it still gets the exact test.
[[nodiscard]] std::pair<float, float> segmentSpan(float from, float to);

// The queries both sweeps answer the same way. `onAxis(lo, hi, visit)` visits, once each,
// every entity whose interval on the sweep axis meets [lo, hi], and returns how many
// delimiters or entries it read; each visited box then gets the exact test.

template <typename OnAxis>
QueryCost queryBox(const OnAxis& onAxis, std::uint32_t axis, const BoxView& boxes, const Aabb& box,
                   std::vector<std::uint32_t>& out) {
    QueryCost cost;
    cost.visited = onAxis(axis == 0 ? box.minX : box.minY, axis == 0 ? box.maxX : box.maxY, [&](std::uint32_t e) {
        ++cost.tests;
        if (overlaps(boxes.box(e), box)) out.push_back(e);
    });
    return cost;
}

/// Calls hit(entity, t) for every box the segment touches.
template <typename OnAxis, typename OnHit>
QueryCost querySegment(const OnAxis& onAxis, std::uint32_t axis, const BoxView& boxes, const Segment& segment,
                       OnHit hit) {
    QueryCost cost;
    const auto [lo, hi] = axis == 0 ? segmentSpan(segment.from.x, segment.to.x) : segmentSpan(segment.from.y, segment.to.y);
    cost.visited = onAxis(lo, hi, [&](std::uint32_t e) {
        ++cost.tests;
        if (const auto t = segmentEntry(boxes.box(e), segment)) hit(e, *t);
    });
    return cost;
}

}  // namespace ro::sweep

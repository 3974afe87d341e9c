#pragma once
/// Entities too large for a technique's cells: a huge box in an unbounded hash would cover
/// millions of cells, in a fine grid tens of thousands. Such entities skip the cells and are
/// tested against every other entity instead, O(n) each: slow for many, never a silent cap.

#include <cstdint>
#include <span>
#include <vector>

#include "broadphase/broadphase.h"

namespace ro {

/// An entity covering more cells than this skips the cells and is paired by a scan.
inline constexpr std::uint64_t kMaxCellsPerEntity = 4096;

/// Appends (a, b) for every entity of `oversized` and every other entity whose box overlaps
/// it; a pair of two oversized entities comes out once. `isOversized` is indexed by entity.
/// Returns the pair tests made.
std::uint64_t pairOversized(const BoxView& boxes, std::span<const std::uint32_t> oversized,
                            std::span<const std::uint8_t> isOversized, std::vector<Pair>& out);

/// A query's share of the entities that skip the cells: each is tested directly, and counted.
inline void queryOversized(const BoxView& boxes, std::span<const std::uint32_t> oversized, const Aabb& box,
                           std::vector<std::uint32_t>& out, QueryCost& cost) {
    for (const std::uint32_t i : oversized)
        if (overlaps(boxes.box(i), box)) out.push_back(i);
    cost.tests += oversized.size();
}

/// The same for a segment: calls hit(entity, t) for each oversized entity it touches.
template <typename OnHit>
void segmentOversized(const BoxView& boxes, std::span<const std::uint32_t> oversized, const Segment& segment,
                      OnHit hit, QueryCost& cost) {
    for (const std::uint32_t i : oversized)
        if (const auto t = segmentEntry(boxes.box(i), segment)) hit(i, *t);
    cost.tests += oversized.size();
}

}  // namespace ro

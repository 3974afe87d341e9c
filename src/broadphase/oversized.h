#pragma once
/// Entities a technique's cells cannot hold well: a huge box in an unbounded hash would cover
/// millions of cells, in a fine grid tens of thousands; a box far outside a grid's bounds, or
/// past the hash's cell range, would be clamped into one edge cell with every other such box,
/// n^2 candidates. Such entities skip the cells and are paired exactly here instead: never a
/// silent cap, never memory beyond linear in the entities and the pairs.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "broadphase/pair_rule.h"

namespace ro {

/// An entity covering more cells than this skips the cells and is paired by a scan.
inline constexpr std::uint64_t kMaxCellsPerEntity = 4096;

/// A cell or bucket holding more entities than this tests its pairs exactly before reporting
/// them: with a cell far larger than the boxes (or everyone in one cell), candidates would
/// otherwise grow as n^2 in memory; this way they stay the overlaps.
inline constexpr std::uint64_t kCrowdedCell = 64;

/// Buffers pairOversized keeps from step to step, so a steady step does not allocate.
struct OversizedScratch {
    std::vector<std::pair<float, std::uint32_t>> order;  ///< (minX, entity), sorted
    std::vector<std::uint32_t> openAll, openSkippers;    ///< entities whose x interval is open
    [[nodiscard]] std::uint64_t bytesHeld() const;
};

/// Appends (a, b) for every entity of `oversized` and every other entity whose box overlaps
/// it; a pair of two oversized entities comes out once. `isOversized` is indexed by entity.
/// Returns the pair tests made. A few are scanned against everyone; many (a whole population
/// clamped into one edge cell, or a cell far too small for the boxes) are swept along x,
/// O(n log n + pairs overlapping on x), in memory linear in the entities.
std::uint64_t pairOversized(const BoxView& boxes, std::span<const std::uint32_t> oversized,
                            std::span<const std::uint8_t> isOversized, std::vector<Pair>& out,
                            OversizedScratch& scratch);

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

// The HSHG's levels: which level a box of a given size goes to, how the level sizes follow
// the population's sizes (with hysteresis), each level's extent, and its direct table.

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "broadphase/hshg/hshg.h"
#include "broadphase/hshg/keys.h"
#include "broadphase/hshg/kernels.h"

namespace ro {

using namespace hshg_detail;

std::uint32_t HierarchicalGrid::levelPopulation(std::uint32_t level) const {
    const Level& lv = m_levels.at(level);
    return lv.end - lv.begin;
}

bool HierarchicalGrid::searchesDown(std::uint32_t fine, std::uint32_t coarse) const {
    return (m_levels.at(coarse).targets >> fine) & 1u;
}

bool HierarchicalGrid::geometryFits(const SizeStats& stats) const {
    if (!m_hasGeometry) return false;
    const double f = m_factor;
    if (stats.minPositiveSide < kInf) {
        // Hysteresis: the smallest entity may drift within a factor f either way of the
        // smallest when the levels were set.
        const double wanted = std::max<double>(stats.minPositiveSide, kMinSize);
        if (!(wanted > m_smallest / f && wanted <= m_smallest * f)) return false;
    }
    const double top = m_levels[kMaxLevels - 1].size;
    if (stats.maxSide > top) return false;
    return !(m_topStretched && stats.maxSide * f < top);  // a stretched top shrinks back
}

HierarchicalGrid::SizeStats HierarchicalGrid::measureSizes() const {
    SizeStats stats{kInf, 0.0f};
    for (std::uint32_t i = 0; i < m_boxes.count; ++i) {
        const Aabb box = m_boxes.box(i);
        if (!fitsLevels(box)) continue;
        const float side = sideOf(box);
        if (side > 0.0f) stats.minPositiveSide = std::min(stats.minPositiveSide, side);
        stats.maxSide = std::max(stats.maxSide, side);
    }
    return stats;
}

void HierarchicalGrid::setGeometry(const SizeStats& stats) {
    const double f = m_factor;
    m_smallest = stats.minPositiveSide < kInf ? std::max<double>(stats.minPositiveSide, kMinSize)
                                              : (m_hasGeometry ? m_smallest : 1.0);
    // Anchored at the largest entity: s_0 = largest / f^k for the largest k that keeps s_0 at
    // the smallest side or over. The smallest sit on level 0, the largest fill their level's
    // cells (they meet the most others), and sizes less than f apart share one level with
    // cells their own size, not up to f times it. (Mixed sizes at 100k: 8% fewer tests; the
    // small boxes' cells 1.25, not 1.6.) Sizes spread over f^24 or more: s_0 is the
    // smallest, and the top level stretches.
    double size = std::max<double>(stats.maxSide, m_smallest);
    for (std::uint32_t steps = 0; size / f >= m_smallest; ++steps) {
        if (steps + 1 == kMaxLevels) {
            size = m_smallest;
            break;
        }
        size /= f;
    }
    // Sides are differences of coordinates and wobble by their rounding from step to step: a
    // margin keeps the largest on their level.
    size *= kSizeMargin;
    for (std::uint32_t level = 0; level < kMaxLevels; ++level, size *= f) {
        Level& lv = m_levels[level];
        lv.size = size;
        m_topStretched = level + 1 == kMaxLevels && stats.maxSide > size;
        if (m_topStretched) lv.size = stats.maxSide;  // the top level holds everything larger
        lv.below = level == 0 ? -std::numeric_limits<double>::infinity() : m_levels[level - 1].size;
        lv.cell = lv.size * kCellMargin;
        lv.inverse = 1.0 / lv.cell;
    }
    m_hasGeometry = true;
}

double HierarchicalGrid::spreadArea() const {
    // From the most populous level: its rows exactly (first and last key), its columns from a
    // sample of its keys. An estimate for choosing directions, nothing depends on it otherwise.
    std::uint32_t level = 0;
    for (std::uint32_t l = 1; l < kMaxLevels; ++l)
        if (levelPopulation(l) > levelPopulation(level)) level = l;
    const Level& lv = m_levels[level];
    const std::uint32_t stride = std::max(1u, (lv.end - lv.begin) / 1024);
    std::int32_t x0 = kCellLimit;
    std::int32_t x1 = -kCellLimit;
    for (std::uint32_t s = lv.begin; s < lv.end; s += stride) {
        x0 = std::min(x0, columnOfKey(m_keys[s]));
        x1 = std::max(x1, columnOfKey(m_keys[s]));
    }
    const double rows = static_cast<double>(rowOfKey(m_keys[lv.end - 1])) - rowOfKey(m_keys[lv.begin]) + 1.0;
    const double columns = static_cast<double>(x1) - x0 + 1.0;
    return rows * columns * lv.cell * lv.cell;
}

void HierarchicalGrid::plan() {
    m_populated = 0;
    double coarsest = 0.0;
    for (std::uint32_t level = 0; level < kMaxLevels; ++level) {
        Level& lv = m_levels[level];
        lv.targets = 0;
        lv.hasTable = false;
        if (lv.end > lv.begin) {
            m_populated |= 1u << level;
            coarsest = lv.cell;
        }
    }
    if (std::popcount(m_populated) < 2) return;  // no pair of levels: nothing to plan
    // Area over which the entities spread, for the expected tests of each direction.
    const double area = std::max(spreadArea(), coarsest * coarsest);

    // Each pair of populated levels is searched in one direction: the cheaper one.
    std::array<double, kMaxLevels> lookups{};
    for (std::uint32_t fine = 0; fine < kMaxLevels; ++fine) {
        if (!(m_populated >> fine & 1u)) continue;
        for (std::uint32_t coarse = fine + 1; coarse < kMaxLevels; ++coarse) {
            if (!(m_populated >> coarse & 1u)) continue;
            const double nf = levelPopulation(fine);
            const double nc = levelPopulation(coarse);
            const double cf = m_levels[fine].cell;
            const double cc = m_levels[coarse].cell;
            // Up: each fine entity looks up a 2x2 (at most 3x3) block of coarse cells.
            const double up = nf * (2.5 * kRowCost + nc * 4.0 * cc * cc / area);
            // Down: each coarse entity looks up its footprint, about cc / cf + 2 rows of fine cells.
            const double rowsDown = std::min(cc / cf + 2.0, nf);
            const double down = nc * (rowsDown * kRowCost + nf * (cc + 2.0 * cf) * (cc + 2.0 * cf) / area);
            if (up <= down) {
                m_levels[fine].targets |= 1u << coarse;
                lookups[coarse] += 2.5 * nf;
            } else {
                m_levels[coarse].targets |= 1u << fine;
                lookups[fine] += rowsDown * nc;
            }
        }
    }

    // A direct table of first slots where lookups are many and the extent is small. One entry
    // per block of 2^blockShift columns, the blocks about as many as the entities: filling a
    // table costs an entry per block, a block's extra slots cost a test each.
    std::uint64_t tableSize = 0;
    const std::uint64_t budget = 8 * std::uint64_t{m_placed} + 4096;
    for (std::uint32_t level = 0; level < kMaxLevels; ++level) {
        Level& lv = m_levels[level];
        const double count = lv.end - lv.begin;
        const double searchCost = lookups[level] * std::log2(count + 1.0);
        if (lookups[level] == 0.0 || searchCost <= 2.0 * count) continue;
        std::int32_t x0 = kCellLimit;
        std::int32_t x1 = -kCellLimit;
        for (std::uint32_t s = lv.begin; s < lv.end; ++s) {
            x0 = std::min(x0, columnOfKey(m_keys[s]));
            x1 = std::max(x1, columnOfKey(m_keys[s]));
        }
        const std::int32_t y0 = rowOfKey(m_keys[lv.begin]);
        const auto width = static_cast<std::uint64_t>(x1 - x0 + 1);
        const auto height = static_cast<std::uint64_t>(rowOfKey(m_keys[lv.end - 1]) - y0 + 1);
        std::uint32_t shift = 0;
        const auto blocksWith = [&](std::uint32_t sh) { return height * (((width - 1) >> sh) + 1); };
        while (shift < kMaxBlockShift && blocksWith(shift) > 2 * static_cast<std::uint64_t>(count)) ++shift;
        const std::uint64_t blocks = blocksWith(shift);
        if (static_cast<double>(blocks) + count > searchCost || tableSize + blocks + 1 > budget) continue;
        lv.hasTable = true;
        lv.x0 = x0;
        lv.y0 = y0;
        lv.width = static_cast<std::uint32_t>(width);
        lv.height = static_cast<std::uint32_t>(height);
        lv.blockShift = shift;
        lv.rowBlocks = static_cast<std::uint32_t>(((width - 1) >> shift) + 1);
        lv.tableBegin = static_cast<std::uint32_t>(tableSize);
        tableSize += blocks + 1;
    }
    resizeWithHeadroom(m_table, tableSize);
    for (std::uint32_t level = 0; level < kMaxLevels; ++level)
        if (m_levels[level].hasTable) buildTable(level);
}

void HierarchicalGrid::buildTable(std::uint32_t level) {
    // table[block] = the first slot whose cell is in `block` or after (row-major in the extent).
    // Without a branch per slot (a block holds 0-3 slots, no length to guess): each slot
    // writes its block going backwards, so the first one wins; then every empty block takes
    // its successor's entry, as the minimum going backwards.
    const Level& lv = m_levels[level];
    std::uint32_t* table = m_table.data() + lv.tableBegin;
    const std::uint64_t* keys = m_keys.data();
    const std::int64_t x0 = lv.x0;
    const std::int64_t y0 = lv.y0;
    const std::uint64_t rowBlocks = lv.rowBlocks;
    const std::uint32_t shift = lv.blockShift;
    const std::uint64_t blocks = rowBlocks * lv.height;
    std::fill(table, table + blocks + 1, lv.end);
    for (std::uint32_t s = lv.end; s-- > lv.begin;) {
        const std::uint64_t key = keys[s];
        table[static_cast<std::uint64_t>(rowOfKey(key) - y0) * rowBlocks +
              (static_cast<std::uint64_t>(columnOfKey(key) - x0) >> shift)] = s;
    }
    std::uint32_t next = lv.end;
    for (std::uint64_t block = blocks; block-- > 0;) next = table[block] = std::min(table[block], next);
}

}  // namespace ro

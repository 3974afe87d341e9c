#pragma once
/// Lookups shared by findPairs and the queries (Lembcke and Korth): the rows of a rectangle
/// of cells, through a level's direct table or by binary search. Member templates, so they
/// live in a header that hshg.cpp and queries.cpp both include. Private to hshg/.

#include <array>

#include "broadphase/hshg/kernels.h"

namespace ro {

// The technique's own files use its internals unqualified.
using namespace hshg_detail;

template <typename Runs>
std::uint64_t HierarchicalGrid::forEachTableRow(std::uint32_t level, CellRect r, Runs runs) const {
    const Level& lv = m_levels[level];
    const auto x0 = std::max<std::int64_t>(r.x0, lv.x0);
    const auto x1 = std::min<std::int64_t>(r.x1, std::int64_t{lv.x0} + lv.width - 1);
    const auto y0 = std::max<std::int64_t>(r.y0, lv.y0);
    const auto y1 = std::min<std::int64_t>(r.y1, std::int64_t{lv.y0} + lv.height - 1);
    if (x0 > x1 || y0 > y1) return 0;
    const std::uint32_t* row = m_table.data() + lv.tableBegin + static_cast<std::uint64_t>(y0 - lv.y0) * lv.rowBlocks;
    const auto first = static_cast<std::uint64_t>(x0 - lv.x0) >> lv.blockShift;
    const auto last = (static_cast<std::uint64_t>(x1 - lv.x0) >> lv.blockShift) + 1;
    // The blocks at a row's ends may reach up to 2^blockShift - 1 columns past the rectangle.
    // Their slots there are kept: every caller tests each slot exactly, so they cost a test,
    // never a wrong answer (no box outside the rectangle touches the caller's box; a ray may
    // truly hit one elsewhere on its segment, and its stamp reports it once). A test costs
    // less than reading keys to cut them: 0.2 slots per row end in the mixed bench, where the
    // cutting took a quarter of findPairs.
    // Rows in batches: their ranges are read, their first slots prefetched and the empty ones
    // dropped before any is scanned, so a row's loads do not wait for the last row's loop.
    constexpr std::int64_t kBatch = 32;
    std::array<std::uint32_t, kBatch> begins, ends;
    for (std::int64_t y = y0; y <= y1; y += kBatch) {
        const auto batch = static_cast<std::size_t>(std::min(kBatch, y1 - y + 1));
        std::size_t count = 0;
        std::uint32_t total = 0;
        for (std::size_t k = 0; k < batch; ++k, row += lv.rowBlocks) {
            const std::uint32_t begin = row[first];
            const std::uint32_t end = row[last];
            begins[count] = begin;
            ends[count] = end;
            __builtin_prefetch(&m_slotBoxes[begin]);
            count += begin < end ? 1 : 0;
            total += end - begin;
        }
        if (count > 0) runs(RowRuns{begins.data(), ends.data(), count, total});
    }
    return static_cast<std::uint64_t>(x1 - x0 + 1) * static_cast<std::uint64_t>(y1 - y0 + 1);
}

template <typename Visit>
std::uint64_t HierarchicalGrid::forEachInRows(std::uint32_t level, CellRect r, Visit visit) const {
    const std::uint64_t* keys = m_keys.data();
    if (m_levels[level].hasTable) {
        return forEachTableRow(level, r, [&](const RowRuns& runs) {
            for (std::size_t k = 0; k < runs.count; ++k)
                for (std::uint32_t s = runs.begins[k]; s < runs.ends[k]; ++s) visit(s);
        });
    }
    // Rows come in key order, so each binary search starts where the last one ended.
    const Level& lv = m_levels[level];
    std::uint32_t from = lv.begin;
    for (std::int32_t y = r.y0; y <= r.y1; ++y) {
        const std::uint64_t last = packKey(level, r.x1, y);
        std::uint32_t s = static_cast<std::uint32_t>(
            std::lower_bound(keys + from, keys + lv.end, packKey(level, r.x0, y)) - keys);
        for (; keys[s] <= last; ++s) visit(s);
        from = s;
    }
    return static_cast<std::uint64_t>(r.x1 - r.x0 + 1) * static_cast<std::uint64_t>(r.y1 - r.y0 + 1);
}

template <typename Visit>
std::uint64_t HierarchicalGrid::forEachInRect(std::uint32_t level, CellRect r, Visit visit) const {
    const Level& lv = m_levels[level];
    const std::uint32_t count = lv.end - lv.begin;
    const auto rows = static_cast<std::uint64_t>(r.y1 - r.y0 + 1);
    const std::uint64_t rowCost = lv.hasTable ? rows : rows * std::bit_width(count);
    if (rowCost > count) {  // a footprint as large as the level: read the level instead
        for (std::uint32_t s = lv.begin; s < lv.end; ++s) visit(s);
        return 0;
    }
    return forEachInRows(level, r, visit);
}

}  // namespace ro

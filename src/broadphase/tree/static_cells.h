#pragma once
/// The tree's index of its statics for pair finding: a uniform grid over the statics' bounds,
/// stored as sorted runs (each cell's entries contiguous, a row's cells one after another,
/// every entry carrying its box). A static tree answers a query by descending about 17 levels
/// at 100,000 leaves, a cache miss each; this answers it with one read of the row offsets and
/// one contiguous scan per row of cells. It is built at once (O(s)) and never edited: the
/// broad phase rebuilds it once its statics have stopped changing, and keeps the static tree
/// for everything else (ray casts, the overlay, steps that change statics).
///
/// A static covering several cells is in each of them; a query reports it once, in the first
/// cell of the query's range that it covers.

#include <cstdint>
#include <span>
#include <vector>

#include "core/box_helpers.h"
#include "core/huge_pages.h"
#include "ro/aabb.h"

namespace ro {

class StaticCells {
public:
    /// A static as the grid holds it: its box and what its owner gave with it.
    struct Static {
        Aabb box;
        std::uint32_t value;
        std::uint32_t tag;  ///< a second number the owner keeps with the box (the tree: its dense index)
    };
    struct Entry : Static {
        /// Its cell's column, and in kFirstColumn and kFirstRow whether that cell is in the
        /// static's first column and row: so a query reports it in one cell only, and without
        /// working out the static's cells again.
        std::uint32_t cell;
        static constexpr std::uint32_t kFirstColumn = 1u << 31, kFirstRow = 1u << 30, kColumn = kFirstRow - 1;
    };
    /// Builds the grid over `statics`. Returns false, leaving the grid empty, where a grid
    /// would not help: fewer than kMinStatics boxes, boxes so uneven in size that their copies
    /// in the cells they cover exceed kMaxCopies per box, or so uneven in place that a cell
    /// holds more than kMaxPerCell.
    bool build(const std::vector<Static>& statics);
    void clear();
    [[nodiscard]] bool empty() const { return m_offsets.empty(); }
    [[nodiscard]] std::uint64_t bytesHeld() const;

    /// Calls onHit(const Static&) once for each static whose box touches `box`;
    /// returns the cells visited.
    template <typename OnHit>
    std::uint64_t query(const Aabb& box, OnHit onHit) const;

    /// One row of a query's cells: a run of entries, and where the query's range starts.
    struct RowScan {
        std::uint32_t query, y, x0, y0, first, last;
    };
    /// query() of many boxes, calling onHit(k, const Static&) for box k; `scans` is scratch.
    /// The boxes' rows go through a pipeline (a row's offsets fetched, then its entries, then
    /// the run scanned, each stage some rows ahead of the next): with the grid out of the
    /// caches (other work ran since the last step), the misses of many rows overlap instead
    /// of two following each other per row.
    template <typename OnHit>
    std::uint64_t queryAll(std::span<const Aabb> boxes, std::vector<RowScan>& scans, OnHit onHit) const;

    static constexpr std::size_t kMinStatics = 64;
    static constexpr std::size_t kMaxCopies = 4;
    static constexpr std::uint32_t kMaxPerCell = 64;
    /// queryAll's pipeline: rows between a row's entries being fetched and its scan.
    static constexpr std::size_t kScanAhead = 8;

private:
    [[nodiscard]] std::uint32_t column(float x) const { return clampedCell(x, m_bounds.minX, m_inverse, m_columns - 1); }
    [[nodiscard]] std::uint32_t row(float y) const { return clampedCell(y, m_bounds.minY, m_inverse, m_rows - 1); }

    /// Calls onHit for the entries of the scan's run that touch `box` and are reported in its row.
    template <typename OnHit>
    void scanRow(const Aabb& box, std::uint32_t y, std::uint32_t x0, std::uint32_t y0, std::uint32_t first,
                 std::uint32_t last, OnHit& onHit) const;

    Aabb m_bounds;
    float m_inverse = 0.0f;
    std::uint32_t m_columns = 0, m_rows = 0;
    // On huge pages: a step's queries land on random rows of both (see huge_pages.h).
    std::vector<std::uint32_t, HugePageAllocator<std::uint32_t>> m_offsets;  ///< by cell (row-major) and one past: where its run starts
    std::vector<Entry, HugePageAllocator<Entry>> m_entries;
    std::vector<float> m_sides;  ///< build()'s scratch: each static's longer side
};

template <typename OnHit>
void StaticCells::scanRow(const Aabb& box, std::uint32_t y, std::uint32_t x0, std::uint32_t y0, std::uint32_t first,
                          std::uint32_t last, OnHit& onHit) const {
    for (std::uint32_t k = first; k < last; ++k) {
        const Entry& entry = m_entries[k];
        if (!touches(entry.box, box)) continue;
        // Reported in the first cell of the range it covers: its own first column and row, or
        // the range's where it starts before them.
        const bool firstColumn = (entry.cell & Entry::kFirstColumn) != 0 || (entry.cell & Entry::kColumn) == x0;
        const bool firstRow = (entry.cell & Entry::kFirstRow) != 0 || y == y0;
        if (!(firstColumn && firstRow)) continue;
        onHit(static_cast<const Static&>(entry));
    }
}

template <typename OnHit>
std::uint64_t StaticCells::query(const Aabb& box, OnHit onHit) const {
    if (empty() || !touches(box, m_bounds)) return 0;
    // Monotonic cells: a box touching the query lies in a cell of the query's range.
    const std::uint32_t x0 = column(box.minX), x1 = column(box.maxX);
    const std::uint32_t y0 = row(box.minY), y1 = row(box.maxY);
    // The cells x0..x1 of a row are one run of entries. Rows go kBatch at a time: their runs'
    // bounds are read, and their first entries fetched, before any is scanned, so the cache
    // misses of a query overlap rather than follow one another.
    constexpr std::uint32_t kBatch = 8;
    std::uint32_t first[kBatch], last[kBatch];
    for (std::uint32_t top = y0; top <= y1; top += kBatch) {
        const std::uint32_t rows = std::min(kBatch, y1 - top + 1);
        for (std::uint32_t r = 0; r < rows; ++r) {
            first[r] = m_offsets[(top + r) * m_columns + x0];
            last[r] = m_offsets[(top + r) * m_columns + x1 + 1];
            __builtin_prefetch(m_entries.data() + first[r]);
        }
        for (std::uint32_t r = 0; r < rows; ++r) scanRow(box, top + r, x0, y0, first[r], last[r], onHit);
    }
    return static_cast<std::uint64_t>(x1 - x0 + 1) * (y1 - y0 + 1);
}

template <typename OnHit>
std::uint64_t StaticCells::queryAll(std::span<const Aabb> boxes, std::vector<RowScan>& scans, OnHit onHit) const {
    scans.clear();
    if (empty()) return 0;
    std::uint64_t cells = 0;
    // Each box's rows (x1 + 1 waits in `last` for its offset).
    for (std::uint32_t k = 0; k < boxes.size(); ++k) {
        const Aabb& box = boxes[k];
        if (!touches(box, m_bounds)) continue;
        const std::uint32_t x0 = column(box.minX), x1 = column(box.maxX);
        const std::uint32_t y0 = row(box.minY), y1 = row(box.maxY);
        cells += static_cast<std::uint64_t>(x1 - x0 + 1) * (y1 - y0 + 1);
        for (std::uint32_t y = y0; y <= y1; ++y) scans.push_back({k, y, x0, y0, 0, x1 + 1});
    }
    // The rows in a pipeline: a row's offsets are fetched 2 * kScanAhead rows before it is
    // scanned, and read (its run's entries fetched) kScanAhead rows before. A window this
    // short keeps the misses in flight within what the core can track; prefetching every
    // row at once would drop most of the requests.
    const std::size_t count = scans.size();
    const auto fetchOffsets = [&](const RowScan& scan) {
        __builtin_prefetch(m_offsets.data() + scan.y * m_columns + scan.x0);
        __builtin_prefetch(m_offsets.data() + scan.y * m_columns + scan.last);
    };
    const auto readOffsets = [&](RowScan& scan) {
        scan.first = m_offsets[scan.y * m_columns + scan.x0];
        scan.last = m_offsets[scan.y * m_columns + scan.last];
        const char* const begin = reinterpret_cast<const char*>(m_entries.data() + scan.first);
        const char* const end = reinterpret_cast<const char*>(m_entries.data() + scan.last);
        for (const char* line = begin; line < end; line += 64) __builtin_prefetch(line);
    };
    for (std::size_t j = 0; j < std::min(count, 2 * kScanAhead); ++j) fetchOffsets(scans[j]);
    for (std::size_t j = 0; j < std::min(count, kScanAhead); ++j) readOffsets(scans[j]);
    for (std::size_t j = 0; j < count; ++j) {
        if (j + 2 * kScanAhead < count) fetchOffsets(scans[j + 2 * kScanAhead]);
        if (j + kScanAhead < count) readOffsets(scans[j + kScanAhead]);
        const RowScan& scan = scans[j];
        auto hit = [&](const Static& still) { onHit(scan.query, still); };
        scanRow(boxes[scan.query], scan.y, scan.x0, scan.y0, scan.first, scan.last, hit);
    }
    return cells;
}

}  // namespace ro

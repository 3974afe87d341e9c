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
#include <vector>

#include "ro/core/aabb.h"

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
        std::uint32_t cellX;  ///< its cell's column, so a query reports it in one cell only
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

    static constexpr std::size_t kMinStatics = 64;
    static constexpr std::size_t kMaxCopies = 4;
    static constexpr std::uint32_t kMaxPerCell = 64;

private:
    [[nodiscard]] std::uint32_t column(float x) const { return clampedCell(x, m_bounds.minX, m_inverse, m_columns - 1); }
    [[nodiscard]] std::uint32_t row(float y) const { return clampedCell(y, m_bounds.minY, m_inverse, m_rows - 1); }

    Aabb m_bounds;
    float m_inverse = 0.0f;
    std::uint32_t m_columns = 0, m_rows = 0;
    std::vector<std::uint32_t> m_offsets;  ///< by cell (row-major) and one past: where its run starts
    std::vector<Entry> m_entries;
    std::vector<float> m_sides;  ///< build()'s scratch: each static's longer side
};

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
        for (std::uint32_t r = 0; r < rows; ++r) {
            const std::uint32_t y = top + r;
            for (std::uint32_t k = first[r]; k < last[r]; ++k) {
                const Entry& entry = m_entries[k];
                if (!touches(entry.box, box)) continue;
                // Reported in the first cell of the range it covers: its own first column and
                // row, or the range's where it starts before them.
                if (entry.cellX != std::max(column(entry.box.minX), x0) || y != std::max(row(entry.box.minY), y0)) continue;
                onHit(static_cast<const Static&>(entry));
            }
        }
    }
    return static_cast<std::uint64_t>(x1 - x0 + 1) * (y1 - y0 + 1);
}

}  // namespace ro

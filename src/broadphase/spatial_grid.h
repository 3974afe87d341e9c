#pragma once
/// Spatial grid (seeds 000 and 004): a bounded dense grid over the world, offset by its min
/// corner, rebuilt every step. An entity goes in every cell its box overlaps; boxes outside
/// the grid clamp to the edge cells. O(n + k) when the cell fits the largest box.
///
/// Cells are filled by a counting sort (count, prefix sum over occupied cells, scatter), so
/// each cell's entities are contiguous and nothing is allocated in steady state. A pair that
/// shares several cells is reported only in the first cell both boxes cover (the cell of the
/// larger of their minimum cell coordinates): no pair cache, no string keys.

#include <cstdint>
#include <vector>

#include "broadphase/broadphase.h"

namespace ro {

class SpatialGrid final : public BroadPhase {
public:
    /// At most this many cells; a smaller cell size is widened to fit (counters().cellSize says so).
    static constexpr std::uint32_t kMaxCells = 1u << 22;

    // Implementing interface of BroadPhase (see BroadPhase for documentation).
    void configure(const Settings& settings) override;
    void update(const BoxView& boxes) override;
    void findPairs(std::vector<Pair>& out) override;
    void forEachCell(const std::function<void(const CellView&)>& visit) const override;

private:
    struct Entry {
        std::uint32_t entity;
        std::uint32_t firstCellX;  ///< the entity's minimum cell, for the report-once rule
        std::uint32_t firstCellY;
    };
    struct CellRange {
        std::uint32_t x0, y0, x1, y1;
    };

    [[nodiscard]] CellRange cellRange(std::uint32_t i) const;
    [[nodiscard]] std::uint32_t column(float x) const;
    [[nodiscard]] std::uint32_t row(float y) const;

    BoxView m_boxes;
    Aabb m_bounds;
    float m_cellSize = 1.0f;
    float m_inverseCellSize = 1.0f;
    std::uint32_t m_columns = 1;
    std::uint32_t m_rows = 1;
    std::vector<std::uint32_t> m_cellCount;     ///< entities per cell (valid for occupied cells)
    std::vector<std::uint32_t> m_cellStart;     ///< first entry of each occupied cell
    std::vector<std::uint32_t> m_occupiedCells; ///< cells holding at least one entity, this step
    std::vector<CellRange> m_ranges;            ///< each entity's cell range, this step
    std::vector<Entry> m_entries;               ///< entities grouped by cell
};

}  // namespace ro

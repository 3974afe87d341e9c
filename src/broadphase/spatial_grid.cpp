#include "broadphase/spatial_grid.h"

#include <algorithm>
#include <cmath>

namespace ro {
namespace {

/// floor((value - origin) * inverse), clamped to [0, last]; NaN clamps to 0.
std::uint32_t clampedCell(float value, float origin, float inverse, std::uint32_t last) {
    const float f = (value - origin) * inverse;
    if (!(f > 0.0f)) return 0;
    if (f >= static_cast<float>(last)) return last;
    return static_cast<std::uint32_t>(f);
}

template <typename T>
std::uint64_t bytesOf(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}

}  // namespace

void SpatialGrid::configure(const Settings& settings) {
    m_bounds = settings.gridBounds;
    const double width = m_bounds.width();
    const double height = m_bounds.height();
    double cell = settings.cellSize;
    // Widen the cell rather than hold an unbounded array; the HUD shows the size in use.
    if (std::ceil(width / cell) * std::ceil(height / cell) > kMaxCells) cell = std::sqrt(width * height / kMaxCells) * 1.01;
    while (std::ceil(width / cell) * std::ceil(height / cell) > kMaxCells) cell *= 1.01;
    m_cellSize = static_cast<float>(cell);
    m_inverseCellSize = static_cast<float>(1.0 / cell);
    m_columns = static_cast<std::uint32_t>(std::max(1.0, std::ceil(width / cell)));
    m_rows = static_cast<std::uint32_t>(std::max(1.0, std::ceil(height / cell)));
    const std::size_t cells = static_cast<std::size_t>(m_columns) * m_rows;
    m_cellCount.assign(cells, 0);
    m_cellStart.assign(cells, 0);
    m_occupiedCells.clear();
}

std::uint32_t SpatialGrid::column(float x) const { return clampedCell(x, m_bounds.minX, m_inverseCellSize, m_columns - 1); }
std::uint32_t SpatialGrid::row(float y) const { return clampedCell(y, m_bounds.minY, m_inverseCellSize, m_rows - 1); }

SpatialGrid::CellRange SpatialGrid::cellRange(std::uint32_t i) const {
    return {column(m_boxes.minX[i]), row(m_boxes.minY[i]), column(m_boxes.maxX[i]), row(m_boxes.maxY[i])};
}

void SpatialGrid::update(const BoxView& boxes) {
    m_boxes = boxes;
    m_counters = {};
    for (const std::uint32_t cell : m_occupiedCells) m_cellCount[cell] = 0;
    m_occupiedCells.clear();
    m_ranges.resize(boxes.count);

    // Pass 1: count entities per cell and note the cells that become occupied.
    std::uint64_t insertions = 0;
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        const CellRange r = m_ranges[i] = cellRange(i);
        for (std::uint32_t y = r.y0; y <= r.y1; ++y) {
            for (std::uint32_t x = r.x0; x <= r.x1; ++x) {
                const std::uint32_t cell = y * m_columns + x;
                if (m_cellCount[cell]++ == 0) m_occupiedCells.push_back(cell);
            }
        }
        insertions += static_cast<std::uint64_t>(r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1);
    }
    // Prefix sum over occupied cells only; the count becomes the fill cursor for pass 2.
    std::uint32_t offset = 0;
    for (const std::uint32_t cell : m_occupiedCells) {
        m_cellStart[cell] = offset;
        offset += m_cellCount[cell];
        m_cellCount[cell] = 0;
    }
    // Grow with headroom, so a step with a few more insertions than any before does not allocate.
    if (insertions > m_entries.capacity()) m_entries.reserve(insertions + insertions / 2);
    m_entries.resize(insertions);
    // Pass 2: scatter.
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        const CellRange r = m_ranges[i];
        for (std::uint32_t y = r.y0; y <= r.y1; ++y) {
            for (std::uint32_t x = r.x0; x <= r.x1; ++x) {
                const std::uint32_t cell = y * m_columns + x;
                m_entries[m_cellStart[cell] + m_cellCount[cell]++] = {i, r.x0, r.y0};
            }
        }
    }
    m_counters.cellsTouched = insertions;
}

void SpatialGrid::findPairs(std::vector<Pair>& out) {
    out.clear();
    std::uint64_t tests = 0;
    for (const std::uint32_t cell : m_occupiedCells) {
        const std::uint32_t cellX = cell % m_columns;
        const std::uint32_t cellY = cell / m_columns;
        const Entry* begin = m_entries.data() + m_cellStart[cell];
        const Entry* end = begin + m_cellCount[cell];
        tests += static_cast<std::uint64_t>(end - begin) * static_cast<std::uint64_t>(end - begin - 1) / 2;
        for (const Entry* p = begin; p != end; ++p) {
            for (const Entry* q = p + 1; q != end; ++q) {
                // Report the pair only in the first cell both boxes cover, so it comes out once.
                if (std::max(p->firstCellX, q->firstCellX) == cellX && std::max(p->firstCellY, q->firstCellY) == cellY)
                    out.push_back(makePair(p->entity, q->entity));
            }
        }
    }
    m_counters.pairTests = tests;
    m_counters.candidatePairs = out.size();
    m_counters.cellsTouched += m_occupiedCells.size();
    m_counters.cellSize = m_cellSize;
    m_counters.bytesHeld = bytesOf(m_cellCount) + bytesOf(m_cellStart) + bytesOf(m_occupiedCells) +
                           bytesOf(m_ranges) + bytesOf(m_entries);
}

void SpatialGrid::forEachCell(const std::function<void(const CellView&)>& visit) const {
    for (const std::uint32_t cell : m_occupiedCells) {
        const float x = m_bounds.minX + static_cast<float>(cell % m_columns) * m_cellSize;
        const float y = m_bounds.minY + static_cast<float>(cell / m_columns) * m_cellSize;
        visit({{x, y, x + m_cellSize, y + m_cellSize}, m_cellCount[cell]});
    }
}

}  // namespace ro

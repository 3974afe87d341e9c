#include "broadphase/tree/static_cells.h"

#include <algorithm>
#include <cmath>

#include "core/box_helpers.h"
#include "core/buffers.h"

namespace ro {

void StaticCells::clear() {
    m_offsets.clear();
    m_entries.clear();
    m_columns = m_rows = 0;
}

bool StaticCells::build(const std::vector<Static>& statics) {
    clear();
    const std::size_t n = statics.size();
    if (n < kMinStatics) return false;
    Aabb bounds = statics[0].box;
    m_sides.clear();
    reserveWithHeadroom(m_sides, n);
    for (const auto& [box, value, tag] : statics) {
        bounds = unite(bounds, box);
        m_sides.push_back(std::max(box.width(), box.height()));
    }
    // The typical static's side (the median: a few huge ones must not set it).
    const auto middle = m_sides.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(m_sides.begin(), middle, m_sides.end());
    const double width = static_cast<double>(bounds.maxX) - bounds.minX;
    const double height = static_cast<double>(bounds.maxY) - bounds.minY;
    // About one static per cell where they are even, and no smaller than two typical sides,
    // so that most statics sit in one cell; then at most 4 cells per static, so a stretched
    // or scattered field cannot ask for a huge table. Statics much larger than the rest fill
    // many cells each: past kMaxCopies per static the grid declines.
    double cell = std::max(std::sqrt(width * height / static_cast<double>(n)), 2.0 * static_cast<double>(*middle));
    if (!(cell > 0.0)) cell = 1.0;  // every static a point at one spot
    const auto cellsAlong = [&](double extent) { return std::floor(extent / cell) + 1.0; };
    while (cellsAlong(width) * cellsAlong(height) > 4.0 * static_cast<double>(n)) cell *= 2.0;
    m_bounds = bounds;
    m_inverse = static_cast<float>(1.0 / cell);
    if (!std::isfinite(static_cast<float>(cell)) || !std::isfinite(m_inverse) || !(m_inverse > 0.0f)) return false;
    m_columns = static_cast<std::uint32_t>(cellsAlong(width));
    m_rows = static_cast<std::uint32_t>(cellsAlong(height));
    if (m_columns > Entry::kColumn) {  // a column must fit beside the entry's two flags
        clear();
        return false;
    }

    // Counting sort by cell: count each cell's copies, turn the counts into run starts, fill.
    resizeWithHeadroom(m_offsets, static_cast<std::size_t>(m_columns) * m_rows + 1);
    std::fill(m_offsets.begin(), m_offsets.end(), 0u);
    std::size_t copies = 0;
    for (const auto& [box, value, tag] : statics) {
        const std::uint32_t x0 = column(box.minX), x1 = column(box.maxX);
        for (std::uint32_t y = row(box.minY), y1 = row(box.maxY); y <= y1; ++y)
            for (std::uint32_t x = x0; x <= x1; ++x) ++m_offsets[y * m_columns + x + 1];
        copies += static_cast<std::size_t>(x1 - x0 + 1) * (row(box.maxY) - row(box.minY) + 1);
        if (copies > kMaxCopies * n) {
            clear();
            return false;
        }
    }
    // Statics packed unevenly (a dense cluster in a wide field) would leave a few cells with
    // most of them, and a query scanning thousands: the static tree answers such fields.
    std::uint32_t fullest = 0;
    for (const std::uint32_t count : m_offsets) fullest = std::max(fullest, count);
    if (fullest > kMaxPerCell) {
        clear();
        return false;
    }
    for (std::size_t c = 1; c < m_offsets.size(); ++c) m_offsets[c] += m_offsets[c - 1];
    resizeWithHeadroom(m_entries, copies);
    // Fill from the back of each run (the offsets then end where the runs start).
    for (std::size_t i = n; i-- > 0;) {
        const Aabb& box = statics[i].box;
        const std::uint32_t x0 = column(box.minX), x1 = column(box.maxX);
        for (std::uint32_t y = row(box.minY), y1 = row(box.maxY); y <= y1; ++y)
            for (std::uint32_t x = x0; x <= x1; ++x) {
                const std::uint32_t first = (x == x0 ? Entry::kFirstColumn : 0u) | (y == row(box.minY) ? Entry::kFirstRow : 0u);
                m_entries[--m_offsets[y * m_columns + x + 1]] = {statics[i], x | first};
            }
    }
    // Each offset [c + 1] now holds the start of cell c's run: shift them down by one.
    for (std::size_t c = 0; c + 1 < m_offsets.size(); ++c) m_offsets[c] = m_offsets[c + 1];
    m_offsets.back() = static_cast<std::uint32_t>(copies);
    return true;
}

std::uint64_t StaticCells::bytesHeld() const {
    return ro::bytesHeld(m_offsets) + ro::bytesHeld(m_entries) + ro::bytesHeld(m_sides);
}

}  // namespace ro

// The HSHG's point, box and ray queries, on the levels and tables the last update built.

#include <algorithm>
#include <cmath>

#include "broadphase/cell_walk.h"
#include "broadphase/hshg/hshg.h"
#include "broadphase/hshg/lookups.h"

namespace ro {

QueryCost HierarchicalGrid::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    // Each entity is in one cell and each cell is read once: no stamp needed.
    QueryCost cost;
    for (std::uint32_t levels = m_populated; levels != 0; levels &= levels - 1) {
        const auto level = static_cast<std::uint32_t>(std::countr_zero(levels));
        cost.visited += forEachInRect(level, reachOf(level, box), [&](std::uint32_t s) {
            ++cost.tests;
            if (overlaps(m_slotBoxes[s].box(), box)) out.push_back(m_slotDense[s]);
        });
    }
    queryOversized(m_boxes, m_oversized, box, out, cost);
    return cost;
}

template <typename OnHit, typename KeepGoing>
QueryCost HierarchicalGrid::walkSegment(const Segment& segment, OnHit hit, KeepGoing keepGoing) {
    QueryCost cost;
    if (m_queryMark.size() != m_placed || ++m_queryStamp == 0) {
        m_queryMark.assign(m_placed, 0);
        m_queryStamp = 1;
    }
    const std::uint32_t stamp = m_queryStamp;
    const auto test = [&](std::uint32_t s) {
        ++cost.tests;
        if (const auto t = segmentEntry(m_slotBoxes[s].box(), segment)) hit(m_slotDense[s], *t);
    };
    // What walkSegmentRows pads by, so the estimate of the cells it walks is honest.
    const float magnitude = std::max({std::fabs(segment.from.x), std::fabs(segment.from.y), std::fabs(segment.to.x),
                                      std::fabs(segment.to.y)});
    const double length = std::fabs(static_cast<double>(segment.to.x) - segment.from.x) +
                          std::fabs(static_cast<double>(segment.to.y) - segment.from.y);
    for (std::uint32_t levels = m_populated; levels != 0; levels &= levels - 1) {
        const auto level = static_cast<std::uint32_t>(std::countr_zero(levels));
        const Level& lv = m_levels[level];
        const double pad = lv.cell * 1.0e-3 + magnitude * 0x1p-18;
        if ((length + 4.0 * pad) * lv.inverse + 4.0 > lv.end - lv.begin) {
            // The walk would cross more cells than the level holds entities: test them all.
            for (std::uint32_t s = lv.begin; s < lv.end; ++s) test(s);
            continue;
        }
        const auto cellAt = [&lv](float v) { return cellOf(v, lv.inverse); };
        const auto band = [&lv](std::int64_t c) {
            const float lo = c <= -kCellLimit ? -kInf : static_cast<float>(static_cast<double>(c) * lv.cell);
            const float hi = c >= kCellLimit ? kInf : static_cast<float>(static_cast<double>(c + 1) * lv.cell);
            return std::pair{lo, hi};
        };
        // An entity touching the walked cell (x, y) is stored in x-1..x, y-1..y: the walk meets
        // it from up to two rows, so a stamp keeps it to one test.
        const auto onRow = [&](std::int64_t y, std::int64_t x0, std::int64_t x1, float enterT) {
            if (!keepGoing(enterT)) return false;
            const CellRect r{static_cast<std::int32_t>(x0) - 1, static_cast<std::int32_t>(y) - 1,
                             static_cast<std::int32_t>(x1), static_cast<std::int32_t>(y)};
            cost.visited += forEachInRows(level, r, [&](std::uint32_t s) {
                if (m_queryMark[s] == stamp) return;
                m_queryMark[s] = stamp;
                test(s);
            });
            return true;
        };
        walkSegmentRows(segment, static_cast<float>(lv.cell), 0.0f, cellAt, band, cellAt, onRow);  // cells start at 0
    }
    segmentOversized(m_boxes, m_oversized, segment, hit, cost);
    return cost;
}

QueryCost HierarchicalGrid::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    return everyHit([&](auto onHit, auto keepGoing) { return walkSegment(segment, onHit, keepGoing); }, out);
}

QueryCost HierarchicalGrid::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    return nearestHit([&](auto onHit, auto keepGoing) { return walkSegment(segment, onHit, keepGoing); }, hit);
}

}  // namespace ro

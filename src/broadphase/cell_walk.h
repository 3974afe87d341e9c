#pragma once
/// Walking the cells a segment crosses, shared by the grid and the hash (Lembcke and Korth's query API).
///
/// Rows are visited in the segment's direction, and in each row the span of columns the
/// segment crosses there. Spans are padded by a small margin in world units, so float
/// rounding can add a cell but never drop one: a query visits a superset of the true cells,
/// and the exact segment test decides.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "broadphase/technique_base.h"

namespace ro {

/// Calls visit(row, firstColumn, lastColumn, enterT) for each row the segment crosses, in the
/// segment's direction; enterT never exceeds the t where the segment enters that row.
/// `visit` returns false to stop the walk (a first-hit query that cannot improve).
/// The technique says how it maps coordinates to cells: rowOf(y) and columnOf(x), clamped as
/// it clamps, and rowBand(row), the world interval {lo, hi} of a row (infinite at a clamped edge).
/// `origin` is the largest coordinate the technique's cell arithmetic adds in (a grid's bounds):
/// its rounding, like the segment's, is what the padding must cover.
template <typename RowOf, typename RowBand, typename ColumnOf, typename Visit>
void walkSegmentRows(const Segment& s, float cellSize, float origin, RowOf rowOf, RowBand rowBand, ColumnOf columnOf,
                     Visit visit) {
    const float magnitude =
        std::max({std::fabs(s.from.x), std::fabs(s.from.y), std::fabs(s.to.x), std::fabs(s.to.y), std::fabs(origin)});
    // A few float steps of the largest magnitude involved (2^-18 is 32 steps), plus a sliver of a cell.
    const float pad = cellSize * 1.0e-3f + magnitude * 0x1p-18f;
    const float dx = s.to.x - s.from.x;
    const float dy = s.to.y - s.from.y;
    const auto firstRow = static_cast<std::int64_t>(rowOf(dy >= 0 ? s.from.y - pad : s.from.y + pad));
    const auto lastRow = static_cast<std::int64_t>(rowOf(dy >= 0 ? s.to.y + pad : s.to.y - pad));
    const std::int64_t step = lastRow >= firstRow ? 1 : -1;
    for (std::int64_t row = firstRow;; row += step) {
        float enter = 0.0f;
        float leave = 1.0f;
        if (dy != 0.0f) {
            const auto [lo, hi] = rowBand(row);
            float t0 = (lo - pad - s.from.y) / dy;
            float t1 = (hi + pad - s.from.y) / dy;
            if (t0 > t1) std::swap(t0, t1);
            enter = std::max(enter, t0);
            leave = std::min(leave, t1);
        }
        if (enter <= leave) {
            const float xa = s.from.x + dx * enter;
            const float xb = s.from.x + dx * leave;
            const auto c0 = static_cast<std::int64_t>(columnOf(std::min(xa, xb) - pad));
            const auto c1 = static_cast<std::int64_t>(columnOf(std::max(xa, xb) + pad));
            if (!visit(row, c0, c1, enter)) return;
        }
        if (row == lastRow) return;
    }
}

/// The two segment queries over a technique's walk, a callable walk(onHit, keepGoing) that
/// reports hits through onHit(index, t) and asks keepGoing(enterT) before each row: every
/// hit, or only the nearest (least t, then least index), which stops once rows start
/// beyond it (rows come in order of t).
template <typename Walk>
QueryCost everyHit(const Walk& walk, std::vector<RayHit>& out) {
    return walk([&](std::uint32_t i, float t) { out.push_back({i, t}); }, [](float) { return true; });
}

template <typename Walk>
QueryCost nearestHit(const Walk& walk, std::optional<RayHit>& hit) {
    return walk([&](std::uint32_t i, float t) { keepNearest(hit, {i, t}); },
                [&](float enterT) { return !hit || enterT <= hit->t; });
}

}  // namespace ro

#include "broadphase/grid/grid.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "broadphase/cell_walk.h"
#include "broadphase/oversized.h"
#include "broadphase/threads.h"
#include "core/box_helpers.h"
#include "core/buffers.h"
#include "core/radix_sort.h"

namespace ro {

// A task arena of its own rather than tbb::global_control: `threads` then bounds this grid's
// work alone, and leaves the concurrency of a host's other TBB work (and of other
// techniques) as it was.
struct SpatialGrid::Parallel {
    /// More chunks than threads, so a chunk holding a crowded cell does not leave the other
    /// threads idle; each chunk at least this many entries, so a small step stays cheap.
    static constexpr std::size_t kChunksPerThread = 8;
    static constexpr std::size_t kMinEntriesPerChunk = 4096;

    explicit Parallel(int threads) : threads(threads), arena(threads) {}
    /// How many parts a pass over `items` of a step of `entities` takes, at most `most`. One
    /// below kMinParallelCount entities, whatever their entries: at 10,000 entities of
    /// uniform (25,000 entries) two threads took 1.2-3.2x one thread's step, waking a worker
    /// for each pass; at 20,000 about the same, at 40,000 0.84x, at 100,000 0.62x.
    [[nodiscard]] static std::size_t partsFor(std::size_t entities, std::size_t items, std::size_t most) {
        return entities < kMinParallelCount ? 1 : std::max<std::size_t>(1, std::min(most, items / kMinEntriesPerChunk));
    }
    int threads;
    tbb::task_arena arena;
    std::vector<const Entry*> starts;         ///< chunk c scans [starts[c], starts[c + 1])
    std::vector<std::vector<Pair>> pairs;     ///< by chunk, kept between steps
    std::vector<std::uint64_t> tests, cells;  ///< by chunk
    std::vector<std::size_t> offsets;         ///< where chunk c's pairs go in the output
    std::vector<std::uint32_t> digitCounts;   ///< the sort's, by chunk and digit
    std::vector<std::vector<std::uint32_t>> partOversized;  ///< the update's, by part of the entities
    std::vector<std::size_t> partEntries;     ///< where each part's entries start
};

SpatialGrid::SpatialGrid() : Technique(kParameters) {}
SpatialGrid::~SpatialGrid() = default;

void SpatialGrid::applySettings(const Settings& settings) {
    fitParallel(m_parallel, settings);
    m_bounds = settings.bounds;
    const double width = m_bounds.width();
    const double height = m_bounds.height();
    double cell = settings.value(kCellSizeParameter);
    // Widen the cell rather than hold an unbounded grid; the HUD shows the size in use.
    auto cellsFor = [&](double c) { return std::ceil(width / c) * std::ceil(height / c); };
    if (cellsFor(cell) > kMaxCells) cell = std::sqrt(width * height / kMaxCells);
    while (cellsFor(cell) > kMaxCells) cell *= 1.01;
    m_cellSize = static_cast<float>(cell);
    m_inverseCellSize = static_cast<float>(1.0 / cell);
    m_columns = static_cast<std::uint32_t>(std::max(1.0, std::ceil(width / cell)));
    m_rows = static_cast<std::uint32_t>(std::max(1.0, std::ceil(height / cell)));
    m_cellBits = std::max(1u, static_cast<std::uint32_t>(std::bit_width(m_columns * m_rows - 1)));
}

std::uint32_t SpatialGrid::column(float x) const { return clampedCell(x, m_bounds.minX, m_inverseCellSize, m_columns - 1); }
std::uint32_t SpatialGrid::row(float y) const { return clampedCell(y, m_bounds.minY, m_inverseCellSize, m_rows - 1); }

void SpatialGrid::doUpdate(const BoxView& boxes) {
    m_counters = {};
    if (boxes.count > kMaxEntities) throw std::length_error("the spatial grid holds at most 2^30 entities");
    m_boxes = m_copy.take(boxes, passes());
    resizeWithHeadroom(m_ranges, boxes.count);
    m_oversized.clear();
    resizeWithHeadroom(m_isOversized, boxes.count);  // a count that creeps up must not allocate each step
    // A box reaching more than a cell past the bounds would be clamped into an edge cell
    // together with every other such box: it skips the grid instead.
    const Aabb reach{m_bounds.minX - m_cellSize, m_bounds.minY - m_cellSize, m_bounds.maxX + m_cellSize,
                     m_bounds.maxY + m_cellSize};
    // The cell ranges of entities [begin, end), the ones skipping the grid appended to
    // `oversized`; returns how many entries the others make.
    const auto rangesOf = [&](std::uint32_t begin, std::uint32_t end, std::vector<std::uint32_t>& oversized) {
        std::size_t insertions = 0;
        for (std::uint32_t i = begin; i < end; ++i) {
            const CellRange r{column(boxes.minX[i]), row(boxes.minY[i]), column(boxes.maxX[i]), row(boxes.maxY[i])};
            m_ranges[i] = r;
            const std::size_t cells = static_cast<std::size_t>(r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1);
            const bool outside = boxes.minX[i] < reach.minX || boxes.minY[i] < reach.minY ||
                                 boxes.maxX[i] > reach.maxX || boxes.maxY[i] > reach.maxY;
            const bool skips = cells > kMaxCellsPerEntity || outside;
            m_isOversized[i] = skips ? 1 : 0;
            if (skips)
                oversized.push_back(i);
            else
                insertions += cells;
        }
        return insertions;
    };
    // The entries of entities [begin, end), from `entry` on.
    const auto listEntries = [&](std::uint32_t begin, std::uint32_t end, Entry* entry) {
        for (std::uint32_t i = begin; i < end; ++i) {
            if (m_isOversized[i]) continue;
            const CellRange r = m_ranges[i];
            for (std::uint32_t y = r.y0; y <= r.y1; ++y) {
                const std::uint32_t rowFlag = y == r.y0 ? kFirstRow : 0;
                *entry++ = {y * m_columns + r.x0, i | rowFlag | kFirstColumn};
                for (std::uint32_t x = r.x0 + 1; x <= r.x1; ++x) *entry++ = {y * m_columns + x, i | rowFlag};
            }
        }
    };
    const std::size_t parts =
        m_parallel ? Parallel::partsFor(boxes.count, boxes.count, static_cast<std::size_t>(m_parallel->threads)) : 1;
    std::size_t insertions = 0;
    if (parts <= 1) {
        insertions = rangesOf(0, boxes.count, m_oversized);
        resizeWithHeadroom(m_entries, insertions);
        listEntries(0, boxes.count, m_entries.data());
    } else {
        // Equal parts of the entities; each part's entries follow the parts before it, as
        // in the serial loop.
        Parallel& par = *m_parallel;
        const auto first = [&](std::size_t c) { return static_cast<std::uint32_t>(boxes.count * c / parts); };
        if (par.partOversized.size() < parts) par.partOversized.resize(parts);
        par.partEntries.assign(parts + 1, 0);
        par.arena.execute([&] {
            tbb::parallel_for(std::size_t{0}, parts, [&](std::size_t c) {
                par.partOversized[c].clear();
                par.partEntries[c + 1] = rangesOf(first(c), first(c + 1), par.partOversized[c]);
            });
        });
        for (std::size_t c = 0; c < parts; ++c) {
            par.partEntries[c + 1] += par.partEntries[c];
            m_oversized.insert(m_oversized.end(), par.partOversized[c].begin(), par.partOversized[c].end());
        }
        insertions = par.partEntries[parts];
        resizeWithHeadroom(m_entries, insertions);
        par.arena.execute([&] {
            tbb::parallel_for(std::size_t{0}, parts, [&](std::size_t c) {
                listEntries(first(c), first(c + 1), m_entries.data() + par.partEntries[c]);
            });
        });
    }
    // Stable, so each cell keeps its entities in index order; on several threads, in equal
    // parts of the entries, to the same order.
    const auto cellOf = [](const Entry& e) { return e.cell; };
    const std::size_t sortChunks =
        m_parallel ? Parallel::partsFor(boxes.count, m_entries.size(), static_cast<std::size_t>(m_parallel->threads)) : 1;
    if (sortChunks <= 1) {
        radixSort(m_entries, m_sortScratch, m_cellBits, cellOf);
    } else {
        m_parallel->arena.execute([&] {
            radixSortChunks(m_entries, m_sortScratch, m_parallel->digitCounts, m_cellBits, cellOf, sortChunks,
                            [](std::size_t chunks, const auto& task) {
                                tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) { task(c); });
                            });
        });
    }
    m_counters.elementsVisited = insertions;
}

void SpatialGrid::scanRuns(const Entry* begin, const Entry* end, std::vector<Pair>& out, std::uint64_t& tests,
                           std::uint64_t& occupiedCells) const {
    const PairRule& rule = pairRule();
    const bool ruled = rule.active();
    for (const Entry* run = begin; run != end;) {
        const std::uint32_t cell = run->cell;
        const Entry* runEnd = run + 1;
        while (runEnd != end && runEnd->cell == cell) ++runEnd;
        ++occupiedCells;
        tests += static_cast<std::uint64_t>(runEnd - run) * static_cast<std::uint64_t>(runEnd - run - 1) / 2;
        const bool crowded = static_cast<std::uint64_t>(runEnd - run) > kCrowdedCell;
        for (const Entry* p = run; p != runEnd; ++p) {
            for (const Entry* q = p + 1; q != runEnd; ++q) {
                // Two boxes may share several cells: the pair is reported only in the first
                // one, (max x0, max y0). Both cover this cell, so it is in that column exactly
                // when it is the first column of either box, and likewise for the row.
                const std::uint32_t flags = p->entity | q->entity;
                if ((flags & kFirstColumn) == 0 || (flags & kFirstRow) == 0) continue;
                const std::uint32_t i = p->entity & kIndexMask;
                const std::uint32_t j = q->entity & kIndexMask;
                if (crowded && !overlaps(m_boxes.box(i), m_boxes.box(j))) continue;
                if (ruled && !rule.accepts(i, j)) continue;
                out.push_back({i, j});  // entries of a cell are in index order, so i < j
            }
        }
        run = runEnd;
    }
}

void SpatialGrid::findPairs(std::vector<Pair>& out) {
    out.clear();
    std::uint64_t tests = 0;
    std::uint64_t occupiedCells = 0;
    const Entry* const begin = m_entries.data();
    const Entry* const end = begin + m_entries.size();
    const std::size_t chunks =
        m_parallel ? Parallel::partsFor(m_boxes.count, m_entries.size(),
                                        static_cast<std::size_t>(m_parallel->threads) * Parallel::kChunksPerThread)
                   : 1;
    std::uint64_t parallelBytes = 0;
    if (chunks <= 1) {
        scanRuns(begin, end, out, tests, occupiedCells);
    } else {
        Parallel& par = *m_parallel;
        // A static partition (it depends on the entries alone, never on timing): equal
        // shares of entries, each start moved on to the next cell's first entry so that a
        // cell is scanned whole by one chunk. Chunks in order then list the pairs in the
        // serial scan's order.
        par.starts.resize(chunks + 1);
        par.starts[0] = begin;
        for (std::size_t c = 1; c < chunks; ++c) {
            const Entry* at = std::max(begin + m_entries.size() * c / chunks, par.starts[c - 1]);
            while (at != begin && at != end && at->cell == (at - 1)->cell) ++at;
            par.starts[c] = at;
        }
        par.starts[chunks] = end;
        if (par.pairs.size() < chunks) par.pairs.resize(chunks);
        par.tests.assign(chunks, 0);
        par.cells.assign(chunks, 0);
        par.offsets.resize(chunks + 1);
        par.arena.execute([&] {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
                for (std::size_t c = r.begin(); c != r.end(); ++c) {
                    par.pairs[c].clear();
                    scanRuns(par.starts[c], par.starts[c + 1], par.pairs[c], par.tests[c], par.cells[c]);
                }
            });
        });
        par.offsets[0] = 0;
        std::size_t largest = 0;
        for (std::size_t c = 0; c < chunks; ++c) {
            par.offsets[c + 1] = par.offsets[c] + par.pairs[c].size();
            tests += par.tests[c];
            occupiedCells += par.cells[c];
            largest = std::max(largest, par.pairs[c].size());
        }
        // Room in every chunk for half again the largest: the pairs drifting between chunks
        // from step to step then allocate nothing.
        for (std::size_t c = 0; c < chunks; ++c) reserveWithHeadroom(par.pairs[c], largest);
        resizeWithHeadroom(out, par.offsets[chunks]);
        par.arena.execute([&] {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
                for (std::size_t c = r.begin(); c != r.end(); ++c)
                    std::copy(par.pairs[c].begin(), par.pairs[c].end(), out.begin() + static_cast<std::ptrdiff_t>(par.offsets[c]));
            });
        });
        for (const std::vector<Pair>& p : par.pairs) parallelBytes += bytesHeld(p);
        parallelBytes += bytesHeld(par.digitCounts) + bytesHeld(par.starts) + bytesHeld(par.pairs) + bytesHeld(par.tests) + bytesHeld(par.cells) +
                         bytesHeld(par.offsets);
    }
    tests += pairOversized(m_boxes, m_oversized, m_isOversized, out, m_oversizedScratch);
    m_counters.pairTests = tests;
    m_counters.candidatePairs = out.size();
    m_counters.elementsVisited += occupiedCells;
    m_counters.extra.set("cell_size", m_cellSize);
    m_counters.bytesHeld = bytesHeld(m_ranges) + bytesHeld(m_entries) + bytesHeld(m_sortScratch) +
                           bytesHeld(m_oversized) + bytesHeld(m_isOversized) + m_oversizedScratch.bytesHeld() +
                           m_copy.bytesHeld() + parallelBytes;
}

void SpatialGrid::forEachElement(const std::function<void(const StructureElement&)>& visit) const {
    const Entry* const end = m_entries.data() + m_entries.size();
    for (const Entry* run = m_entries.data(); run != end;) {
        const Entry* runEnd = run + 1;
        while (runEnd != end && runEnd->cell == run->cell) ++runEnd;
        const float x = m_bounds.minX + static_cast<float>(run->cell % m_columns) * m_cellSize;
        const float y = m_bounds.minY + static_cast<float>(run->cell / m_columns) * m_cellSize;
        visit({{x, y, x + m_cellSize, y + m_cellSize}, static_cast<std::uint32_t>(runEnd - run)});
        run = runEnd;
    }
}

}  // namespace ro

// Queries (Lembcke and Korth) look up a row's span of cells by binary search in the sorted entries.

namespace ro {

template <typename Visit>
std::uint64_t SpatialGrid::forEachEntry(std::uint32_t firstCell, std::uint32_t lastCell, Visit visit) const {
    const auto byCell = [](const Entry& e, std::uint32_t cell) { return e.cell < cell; };
    auto it = std::lower_bound(m_entries.begin(), m_entries.end(), firstCell, byCell);
    std::uint64_t visited = 0;
    for (; it != m_entries.end() && it->cell <= lastCell; ++it, ++visited) visit(*it);
    return visited;
}

QueryCost SpatialGrid::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    QueryCost cost;
    const CellRange q{column(box.minX), row(box.minY), column(box.maxX), row(box.maxY)};
    for (std::uint32_t y = q.y0; y <= q.y1; ++y) {
        cost.visited += q.x1 - q.x0 + 1;
        forEachEntry(y * m_columns + q.x0, y * m_columns + q.x1, [&](const Entry& e) {
            const std::uint32_t i = e.entity & kIndexMask;
            const CellRange& r = m_ranges[i];
            // An entity is met in every cell it shares with the query: report it in the first.
            if (e.cell != std::max(r.y0, q.y0) * m_columns + std::max(r.x0, q.x0)) return;
            ++cost.tests;
            if (overlaps(m_boxes.box(i), box)) out.push_back(i);
        });
    }
    queryOversized(m_boxes, m_oversized, box, out, cost);
    return cost;
}

template <typename OnHit, typename KeepGoing>
QueryCost SpatialGrid::walkSegment(const Segment& segment, OnHit hit, KeepGoing keepGoing) {
    QueryCost cost;
    if (m_queryMark.size() != m_boxes.count || ++m_queryStamp == 0) {
        m_queryMark.assign(m_boxes.count, 0);
        m_queryStamp = 1;
    }
    const auto rowBand = [this](std::int64_t r) {
        constexpr float kInf = std::numeric_limits<float>::infinity();
        const float lo = r == 0 ? -kInf : m_bounds.minY + static_cast<float>(r) * m_cellSize;
        const float hi = r + 1 == m_rows ? kInf : m_bounds.minY + static_cast<float>(r + 1) * m_cellSize;
        return std::pair{lo, hi};
    };
    const auto onRow = [&](std::int64_t y, std::int64_t x0, std::int64_t x1, float enterT) {
        if (!keepGoing(enterT)) return false;
        const auto rowStart = static_cast<std::uint32_t>(y) * m_columns;
        cost.visited += static_cast<std::uint64_t>(x1 - x0 + 1);
        forEachEntry(rowStart + static_cast<std::uint32_t>(x0), rowStart + static_cast<std::uint32_t>(x1),
                     [&](const Entry& e) {
                         const std::uint32_t i = e.entity & kIndexMask;
                         if (m_queryMark[i] == m_queryStamp) return;
                         m_queryMark[i] = m_queryStamp;
                         ++cost.tests;
                         if (const auto t = segmentEntry(m_boxes.box(i), segment)) hit(i, *t);
                     });
        return true;
    };
    const float origin = std::max({std::fabs(m_bounds.minX), std::fabs(m_bounds.minY), std::fabs(m_bounds.maxX),
                                   std::fabs(m_bounds.maxY)});
    walkSegmentRows(
        segment, m_cellSize, origin, [this](float y) { return row(y); }, rowBand, [this](float x) { return column(x); },
        onRow);
    segmentOversized(m_boxes, m_oversized, segment, hit, cost);
    return cost;
}

QueryCost SpatialGrid::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    return everyHit([&](auto onHit, auto keepGoing) { return walkSegment(segment, onHit, keepGoing); }, out);
}

QueryCost SpatialGrid::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    return nearestHit([&](auto onHit, auto keepGoing) { return walkSegment(segment, onHit, keepGoing); }, hit);
}

}  // namespace ro

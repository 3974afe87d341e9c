#include "broadphase/hash/hash.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "broadphase/cell_walk.h"
#include "broadphase/oversized.h"
#include "core/buffers.h"
#include "core/radix_sort.h"

namespace ro {
namespace {

constexpr std::uint32_t kEnd = std::numeric_limits<std::uint32_t>::max();
// Cell coordinates stay well inside int32 so x1 - x0 + 1 cannot overflow.
constexpr float kCellLimit = 1.0e9f;

// Lemire's exact "fastmod": a % d by two multiplications, with magic = 2^64 / d + 1.
__extension__ using Uint128 = unsigned __int128;
std::uint32_t fastModulo(std::uint32_t a, std::uint64_t magic, std::uint32_t d) {
    return static_cast<std::uint32_t>((static_cast<Uint128>(magic * a) * d) >> 64);
}

}  // namespace

std::uint32_t SpatialHash::nextPrime(std::uint32_t n) {
    auto isPrime = [](std::uint32_t v) {
        if (v < 2) return false;
        for (std::uint32_t d = 2; static_cast<std::uint64_t>(d) * d <= v; ++d)
            if (v % d == 0) return false;
        return true;
    };
    while (!isPrime(n)) ++n;
    return n;
}

std::uint32_t SpatialHash::bucketOf(std::int32_t x, std::int32_t y) const {
    return fastModulo(hashKey(x, y), m_moduloMagic, m_tableSize);
}

void SpatialHash::applySettings(const Settings& settings) {
    m_cellSize = settings.real(kCellSizeParameter);
    m_inverseCellSize = 1.0f / m_cellSize;
    m_requestedTableSize = settings.integer(kTableSizeParameter);
    m_tableSize = 0;  // re-chosen on the next update
}

std::int32_t SpatialHash::cellOf(float value) const {
    const float f = std::floor(value * m_inverseCellSize);
    if (!(f > -kCellLimit)) return static_cast<std::int32_t>(-kCellLimit);
    if (f > kCellLimit) return static_cast<std::int32_t>(kCellLimit);
    return static_cast<std::int32_t>(f);
}

std::uint32_t SpatialHash::tableSizeFor(std::uint32_t requested, std::uint32_t entityCount) {
    // About 10x the entity count unless asked otherwise: Lembcke and Korth's rule of thumb.
    const std::uint64_t wanted = requested != 0 ? requested : std::max<std::uint64_t>(10ull * entityCount, 1031);
    return nextPrime(static_cast<std::uint32_t>(std::clamp<std::uint64_t>(wanted, 2, kMaxTableSize)));
}

void SpatialHash::resizeTable(std::uint32_t entityCount) {
    if (m_requestedTableSize == 0 && m_tableSize != 0) {
        // Keep an automatic table while the count stays within 2x of a tenth of it, so adding
        // one entity does not reallocate the table.
        const std::uint64_t target = std::max<std::uint64_t>(10ull * entityCount, 1031);
        if (m_tableSize >= target / 2 && m_tableSize <= target * 2) return;
    }
    const std::uint32_t wanted = tableSizeFor(m_requestedTableSize, entityCount);
    if (wanted == m_tableSize) return;
    m_tableSize = wanted;
    m_moduloMagic = ~std::uint64_t{0} / wanted + 1;
    m_buckets.assign(wanted, {kEnd, 0});
    m_frame = 0;
}

void SpatialHash::doUpdate(const BoxView& boxes) {
    m_boxes = m_copy.take(boxes);
    m_counters = {};
    resizeTable(boxes.count);
    m_tableBuilt = false;
    orderByCell();
    resizeWithHeadroom(m_ranges, boxes.count);
    resizeWithHeadroom(m_seen, boxes.count);
    m_oversized.clear();
    resizeWithHeadroom(m_isOversized, boxes.count);  // a count that creeps up must not allocate each step
    std::fill(m_isOversized.begin(), m_isOversized.end(), std::uint8_t{0});
    for (std::uint32_t rank = 0; rank < boxes.count; ++rank) {
        const std::uint32_t i = m_order[rank].entity;
        const CellRange r{cellOf(boxes.minX[i]), cellOf(boxes.minY[i]), cellOf(boxes.maxX[i]), cellOf(boxes.maxY[i])};
        m_ranges[rank] = r;
        m_seen[rank] = 0;
        const std::uint64_t cells = static_cast<std::uint64_t>(r.x1 - r.x0 + 1) * static_cast<std::uint64_t>(r.y1 - r.y0 + 1);
        // Past the cell range, cells clamp into one: such entities would all share it.
        const auto limit = static_cast<std::int32_t>(kCellLimit);
        const bool clamped = r.x0 <= -limit || r.y0 <= -limit || r.x1 >= limit || r.y1 >= limit;
        if (cells > kMaxCellsPerEntity || clamped) {
            m_oversized.push_back(i);
            m_isOversized[i] = 1;
        }
    }
    m_queryStamp = 0;
}

void SpatialHash::newFrame() {
    if (++m_frame == 0) {  // the frame stamp wrapped: forget every bucket once
        for (Bucket& b : m_buckets) b.frame = 0;
        m_frame = 1;
    }
    m_nodes.clear();
}

void SpatialHash::orderByCell() {
    // Visit entities row by row (by the cell of their min corner), so the neighbours an entity
    // meets were visited a few hundred ranks earlier and their nodes and stamps are still in
    // cache; only the hashed buckets stay scattered. The key is quantized to 32 bits (the
    // hash is unbounded).
    const std::uint32_t n = m_boxes.count;
    std::int64_t minX = 0, minY = 0, maxX = 0, maxY = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::int64_t x = cellOf(m_boxes.minX[i]);
        const std::int64_t y = cellOf(m_boxes.minY[i]);
        minX = i == 0 ? x : std::min(minX, x), maxX = i == 0 ? x : std::max(maxX, x);
        minY = i == 0 ? y : std::min(minY, y), maxY = i == 0 ? y : std::max(maxY, y);
    }
    int shift = 0;  // coarsen rows and columns until row * width + column fits 32 bits
    while (((maxX - minX) >> shift) + 1 > (1 << 16) || ((maxY - minY) >> shift) + 1 > (1 << 16)) ++shift;
    const auto width = static_cast<std::uint32_t>(((maxX - minX) >> shift) + 1);
    resizeWithHeadroom(m_order, n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto column = static_cast<std::uint32_t>((cellOf(m_boxes.minX[i]) - minX) >> shift);
        const auto row = static_cast<std::uint32_t>((cellOf(m_boxes.minY[i]) - minY) >> shift);
        m_order[i] = {row * width + column, i};
    }
    radixSort(m_order, m_orderScratch, 32, [](const Visit& v) { return v.key; });
}

void SpatialHash::insertAndQuery(std::uint32_t rank, std::vector<Pair>& out) {
    ++m_queryStamp;            // one query per entity per step: it cannot wrap within a step
    m_seen[rank] = m_queryStamp;  // never pair with itself when two of its cells share a bucket
    const CellRange r = m_ranges[rank];
    const std::uint32_t entity = m_order[rank].entity;
    const PairRule& rule = pairRule();
    for (std::int32_t y = r.y0; y <= r.y1; ++y) {
        for (std::int32_t x = r.x0; x <= r.x1; ++x) {
            Bucket& bucket = m_buckets[bucketOf(x, y)];
            if (bucket.frame != m_frame) bucket = {kEnd, m_frame};
            std::uint64_t walked = 0;
            for (std::uint32_t n = bucket.head; n != kEnd; n = m_nodes[n].next) {
                const std::uint32_t other = m_nodes[n].rank;
                ++m_counters.pairTests;
                if (m_seen[other] == m_queryStamp) continue;
                m_seen[other] = m_queryStamp;
                // Deep in a crowded bucket only true overlaps are reported (oversized.h).
                if (++walked > kCrowdedCell && !overlaps(m_boxes.box(m_order[other].entity), m_boxes.box(entity)))
                    continue;
                if (rule.active() && !rule.accepts(m_order[other].entity, entity)) continue;
                out.push_back(makePair(m_order[other].entity, entity));
                const CellRange& o = m_ranges[other];
                const bool shareACell = r.x0 <= o.x1 && o.x0 <= r.x1 && r.y0 <= o.y1 && o.y0 <= r.y1;
                if (!shareACell) ++m_falsePositives;
            }
            m_nodes.push_back({rank, bucket.head, x, y});
            bucket.head = static_cast<std::uint32_t>(m_nodes.size() - 1);
            ++m_counters.elementsVisited;
        }
    }
}

void SpatialHash::findPairs(std::vector<Pair>& out) {
    out.clear();
    newFrame();
    m_tableBuilt = true;
    m_falsePositives = 0;
    for (std::uint32_t rank = 0; rank < m_boxes.count; ++rank)
        if (!m_isOversized[m_order[rank].entity]) insertAndQuery(rank, out);
    m_counters.pairTests += pairOversized(m_boxes, m_oversized, m_isOversized, out, m_oversizedScratch);
    m_counters.candidatePairs = out.size();
    m_counters.extra.set("cell_size", m_cellSize);
    m_counters.extra.set("hash_false_positives", static_cast<double>(m_falsePositives));
    m_counters.bytesHeld = bytesHeld(m_buckets) + bytesHeld(m_nodes) + bytesHeld(m_order) + bytesHeld(m_ranges) +
                           bytesHeld(m_seen) + bytesHeld(m_oversized) + bytesHeld(m_isOversized) + bytesHeld(m_orderScratch) +
                           m_oversizedScratch.bytesHeld() + m_copy.bytesHeld();
}

void SpatialHash::forEachElement(const std::function<void(const StructureElement&)>& visit) const {
    // Chain by chain, each walked once from its head (a walk from every node walked a chain
    // of n nodes n times). A chain holds the nodes of every cell hashed to its bucket, newest
    // first, usually of one cell; a cell is visited at its newest node.
    const auto sameCell = [](const Node& a, const Node& b) { return a.cellX == b.cellX && a.cellY == b.cellY; };
    // The buckets of nodes some way ahead are fetched now: they lie anywhere in the table,
    // and each read would otherwise wait on a miss.
    constexpr std::uint32_t kAhead = 16;
    const auto bucketOfNode = [&](std::uint32_t n) -> const Bucket& { return m_buckets[bucketOf(m_nodes[n].cellX, m_nodes[n].cellY)]; };
    const auto nodes = static_cast<std::uint32_t>(m_nodes.size());
    for (std::uint32_t head = 0; head < nodes; ++head) {
        if (head + kAhead < nodes) __builtin_prefetch(&bucketOfNode(head + kAhead));
        if (bucketOfNode(head).head != head) continue;
        for (std::uint32_t n = head; n != kEnd; n = m_nodes[n].next) {
            const Node& node = m_nodes[n];
            bool newest = true;  // most chains hold one cell: this stops at the head
            for (std::uint32_t m = head; m != n && newest; m = m_nodes[m].next) newest = !sameCell(m_nodes[m], node);
            if (!newest) continue;
            std::uint32_t count = 1;
            for (std::uint32_t m = node.next; m != kEnd; m = m_nodes[m].next) count += sameCell(m_nodes[m], node) ? 1 : 0;
            const float x = static_cast<float>(node.cellX) * m_cellSize;
            const float y = static_cast<float>(node.cellY) * m_cellSize;
            visit({{x, y, x + m_cellSize, y + m_cellSize}, count});
        }
    }
}

}  // namespace ro

// Queries (Lembcke and Korth) read the table findPairs built; a cell's nodes are told apart from the
// other cells of their bucket by their cell coordinates, so no false positive reaches the test.

namespace ro {

void SpatialHash::ensureTable() {
    if (m_tableBuilt) return;
    newFrame();
    for (std::uint32_t rank = 0; rank < m_boxes.count; ++rank) {
        if (m_isOversized[m_order[rank].entity]) continue;
        const CellRange r = m_ranges[rank];
        for (std::int32_t y = r.y0; y <= r.y1; ++y) {
            for (std::int32_t x = r.x0; x <= r.x1; ++x) {
                Bucket& bucket = m_buckets[bucketOf(x, y)];
                if (bucket.frame != m_frame) bucket = {kEnd, m_frame};
                m_nodes.push_back({rank, bucket.head, x, y});
                bucket.head = static_cast<std::uint32_t>(m_nodes.size() - 1);
            }
        }
    }
    m_tableBuilt = true;
}

std::uint32_t SpatialHash::nextQueryStamp() {
    if (++m_queryStamp == 0) {
        std::fill(m_seen.begin(), m_seen.end(), 0u);
        m_queryStamp = 1;
    }
    return m_queryStamp;
}

template <typename OnNode>
void SpatialHash::forEachNodeInCell(std::int32_t x, std::int32_t y, OnNode visit) const {
    const Bucket& bucket = m_buckets[bucketOf(x, y)];
    if (bucket.frame != m_frame) return;
    for (std::uint32_t n = bucket.head; n != kEnd; n = m_nodes[n].next)
        if (m_nodes[n].cellX == x && m_nodes[n].cellY == y) visit(m_nodes[n].rank);
}

QueryCost SpatialHash::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    QueryCost cost;
    if (m_boxes.count == 0) return cost;  // also before the first update, when there is no table
    const CellRange q{cellOf(box.minX), cellOf(box.minY), cellOf(box.maxX), cellOf(box.maxY)};
    const std::uint64_t cells =
        static_cast<std::uint64_t>(q.x1 - q.x0 + 1) * static_cast<std::uint64_t>(q.y1 - q.y0 + 1);
    if (cells > std::uint64_t{m_boxes.count} + 64) {
        // The box covers more cells than there are entities: testing them all is cheaper.
        for (std::uint32_t i = 0; i < m_boxes.count; ++i)
            if (overlaps(m_boxes.box(i), box)) out.push_back(i);
        return {0, m_boxes.count};
    }
    ensureTable();
    for (std::int32_t y = q.y0; y <= q.y1; ++y) {
        for (std::int32_t x = q.x0; x <= q.x1; ++x) {
            ++cost.visited;
            forEachNodeInCell(x, y, [&](std::uint32_t rank) {
                const CellRange& r = m_ranges[rank];
                // An entity is met in every cell it shares with the query: report it in the first.
                if (x != std::max(r.x0, q.x0) || y != std::max(r.y0, q.y0)) return;
                const std::uint32_t i = m_order[rank].entity;
                ++cost.tests;
                if (overlaps(m_boxes.box(i), box)) out.push_back(i);
            });
        }
    }
    queryOversized(m_boxes, m_oversized, box, out, cost);
    return cost;
}

template <typename OnHit, typename KeepGoing>
QueryCost SpatialHash::walkSegment(const Segment& segment, OnHit hit, KeepGoing keepGoing) {
    QueryCost cost;
    if (m_boxes.count == 0) return cost;  // also before the first update, when there is no table
    const auto band = [this](std::int64_t c) {
        constexpr float kInf = std::numeric_limits<float>::infinity();
        const float lo = c <= static_cast<std::int64_t>(-kCellLimit) ? -kInf : static_cast<float>(c) * m_cellSize;
        const float hi = c >= static_cast<std::int64_t>(kCellLimit) ? kInf : static_cast<float>(c + 1) * m_cellSize;
        return std::pair{lo, hi};
    };
    const auto cellAt = [this](float v) { return cellOf(v); };
    // A long segment crosses many cells, and so does a short one far from the origin, where the
    // walk pads its spans by the coordinates' rounding (a float at 1e7 is exact to 1 unit). When
    // the walk would visit more cells than there are entities, testing them all is cheaper; the
    // count stops there, so it costs at most as much as those tests.
    const std::uint64_t mostCells = std::uint64_t{m_boxes.count} + 64;
    std::uint64_t cells = 0;
    walkSegmentRows(segment, m_cellSize, 0.0f, cellAt, band, cellAt,
                    [&](std::int64_t, std::int64_t x0, std::int64_t x1, float) {
                        cells += static_cast<std::uint64_t>(x1 - x0 + 1);
                        return cells <= mostCells;
                    });
    if (cells > mostCells) {
        for (std::uint32_t i = 0; i < m_boxes.count; ++i)
            if (const auto t = segmentEntry(m_boxes.box(i), segment)) hit(i, *t);
        return {0, m_boxes.count};
    }
    ensureTable();
    const std::uint32_t stamp = nextQueryStamp();
    const auto onRow = [&](std::int64_t y, std::int64_t x0, std::int64_t x1, float enterT) {
        if (!keepGoing(enterT)) return false;
        for (std::int64_t x = x0; x <= x1; ++x) {
            ++cost.visited;
            forEachNodeInCell(static_cast<std::int32_t>(x), static_cast<std::int32_t>(y), [&](std::uint32_t rank) {
                if (m_seen[rank] == stamp) return;
                m_seen[rank] = stamp;
                const std::uint32_t i = m_order[rank].entity;
                ++cost.tests;
                if (const auto t = segmentEntry(m_boxes.box(i), segment)) hit(i, *t);
            });
        }
        return true;
    };
    walkSegmentRows(segment, m_cellSize, 0.0f, cellAt, band, cellAt, onRow);
    segmentOversized(m_boxes, m_oversized, segment, hit, cost);
    return cost;
}

QueryCost SpatialHash::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    return everyHit([&](auto onHit, auto keepGoing) { return walkSegment(segment, onHit, keepGoing); }, out);
}

QueryCost SpatialHash::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    return nearestHit([&](auto onHit, auto keepGoing) { return walkSegment(segment, onHit, keepGoing); }, hit);
}

}  // namespace ro

#include "broadphase/spatial_hash.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ro {
namespace {

constexpr std::uint32_t kEnd = std::numeric_limits<std::uint32_t>::max();
// Cell coordinates stay well inside int32 so x1 - x0 + 1 cannot overflow.
constexpr float kCellLimit = 1.0e9f;

template <typename T>
std::uint64_t bytesOf(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}

bool rangesShareCell(std::int32_t ax0, std::int32_t ay0, std::int32_t ax1, std::int32_t ay1, std::int32_t bx0,
                     std::int32_t by0, std::int32_t bx1, std::int32_t by1) {
    return ax0 <= bx1 && bx0 <= ax1 && ay0 <= by1 && by0 <= ay1;
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

void SpatialHash::configure(const Settings& settings) {
    m_cellSize = settings.cellSize;
    m_inverseCellSize = 1.0f / settings.cellSize;
    m_requestedTableSize = settings.hashTableSize;
    m_tableSize = 0;  // re-chosen on the next update
}

std::int32_t SpatialHash::cellOf(float value) const {
    const float f = std::floor(value * m_inverseCellSize);
    if (!(f > -kCellLimit)) return static_cast<std::int32_t>(-kCellLimit);
    if (f > kCellLimit) return static_cast<std::int32_t>(kCellLimit);
    return static_cast<std::int32_t>(f);
}

void SpatialHash::resizeTable(std::uint32_t entityCount) {
    std::uint32_t wanted = m_requestedTableSize;
    if (wanted == 0) {
        // About 10x the entity count (seed 004's rule of thumb); keep the table while the count
        // stays within 2x of that, so adding one entity does not reallocate the table.
        const std::uint64_t target = std::max<std::uint64_t>(10ull * entityCount, 1031);
        if (m_tableSize != 0 && m_tableSize >= target / 2 && m_tableSize <= target * 2) return;
        wanted = static_cast<std::uint32_t>(std::min<std::uint64_t>(target, 1u << 30));
    }
    wanted = nextPrime(std::max<std::uint32_t>(wanted, 2));
    if (wanted == m_tableSize) return;
    m_tableSize = wanted;
    m_bucketHead.assign(wanted, kEnd);
    m_bucketFrame.assign(wanted, 0);
    m_bucketCount.assign(wanted, 0);
    m_frame = 0;
}

void SpatialHash::update(const BoxView& boxes) {
    m_boxes = boxes;
    m_counters = {};
    resizeTable(boxes.count);
    if (++m_frame == 0) {  // the frame stamp wrapped: forget every bucket once
        std::fill(m_bucketFrame.begin(), m_bucketFrame.end(), 0u);
        m_frame = 1;
    }
    m_ranges.resize(boxes.count);
    m_seen.resize(boxes.count);
    m_isOversized.assign(boxes.count, 0);
    m_oversized.clear();
    m_nodes.clear();
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        const CellRange r{cellOf(boxes.minX[i]), cellOf(boxes.minY[i]), cellOf(boxes.maxX[i]), cellOf(boxes.maxY[i])};
        m_ranges[i] = r;
        const std::uint64_t cells = static_cast<std::uint64_t>(r.x1 - r.x0 + 1) * static_cast<std::uint64_t>(r.y1 - r.y0 + 1);
        if (cells > kMaxCellsPerEntity) {
            m_isOversized[i] = 1;
            m_oversized.push_back(i);
        }
    }
}

void SpatialHash::insertAndQuery(std::uint32_t i, std::vector<Pair>& out) {
    if (++m_queryStamp == 0) {  // the query stamp wrapped: forget every mark once
        std::fill(m_seen.begin(), m_seen.end(), 0u);
        m_queryStamp = 1;
    }
    m_seen[i] = m_queryStamp;  // never pair with itself when two of its cells share a bucket
    const CellRange r = m_ranges[i];
    for (std::int32_t y = r.y0; y <= r.y1; ++y) {
        for (std::int32_t x = r.x0; x <= r.x1; ++x) {
            const std::uint32_t bucket = hashCell(x, y, m_tableSize);
            if (m_bucketFrame[bucket] != m_frame) {
                m_bucketFrame[bucket] = m_frame;
                m_bucketHead[bucket] = kEnd;
                m_bucketCount[bucket] = 0;
            }
            for (std::uint32_t n = m_bucketHead[bucket]; n != kEnd; n = m_nodes[n].next) {
                const std::uint32_t j = m_nodes[n].entity;
                ++m_counters.pairTests;
                if (m_seen[j] == m_queryStamp) continue;
                m_seen[j] = m_queryStamp;
                out.push_back({j, i});
                const CellRange o = m_ranges[j];
                if (!rangesShareCell(r.x0, r.y0, r.x1, r.y1, o.x0, o.y0, o.x1, o.y1)) ++m_counters.hashFalsePositives;
            }
            m_nodes.push_back({i, m_bucketHead[bucket], x, y});
            m_bucketHead[bucket] = static_cast<std::uint32_t>(m_nodes.size() - 1);
            ++m_bucketCount[bucket];
            ++m_counters.cellsTouched;
        }
    }
}

void SpatialHash::pairOversized(std::vector<Pair>& out) {
    const BoxView& b = m_boxes;
    for (const std::uint32_t big : m_oversized) {
        const Aabb box = b.box(big);
        for (std::uint32_t j = 0; j < b.count; ++j) {
            // Two oversized entities pair once, from the smaller index.
            if (j == big || (m_isOversized[j] && j < big)) continue;
            ++m_counters.pairTests;
            if (overlaps(box, b.box(j))) out.push_back(makePair(big, j));
        }
    }
}

void SpatialHash::findPairs(std::vector<Pair>& out) {
    out.clear();
    for (std::uint32_t i = 0; i < m_boxes.count; ++i)
        if (!m_isOversized[i]) insertAndQuery(i, out);
    pairOversized(out);
    m_counters.candidatePairs = out.size();
    m_counters.cellSize = m_cellSize;
    m_counters.bytesHeld = bytesOf(m_bucketHead) + bytesOf(m_bucketFrame) + bytesOf(m_bucketCount) + bytesOf(m_nodes) +
                           bytesOf(m_seen) + bytesOf(m_ranges) + bytesOf(m_oversized) + bytesOf(m_isOversized);
}

void SpatialHash::forEachCell(const std::function<void(const CellView&)>& visit) const {
    // Nodes are pushed in insertion order, so the first node of a cell is the one whose
    // bucket chain holds no earlier node of the same cell; count the cell's entities there.
    for (std::uint32_t n = 0; n < m_nodes.size(); ++n) {
        const Node& node = m_nodes[n];
        bool first = true;
        std::uint32_t count = 0;
        for (std::uint32_t m = m_bucketHead[hashCell(node.cellX, node.cellY, m_tableSize)]; m != kEnd; m = m_nodes[m].next) {
            if (m_nodes[m].cellX != node.cellX || m_nodes[m].cellY != node.cellY) continue;
            ++count;
            if (m < n) first = false;
        }
        if (!first) continue;
        const float x = static_cast<float>(node.cellX) * m_cellSize;
        const float y = static_cast<float>(node.cellY) * m_cellSize;
        visit({{x, y, x + m_cellSize, y + m_cellSize}, count});
    }
}

}  // namespace ro

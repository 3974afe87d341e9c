#include "broadphase/brute/brute.h"

namespace ro {

void BruteForce::doUpdate(const BoxView& boxes) { m_boxes = m_copy.take(boxes); }

void BruteForce::findPairs(std::vector<Pair>& out) {
    out.clear();
    const std::uint32_t n = m_boxes.count;
    const float* minX = m_boxes.minX;
    const float* minY = m_boxes.minY;
    const float* maxX = m_boxes.maxX;
    const float* maxY = m_boxes.maxY;
    const PairRule& rule = pairRule();
    const bool ruled = rule.active();
    // The inner loop starts at i + 1, so no pair is tested twice (Petersen).
    for (std::uint32_t i = 0; i < n; ++i) {
        for (std::uint32_t j = i + 1; j < n; ++j) {
            if (minX[i] <= maxX[j] && minX[j] <= maxX[i] && minY[i] <= maxY[j] && minY[j] <= maxY[i] &&
                (!ruled || rule.accepts(i, j)))
                out.push_back({i, j});
        }
    }
    m_counters = {};
    m_counters.pairTests = static_cast<std::uint64_t>(n) * (n > 0 ? n - 1 : 0) / 2;
    m_counters.candidatePairs = out.size();
    m_counters.bytesHeld = m_copy.bytesHeld();
}

}  // namespace ro

namespace ro {

// Queries test every box: the reference the other techniques' queries are checked against.

QueryCost BruteForce::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    for (std::uint32_t i = 0; i < m_boxes.count; ++i)
        if (overlaps(m_boxes.box(i), box)) out.push_back(i);
    return {m_boxes.count, m_boxes.count};
}

QueryCost BruteForce::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    for (std::uint32_t i = 0; i < m_boxes.count; ++i)
        if (const auto t = segmentEntry(m_boxes.box(i), segment)) out.push_back({i, *t});
    return {m_boxes.count, m_boxes.count};
}

QueryCost BruteForce::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    for (std::uint32_t i = 0; i < m_boxes.count; ++i) {
        const auto t = segmentEntry(m_boxes.box(i), segment);
        if (t) keepNearest(hit, {i, *t});
    }
    return {m_boxes.count, m_boxes.count};
}

}  // namespace ro

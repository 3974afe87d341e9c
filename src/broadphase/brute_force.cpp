#include "broadphase/brute_force.h"

namespace ro {

void BruteForce::configure(const Settings& settings) { checkSettings(settings); }

void BruteForce::update(const BoxView& boxes) { m_boxes = boxes; }

void BruteForce::findPairs(std::vector<Pair>& out) {
    out.clear();
    const std::uint32_t n = m_boxes.count;
    const float* minX = m_boxes.minX;
    const float* minY = m_boxes.minY;
    const float* maxX = m_boxes.maxX;
    const float* maxY = m_boxes.maxY;
    // The inner loop starts at i + 1, so no pair is tested twice (seed 000).
    for (std::uint32_t i = 0; i < n; ++i) {
        for (std::uint32_t j = i + 1; j < n; ++j) {
            if (minX[i] <= maxX[j] && minX[j] <= maxX[i] && minY[i] <= maxY[j] && minY[j] <= maxY[i])
                out.push_back({i, j});
        }
    }
    m_counters = {};
    m_counters.pairTests = static_cast<std::uint64_t>(n) * (n > 0 ? n - 1 : 0) / 2;
    m_counters.candidatePairs = out.size();
}

}  // namespace ro

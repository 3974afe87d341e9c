#include "verdict/scene_profile.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/overlap_count.h"

namespace ro {
namespace {

/// The q-th quantile (0 to 1) of `values`, reordering them.
template <typename T>
double quantile(std::vector<T>& values, double q) {
    if (values.empty()) return 0;
    const auto k = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1));
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
    return static_cast<double>(values[k]);
}

/// At most this many displacements are kept: the median of a sample, in bounded memory.
constexpr std::size_t kMostMotions = 1 << 20;

}  // namespace

void SceneProfiler::addFrame(const BoxView& boxes) {
    ++m_frames;
    m_boxes += boxes.count;
    const bool sampled = std::has_single_bit(m_frames);
    m_current.clear();
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        const float w = boxes.maxX[i] - boxes.minX[i];
        const float h = boxes.maxY[i] - boxes.minY[i];
        const float side = std::max(w, h);
        m_current.push_back({boxes.ids[i], boxes.minX[i] + 0.5f * w, boxes.minY[i] + 0.5f * h, side});
        if (boxes.isStatic && boxes.isStatic[i]) ++m_statics;
        if (sampled) m_sides.push_back(side);
    }
    if (sampled) {
        m_overlaps += countOverlappingPairs(boxes);
        m_sampledBoxes += boxes.count;
    }
    std::sort(m_current.begin(), m_current.end(), [](const Centre& a, const Centre& b) { return a.id < b.id; });
    if (m_frames > 1) {
        // Both lists sorted by id: one merge finds who stayed, who came and who went.
        std::size_t p = 0, c = 0;
        while (p < m_previous.size() || c < m_current.size()) {
            if (c == m_current.size() || (p < m_previous.size() && m_previous[p].id < m_current[c].id)) {
                ++m_churn;  // destroyed
                ++p;
            } else if (p == m_previous.size() || m_current[c].id < m_previous[p].id) {
                ++m_churn;  // created
                ++c;
            } else {
                const Centre& was = m_previous[p++];
                const Centre& now = m_current[c++];
                ++m_present;
                const double distance = std::hypot(now.x - was.x, now.y - was.y);
                if (distance == 0) continue;
                ++m_moved;
                if (m_motions.size() < kMostMotions && now.side > 0) m_motions.push_back(distance / now.side);
            }
        }
    }
    m_previous.swap(m_current);
}

SceneProfile SceneProfiler::profile() const {
    SceneProfile p;
    p.frames = m_frames;
    if (m_frames == 0) return p;
    p.meanBoxes = static_cast<double>(m_boxes) / static_cast<double>(m_frames);
    p.staticShare = m_boxes ? static_cast<double>(m_statics) / static_cast<double>(m_boxes) : 0;
    p.movedShare = m_present ? static_cast<double>(m_moved) / static_cast<double>(m_present) : 0;
    std::vector<double> motions = m_motions;
    p.motionPerSize = quantile(motions, 0.5);
    std::vector<float> sides = m_sides;
    p.sideP50 = quantile(sides, 0.5);
    p.sideP99 = quantile(sides, 0.99);
    p.overlapsPerBox = m_sampledBoxes ? static_cast<double>(m_overlaps) / static_cast<double>(m_sampledBoxes) : 0;
    p.churnPerFrame = m_frames > 1 ? static_cast<double>(m_churn) / static_cast<double>(m_frames - 1) : 0;
    return p;
}

}  // namespace ro

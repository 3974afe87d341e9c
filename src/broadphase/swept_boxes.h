#pragma once
/// Swept boxes: each box joined with itself moved by its velocity over one step. A broad
/// phase handed these sees every pair whose paths meet within the step, the pairs a discrete
/// one misses when fast bodies cross between two steps. The world's swept boxes and
/// ro_bench's are made here.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ro/broadphase.h"
#include "core/buffers.h"

namespace ro {

class SweptBoxes {
public:
    /// Sweeps `boxes` by `velocityOf(i)` (a Vec2, world units per step) and returns them as a
    /// view with `boxes`' ids, static flags and filters. Kept until the next call.
    template <typename VelocityOf>
    BoxView sweep(const BoxView& boxes, VelocityOf velocityOf) {
        for (auto* v : {&m_minX, &m_minY, &m_maxX, &m_maxY}) resizeWithHeadroom(*v, boxes.count);
        for (std::uint32_t i = 0; i < boxes.count; ++i) {
            const Vec2 v = velocityOf(i);
            m_minX[i] = std::min(boxes.minX[i], boxes.minX[i] + v.x);
            m_maxX[i] = std::max(boxes.maxX[i], boxes.maxX[i] + v.x);
            m_minY[i] = std::min(boxes.minY[i], boxes.minY[i] + v.y);
            m_maxY[i] = std::max(boxes.maxY[i], boxes.maxY[i] + v.y);
        }
        return view(boxes);
    }
    /// The last sweep's boxes with `boxes`' ids, flags and filters (the same entities).
    [[nodiscard]] BoxView view(const BoxView& boxes) const {
        return boxes.withCoordinates(m_minX.data(), m_minY.data(), m_maxX.data(), m_maxY.data());
    }
    [[nodiscard]] std::uint64_t bytesHeld() const {
        return ro::bytesHeld(m_minX) + ro::bytesHeld(m_minY) + ro::bytesHeld(m_maxX) + ro::bytesHeld(m_maxY);
    }

private:
    std::vector<float> m_minX, m_minY, m_maxX, m_maxY;
};

}  // namespace ro

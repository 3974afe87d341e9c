#pragma once
/// A technique's own copy of an update's coordinates, for the techniques that read boxes after
/// update() returns (brute force, sap and sweep, at findPairs and in the queries). The caller
/// may write the next step's boxes into the same arrays, and when update() refuses them the
/// technique must still answer for the last good ones. One O(n) copy an update, no allocation
/// once the arrays have grown.

#include <cstdint>
#include <vector>

#include "ro/broadphase/broadphase.h"
#include "ro/core/buffers.h"

namespace ro {

class BoxCopy {
public:
    /// Copies the four coordinate arrays of `boxes`; returns `boxes` over the copies (ids,
    /// static flags and filters as given).
    BoxView take(const BoxView& boxes) {
        BoxView view = boxes;
        view.minX = copy(m_minX, boxes.minX, boxes.count);
        view.minY = copy(m_minY, boxes.minY, boxes.count);
        view.maxX = copy(m_maxX, boxes.maxX, boxes.count);
        view.maxY = copy(m_maxY, boxes.maxY, boxes.count);
        return view;
    }
    void clear() {
        for (auto* v : {&m_minX, &m_minY, &m_maxX, &m_maxY}) v->clear();
    }
    [[nodiscard]] std::uint64_t bytesHeld() const {
        return ro::bytesHeld(m_minX) + ro::bytesHeld(m_minY) + ro::bytesHeld(m_maxX) + ro::bytesHeld(m_maxY);
    }

private:
    static const float* copy(std::vector<float>& to, const float* from, std::uint32_t count) {
        to.assign(from, from + count);
        return to.data();
    }
    std::vector<float> m_minX, m_minY, m_maxX, m_maxY;
};

}  // namespace ro

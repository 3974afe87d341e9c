#pragma once
/// A technique's own copy of an update's coordinates, for the techniques that read boxes after
/// update() returns (brute force, the grid, the hash, sap, sweep, and auto when it hands its
/// boxes to the HSHG). The caller may write the next step's boxes into the same arrays, or
/// free them, and when update() refuses a step the technique must still answer for the last
/// good one. One O(n) copy an update (O(m) for m moved boxes); no allocation once the arrays
/// have grown, with headroom, to the largest count.

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "ro/broadphase/broadphase.h"
#include "ro/core/buffers.h"

namespace ro {

/// `boxes` with no coordinate arrays, for a technique that keeps the rest of an update's view
/// (ids, flags, filters) but must not read the caller's coordinates after it.
[[nodiscard]] inline BoxView withoutCoordinates(BoxView boxes) {
    boxes.minX = boxes.minY = boxes.maxX = boxes.maxY = nullptr;
    return boxes;
}

class BoxCopy {
public:
    /// Copies the four coordinate arrays of `boxes`; returns `boxes` over the copies (ids,
    /// static flags and filters as given). Only growing can throw (bad_alloc), and it comes
    /// before any copy: a throw leaves the last copy as it was.
    BoxView take(const BoxView& boxes) {
        const std::size_t n = boxes.count;
        if (n > m_minX.capacity()) {
            // All four grown (half again, for a count that creeps up) before any replaces its
            // array: a bad_alloc leaves the view of the last copy valid.
            std::array<std::vector<float>, 4> grown;
            for (std::vector<float>& v : grown) v.reserve(n + n / 2);
            for (std::size_t k = 0; k < 4; ++k) arrays()[k]->swap(grown[k]);
        }
        for (auto* v : arrays()) v->resize(n);  // within the capacity: no allocation
        std::copy_n(boxes.minX, n, m_minX.data());
        std::copy_n(boxes.minY, n, m_minY.data());
        std::copy_n(boxes.maxX, n, m_maxX.data());
        std::copy_n(boxes.maxY, n, m_maxY.data());
        return over(boxes);
    }
    /// Copies only the boxes at `moved` (the count as the last take()'s); returns `boxes`
    /// over the copies.
    BoxView takeMoved(const BoxView& boxes, std::span<const std::uint32_t> moved) {
        for (const std::uint32_t i : moved) {
            m_minX[i] = boxes.minX[i];
            m_minY[i] = boxes.minY[i];
            m_maxX[i] = boxes.maxX[i];
            m_maxY[i] = boxes.maxY[i];
        }
        return over(boxes);
    }
    [[nodiscard]] std::uint64_t bytesHeld() const {
        return ro::bytesHeld(m_minX) + ro::bytesHeld(m_minY) + ro::bytesHeld(m_maxX) + ro::bytesHeld(m_maxY);
    }

private:
    [[nodiscard]] std::array<std::vector<float>*, 4> arrays() { return {&m_minX, &m_minY, &m_maxX, &m_maxY}; }
    [[nodiscard]] BoxView over(const BoxView& boxes) const {
        BoxView view = boxes;
        view.minX = m_minX.data();
        view.minY = m_minY.data();
        view.maxX = m_maxX.data();
        view.maxY = m_maxY.data();
        return view;
    }
    std::vector<float> m_minX, m_minY, m_maxX, m_maxY;
};

}  // namespace ro

#pragma once
/// A technique's own copy of an update's coordinates, for the techniques that read boxes after
/// update() returns (brute force, the grid, the hash, sap, sweep, and the HSHG when some box
/// is oversized). The caller may write the next step's boxes into the same arrays, or
/// free them, and when update() refuses a step the technique must still answer for the last
/// good one. One O(n) copy an update; no allocation once the arrays
/// have grown, with headroom, to the largest count.

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "ro/broadphase.h"
#include "broadphase/threads.h"
#include "core/buffers.h"

namespace ro {

/// `boxes` with no coordinate arrays, for a technique that keeps the rest of an update's view
/// (ids, flags, filters) but must not read the caller's coordinates after it.
[[nodiscard]] inline BoxView withoutCoordinates(const BoxView& boxes) {
    return boxes.withCoordinates(nullptr, nullptr, nullptr, nullptr);
}

class BoxCopy {
public:
    /// Copies the four coordinate arrays of `boxes`; returns `boxes` over the copies (ids,
    /// static flags and filters as given). Only growing can throw (bad_alloc), and it comes
    /// before any copy: a throw leaves the last copy as it was. With `passes`, the copy runs
    /// in parts on its threads.
    BoxView take(const BoxView& boxes, PassArena* passes = nullptr) {
        const std::size_t n = boxes.count;
        if (n > m_minX.capacity()) {
            // All four grown (half again, for a count that creeps up) before any replaces its
            // array: a bad_alloc leaves the view of the last copy valid.
            std::array<std::vector<float>, 4> grown;
            for (std::vector<float>& v : grown) v.reserve(n + n / 2);
            for (std::size_t k = 0; k < 4; ++k) arrays()[k]->swap(grown[k]);
        }
        for (auto* v : arrays()) v->resize(n);  // within the capacity: no allocation
        inParts(passes, boxes.count, [&](std::uint32_t begin, std::uint32_t end, std::size_t) {
            const std::uint32_t size = end - begin;
            std::copy_n(boxes.minX + begin, size, m_minX.data() + begin);
            std::copy_n(boxes.minY + begin, size, m_minY.data() + begin);
            std::copy_n(boxes.maxX + begin, size, m_maxX.data() + begin);
            std::copy_n(boxes.maxY + begin, size, m_maxY.data() + begin);
        });
        return over(boxes);
    }
    [[nodiscard]] std::uint64_t bytesHeld() const {
        return ro::bytesHeld(m_minX) + ro::bytesHeld(m_minY) + ro::bytesHeld(m_maxX) + ro::bytesHeld(m_maxY);
    }

private:
    [[nodiscard]] std::array<std::vector<float>*, 4> arrays() { return {&m_minX, &m_minY, &m_maxX, &m_maxY}; }
    [[nodiscard]] BoxView over(const BoxView& boxes) const {
        return boxes.withCoordinates(m_minX.data(), m_minY.data(), m_maxX.data(), m_maxY.data());
    }
    std::vector<float> m_minX, m_minY, m_maxX, m_maxY;
};

}  // namespace ro

#pragma once
/// A rolling median over the last samples, in fixed storage (no allocation per frame): the HUD
/// shows it beside the last value, so a change is visible at once and noise does not hide it.

#include <algorithm>
#include <array>
#include <cstddef>

namespace ro::app {

template <std::size_t Capacity = 60>
class RollingMedian {
public:
    void add(double value) {
        m_samples[m_next] = value;
        m_next = (m_next + 1) % Capacity;
        m_count = std::min(m_count + 1, Capacity);
    }
    [[nodiscard]] double median() const {
        if (m_count == 0) return 0.0;
        std::array<double, Capacity> sorted = m_samples;
        const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(m_count / 2);
        std::nth_element(sorted.begin(), middle, sorted.begin() + static_cast<std::ptrdiff_t>(m_count));
        return *middle;
    }

private:
    std::array<double, Capacity> m_samples{};
    std::size_t m_next = 0;
    std::size_t m_count = 0;
};

}  // namespace ro::app

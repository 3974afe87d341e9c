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
    [[nodiscard]] double median() const { return quantile(0.5); }
    /// The sample below which a share q of the samples lie (0.95: the 95th percentile).
    [[nodiscard]] double quantile(double q) const {
        if (m_count == 0) return 0.0;
        std::array<double, Capacity> sorted = m_samples;
        const auto rank = std::min(m_count - 1, static_cast<std::size_t>(q * static_cast<double>(m_count)));
        const auto at = sorted.begin() + static_cast<std::ptrdiff_t>(rank);
        std::nth_element(sorted.begin(), at, sorted.begin() + static_cast<std::ptrdiff_t>(m_count));
        return *at;
    }
    [[nodiscard]] std::size_t size() const { return m_count; }

private:
    std::array<double, Capacity> m_samples{};
    std::size_t m_next = 0;
    std::size_t m_count = 0;
};

}  // namespace ro::app

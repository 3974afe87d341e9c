#include "broadphase/sweep_common.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/buffers.h"

namespace ro::sweep {

std::pair<double, double> centreVariance(const BoxView& boxes) {
    if (boxes.count == 0) return {0.0, 0.0};
    // Shifted by the first centre, so a scene far from the origin keeps its precision.
    const auto centre = [&](const float* lo, const float* hi, std::uint32_t i) {
        return 0.5 * (static_cast<double>(lo[i]) + static_cast<double>(hi[i]));
    };
    const double x0 = centre(boxes.minX, boxes.maxX, 0);
    const double y0 = centre(boxes.minY, boxes.maxY, 0);
    double sumX = 0, sumY = 0, sumXX = 0, sumYY = 0;
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        const double x = centre(boxes.minX, boxes.maxX, i) - x0;
        const double y = centre(boxes.minY, boxes.maxY, i) - y0;
        sumX += x;
        sumY += y;
        sumXX += x * x;
        sumYY += y * y;
    }
    const double n = boxes.count;
    return {std::max(0.0, sumXX / n - (sumX / n) * (sumX / n)), std::max(0.0, sumYY / n - (sumY / n) * (sumY / n))};
}

std::uint32_t AxisChooser::choose(const BoxView& boxes, SweepAxis setting) {
    if (setting != SweepAxis::Auto) {
        m_decided = false;  // back to Auto decides afresh
        m_axis = setting == SweepAxis::X ? 0 : 1;
        return m_axis;
    }
    if (m_decided && ++m_stepsSinceCheck < kCheckInterval) return m_axis;
    m_stepsSinceCheck = 0;
    const auto [varianceX, varianceY] = centreVariance(boxes);
    if (!m_decided) {
        m_axis = varianceY > varianceX ? 1 : 0;
        m_decided = true;
    } else if (m_axis == 0 ? varianceY > kSwitchRatio * varianceX : varianceX > kSwitchRatio * varianceY) {
        m_axis = 1 - m_axis;
    }
    return m_axis;
}

std::pair<float, float> segmentSpan(float from, float to) {
    // segmentEntry's t for a box just past `to` is ((lo - from) / (to - from)) with each step
    // rounded: within 3 units of 2^-24 of 1 when lo - to is within 3 * 2^-24 * |to - from|.
    // 2^-20 * (|from| + |to|) covers that with room, and the smallest normal covers zero.
    const double margin = (std::fabs(static_cast<double>(from)) + std::fabs(static_cast<double>(to))) * 0x1p-20 +
                          static_cast<double>(std::numeric_limits<float>::min());
    constexpr double kLargest = std::numeric_limits<float>::max();
    constexpr float kInf = std::numeric_limits<float>::infinity();
    const double lo = std::min(from, to) - margin;
    const double hi = std::max(from, to) + margin;
    // Rounded outward, and to infinity past the largest float (a cast there would be undefined).
    const float loF = lo < -kLargest ? -kInf : std::nextafter(static_cast<float>(lo), -kInf);
    const float hiF = hi > kLargest ? kInf : std::nextafter(static_cast<float>(hi), kInf);
    return {loF, hiF};
}

}  // namespace ro::sweep

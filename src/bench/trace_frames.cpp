#include "bench/trace_frames.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

namespace ro::bench {

float TraceFacts::fittedCellSize() const { return autoCellSize(largestSide, medianSide); }

TraceFacts scanTrace(const std::string& path) {
    TraceFacts facts;
    facts.path = path;
    facts.name = std::filesystem::path(path).stem().string();
    TraceReader reader(path);
    std::vector<float> sides;
    bool any = false;
    while (reader.next()) {
        const BoxView& boxes = reader.frame();
        ++facts.frames;
        for (std::uint32_t i = 0; i < boxes.count; ++i) {
            const Aabb box = boxes.box(i);
            facts.bounds = any ? Aabb{std::min(facts.bounds.minX, box.minX), std::min(facts.bounds.minY, box.minY),
                                      std::max(facts.bounds.maxX, box.maxX), std::max(facts.bounds.maxY, box.maxY)}
                               : box;
            any = true;
            facts.largestSide = std::max({facts.largestSide, box.width(), box.height()});
            facts.maxId = std::max(facts.maxId, boxes.ids[i]);
        }
        if (boxes.count > facts.maxCount || facts.frames == 1) {
            facts.maxCount = std::max(facts.maxCount, boxes.count);
            sides.clear();
            for (std::uint32_t i = 0; i < boxes.count; ++i)
                sides.push_back(std::max(boxes.box(i).width(), boxes.box(i).height()));
            if (!sides.empty()) {
                std::nth_element(sides.begin(), sides.begin() + static_cast<std::ptrdiff_t>(sides.size() / 2), sides.end());
                facts.medianSide = sides[sides.size() / 2];
            }
        }
    }
    return facts;
}

TraceFrames::TraceFrames(const std::string& path) : m_reader(path) {
    if (!m_reader.next()) throw std::runtime_error("trace '" + path + "' has no frames");
    remember();
}

void TraceFrames::advance() {
    if (!m_reader.next()) throw std::runtime_error("trace '" + m_reader.path() + "' ended before the run did");
    findMoved();
    remember();
}

MovedList TraceFrames::moved() const {
    if (!m_sameBodies) return std::nullopt;
    return std::span<const std::uint32_t>(m_moved);
}

void TraceFrames::findMoved() {
    const BoxView& b = m_reader.frame();
    const std::uint32_t n = b.count;
    const bool statics = b.isStatic != nullptr, filters = b.category != nullptr;
    // Any difference but the corners means bodies came, went or changed kind: no moved list,
    // and every contestant takes the frame whole.
    m_sameBodies = statics && m_hadStatics && filters == m_hadFilters && n == m_ids.size() &&
                   std::equal(b.ids, b.ids + n, m_ids.begin()) && std::equal(b.isStatic, b.isStatic + n, m_static.begin()) &&
                   (!filters || (std::equal(b.category, b.category + n, m_category.begin()) &&
                                 std::equal(b.mask, b.mask + n, m_mask.begin())));
    m_moved.clear();
    if (!m_sameBodies) return;
    for (std::uint32_t i = 0; i < n; ++i)
        if (b.minX[i] != m_minX[i] || b.minY[i] != m_minY[i] || b.maxX[i] != m_maxX[i] || b.maxY[i] != m_maxY[i])
            m_moved.push_back(i);
}

void TraceFrames::remember() {
    const BoxView& b = m_reader.frame();
    const std::uint32_t n = b.count;
    m_minX.assign(b.minX, b.minX + n), m_minY.assign(b.minY, b.minY + n);
    m_maxX.assign(b.maxX, b.maxX + n), m_maxY.assign(b.maxY, b.maxY + n);
    m_ids.assign(b.ids, b.ids + n);
    m_hadStatics = b.isStatic != nullptr;
    m_hadFilters = b.category != nullptr;
    if (m_hadStatics) m_static.assign(b.isStatic, b.isStatic + n);
    if (m_hadFilters) m_category.assign(b.category, b.category + n), m_mask.assign(b.mask, b.mask + n);
}

}  // namespace ro::bench

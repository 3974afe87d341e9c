#include "scenario/tiled_trace.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ro {

TileLayout::TileLayout(const Aabb& one, std::uint32_t copies)
    : columns(static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<double>(std::max(copies, 1u)))))) {
    const float width = one.width(), height = one.height();
    const float gap = std::max({width, height, 1.0f}) / 20.0f;
    stepX = width + gap;
    stepY = height + gap;
    const std::uint32_t rows = (std::max(copies, 1u) + columns - 1) / columns;
    // The last copy's boxes are offset by the same float sums as its boxes are.
    bounds = {one.minX, one.minY, one.maxX + stepX * static_cast<float>(columns - 1),
              one.maxY + stepY * static_cast<float>(rows - 1)};
}

std::uint32_t tileCopies(std::uint32_t n, const TraceExtent& extent) {
    if (extent.maxCount == 0) return 1;
    const double copies = std::round(static_cast<double>(n) / extent.maxCount);
    return static_cast<std::uint32_t>(std::clamp(copies, 1.0, static_cast<double>(mostTileCopies(extent))));
}

std::uint32_t mostTileCopies(const TraceExtent& extent) {
    // id * copies + c stays below 2^32 for every id up to maxId.
    return static_cast<std::uint32_t>(std::min<std::uint64_t>((std::uint64_t{1} << 32) / (std::uint64_t{extent.maxId} + 1),
                                                              std::numeric_limits<std::uint32_t>::max()));
}

TiledTrace::TiledTrace(const std::string& path, const TraceExtent& extent, std::uint32_t copies)
    : m_path(path),
      m_extent(extent),
      m_copies(copies),
      m_layout(extent.bounds, copies) {
    m_reader.emplace(path);
    if (copies == 0 || copies > mostTileCopies(extent))
        throw TraceError("trace '" + path + "': cannot tile " + std::to_string(copies) + " copies (ids up to " +
                         std::to_string(extent.maxId) + " leave room for at most " +
                         std::to_string(mostTileCopies(extent)) + ")");
    const std::size_t most = std::size_t{extent.maxCount} * copies;
    for (auto* column : {&m_minX, &m_minY, &m_maxX, &m_maxY}) column->reserve(most);
    for (auto* column : {&m_ids, &m_category, &m_mask}) column->reserve(most);
    m_static.reserve(most);
    advance();
}

void TiledTrace::advance() {
    if (!m_reader->next()) {
        m_reader.emplace(m_path);  // the end: start over
        if (!m_reader->next()) throw TraceError("trace '" + m_path + "' has no frames");
    }
    tile();
}

void TiledTrace::tile() {
    const BoxView& frame = m_reader->frame();
    m_hasStatics = frame.isStatic != nullptr;
    m_hasFilters = frame.category != nullptr && frame.mask != nullptr;
    const std::size_t count = std::size_t{frame.count} * m_copies;
    for (auto* column : {&m_minX, &m_minY, &m_maxX, &m_maxY}) column->resize(count);
    for (auto* column : {&m_ids, &m_category, &m_mask}) column->resize(count);
    m_static.resize(count);
    std::size_t out = 0;
    for (std::uint32_t c = 0; c < m_copies; ++c) {
        const float dx = m_layout.offsetX(c), dy = m_layout.offsetY(c);
        for (std::uint32_t i = 0; i < frame.count; ++i, ++out) {
            m_minX[out] = frame.minX[i] + dx;
            m_minY[out] = frame.minY[i] + dy;
            m_maxX[out] = frame.maxX[i] + dx;
            m_maxY[out] = frame.maxY[i] + dy;
            m_ids[out] = frame.ids[i] * m_copies + c;
            m_static[out] = m_hasStatics ? frame.isStatic[i] : 0;
            m_category[out] = m_hasFilters ? frame.category[i] : 0;
            m_mask[out] = m_hasFilters ? frame.mask[i] : 0;
        }
    }
}

BoxView TiledTrace::boxes() const {
    BoxView view;
    view.minX = m_minX.data(), view.minY = m_minY.data(), view.maxX = m_maxX.data(), view.maxY = m_maxY.data();
    view.ids = m_ids.data();
    view.count = static_cast<std::uint32_t>(m_ids.size());
    if (m_hasStatics) view.isStatic = m_static.data();
    if (m_hasFilters) view.category = m_category.data(), view.mask = m_mask.data();
    return view;
}

SweepSceneMaker tiledTraceScenes(std::string path, const TraceExtent& extent) {
    return [path = std::move(path), extent](std::uint32_t n) {
        return std::make_unique<TiledTrace>(path, extent, tileCopies(n, extent));
    };
}

}  // namespace ro

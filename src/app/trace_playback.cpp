#include "app/trace_playback.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include <fmt/core.h>

namespace ro::app {
namespace {

/// A box as the world holds it: its centre and half sides. Corners on a grid of powers of two
/// (as a test writes them) come back bit for bit from centre -+ half.
struct Placed {
    Vec2 centre, half;
};

Placed placed(const BoxView& boxes, std::uint32_t i) {
    return {{0.5f * (boxes.minX[i] + boxes.maxX[i]), 0.5f * (boxes.minY[i] + boxes.maxY[i])},
            {0.5f * (boxes.maxX[i] - boxes.minX[i]), 0.5f * (boxes.maxY[i] - boxes.minY[i])}};
}

}  // namespace

TracePlayback::TracePlayback(std::string path) : m_path(std::move(path)) {
    m_label = "trace " + std::filesystem::path(m_path).filename().string();
    m_name = std::filesystem::path(m_path).stem().string();
    TraceReader reader(m_path);
    float largestSide = 0.0f, medianSide = 0.0f;  // the median in the largest frame, as ro_bench fits its cell
    std::vector<float> sides;
    float minX = std::numeric_limits<float>::max(), minY = minX;
    float maxX = std::numeric_limits<float>::lowest(), maxY = maxX;
    const auto fail = [&](std::uint32_t id, const std::string& what) {
        throw TraceError(fmt::format("trace '{}': frame {}, id {}: {}", m_path, m_frames, id, what));
    };
    while (reader.next()) {
        const BoxView& boxes = reader.frame();
        if (boxes.count > m_mostBoxes || m_frames == 0) {
            sides.clear();
            for (std::uint32_t i = 0; i < boxes.count; ++i) sides.push_back(std::max(boxes.box(i).width(), boxes.box(i).height()));
            if (!sides.empty()) {
                std::nth_element(sides.begin(), sides.begin() + static_cast<std::ptrdiff_t>(sides.size() / 2), sides.end());
                medianSide = sides[sides.size() / 2];
            }
        }
        m_mostBoxes = std::max(m_mostBoxes, boxes.count);
        for (std::uint32_t i = 0; i < boxes.count; ++i) {
            const Placed p = placed(boxes, i);
            if (std::min(p.half.x, p.half.y) < WorldLimits::kMinHalfExtent)
                fail(boxes.ids[i], fmt::format("a side of {} is below the smallest the world holds ({})",
                                               2.0f * std::min(p.half.x, p.half.y), 2.0f * WorldLimits::kMinHalfExtent));
            if (std::max(p.half.x, p.half.y) > WorldLimits::kMaxHalfExtent)
                fail(boxes.ids[i], fmt::format("a side of {} is above the largest the world holds ({})",
                                               2.0f * std::max(p.half.x, p.half.y), 2.0f * WorldLimits::kMaxHalfExtent));
            // The walls go a tenth beyond the boxes: the corners must stay in range too.
            const float limit = 0.8f * WorldLimits::kMaxCoordinate;
            if (std::max({std::abs(boxes.minX[i]), std::abs(boxes.minY[i]), std::abs(boxes.maxX[i]),
                          std::abs(boxes.maxY[i])}) > limit)
                fail(boxes.ids[i], fmt::format("a corner lies past {} from the origin, beyond the world's range", limit));
            largestSide = std::max({largestSide, boxes.box(i).width(), boxes.box(i).height()});
            m_tiling.maxId = std::max(m_tiling.maxId, boxes.ids[i]);
            minX = std::min(minX, boxes.minX[i]);
            minY = std::min(minY, boxes.minY[i]);
            maxX = std::max(maxX, boxes.maxX[i]);
            maxY = std::max(maxY, boxes.maxY[i]);
        }
        ++m_frames;
    }
    if (minX > maxX) throw TraceError(fmt::format("trace '{}': no boxes in any of its {} frames", m_path, m_frames));
    // Walls clear of every box (a box on a wall would bounce off it), and an area however flat the boxes lie.
    const float margin = std::max({0.05f * (maxX - minX), 0.05f * (maxY - minY), 1.0f});
    m_extent = {minX - margin, minY - margin, maxX + margin, maxY + margin};
    m_tiling.bounds = {minX, minY, maxX, maxY};
    m_tiling.maxCount = m_mostBoxes;
    m_tiling.cellSize = autoCellSize(largestSide, medianSide);
}

void TracePlayback::seek(std::uint64_t index) {
    if (!m_reader || m_readerAt > index) {
        m_reader = std::make_unique<TraceReader>(m_path);
        if (!m_reader->next()) throw TraceError(fmt::format("trace '{}': it has no frames now", m_path));
        m_readerAt = 0;
    }
    while (m_readerAt < index) {
        if (!m_reader->next())
            throw TraceError(fmt::format("trace '{}': it ends at frame {} now, it had {}", m_path, m_readerAt + 1, m_frames));
        ++m_readerAt;
    }
}

void TracePlayback::show(World& world, std::uint64_t index) {
    index = std::min(index, m_frames - 1);
    seek(index);
    m_shown = index;
    const BoxView& boxes = m_reader->frame();

    m_order.resize(boxes.count);
    for (std::uint32_t i = 0; i < boxes.count; ++i) m_order[i] = i;
    std::sort(m_order.begin(), m_order.end(), [&](std::uint32_t a, std::uint32_t b) { return boxes.ids[a] < boxes.ids[b]; });

    m_next.clear();
    m_gone.clear();
    m_added.clear();
    m_addedSlots.clear();
    const auto bodyOf = [&](std::uint32_t i, const Placed& p) {
        return Body{boxes.ids[i],
                    0,
                    p.half.x,
                    p.half.y,
                    static_cast<std::uint8_t>(boxes.isStatic && boxes.isStatic[i] ? 1 : 0),
                    boxes.category ? boxes.category[i] : 1u,
                    boxes.mask ? boxes.mask[i] : ~0u};
    };
    const auto add = [&](const Body& body, const Placed& p) {
        m_addedSlots.push_back(static_cast<std::uint32_t>(m_next.size()));
        m_next.push_back(body);
        m_added.push_back({.position = p.centre, .velocity = {}, .acceleration = {}, .halfExtents = p.half,
                           .shape = Shape::Box, .isStatic = body.isStatic != 0, .category = body.category,
                           .mask = body.mask});
    };
    // A merge of the bodies alive (sorted by trace id) with the frame's.
    std::size_t live = 0;
    for (const std::uint32_t i : m_order) {
        while (live < m_live.size() && m_live[live].traceId < boxes.ids[i]) m_gone.push_back(m_live[live++].entity);
        const Placed p = placed(boxes, i);
        Body body = bodyOf(i, p);
        if (live < m_live.size() && m_live[live].traceId == body.traceId) {
            const Body& was = m_live[live++];
            if (was.isStatic == body.isStatic && was.category == body.category && was.mask == body.mask) {
                body.entity = was.entity;
                m_next.push_back(body);
                Entity entity = world.entity(was.entity);
                // A box that turns changes size: the same body, moved and resized.
                if (was.halfW != body.halfW || was.halfH != body.halfH) entity.setHalfExtents(p.half);
                const Vec2 at = entity.position();
                if (at.x != p.centre.x || at.y != p.centre.y) entity.setPosition(p.centre);
                continue;
            }
            m_gone.push_back(was.entity);  // the same body, another kind: made anew
        }
        add(body, p);
    }
    while (live < m_live.size()) m_gone.push_back(m_live[live++].entity);

    world.removeBatch(m_gone);
    m_newIds.clear();
    world.addBatch(m_added, &m_newIds);
    for (std::size_t k = 0; k < m_addedSlots.size(); ++k) m_next[m_addedSlots[k]].entity = m_newIds[k];
    std::swap(m_live, m_next);
}

}  // namespace ro::app

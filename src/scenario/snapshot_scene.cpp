#include "scenario/snapshot_scene.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ro {

std::uint32_t mostSnapshotCopies(std::uint32_t boxes) {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>((std::uint64_t{1} << 32) / std::max<std::uint64_t>(boxes, 1),
                                                              std::numeric_limits<std::uint32_t>::max()));
}

SnapshotScene::SnapshotScene(std::shared_ptr<const Snapshot> snapshot, std::uint32_t copies)
    : m_snapshot(std::move(snapshot)), m_copies(copies), m_layout(m_snapshot->walls, copies), m_moving(m_snapshot->boxes) {
    const auto count = static_cast<std::uint32_t>(m_moving.size());
    if (copies == 0 || copies > mostSnapshotCopies(count))
        throw std::invalid_argument("cannot tile " + std::to_string(copies) + " copies of " + std::to_string(count) +
                                    " boxes");
    for (const Snapshot::Box& b : m_moving) {
        m_hasStatics = m_hasStatics || b.isStatic;
        m_hasFilters = m_hasFilters || b.category != 1 || b.mask != ~0u;
    }
    const std::size_t total = std::size_t{count} * copies;
    for (auto* column : {&m_minX, &m_minY, &m_maxX, &m_maxY}) column->resize(total);
    for (auto* column : {&m_ids, &m_category, &m_mask}) column->resize(total);
    m_static.resize(total);
    // What does not move is written once.
    std::size_t out = 0;
    for (std::uint32_t c = 0; c < copies; ++c)
        for (std::uint32_t i = 0; i < count; ++i, ++out) {
            const Snapshot::Box& b = m_moving[i];
            m_ids[out] = c * count + i;
            m_static[out] = b.isStatic ? 1 : 0;
            m_category[out] = b.category;
            m_mask[out] = b.mask;
        }
    tile();
}

void SnapshotScene::advance() {
    const Aabb& walls = m_snapshot->walls;
    // Turning back at a wall: the box is set against it and heads away, as the world's walls do.
    const auto bounce = [](float& centre, float& velocity, float half, float lo, float hi) {
        centre += velocity;
        if (centre - half < lo) centre = lo + half, velocity = std::abs(velocity);
        if (centre + half > hi) centre = hi - half, velocity = -std::abs(velocity);
    };
    for (Snapshot::Box& b : m_moving) {
        if (b.isStatic) continue;
        bounce(b.centreX, b.velocityX, b.halfW, walls.minX, walls.maxX);
        bounce(b.centreY, b.velocityY, b.halfH, walls.minY, walls.maxY);
    }
    tile();
}

void SnapshotScene::tile() {
    const auto count = static_cast<std::uint32_t>(m_moving.size());
    std::size_t out = 0;
    for (std::uint32_t c = 0; c < m_copies; ++c) {
        const float dx = m_layout.offsetX(c), dy = m_layout.offsetY(c);
        for (std::uint32_t i = 0; i < count; ++i, ++out) {
            const Snapshot::Box& b = m_moving[i];
            m_minX[out] = b.centreX - b.halfW + dx;
            m_minY[out] = b.centreY - b.halfH + dy;
            m_maxX[out] = b.centreX + b.halfW + dx;
            m_maxY[out] = b.centreY + b.halfH + dy;
        }
    }
}

BoxView SnapshotScene::boxes() const {
    BoxView view;
    view.minX = m_minX.data(), view.minY = m_minY.data(), view.maxX = m_maxX.data(), view.maxY = m_maxY.data();
    view.ids = m_ids.data();
    view.count = static_cast<std::uint32_t>(m_ids.size());
    if (m_hasStatics) view.isStatic = m_static.data();
    if (m_hasFilters) view.category = m_category.data(), view.mask = m_mask.data();
    return view;
}

SweepSceneMaker snapshotScenes(std::shared_ptr<const Snapshot> snapshot) {
    return [snapshot = std::move(snapshot)](std::uint32_t n) {
        const auto count = static_cast<std::uint32_t>(std::max<std::size_t>(snapshot->boxes.size(), 1));
        const double nearest = std::round(static_cast<double>(n) / count);
        const auto copies = static_cast<std::uint32_t>(std::clamp(nearest, 1.0, static_cast<double>(mostSnapshotCopies(count))));
        return std::make_unique<SnapshotScene>(snapshot, copies);
    };
}

}  // namespace ro

#include "app/queries.h"

#include <algorithm>

namespace ro::app {

void QueryTool::beginDrag(Shape shape, Vec2 p) {
    m_shape = shape;
    m_from = m_to = p;
    m_dragging = true;
}

void QueryTool::drag(Vec2 p) {
    if (m_dragging) m_to = p;
}

void QueryTool::set(Shape shape, Vec2 from, Vec2 to) {
    m_shape = shape;
    m_from = from;
    m_to = to;
    m_dragging = false;
}

Aabb QueryTool::box() const {
    return {std::min(m_from.x, m_to.x), std::min(m_from.y, m_to.y), std::max(m_from.x, m_to.x), std::max(m_from.y, m_to.y)};
}

void QueryTool::run(World& world) {
    m_pointHits.clear(), m_boxHits.clear(), m_rayHits.clear();
    m_firstHit.reset();
    m_pointCost = m_shapeCost = m_firstCost = {};
    if (!m_hover && m_shape == Shape::None) return;
    // Entities moved (or were added) since the technique last saw them: bring it up to date.
    world.syncBroadPhase();
    BroadPhase& technique = world.broadPhase();
    if (m_hover) m_pointCost = technique.queryPoint(*m_hover, m_pointHits);
    if (m_shape == Shape::Box) m_shapeCost = technique.queryBox(box(), m_boxHits);
    if (m_shape == Shape::Ray) {
        const Segment segment{m_from, m_to};
        m_shapeCost = technique.queryRay(segment, m_rayHits);
        m_firstCost = technique.raycastFirst(segment, m_firstHit);
    }
}

}  // namespace ro::app

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

void QueryTool::run(const World& world, const TechniqueInfo& technique) {
    m_pointHits.clear(), m_boxHits.clear(), m_rayHits.clear();
    m_firstHit.reset();
    m_pointCost = m_shapeCost = m_firstCost = {};
    if (!m_hover && m_shape == Shape::None) return;
    if (m_twinOf != &technique) {
        m_twin = technique.create();
        m_twinOf = &technique;
        m_twin->configure(m_twinSettings = world.broadPhaseSettings());
        m_twinVersion.reset();
    } else if (!(m_twinSettings == world.broadPhaseSettings())) {
        m_twin->configure(m_twinSettings = world.broadPhaseSettings());
        m_twinVersion.reset();
    }
    // Only boxes that changed: paused or between ticks, a million of them would be rebuilt
    // every frame the cursor is over the world (the HSHG's: 25 FPS against 48).
    if (m_twinVersion != world.boxesVersion()) {
        m_twin->update(world.boxes());
        m_twinVersion = world.boxesVersion();
        ++m_twinUpdates;
    }
    if (m_hover) m_pointCost = m_twin->queryPoint(*m_hover, m_pointHits);
    if (m_shape == Shape::Box) m_shapeCost = m_twin->queryBox(box(), m_boxHits);
    if (m_shape == Shape::Ray) {
        const Segment segment{m_from, m_to};
        m_shapeCost = m_twin->queryRay(segment, m_rayHits);
        m_firstCost = m_twin->raycastFirst(segment, m_firstHit);
    }
}

}  // namespace ro::app

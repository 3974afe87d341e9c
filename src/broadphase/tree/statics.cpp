/// DynamicTree's statics: the movers' still reaches among them, and the grid of statics that answers those.

#include "broadphase/tree/tree.h"

#include <algorithm>

#include "core/buffers.h"

namespace ro {

[[gnu::hot]] void DynamicTree::reachStatics(std::uint32_t proxy, Vec2 motion) {
    // Kept inside the fat box, so that a static that comes finds, through the movers' tree,
    // every mover whose still reach it touches.
    const Aabb reach =
        reachAhead(m_proxies[proxy].box, motion, kStillMarginShare * (m_sweepMovers ? m_sweptMargin : m_margin),
                   kStillPredictedSteps, kStillStretch);
    const Aabb& fat = m_fatBoxes[proxy];
    m_stillReach[proxy] = {std::max(reach.minX, fat.minX), std::max(reach.minY, fat.minY), std::min(reach.maxX, fat.maxX),
                           std::min(reach.maxY, fat.maxY)};
    markStillDirty(proxy);
}

[[gnu::hot]] void DynamicTree::markStillDirty(std::uint32_t proxy) {
    if (m_stillDirty[proxy]) return;
    m_stillDirty[proxy] = 1;
    reserveWithHeadroom(m_stillDirtyList, m_proxies.size());  // a burst must not allocate
    m_stillDirtyList.push_back(proxy);
}

[[gnu::hot]] void DynamicTree::keepStaticCells() {
    if (m_staticsChanged) {
        m_staticsChanged = false;
        m_staticsSteadySteps = 0;
        m_staticCells.clear();
        return;
    }
    if (++m_staticsSteadySteps != kSteadyStepsForCells) return;
    m_cellStatics.clear();
    reserveWithHeadroom(m_cellStatics, m_trees[kStill].leafCount());
    for (std::uint32_t proxy = 0; proxy < m_proxies.size(); ++proxy) {
        if (m_proxies[proxy].leaf == kNull || m_treeOf[proxy] != kStill) continue;
        m_cellStatics.push_back({m_fatBoxes[proxy], proxy, m_proxies[proxy].dense});
    }
    m_staticCells.build(m_cellStatics);
    m_cellDenseValid = true;
}

}  // namespace ro

/// DynamicTree's box and ray queries, on both trees.

#include "broadphase/tree/tree.h"

#include <limits>

namespace ro {

// Queries descend the fat boxes and test the exact box at the leaves; a leaf is met once.

QueryCost DynamicTree::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    settleLeaving(Settle::Now);  // the movers' leaves that wait, in their fat boxes first
    QueryCost cost;
    for (AabbTree& tree : m_trees) {
        cost.visited += tree.query(box, [&](std::uint32_t proxy) {
            ++cost.tests;
            if (overlaps(m_proxies[proxy].box, box)) out.push_back(m_proxies[proxy].dense);
        });
    }
    return cost;
}

QueryCost DynamicTree::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    settleLeaving(Settle::Now);  // the movers' leaves that wait, in their fat boxes first
    QueryCost cost;
    for (AabbTree& tree : m_trees) {
        cost.visited += tree.raycast(segment, [&](std::uint32_t proxy) {
            ++cost.tests;
            if (const auto t = segmentEntry(m_proxies[proxy].box, segment)) out.push_back({m_proxies[proxy].dense, *t});
        });
    }
    return cost;
}

QueryCost DynamicTree::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    settleLeaving(Settle::Now);  // the movers' leaves that wait, in their fat boxes first
    QueryCost cost;
    for (AabbTree& tree : m_trees) {
        cost.visited += tree.raycastFirst(segment, [&](std::uint32_t proxy) {
            ++cost.tests;
            if (const auto t = segmentEntry(m_proxies[proxy].box, segment)) keepNearest(hit, {m_proxies[proxy].dense, *t});
            return hit ? hit->t : std::numeric_limits<float>::infinity();
        });
    }
    return cost;
}

}  // namespace ro

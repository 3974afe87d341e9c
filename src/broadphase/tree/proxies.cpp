/// DynamicTree's proxies and fat boxes: the margin, fattening, and a proxy's creation, moves, reinsertion and end.

#include "broadphase/tree/tree.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "broadphase/fat_margin.h"
#include "core/box_helpers.h"
#include "core/buffers.h"

namespace ro {

float DynamicTree::measureSide(const BoxView& boxes) {
    // The margins' cap (kMarginParameter.max) keeps huge boxes' fat boxes finite.
    return fat_margin::medianSide(boxes, kMarginParameter.max / kSweptAutoShare, m_sides);
}

void DynamicTree::takeAutoMargin(float side) {
    m_margin = fat_margin::automatic(side, kMarginParameter.max);
    m_sweptMargin = std::min(kSweptAutoShare * side, static_cast<float>(kMarginParameter.max));
}

void DynamicTree::fitMargin(const BoxView& boxes) {
    m_churnSinceFit += m_diff.added().size() + m_diff.removed().size();
    if (boxes.count == 0) return;  // nothing to measure: the next boxes will be
    const bool empty = leafCount() == 0;
    if (!empty && m_churnSinceFit < std::max<std::uint64_t>(m_leavesAtFit, 1)) return;
    m_churnSinceFit = 0;
    m_leavesAtFit = boxes.count;
    const float side = measureSide(boxes);
    const float margin = fat_margin::automatic(side, kMarginParameter.max);
    if (empty) {
        takeAutoMargin(side);
        return;
    }
    // A new scene of about the same scale keeps its fat boxes; another scale rebuilds.
    if (margin == m_margin || (margin < 2.0f * m_margin && m_margin < 2.0f * margin)) return;
    clear();
    takeAutoMargin(side);
    m_leavesAtFit = boxes.count;
    m_diff.track(boxes);  // forgotten by clear(): every entity is new
}

Aabb DynamicTree::reachAhead(const Aabb& box, Vec2 motion, float margin, float steps, float stretch) {
    // Rounding of x - m (m >= 0) never exceeds x, so the reach always contains the box.
    Aabb reach{box.minX - margin, box.minY - margin, box.maxX + margin, box.maxY + margin};
    // Stretched ahead along the last step's motion (as Box2D's b2_aabbMultiplier), so a body
    // moving steadily leaves it several times less often; at most `stretch` margins, so a
    // jump does not make a huge box.
    const float limit = stretch * margin;
    const float sx = std::clamp(steps * motion.x, -limit, limit);
    const float sy = std::clamp(steps * motion.y, -limit, limit);
    (sx > 0.0f ? reach.maxX : reach.minX) += sx;
    (sy > 0.0f ? reach.maxY : reach.minY) += sy;
    return reach;
}

Aabb DynamicTree::fatten(std::uint32_t proxy, const Aabb& box, Vec2 motion) const {
    if (m_isStatic[proxy]) return box;
    const float steps = m_reachSteps[proxy];
    const float margin = m_sweepMovers ? kSweptMarginScale * m_sweptMargin : m_margin;
    return reachAhead(box, motion, margin, steps, steps == kSteadySteps ? kSteadyStretch : kMaxStretch);
}

void DynamicTree::takeEntity(std::uint32_t proxy, const BoxView& boxes, std::uint32_t i, bool rules) {
    if (rules && takeRule(proxy, boxes, i)) {
        m_proxies[proxy].box = boxes.box(i);
        reinsert(proxy, {});
    } else {
        moveProxy(proxy, boxes.box(i), Reinsert::AfterThePass);
    }
}

[[gnu::hot]] void DynamicTree::moveProxy(std::uint32_t proxy, const Aabb& box, Reinsert when) {
    const Aabb before = m_proxies[proxy].box;
    m_proxies[proxy].box = box;
    const Vec2 motion{box.minX - before.minX, box.minY - before.minY};
    if (m_isStatic[proxy]) {
        // A static's box is its fat box (and sits in its pairs): any change reinserts it.
        if (!sameBox(before, box)) reinsert(proxy, motion);
    } else if (!containsBox(m_fatBoxes[proxy], box)) {
        if (when == Reinsert::Now) {
            reinsert(proxy, motion);
        } else {
            // Listed once (a moved list may repeat an index; a listed proxy that stopped
            // waiting, removed or placed since, keeps its entry and may wait again in it).
            if (m_leavingState[proxy] == kUnlisted) m_leaving.push_back({proxy, motion});  // room: collectLeaving()
            m_leavingState[proxy] = kWaits;
            // While the movers sweep, the leaf may wait steps for its tree (settleLeaving):
            // its fat box and still reach are made now, its leaf takes the fat box then.
            if (m_sweepMovers) {
                refatten(proxy, motion);
                if (m_reachKept) reachStatics(proxy, motion);
            }
        }
    } else if (m_reachKept && !containsBox(m_stillReach[proxy], box)) {
        reachStatics(proxy, motion);
    }
}

bool DynamicTree::takeRule(std::uint32_t proxy, const BoxView& boxes, std::uint32_t i) {
    const std::uint8_t isStatic = boxes.isStatic != nullptr && boxes.isStatic[i] != 0 ? 1 : 0;
    const std::uint32_t category = boxes.category != nullptr ? boxes.category[i] : ~0u;
    const std::uint32_t mask = boxes.mask != nullptr ? boxes.mask[i] : ~0u;
    if (isStatic == m_isStatic[proxy] && category == m_category[proxy] && mask == m_mask[proxy]) return false;
    m_isStatic[proxy] = isStatic;
    m_category[proxy] = category;
    m_mask[proxy] = mask;
    m_filtersSeen |= (category & mask) != ~0u;
    return true;
}

// ---- entities: proxies, the dense order, and the per-step diff ---------------------------

void DynamicTree::markDirty(std::uint32_t proxy) {
    if (m_dirty[proxy]) return;
    m_dirty[proxy] = 1;
    m_dirtyList.push_back(proxy);
}

std::uint32_t DynamicTree::createProxy(std::uint32_t id, const Aabb& box, const BoxView* rules, std::uint32_t i) {
    std::uint32_t proxy;
    if (!m_freeProxies.empty()) {
        proxy = m_freeProxies.back();
        m_freeProxies.pop_back();
    } else {
        proxy = static_cast<std::uint32_t>(m_proxies.size());
        m_proxies.push_back({});
        m_fatBoxes.push_back({});
        m_reinsertMotion.push_back({});
        m_placedAt.push_back({});
        m_reachSteps.push_back(0.0f);
        m_neighbours.push_back(0);
        m_proxyId.push_back(0);
        m_isStatic.push_back(0);
        m_treeOf.push_back(kMoving);
        m_category.push_back(0);
        m_mask.push_back(0);
        m_dirty.push_back(0);
        m_stillReach.push_back({});
        m_stillDirty.push_back(0);
        m_leavingState.push_back(kUnlisted);
    }
    // Dynamic and colliding with everyone, unless the boxes say otherwise.
    m_isStatic[proxy] = 0;
    m_category[proxy] = ~0u;
    m_mask[proxy] = ~0u;
    if (rules != nullptr) takeRule(proxy, *rules, i);
    m_reinsertMotion[proxy] = {};
    m_placedAt[proxy] = {box.minX, box.minY};
    m_reachSteps[proxy] = kPredictedSteps;
    m_neighbours[proxy] = 0;
    m_fatBoxes[proxy] = fatten(proxy, box, {});
    m_treeOf[proxy] = m_isStatic[proxy] ? kStill : kMoving;
    AabbTree& tree = treeOf(proxy);
    m_proxies[proxy] = {box, 0, m_bulkLoad ? tree.stage(m_fatBoxes[proxy], proxy) : tree.insert(m_fatBoxes[proxy], proxy)};
    m_proxyId[proxy] = id;
    m_proxyOfId[id] = proxy;
    markDirty(proxy);
    if (m_reachKept && m_treeOf[proxy] == kMoving) reachStatics(proxy, {});
    m_staticsChanged |= m_treeOf[proxy] == kStill;
    m_moverOrderStale |= m_treeOf[proxy] == kMoving;
    ++m_stats.inserted;
    ++m_relocated[m_treeOf[proxy]];
    return proxy;
}

void DynamicTree::destroyProxy(std::uint32_t proxy) {
    m_staticsChanged |= m_treeOf[proxy] == kStill;
    treeOf(proxy).remove(m_proxies[proxy].leaf);
    m_proxies[proxy].leaf = kNull;
    m_proxyOfId[m_proxyId[proxy]] = kNull;
    stopWaiting(proxy);
    reserveWithHeadroom(m_freeProxies, m_proxies.size());  // a burst of removals must not allocate
    m_freeProxies.push_back(proxy);
    markDirty(proxy);  // its pairs go at the next findPairs, even if the slot is reused by then
    markStillDirty(proxy);
    m_moverOrderStale |= m_treeOf[proxy] == kMoving;
    ++m_stats.removed;
}

[[gnu::hot]] void DynamicTree::refatten(std::uint32_t proxy, Vec2 motion) {
    // Reaches further ahead while the motion keeps its direction: the step that left the fat
    // box goes the way the leaf went since it was placed, and the way the step that left the
    // last one went. A leaf placed by an insertion or a build has no such step yet: there,
    // kSteadyEvidenceSteps of travel the same way will do (a scene's first wave of leaves).
    const Vec2 last = m_reinsertMotion[proxy];
    const Aabb& box = m_proxies[proxy].box;
    const Vec2 travelled{box.minX - m_placedAt[proxy].x, box.minY - m_placedAt[proxy].y};
    const auto lengthSquared = [](Vec2 v) { return v.x * v.x + v.y * v.y; };
    const auto keepsTo = [&](Vec2 way) {
        const float along = way.x * motion.x + way.y * motion.y;
        const float lengths = std::sqrt(lengthSquared(way) * lengthSquared(motion));
        return lengths > 0.0f && along >= kSteadyCosine * lengths;
    };
    const bool firstStep = last.x == 0.0f && last.y == 0.0f;
    const bool steady = keepsTo(travelled) &&
                        (firstStep ? lengthSquared(travelled) >= kSteadyEvidenceSteps * kSteadyEvidenceSteps * lengthSquared(motion)
                                   : keepsTo(last));
    m_placedAt[proxy] = {box.minX, box.minY};
    m_reachSteps[proxy] = steady && m_neighbours[proxy] <= kSparseNeighbours ? kSteadySteps : kPredictedSteps;
    m_reinsertMotion[proxy] = motion;
    // A step longer than a fat box reaches ahead: after one (a respawn), the margin around but
    // no stretch along it; after two in a row (rain's drops, teleports), the leaf will leave any
    // fat box at the next step, so it gets none and lists no pairs in vain.
    const auto outruns = [&](Vec2 step) {
        const float reach = (1.0f + kMaxStretch) * m_margin;
        return std::abs(step.x) > reach || std::abs(step.y) > reach;
    };
    const bool outran = outruns(motion);
    m_fatBoxes[proxy] = outran && outruns(last) ? m_proxies[proxy].box : fatten(proxy, m_proxies[proxy].box, outran ? Vec2{} : motion);
}

void DynamicTree::reinsert(std::uint32_t proxy, Vec2 motion, Placement placement) {
    stopWaiting(proxy);  // settled here, if it waited
    refatten(proxy, motion);
    const std::uint8_t belongs = m_isStatic[proxy] ? kStill : kMoving;
    m_staticsChanged |= belongs == kStill || m_treeOf[proxy] == kStill;
    const bool grows = belongs == m_treeOf[proxy] && belongs == kMoving && placement == Placement::Enlarge;
    if (grows) {
        m_trees[kMoving].enlarge(m_proxies[proxy].leaf, m_fatBoxes[proxy]);
    } else if (belongs == m_treeOf[proxy]) {
        treeOf(proxy).move(m_proxies[proxy].leaf, m_fatBoxes[proxy]);
    } else {  // became static or dynamic: to the other tree
        treeOf(proxy).remove(m_proxies[proxy].leaf);
        m_treeOf[proxy] = belongs;
        m_moverOrderStale = true;
        m_proxies[proxy].leaf = treeOf(proxy).insert(m_fatBoxes[proxy], proxy);
    }
    markDirty(proxy);
    if (belongs == kMoving) {
        if (m_reachKept) reachStatics(proxy, motion);
    } else {
        markStillDirty(proxy);  // its pairs as a mover go
    }
    ++m_stats.reinserted;
    if (!grows) ++m_relocated[m_treeOf[proxy]];  // a leaf grown in place keeps its node
}

void DynamicTree::clearProxies() {
    m_proxies.clear();
    m_fatBoxes.clear();
    m_reinsertMotion.clear();
    m_placedAt.clear();
    m_reachSteps.clear();
    m_neighbours.clear();
    m_proxyId.clear();
    m_isStatic.clear();
    m_treeOf.clear();
    m_category.clear();
    m_mask.clear();
    m_dirty.clear();
    m_dirtyList.clear();
    m_stillReach.clear();
    m_stillDirty.clear();
    m_stillDirtyList.clear();
    m_leavingState.clear();
    m_leaving.clear();
    m_freeProxies.clear();
    m_pairs.clear();
    m_stillPairs.clear();
}

void DynamicTree::removeDense(std::uint32_t dense) {
    const std::uint32_t last = m_proxyOfDense.back();
    m_proxyOfDense[dense] = last;
    m_proxies[last].dense = dense;
    m_proxyOfDense.pop_back();
}

void DynamicTree::growIdMap(std::uint32_t size) {
    if (size <= m_proxyOfId.size()) return;
    const std::size_t old = m_proxyOfId.size();
    resizeWithHeadroom(m_proxyOfId, size);
    std::fill(m_proxyOfId.begin() + static_cast<std::ptrdiff_t>(old), m_proxyOfId.end(), kNull);
}

void DynamicTree::checkBox(const Aabb& box) {
    if (!box.isFinite() || box.minX > box.maxX || box.minY > box.maxY)
        throw std::invalid_argument("tree boxes must be finite with min <= max");
}

}  // namespace ro

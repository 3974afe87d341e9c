#include "broadphase/tree/tree.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "core/box_helpers.h"
#include "core/insertion_sort.h"
#include "core/buffers.h"

namespace ro {

// [[gnu::hot]] marks what a step with a moved list runs (updateMoved, findPairs and most of
// what they call): the compiler places it together, so a step that follows other work finds
// its code in fewer lines and pages (1,000 movers among 99,000 statics, beside every other
// contestant of ro_bench: 0.061-0.063 ms a step to 0.060-0.062).

void DynamicTree::applySettings(const Settings& settings) {
    // Fat boxes of another margin would need a pass over every leaf anyway: rebuild.
    const float margin = static_cast<float>(settings.real(kMarginParameter));
    const bool autoMargin = margin == 0.0f;
    if (autoMargin != m_autoMargin || (!autoMargin && margin != m_margin)) {
        m_autoMargin = autoMargin;
        m_margin = m_sweptMargin = margin;  // auto: measured at the next update or insert into the empty tree
        clear();
    }
}

float DynamicTree::measureSide(const BoxView& boxes) {
    const std::uint32_t n = boxes.count;  // > 0
    const std::uint32_t stride = std::max(1u, n / kMarginSamples);
    reserveWithHeadroom(m_sides, n / stride + 1);
    Aabb extent = boxes.box(0);
    // The movers' sides: statics take no margin, and a level's long walls are not typical.
    const auto sample = [&](bool movers) {
        m_sides.clear();
        for (std::uint32_t i = 0; i < n; i += stride) {
            if (movers && boxes.isStatic != nullptr && boxes.isStatic[i] != 0) continue;
            const Aabb box = boxes.box(i);
            m_sides.push_back(std::max(box.width(), box.height()));
            extent = unite(extent, box);
        }
    };
    sample(true);
    if (m_sides.empty()) sample(false);
    const auto middle = m_sides.begin() + static_cast<std::ptrdiff_t>(m_sides.size() / 2);
    std::nth_element(m_sides.begin(), middle, m_sides.end());
    double side = *middle;
    // Points: their typical spacing instead.
    if (!(side > 0.0)) side = std::sqrt((static_cast<double>(extent.maxX) - extent.minX) *
                                        (static_cast<double>(extent.maxY) - extent.minY) / n);
    // The margins' cap (kMarginParameter.max) keeps huge boxes' fat boxes finite.
    side = std::min(side, kMarginParameter.max / kSweptAutoShare);
    return std::isfinite(side) ? static_cast<float>(side) : 0.0f;
}

void DynamicTree::takeAutoMargin(float side) {
    m_margin = std::min(kAutoMarginShare * side, static_cast<float>(kMarginParameter.max));
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
    const float margin = kAutoMarginShare * side;
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

void DynamicTree::clear() {
    m_pairsAnew = false;
    for (AabbTree& tree : m_trees) tree.clear();
    clearProxies();
    std::fill(m_proxyOfId.begin(), m_proxyOfId.end(), kNull);
    m_diff.forget();
    m_proxyOfDense.clear();
    m_relocated[kMoving] = m_relocated[kStill] = 0;
    m_staticCells.clear();
    m_staticsChanged = false;
    m_staticsSteadySteps = 0;
    m_denseChanged = false;
    m_filtersSeen = false;
    m_reachKept = false;
    m_sweepMovers = false;
    m_moverOrderStale = true;
    m_churnSinceFit = m_leavesAtFit = 0;
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

void DynamicTree::collectLeaving() {
    // Each proxy is listed once at most (leaves that wait from earlier steps, or that a pass
    // cut short by an exception left, are among them).
    reserveWithHeadroom(m_leaving, m_proxies.size());
}

[[gnu::hot]] void DynamicTree::settleLeaving(Settle when) {
    // While the movers pair by the sweep, no step reads their tree: a leaf that left its fat
    // box takes a new one at once (and a still reach inside it), and waits for its tree
    // until a query, a static that changed, or an overlay drawn in the last kShownUpdates
    // updates needs the tree. 1,000 movers among 99,000 statics had ~13 leave a step, each
    // reinsertion a few cache misses up a tree the rest of the program had evicted.
    if (when == Settle::WhenNeeded && m_sweepMovers && !m_bulkLoad) {
        if (m_overlayUpdatesLeft == 0) return;
        --m_overlayUpdatesLeft;
    }
    if (when == Settle::Now && m_leaving.empty()) return;  // a query with nothing waiting
    const std::size_t movers = m_trees[kMoving].leafCount();
    const bool rebuild = m_bulkLoad || (m_leaving.size() >= kRebuildMin &&
                                        static_cast<float>(m_leaving.size()) >= kRebuildShare * static_cast<float>(movers));
    // A few movers among many statics: the movers' tree is small, and cold after the rest of
    // the program ran; fetched whole, its reinsertions do not wait on a miss per level.
    if (!rebuild && !m_leaving.empty() && m_trees[kMoving].nodeCount() <= kPrefetchedTreeNodes)
        m_trees[kMoving].prefetchNodes();
    for (const auto [proxy, motion] : m_leaving) {
        const bool waits = m_leavingState[proxy] == kWaits;
        m_leavingState[proxy] = kUnlisted;
        if (!waits) continue;  // removed, or placed by a public move, since it left
        if (m_sweepMovers) {  // its fat box and still reach were made when it left
            if (rebuild)
                m_trees[kMoving].restage(m_proxies[proxy].leaf, m_fatBoxes[proxy]);
            else
                m_trees[kMoving].enlarge(m_proxies[proxy].leaf, m_fatBoxes[proxy]);
            markDirty(proxy);
            ++m_stats.reinserted;
            continue;
        }
        if (!rebuild) {
            reinsert(proxy, motion, Placement::Enlarge);
            continue;
        }
        refatten(proxy, motion);
        m_trees[kMoving].restage(m_proxies[proxy].leaf, m_fatBoxes[proxy]);
        if (m_reachKept) reachStatics(proxy, motion);
        ++m_stats.reinserted;
    }
    m_leaving.clear();
    if (!rebuild && !m_bulkLoad && movers > 0 &&
        static_cast<float>(m_trees[kMoving].enlargedSinceBuild()) >= kEnlargedShare * static_cast<float>(movers)) {
        // Boxes grown in place have loosened the tree: build it tight again. The leaves keep
        // their fat boxes, so every pair listed stands.
        renumber(kMoving, Rebuild::TopDown);
        ++m_stats.tightenings;
        return;
    }
    if (!rebuild || m_bulkLoad) return;  // a bulk load rebuilds both trees after its pass
    renumber(kMoving, Rebuild::TopDown);
    // The movers' fat pairs go with their tree; while they sweep they have none, and their
    // pairs with statics hang on their still reaches, not on the tree.
    m_pairsAnew |= !m_sweepMovers;
    ++m_stats.rebuilds;
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

// The edits go through the same id slots as update(), so the two can be mixed.
void DynamicTree::insert(std::uint32_t id, const Aabb& box) {
    checkBox(box);
    if (m_autoMargin && leafCount() == 0) takeAutoMargin(std::max(box.width(), box.height()));
    const std::uint32_t slot = idSlots().insert(id);
    growIdMap(slot + 1);
    const std::uint32_t proxy = createProxy(slot, box);
    m_proxies[proxy].dense = leafCount();
    m_proxyOfDense.push_back(proxy);
    m_diff.append(slot);
}

void DynamicTree::remove(std::uint32_t id) {
    const std::uint32_t proxy = m_proxyOfId[idSlots().remove(id)];
    const std::uint32_t dense = m_proxies[proxy].dense;
    destroyProxy(proxy);
    removeDense(dense);
    m_denseChanged = true;
    m_diff.swapRemove(dense);
}

bool DynamicTree::move(std::uint32_t id, const Aabb& box) {
    checkBox(box);
    const auto slot = idSlots().slotOf(id);
    if (!slot) throw std::invalid_argument("entity " + std::to_string(id) + " is not in the tree");
    const std::uint32_t proxy = m_proxyOfId[*slot];
    const std::uint64_t before = m_stats.reinserted;
    moveProxy(proxy, box, Reinsert::Now);
    return m_stats.reinserted != before;
}

void DynamicTree::doUpdate(const BoxView& boxes) {
    m_counters = {};
    m_stats = {};
    m_nodesVisited = 0;
    for (AabbTree& tree : m_trees) tree.resetWork();
    // The ids are slots (unique, below slotLimit(): the base class checked and mapped them).
    m_diff.track(boxes);
    if (m_autoMargin) fitMargin(boxes);
    // A leaf whose rule changed is reinserted (a static's fat box is its box) and pairs anew.
    const bool ruled = PairRule(boxes).active();
    collectLeaving();
    if (m_diff.unchanged()) {
        // Reinsert a leaf only when its box left its fat box.
        const bool rules = ruled || m_anyRuled;
        for (std::uint32_t i = 0; i < boxes.count; ++i) {
            const std::uint32_t proxy = m_proxyOfDense[i];
            const Aabb box = boxes.box(i);
            // Most leaves of most steps: a mover still inside its fat box, whose new box is all
            // there is to take. Without rules there are no statics, so no still reach to leave.
            if (!rules && containsBox(m_fatBoxes[proxy], box)) {
                m_proxies[proxy].box = box;
                continue;
            }
            takeEntity(proxy, boxes, i, rules);
        }
        m_anyRuled = ruled;
        settleLeaving();
        return;
    }
    m_denseChanged = true;
    for (const std::uint32_t id : m_diff.removed()) destroyProxy(m_proxyOfId[id]);
    // Most entities new (the first update, a new scene): one top-down build instead of an
    // insertion each, about 10x faster at 100,000 and a better tree.
    m_bulkLoad = m_diff.added().size() >= kBulkLoadMin && 2 * m_diff.added().size() > boxes.count;
    growIdMap(idSlots().slotLimit());
    resizeWithHeadroom(m_proxyOfDense, boxes.count);
    const auto take = [&](std::uint32_t i) {
        std::uint32_t proxy = m_proxyOfId[boxes.ids[i]];
        if (proxy == kNull) {
            proxy = createProxy(boxes.ids[i], boxes.box(i), ruled ? &boxes : nullptr, i);
        } else {
            takeEntity(proxy, boxes, i, ruled || m_anyRuled);
        }
        m_proxies[proxy].dense = i;
        m_proxyOfDense[i] = proxy;
    };
    if (m_bulkLoad && boxes.isStatic != nullptr) {
        // The dynamic entities' proxies first, side by side: a step that visits only the
        // movers then reads a few pages of proxies, not a page per mover.
        // Every proxy free (their pairs gone too): start the pool afresh, numbered in this order.
        if (m_freeProxies.size() == m_proxies.size()) clearProxies();
        for (std::uint32_t i = 0; i < boxes.count; ++i)
            if (boxes.isStatic[i] == 0) take(i);
        for (std::uint32_t i = 0; i < boxes.count; ++i)
            if (boxes.isStatic[i] != 0) take(i);
    } else {
        for (std::uint32_t i = 0; i < boxes.count; ++i) take(i);
    }
    m_anyRuled = ruled;
    settleLeaving();
    if (m_bulkLoad) {
        m_bulkLoad = false;
        m_pairsAnew = true;
        for (std::uint8_t which : {kMoving, kStill}) renumber(which, Rebuild::TopDown);
    }
    reserveForLeaves();
}

void DynamicTree::reserveForLeaves() {
    // A small fat margin takes every path of a step (rebuilds, renumberings, long leaving
    // lists) in some step or other; each buffer grown only when a step first needed it
    // allocated in steps long after the first. Grown here for the leaves there are, with half
    // again of headroom, they hold whatever a step of as many leaves asks.
    for (std::uint8_t which : {kMoving, kStill}) {
        const std::uint32_t leaves = m_trees[which].leafCount();
        if (leaves <= m_reservedLeaves[which]) continue;
        m_reservedLeaves[which] = leaves + leaves / 2;
        m_trees[which].reserveFor(m_reservedLeaves[which]);
    }
    const std::size_t proxies = m_proxies.size();
    if (proxies <= m_reservedProxies) return;
    m_reservedProxies = proxies + proxies / 2;
    reserveWithHeadroom(m_leaving, m_reservedProxies);
    reserveWithHeadroom(m_queryMovers, m_reservedProxies);
    reserveWithHeadroom(m_dirtyList, m_reservedProxies);
    reserveWithHeadroom(m_stillDirtyList, m_reservedProxies);
    reserveWithHeadroom(m_pairs, 2 * m_reservedProxies);
    if (m_pairHits.size() < m_pairs.capacity()) m_pairHits.resize(m_pairs.capacity());
}

[[gnu::hot]] void DynamicTree::doUpdateMoved(const BoxView& boxes, std::span<const std::uint32_t> moved) {
    m_counters = {};
    m_stats = {};
    m_nodesVisited = 0;
    for (AabbTree& tree : m_trees) tree.resetWork();
    collectLeaving();
    // While the movers sweep, findPairs reads the kept still pairs and the sweep's list in
    // order next (92 KB at 1,000 movers among 99,000 statics), after other work evicted them.
    // This pass waits on its own misses and leaves the memory bus idle: a few of their lines
    // asked for per mover are in the caches by then. (Elsewhere the kept pairs can be
    // megabytes, more than the caches should take at once.)
    const std::size_t fetchSteps = m_sweepMovers ? moved.size() : 0;
    const LineFetcher fetchPairs(m_stillPairs, fetchSteps), fetchSweep(m_sweep, fetchSteps);
    for (std::size_t k = 0; k < moved.size(); ++k) {
        const std::uint32_t i = moved[k];
        const std::uint32_t proxy = m_proxyOfDense[i];
        const Aabb box = boxes.box(i);
        // Most movers of most steps: still inside their still reach (so inside their fat box,
        // which holds it), with only the new box to take: moveProxy's first case, without a
        // call per mover or a read of the fat box.
        const Aabb& keptInside = m_reachKept ? m_stillReach[proxy] : m_fatBoxes[proxy];
        if (!m_isStatic[proxy] && containsBox(keptInside, box))
            m_proxies[proxy].box = box;
        else
            moveProxy(proxy, box, Reinsert::AfterThePass);
        fetchPairs(k);
        fetchSweep(k);
    }
    settleLeaving();
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

[[gnu::hot]] void DynamicTree::findPairs(std::vector<Pair>& out) {
    out.clear();
    const bool stillsTouched = m_staticsChanged;  // else no static is dirty
    // A static that changed queries the movers' tree, and a listing afresh descends it.
    if (stillsTouched || m_pairsAnew) settleLeaving(Settle::Now);
    m_cellDenseValid &= !m_denseChanged;
    keepStaticCells();
    // Without statics no mover keeps a still reach (a pass less over every entity a step);
    // when the first statics come, every mover takes one.
    const bool anyStatics = m_trees[kStill].leafCount() > 0;
    if (anyStatics && !m_reachKept)
        for (std::uint32_t proxy = 0; proxy < m_proxies.size(); ++proxy)
            if (m_proxies[proxy].leaf != kNull && m_treeOf[proxy] == kMoving) reachStatics(proxy, {});
    m_reachKept = anyStatics;
    chooseMoverPairing();
    std::uint64_t tests = 0;
    const auto emit = [&](std::uint32_t p, std::uint32_t q) {
        ++tests;
        if (touches(m_proxies[p].box, m_proxies[q].box)) out.push_back(makePair(m_proxies[p].dense, m_proxies[q].dense));
    };
    // Lists a mover and a static whose box its still reach touches (stillDense: kNull when not
    // known without reading the static's record), and emits them if the boxes overlap.
    const auto pairWithStill = [&](std::uint32_t mover, std::uint32_t still, const Aabb& stillBox, std::uint32_t stillDense) __attribute__((hot)) {
        if (!touches(m_stillReach[mover], stillBox) || (m_filtersSeen && !mayPair(mover, still))) return;
        StillPair& pair = m_stillPairs.emplace_back(StillPair{mover, still, stillBox, stillDense});
        ++tests;
        if (!touches(m_proxies[mover].box, stillBox)) return;
        if (pair.stillDense == kNull) pair.stillDense = m_proxies[still].dense;
        out.push_back(makePair(m_proxies[mover].dense, pair.stillDense));
    };
    if (m_pairsAnew) {
        // After a bulk load or a rebuild: every pair from the trees descended against
        // themselves and each other (statics never pair with statics), not a query per leaf.
        m_pairsAnew = false;
        m_pairs.clear();
        m_stillPairs.clear();
        std::fill(m_neighbours.begin(), m_neighbours.end(), std::uint8_t{0});
        if (!m_sweepMovers) m_nodesVisited += m_trees[kMoving].selfPairs([&](std::uint32_t p, std::uint32_t q) {
            m_neighbours[p] += m_neighbours[p] < 255;
            m_neighbours[q] += m_neighbours[q] < 255;
            if (m_filtersSeen && !mayPair(p, q)) return;  // two movers: only a filter can refuse them
            m_pairs.push_back({p, q});
            emit(p, q);
        });
        m_nodesVisited += m_trees[kMoving].pairsWith(m_trees[kStill], [&](std::uint32_t mover, std::uint32_t still) {
            pairWithStill(mover, still, m_proxies[still].box, m_proxies[still].dense);
        });
    } else {
        // Pairs of untouched leaves still overlap by their fat boxes (neither fat box changed),
        // and a mover whose still reach did not change still reaches its statics.
        std::size_t kept = 0, hits = 0;
        const std::size_t pairCount = m_pairs.size();
        // As long as the pairs' room, never shrunk: it grows when they do, and fills no step.
        if (m_pairHits.size() < m_pairs.capacity()) m_pairHits.resize(m_pairs.capacity());
        for (std::size_t k = 0; k < pairCount; ++k) {
            // The two proxies of a pair some way ahead are fetched now: pairs name proxies
            // anywhere in the pool, and each read would otherwise wait on a miss.
            if (k + kPairLookahead < pairCount) {
                const ProxyPair ahead = m_pairs[k + kPairLookahead];
                __builtin_prefetch(&m_proxies[ahead.a]);
                __builtin_prefetch(&m_proxies[ahead.a].box.maxY);
                __builtin_prefetch(&m_proxies[ahead.b]);
                __builtin_prefetch(&m_proxies[ahead.b].box.maxY);
            }
            // Without a branch on the test (on mixed sizes half the fat pairs overlap, a coin
            // toss to the predictor): each pair's dense pair is written at the end of
            // m_pairHits, which advances if the boxes overlap.
            const ProxyPair pair = m_pairs[k];
            const Proxy& a = m_proxies[pair.a];
            const Proxy& b = m_proxies[pair.b];
            const bool stays = !(m_dirty[pair.a] | m_dirty[pair.b]);
            m_pairs[kept] = pair;
            m_pairHits[hits] = makePair(a.dense, b.dense);
            hits += stays & touches(a.box, b.box);
            kept += stays;
        }
        tests += kept;
        m_pairs.resize(kept);
        out.insert(out.end(), m_pairHits.begin(), m_pairHits.begin() + static_cast<std::ptrdiff_t>(hits));
        // Without branches on whether a pair stays and whether it overlaps (a tenth of the kept
        // pairs overlap, in no order the predictor can learn): each pair is written at the
        // kept end, which advances if it stays, and the overlapping ones are emitted after.
        kept = 0;
        hits = 0;
        const std::size_t stillCount = m_stillPairs.size();
        if (m_stillHits.size() < m_stillPairs.capacity()) m_stillHits.resize(m_stillPairs.capacity());
        for (std::size_t k = 0; k < stillCount; ++k) {
            StillPair pair = m_stillPairs[k];
            const bool stays = !(m_stillDirty[pair.mover] | (stillsTouched && m_dirty[pair.still]));
            if (m_denseChanged) pair.stillDense = kNull;
            m_stillPairs[kept] = pair;
            m_stillHits[hits] = static_cast<std::uint32_t>(kept);
            hits += stays & touches(m_proxies[pair.mover].box, pair.stillBox);
            kept += stays;
        }
        tests += kept;
        m_stillPairs.resize(kept);
        for (std::size_t h = 0; h < hits; ++h) {
            StillPair& pair = m_stillPairs[m_stillHits[h]];
            if (pair.stillDense == kNull) pair.stillDense = m_proxies[pair.still].dense;
            out.push_back(makePair(m_proxies[pair.mover].dense, pair.stillDense));
        }
        // Touched movers find their fat pairs among the movers (two touched ones pair from the
        // larger proxy); a touched static, the movers whose still reach it touches (but those
        // whose reach changed too, which find it below).
        m_queryMovers.clear();
        reserveWithHeadroom(m_queryMovers, m_proxies.size());  // a burst must not allocate
        for (const std::uint32_t proxy : m_dirtyList) {
            if (m_proxies[proxy].leaf == kNull) continue;  // removed
            if (m_isStatic[proxy]) {
                const Aabb& box = m_proxies[proxy].box;
                m_nodesVisited += m_trees[kMoving].query(box, [&](std::uint32_t mover) {
                    if (!m_stillDirty[mover]) pairWithStill(mover, proxy, box, m_proxies[proxy].dense);
                });
                continue;
            }
            if (m_sweepMovers) continue;  // the sweep below pairs the movers
            m_queryMovers.push_back(proxy);
            m_neighbours[proxy] = 0;
        }
        // The movers' queries go together, so that their cache misses overlap.
        const auto fatBoxOf = [&](std::uint32_t k) { return m_fatBoxes[m_queryMovers[k]]; };
        const auto queries = static_cast<std::uint32_t>(m_queryMovers.size());
        m_nodesVisited += m_trees[kMoving].queryMany(queries, fatBoxOf, [&](std::uint32_t k, std::uint32_t other) {
            const std::uint32_t proxy = m_queryMovers[k];
            if (other == proxy) return;
            m_neighbours[proxy] += m_neighbours[proxy] < 255;
            // Two movers: only a filter can refuse them (the rule's arrays are not read without).
            if ((m_dirty[other] && other < proxy) || (m_filtersSeen && !mayPair(proxy, other))) return;
            m_pairs.push_back({proxy, other});
            emit(proxy, other);
        });
        // Movers whose still reach changed find their statics: in the grid of statics where
        // it stands (the static's record is then read only for a filter or an overlap), else
        // in the static tree.
        m_reachMovers.clear();
        m_reaches.clear();
        for (const std::uint32_t mover : m_stillDirtyList) {
            if (m_proxies[mover].leaf == kNull || m_isStatic[mover]) continue;
            if (m_staticCells.empty()) {
                m_nodesVisited += m_trees[kStill].query(m_stillReach[mover], [&](std::uint32_t still) {
                    pairWithStill(mover, still, m_proxies[still].box, m_proxies[still].dense);
                });
            } else {
                m_reachMovers.push_back(mover);
                m_reaches.push_back(m_stillReach[mover]);
            }
        }
        // The grid's queries go together, so that their cache misses overlap.
        m_nodesVisited += m_staticCells.queryAll(m_reaches, m_rowScans, [&](std::uint32_t k, const StaticCells::Static& still) {
            pairWithStill(m_reachMovers[k], still.value, still.box, m_cellDenseValid ? still.tag : kNull);
        });
    }
    if (m_sweepMovers) tests += sweepMovers(out);
    for (const std::uint32_t proxy : m_stillDirtyList) m_stillDirty[proxy] = 0;
    m_stillDirtyList.clear();
    for (const std::uint32_t proxy : m_dirtyList) m_dirty[proxy] = 0;
    m_dirtyList.clear();
    m_denseChanged = false;
    defragmentIfScattered(kMoving);
    defragmentIfScattered(kStill);

    m_counters.candidatePairs = out.size();
    m_counters.pairTests = tests;
    m_counters.elementsVisited = m_nodesVisited + m_trees[kMoving].nodesVisited() + m_trees[kStill].nodesVisited();
    m_counters.bytesHeld = m_trees[kMoving].bytesHeld() + m_trees[kStill].bytesHeld() + bytesHeld(m_treeOf) +
                           bytesHeld(m_proxies) + bytesHeld(m_fatBoxes) + bytesHeld(m_reinsertMotion) + bytesHeld(m_placedAt) +
                           bytesHeld(m_reachSteps) + bytesHeld(m_stillHits) + bytesHeld(m_pairHits) +
                           bytesHeld(m_neighbours) + bytesHeld(m_proxyId) + m_diff.bytesHeld() +
                           bytesHeld(m_isStatic) + bytesHeld(m_category) + bytesHeld(m_mask) + bytesHeld(m_dirty) +
                           bytesHeld(m_dirtyList) + bytesHeld(m_stillReach) + bytesHeld(m_stillDirty) +
                           bytesHeld(m_stillDirtyList) +
                           bytesHeld(m_freeProxies) + bytesHeld(m_proxyOfId) + bytesHeld(m_proxyOfDense) +
                           bytesHeld(m_pairs) + bytesHeld(m_stillPairs) + m_staticCells.bytesHeld() + bytesHeld(m_cellStatics) +
                           bytesHeld(m_leaving) + bytesHeld(m_leavingState) + bytesHeld(m_reachMovers) + bytesHeld(m_queryMovers) +
                           bytesHeld(m_reaches) + bytesHeld(m_sweep) + bytesHeld(m_sweepHits) +
                           bytesHeld(m_rowScans);
}

[[gnu::hot]] void DynamicTree::chooseMoverPairing() {
    const std::uint64_t movers = m_trees[kMoving].leafCount(), statics = m_trees[kStill].leafCount();
    // Entered and left at different counts, so that a scene at the threshold does not
    // switch (and relist every pair) each step.
    const bool enter = movers > 0 && movers <= kSweptMoversMax && movers * kStaticsPerSweptMover <= statics;
    const bool leave = movers > kSweptMoversMax + kSweptMoversMax / 2 || movers * kStaticsPerSweptMoverToStay > statics;
    const bool sweep = m_sweepMovers ? !leave : enter;
    if (sweep == m_sweepMovers) return;
    m_sweepMovers = sweep;
    m_moverOrderStale = true;
    // No leaf waits: each is given its fat box below, or waited only while the movers swept.
    for (const Leaving& leaving : m_leaving) m_leavingState[leaving.proxy] = kUnlisted;
    m_leaving.clear();
    if (sweep) {
        m_pairs.clear();
        // No fat pairs, no neighbours: a steady mover takes the long reach.
        std::fill(m_neighbours.begin(), m_neighbours.end(), std::uint8_t{0});
        return;
    }
    // Back to kept fat pairs: the movers' fat boxes shrink to the usual margin (their tree is
    // built anew around them), their still reaches stay inside them, and every pair is listed
    // afresh.
    for (std::uint32_t proxy = 0; proxy < m_proxies.size(); ++proxy) {
        if (m_proxies[proxy].leaf == kNull || m_treeOf[proxy] != kMoving) continue;
        m_fatBoxes[proxy] = fatten(proxy, m_proxies[proxy].box, {});
        m_trees[kMoving].restage(m_proxies[proxy].leaf, m_fatBoxes[proxy]);
        if (m_reachKept) reachStatics(proxy, {});
    }
    renumber(kMoving, Rebuild::TopDown);
    m_pairsAnew = true;
}

[[gnu::hot]] std::uint64_t DynamicTree::sweepMovers(std::vector<Pair>& out) {
    constexpr float kPastAll = std::numeric_limits<float>::infinity();
    if (m_moverOrderStale) {
        m_moverOrderStale = false;
        m_sweep.clear();
        reserveWithHeadroom(m_sweep, m_trees[kMoving].leafCount() + kSweepWindow);
        Aabb spread{kPastAll, kPastAll, -kPastAll, -kPastAll};
        for (std::uint32_t proxy = 0; proxy < m_proxies.size(); ++proxy) {
            if (m_proxies[proxy].leaf == kNull || m_treeOf[proxy] != kMoving) continue;
            m_sweep.push_back({0.0f, 0.0f, 0.0f, 0.0f, proxy});
            spread = unite(spread, m_proxies[proxy].box);
        }
        // Along the axis they spread over more: movers in a column must not all overlap in x.
        m_sweepAlongY = spread.height() > spread.width();
        // Past the movers, kSweepWindow entries that nothing reaches, so the window needs no bound.
        m_sweep.insert(m_sweep.end(), kSweepWindow, SweptMover{kPastAll, kPastAll, kPastAll, kPastAll, kNull});
    }
    const std::size_t count = m_sweep.size() - kSweepWindow;
    // The movers' boxes of this step, in last step's order (their records are side by side).
    for (std::size_t k = 0; k < count; ++k) {
        SweptMover& mover = m_sweep[k];
        const Aabb& box = m_proxies[mover.proxy].box;
        mover = m_sweepAlongY ? SweptMover{box.minY, box.maxY, box.minX, box.maxX, mover.proxy}
                              : SweptMover{box.minX, box.maxX, box.minY, box.maxY, mover.proxy};
    }
    // Sorted again by insertion: they moved a little, so few shifts. Past kSweepShiftsPerMover
    // a mover (a jump), a full sort is cheaper.
    const auto byLow = [](const SweptMover& a, const SweptMover& b) { return a.low < b.low; };
    const std::uint64_t shiftLimit = kSweepShiftsPerMover * static_cast<std::uint64_t>(count);
    if (insertionSort(m_sweep.data(), count, byLow, shiftLimit) > shiftLimit)
        std::sort(m_sweep.begin(), m_sweep.begin() + static_cast<std::ptrdiff_t>(count), byLow);
    // Each mover against the next kSweepWindow without a branch per test (the outcome is a coin
    // toss to the predictor): a pair is written at the end of the hits, which advances if the
    // boxes overlap. The rare mover whose reach goes past the window goes on with a loop.
    // Room for every window; a reach past the window makes more below.
    if (m_sweepHits.size() < kSweepWindow * count) m_sweepHits.resize(kSweepWindow * count);
    std::size_t hits = 0;
    std::uint64_t tests = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const SweptMover& a = m_sweep[i];
        for (std::size_t w = 1; w <= kSweepWindow; ++w) {
            const SweptMover& b = m_sweep[i + w];
            const bool along = b.low <= a.high;
            tests += along;
            m_sweepHits[hits] = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i + w)};
            hits += along & (b.otherLow <= a.otherHigh) & (a.otherLow <= b.otherHigh);
        }
        for (std::size_t j = i + kSweepWindow + 1; j < count && m_sweep[j].low <= a.high; ++j) {
            ++tests;
            const SweptMover& b = m_sweep[j];
            if ((b.otherLow <= a.otherHigh) & (a.otherLow <= b.otherHigh)) {
                // Room for this hit and for the windows of the movers after this one.
                const std::size_t room = hits + 1 + kSweepWindow * (count - i - 1);
                if (room > m_sweepHits.size()) m_sweepHits.resize(2 * room);
                m_sweepHits[hits++] = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)};
            }
        }
    }
    for (std::size_t h = 0; h < hits; ++h) {
        const std::uint32_t p = m_sweep[m_sweepHits[h].a].proxy, q = m_sweep[m_sweepHits[h].b].proxy;
        if (m_filtersSeen && !mayPair(p, q)) continue;
        out.push_back(makePair(m_proxies[p].dense, m_proxies[q].dense));
    }
    return tests;
}

[[gnu::hot]] void DynamicTree::defragmentIfScattered(std::uint8_t which) {
    // Reinsertions scatter nodes over the pool; renumber once they add up to half the tree.
    if (2 * m_relocated[which] <= m_trees[which].leafCount()) return;
    // Statics do not move: their tree is rebuilt top down (balanced, tight) before renumbering.
    renumber(which, which == kStill ? Rebuild::TopDown : Rebuild::No);
}

void DynamicTree::renumber(std::uint8_t which, Rebuild rebuild) {
    const auto onLeafMoved = [&](std::uint32_t proxy, std::uint32_t leaf) { m_proxies[proxy].leaf = leaf; };
    if (rebuild == Rebuild::TopDown)
        m_trees[which].rebuildTopDown(onLeafMoved);
    else
        m_trees[which].defragment(onLeafMoved);
    m_relocated[which] = 0;
    // The statics' tree is renumbered again only once half its leaves have moved (statics
    // do not move) or after a bulk load: its scratch, as large as the tree, is freed.
    if (which == kStill) m_trees[kStill].releaseScratch();
}

// ---- overlay and invariants -------------------------------------------------------------

void DynamicTree::forEachElement(const std::function<void(const StructureElement&)>& visit) const {
    m_overlayUpdatesLeft = kShownUpdates;  // an overlay draws the tree: the next updates keep it settled
    for (const AabbTree& tree : m_trees) {
        tree.forEachNode([&](const Aabb& box, std::uint32_t depth, bool leaf, std::uint32_t proxy) {
            StructureElement view;
            // A leaf's fat box as the proxy has it: one that waits for its tree (until the
            // next update, once an overlay is drawn) has its new one already.
            view.bounds = leaf ? m_fatBoxes[proxy] : box;
            view.level = depth;
            view.kind = leaf ? StructureElement::Kind::FatBox : StructureElement::Kind::Node;
            view.count = leaf ? 1 : 0;
            visit(view);
        });
    }
}

std::string DynamicTree::validate() const {
    const auto at = [](const char* what, std::uint32_t index) { return std::string(what) + " " + std::to_string(index); };
    for (const std::uint8_t which : {kMoving, kStill}) {
        const AabbTree& tree = m_trees[which];
        const std::string broken = tree.validate([&](std::uint32_t leaf) -> std::string {
            const std::uint32_t proxy = tree.value(leaf);
            if (proxy >= m_proxies.size() || m_proxies[proxy].leaf != leaf || m_treeOf[proxy] != which)
                return at("leaf and proxy disagree at", leaf);
            if (m_isStatic[proxy] != (which == kStill)) return at("leaf in the wrong tree for its static flag:", leaf);
            if (!containsBox(m_fatBoxes[proxy], m_proxies[proxy].box)) return at("fat box misses its box at leaf", leaf);
            // A leaf that waits for its tree (while the movers sweep) takes its fat box then.
            if (!sameBox(tree.box(leaf), m_fatBoxes[proxy]) && m_leavingState[proxy] != kWaits)
                return at("proxy's copy of the fat box is stale at leaf", leaf);
            return {};
        });
        if (!broken.empty()) return broken;
    }
    const std::uint32_t leaves = m_trees[kMoving].leafCount() + m_trees[kStill].leafCount();
    if (leaves != leafCount()) return "leaf count " + std::to_string(leaves) + " != entities " + std::to_string(leafCount());
    for (std::uint32_t i = 0; i < leafCount(); ++i) {
        const std::uint32_t proxy = m_proxyOfDense[i];
        if (proxy >= m_proxies.size() || m_proxies[proxy].leaf == kNull) return at("dense index without a leaf:", i);
        if (m_proxies[proxy].dense != i) return at("proxy disagrees on dense index", i);
        const std::uint32_t id = m_proxyId[proxy];
        if (id >= m_proxyOfId.size() || m_proxyOfId[id] != proxy) return at("id map disagrees at dense index", i);
    }
    std::vector<std::uint8_t> isFree(m_proxies.size(), 0);
    for (const std::uint32_t proxy : m_freeProxies) {
        if (proxy >= m_proxies.size() || m_proxies[proxy].leaf != kNull || isFree[proxy])
            return at("free proxy list broken at", proxy);
        isFree[proxy] = 1;
    }
    if (m_freeProxies.size() + leafCount() != m_proxies.size()) return "proxies neither live nor free";
    // Leaves wait to be settled only while the movers sweep, each listed once, and every
    // listed proxy is marked so.
    std::vector<std::uint8_t> listed(m_proxies.size(), 0);
    for (const Leaving& leaving : m_leaving) {
        if (leaving.proxy >= listed.size() || listed[leaving.proxy]++) return at("leaving list names a wrong or repeated proxy", leaving.proxy);
        if (m_leavingState[leaving.proxy] == kUnlisted) return at("listed leaving proxy marked unlisted", leaving.proxy);
    }
    for (std::uint32_t p = 0; p < m_proxies.size(); ++p) {
        if (m_leavingState[p] != kUnlisted && !listed[p]) return at("proxy marked listed but not in the leaving list", p);
        if (m_leavingState[p] != kWaits) continue;
        if (m_proxies[p].leaf == kNull || m_treeOf[p] != kMoving) return at("waiting leaf dead or static at proxy", p);
        if (!m_sweepMovers) return at("leaf waits while the movers do not sweep at proxy", p);
    }
    std::size_t dirty = 0;
    for (const std::uint8_t d : m_dirty) dirty += d;
    if (dirty != m_dirtyList.size()) return "dirty list and flags disagree";
    if (!m_staticCells.empty() && !m_staticsChanged) {
        // The statics' grid, where in use, finds each static by its own box once, and no other.
        for (std::uint32_t p = 0; p < m_proxies.size(); ++p) {
            if (m_proxies[p].leaf == kNull || m_treeOf[p] != kStill) continue;
            std::uint32_t found = 0;
            m_staticCells.query(m_fatBoxes[p], [&](const StaticCells::Static& entry) {
                const std::uint32_t q = entry.value;
                found += q == p && sameBox(entry.box, m_fatBoxes[p]) &&
                         (!m_cellDenseValid || m_denseChanged || entry.tag == m_proxies[p].dense);
                if (q >= m_proxies.size() || m_proxies[q].leaf == kNull || m_treeOf[q] != kStill) found += 2;
            });
            if (found != 1) return at("statics' grid misses, repeats or holds a stale static at proxy", p);
        }
    }

    std::size_t stillDirty = 0;
    for (const std::uint8_t d : m_stillDirty) stillDirty += d;
    if (stillDirty != m_stillDirtyList.size()) return "still-dirty list and flags disagree";

    // The pair lists, once each: the movers whose fat boxes overlap, untouched both; a mover
    // whose still reach touches a static's box, neither of them changed since.
    const auto live = [&](std::uint32_t p) { return p < m_proxies.size() && m_proxies[p].leaf != kNull; };
    if (m_sweepMovers && !m_moverOrderStale) {
        // The sweep's list: every mover once, then the entries past them all.
        std::vector<std::uint8_t> listed(m_proxies.size(), 0);
        if (m_sweep.size() != m_trees[kMoving].leafCount() + kSweepWindow) return "sweep list and movers differ in count";
        for (std::size_t k = 0; k < m_sweep.size(); ++k) {
            const std::uint32_t proxy = m_sweep[k].proxy;
            if (k >= m_sweep.size() - kSweepWindow) {
                if (proxy != kNull) return "sweep list lacks its end";
                continue;
            }
            if (!live(proxy) || m_treeOf[proxy] != kMoving || listed[proxy]++) return at("sweep list holds a wrong or repeated proxy", proxy);
        }
    }
    const auto fat = [&](std::uint32_t p) { return treeOf(p).box(m_proxies[p].leaf); };
    const auto pairsNow = [&](std::uint32_t p, std::uint32_t q) {  // both live, not changed since
        if (!mayPair(p, q)) return false;
        if (!m_isStatic[p] && !m_isStatic[q]) return !m_sweepMovers && !m_dirty[p] && !m_dirty[q] && overlaps(fat(p), fat(q));
        if (m_isStatic[p]) std::swap(p, q);
        return !m_stillDirty[p] && !m_dirty[q] && overlaps(m_stillReach[p], m_proxies[q].box);
    };
    for (std::uint32_t p = 0; p < m_proxies.size() && m_reachKept; ++p) {
        if (!live(p) || m_isStatic[p]) continue;
        if (!containsBox(m_stillReach[p], m_proxies[p].box) || !containsBox(m_fatBoxes[p], m_stillReach[p]))
            return at("still reach misses the box or leaves the fat box at proxy", p);
    }
    // After a rebuild, findPairs lists every pair afresh: the lists wait for it.
    if (m_pairsAnew) return {};
    std::vector<std::pair<std::uint32_t, std::uint32_t>> kept;
    for (const ProxyPair& pair : m_pairs) {
        if (!live(pair.a) || !live(pair.b) || pair.a == pair.b) {
            if (pair.a < m_dirty.size() && pair.b < m_dirty.size() && (m_dirty[pair.a] || m_dirty[pair.b])) continue;
            return "pair of a dead proxy or a proxy with itself";
        }
        if (m_dirty[pair.a] || m_dirty[pair.b]) continue;
        if (m_isStatic[pair.a] || m_isStatic[pair.b]) return "pair with a static in the movers' list";
        if (m_sweepMovers) return "movers' pair listed while a sweep pairs the movers";
        if (!pairsNow(pair.a, pair.b)) return "pair whose fat boxes do not overlap, or the rule refuses";
        kept.push_back(std::minmax(pair.a, pair.b));
    }
    for (const StillPair& pair : m_stillPairs) {
        if (pair.mover >= m_proxies.size() || pair.still >= m_proxies.size()) return "pair names no proxy";
        if (m_stillDirty[pair.mover] || m_dirty[pair.still]) continue;
        if (!live(pair.mover) || !live(pair.still)) return "pair of a dead proxy";
        if (m_isStatic[pair.mover] || !m_isStatic[pair.still]) return "pair in the statics' list without one static";
        if (!pairsNow(pair.mover, pair.still)) return "pair whose still reach misses the static, or the rule refuses";
        if (!sameBox(pair.stillBox, m_proxies[pair.still].box)) return "pair's copy of the static's box is stale";
        if (!m_denseChanged && pair.stillDense != kNull && pair.stillDense != m_proxies[pair.still].dense)
            return "pair's copy of the static's index is stale";
        kept.push_back(std::minmax(pair.mover, pair.still));
    }
    std::sort(kept.begin(), kept.end());
    if (std::adjacent_find(kept.begin(), kept.end()) != kept.end()) return "pair listed twice";
    std::size_t expected = 0;
    for (std::uint32_t p = 0; p < m_proxies.size(); ++p) {
        if (!live(p)) continue;
        for (std::uint32_t q = p + 1; q < m_proxies.size(); ++q) {
            if (!live(q) || !pairsNow(p, q)) continue;
            ++expected;
            if (!std::binary_search(kept.begin(), kept.end(), std::pair{p, q})) return at("pair missing for proxy", p);
        }
    }
    if (expected != kept.size()) return "pair count differs";
    return {};
}

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

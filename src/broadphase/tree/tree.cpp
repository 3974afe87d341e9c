#include "broadphase/tree/tree.h"

#include <algorithm>
#include <stdexcept>

#include "core/box_helpers.h"
#include "core/buffers.h"

namespace ro {

// [[gnu::hot]] marks what a step with a moved list runs (updateMoved, findPairs and most of
// what they call): the compiler places it together, so a step that follows other work finds
// its code in fewer lines and pages (1,000 movers among 99,000 statics, beside every other
// contestant of ro_bench: 0.061-0.063 ms a step to 0.060-0.062).

void DynamicTree::applySettings(const Settings& settings) {
    applyThreads(settings);
    // Fat boxes of another margin would need a pass over every leaf anyway: rebuild.
    const float margin = static_cast<float>(settings.real(kMarginParameter));
    const bool autoMargin = margin == 0.0f;
    if (autoMargin != m_autoMargin || (!autoMargin && margin != m_margin)) {
        m_autoMargin = autoMargin;
        m_margin = m_sweptMargin = margin;  // auto: measured at the next update or insert into the empty tree
        clear();
    }
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

}  // namespace ro

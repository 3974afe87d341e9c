/// DynamicTree's overlay (forEachElement) and the invariants validate() checks.

#include "broadphase/tree/tree.h"

#include <algorithm>

#include "core/box_helpers.h"

namespace ro {

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

}  // namespace ro

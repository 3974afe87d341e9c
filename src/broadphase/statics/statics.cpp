#include "broadphase/statics/statics.h"

#include <algorithm>

#include "core/buffers.h"

namespace ro {

template <typename Inner>
void WithStatics<Inner>::applySettings(const Settings& settings) {
    // Checked by our configure (the same keys); each index applies them at its next update.
    m_movers.configure(settings);
    m_statics.configure(settings);
    m_rebuild = true;
}

template <typename Inner>
BoxView WithStatics<Inner>::moverView() const {
    BoxView view;
    view.minX = m_moverMinX.data(), view.minY = m_moverMinY.data();
    view.maxX = m_moverMaxX.data(), view.maxY = m_moverMaxY.data();
    view.ids = m_moverSlots.data();
    view.count = static_cast<std::uint32_t>(m_moverDense.size());
    // Movers pair with movers: no static flags. Filters, when the boxes have them, compacted.
    if (this->pairRule().category != nullptr) view.category = m_moverCategory.data(), view.mask = m_moverMask.data();
    return view;
}

template <typename Inner>
BoxView WithStatics<Inner>::staticView() const {
    // Only queried, never asked for pairs: no flags or filters (the layer applies them).
    BoxView view;
    view.minX = m_staticMinX.data(), view.minY = m_staticMinY.data();
    view.maxX = m_staticMaxX.data(), view.maxY = m_staticMaxY.data();
    view.ids = m_staticSlots.data();
    view.count = static_cast<std::uint32_t>(m_staticSlots.size());
    return view;
}

template <typename Inner>
void WithStatics<Inner>::doUpdate(const BoxView& boxes) {
    const std::uint32_t n = boxes.count;
    std::uint32_t statics = 0;
    if (boxes.isStatic != nullptr)
        for (std::uint32_t i = 0; i < n; ++i) statics += boxes.isStatic[i] != 0 ? 1 : 0;  // vectorised
    if (statics == 0 || statics < std::uint64_t{kMinStaticsPerMover} * (n - statics)) {
        m_layered = false;
        m_rebuild = true;  // the static index, if any, is built afresh when it is used again
        m_count = n;
        Base::updateChecked(m_movers, boxes);
        countUpdate(false);
        return;
    }
    // The same flags at the same indices: the compact lists stand (one pass, vectorised).
    bool sameFlags = m_layered && n == m_count;
    if (sameFlags) {
        std::uint32_t differ = 0;
        const std::uint8_t* was = m_wasStatic.data();
        for (std::uint32_t i = 0; i < n; ++i) differ += (boxes.isStatic[i] != 0) != (was[i] != 0);
        sameFlags = differ == 0;
    }
    bool rebuild = false;
    if (sameFlags)
        rebuild = staticsChanged(boxes);
    else
        rebuild = !split(boxes);
    m_count = n;
    m_layered = true;
    if (rebuild) buildStatics(boxes);
    gatherMovers(boxes);
    Base::updateChecked(m_movers, moverView());
    countUpdate(rebuild);
}

template <typename Inner>
bool WithStatics<Inner>::staticsChanged(const BoxView& boxes) const {
    // The same flags at the same indices: each static is compared with its kept copy in place.
    const std::size_t statics = m_staticDense.size();
    if (m_rebuild || statics != m_staticSlots.size()) return true;
    const std::uint32_t* dense = m_staticDense.data();
    std::uint32_t differ = 0;
    // Counted without a branch: the compiler keeps the loop free of jumps.
    const auto differs = [](auto a, auto b) { return static_cast<std::uint32_t>(a != b); };
    for (std::size_t k = 0; k < statics; ++k) {
        const std::uint32_t i = dense[k];
        differ += differs(boxes.ids[i], m_staticSlots[k]) | differs(boxes.minX[i], m_staticMinX[k]) |
                  differs(boxes.minY[i], m_staticMinY[k]) | differs(boxes.maxX[i], m_staticMaxX[k]) |
                  differs(boxes.maxY[i], m_staticMaxY[k]);
    }
    return differ != 0;
}

template <typename Inner>
bool WithStatics<Inner>::split(const BoxView& boxes) {
    const std::uint32_t n = boxes.count;
    resizeWithHeadroom(m_wasStatic, n);
    resizeWithHeadroom(m_compactOf, n);
    reserveWithHeadroom(m_moverDense, n);
    m_moverDense.clear();
    std::uint32_t statics = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const bool still = boxes.isStatic[i] != 0;
        m_wasStatic[i] = still ? 1 : 0;
        statics += still ? 1 : 0;
        if (still) continue;
        m_compactOf[i] = static_cast<std::uint32_t>(m_moverDense.size());
        m_moverDense.push_back(i);
    }
    resizeWithHeadroom(m_staticDense, statics);
    // Room for a moved list of every mover and for large query answers: steps do not grow them.
    reserveWithHeadroom(m_movedCompact, m_moverDense.size());
    reserveWithHeadroom(m_moverPairs, m_moverDense.size());
    reserveWithHeadroom(m_found, 64);
    reserveWithHeadroom(m_hits, 64);
    // The statics the index holds, each found by its slot at its compact place: the index
    // stands if every one is there with its box (a swap-remove moved some to other indices).
    bool kept = !m_rebuild && statics == m_staticSlots.size();
    std::uint32_t differ = 0;
    for (std::uint32_t i = 0; i < n && kept; ++i) {
        if (m_wasStatic[i] == 0) continue;
        const std::uint32_t slot = boxes.ids[i];
        const std::uint32_t k = slot < m_staticOfSlot.size() ? m_staticOfSlot[slot] : statics;
        if (k >= statics || m_staticSlots[k] != slot) {
            kept = false;
            break;
        }
        m_staticDense[k] = i;
        m_compactOf[i] = k;
        differ += static_cast<std::uint32_t>(boxes.minX[i] != m_staticMinX[k]) | static_cast<std::uint32_t>(boxes.minY[i] != m_staticMinY[k]) |
                  static_cast<std::uint32_t>(boxes.maxX[i] != m_staticMaxX[k]) | static_cast<std::uint32_t>(boxes.maxY[i] != m_staticMaxY[k]);
    }
    if (kept && differ == 0) return true;
    // Rebuilt: the statics in dense order.
    std::uint32_t k = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        if (m_wasStatic[i] == 0) continue;
        m_staticDense[k] = i;
        m_compactOf[i] = k++;
    }
    return false;
}

template <typename Inner>
void WithStatics<Inner>::buildStatics(const BoxView& boxes) {
    const std::size_t statics = m_staticDense.size();
    for (auto* v : {&m_staticMinX, &m_staticMinY, &m_staticMaxX, &m_staticMaxY}) resizeWithHeadroom(*v, statics);
    resizeWithHeadroom(m_staticSlots, statics);
    for (std::size_t k = 0; k < statics; ++k) {
        const std::uint32_t i = m_staticDense[k];
        m_staticMinX[k] = boxes.minX[i], m_staticMinY[k] = boxes.minY[i];
        m_staticMaxX[k] = boxes.maxX[i], m_staticMaxY[k] = boxes.maxY[i];
        m_staticSlots[k] = boxes.ids[i];
    }
    resizeWithHeadroom(m_staticOfSlot, this->idSlots().slotLimit());
    for (std::size_t k = 0; k < statics; ++k) m_staticOfSlot[m_staticSlots[k]] = static_cast<std::uint32_t>(k);
    Base::updateChecked(m_statics, staticView());
    ++m_staticBuilds;
    m_rebuild = false;
}

template <typename Inner>
void WithStatics<Inner>::gatherMovers(const BoxView& boxes) {
    const std::size_t movers = m_moverDense.size();
    for (auto* v : {&m_moverMinX, &m_moverMinY, &m_moverMaxX, &m_moverMaxY}) resizeWithHeadroom(*v, movers);
    resizeWithHeadroom(m_moverSlots, movers);
    for (std::size_t k = 0; k < movers; ++k) {
        const std::uint32_t i = m_moverDense[k];
        m_moverMinX[k] = boxes.minX[i], m_moverMinY[k] = boxes.minY[i];
        m_moverMaxX[k] = boxes.maxX[i], m_moverMaxY[k] = boxes.maxY[i];
        m_moverSlots[k] = boxes.ids[i];
    }
    if (boxes.category == nullptr) return;
    resizeWithHeadroom(m_moverCategory, movers);
    resizeWithHeadroom(m_moverMask, movers);
    for (std::size_t k = 0; k < movers; ++k) {
        const std::uint32_t i = m_moverDense[k];
        m_moverCategory[k] = boxes.category[i], m_moverMask[k] = boxes.mask[i];
    }
}

template <typename Inner>
void WithStatics<Inner>::doUpdateMoved(const BoxView& boxes, std::span<const std::uint32_t> moved) {
    if (!m_layered) {
        Base::updateMovedChecked(m_movers, boxes, moved);
        countUpdate(false);
        return;
    }
    // The same entities and flags (the caller vouches): each moved box goes to its compact place.
    reserveWithHeadroom(m_movedCompact, moved.size());
    m_movedCompact.clear();
    bool staticMoved = false;
    for (const std::uint32_t i : moved) {
        const std::uint32_t k = m_compactOf[i];
        if (m_wasStatic[i] != 0) {
            m_staticMinX[k] = boxes.minX[i], m_staticMinY[k] = boxes.minY[i];
            m_staticMaxX[k] = boxes.maxX[i], m_staticMaxY[k] = boxes.maxY[i];
            staticMoved = true;
            continue;
        }
        m_moverMinX[k] = boxes.minX[i], m_moverMinY[k] = boxes.minY[i];
        m_moverMaxX[k] = boxes.maxX[i], m_moverMaxY[k] = boxes.maxY[i];
        m_movedCompact.push_back(k);
    }
    if (staticMoved) {
        Base::updateChecked(m_statics, staticView());
        ++m_staticBuilds;
    }
    Base::updateMovedChecked(m_movers, moverView(), m_movedCompact);
    countUpdate(staticMoved);
}

template <typename Inner>
void WithStatics<Inner>::countUpdate(bool staticsBuilt) {
    const std::uint64_t allocations = this->m_counters.heapAllocations;
    Counters counters = m_movers.counters();
    m_staticBuildVisited = staticsBuilt ? m_statics.counters().elementsVisited : 0;
    counters.elementsVisited += m_staticBuildVisited;
    counters.heapAllocations = allocations;
    counters.bytesHeld = bytesHeldNow();
    counters.extra.set("static_builds", static_cast<double>(m_staticBuilds));
    this->m_counters = counters;
}

template <typename Inner>
std::uint64_t WithStatics<Inner>::bytesHeldNow() const {
    std::uint64_t bytes = m_movers.counters().bytesHeld + (m_layered ? m_statics.counters().bytesHeld : 0);
    for (const auto* v : {&m_compactOf, &m_moverDense, &m_staticDense, &m_moverSlots, &m_moverCategory, &m_moverMask,
                          &m_staticSlots, &m_staticOfSlot, &m_movedCompact, &m_found})
        bytes += bytesHeld(*v);
    for (const auto* v : {&m_moverMinX, &m_moverMinY, &m_moverMaxX, &m_moverMaxY, &m_staticMinX, &m_staticMinY,
                          &m_staticMaxX, &m_staticMaxY})
        bytes += bytesHeld(*v);
    return bytes + bytesHeld(m_wasStatic) + bytesHeld(m_moverPairs) + bytesHeld(m_hits);
}

template <typename Inner>
void WithStatics<Inner>::findPairs(std::vector<Pair>& out) {
    const Counters updated = this->m_counters;
    if (!m_layered) {
        m_movers.findPairs(out);
        Counters counters = m_movers.counters();
        counters.heapAllocations = updated.heapAllocations;
        counters.bytesHeld = bytesHeldNow();
        counters.extra.set("static_builds", static_cast<double>(m_staticBuilds));
        this->m_counters = counters;
        return;
    }
    m_movers.findPairs(m_moverPairs);
    reserveWithHeadroom(m_moverPairs, 2 * m_moverPairs.size());  // room for the count to rise
    Counters counters = m_movers.counters();
    reserveWithHeadroom(out, m_moverPairs.size());
    out.resize(m_moverPairs.size());
    // The compact lists keep dense order, so a < b holds after the map back.
    const std::uint32_t* moverDense = m_moverDense.data();
    for (std::size_t p = 0; p < m_moverPairs.size(); ++p)
        out[p] = {moverDense[m_moverPairs[p].a], moverDense[m_moverPairs[p].b]};
    // Each mover's statics: the queries are exact, only the filters remain to apply.
    const PairRule& rule = this->pairRule();
    const bool filtered = rule.category != nullptr;
    reserveWithHeadroom(m_found, 64);
    for (std::size_t k = 0; k < m_moverDense.size(); ++k) {
        const Aabb box{m_moverMinX[k], m_moverMinY[k], m_moverMaxX[k], m_moverMaxY[k]};
        const QueryCost cost = m_statics.queryBox(box, m_found);
        counters.elementsVisited += cost.visited;
        counters.pairTests += cost.tests;
        const std::uint32_t mover = moverDense[k];
        for (const std::uint32_t j : m_found) {
            const std::uint32_t still = m_staticDense[j];
            if (filtered && !rule.accepts(mover, still)) continue;
            out.push_back(mover < still ? Pair{mover, still} : Pair{still, mover});
        }
    }
    counters.elementsVisited += m_staticBuildVisited;
    counters.candidatePairs = out.size();
    counters.heapAllocations = updated.heapAllocations;
    counters.bytesHeld = bytesHeldNow();
    counters.extra.set("static_builds", static_cast<double>(m_staticBuilds));
    this->m_counters = counters;
}

template <typename Inner>
QueryCost WithStatics<Inner>::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    if (!m_layered) return m_movers.queryBox(box, out);
    QueryCost cost = m_movers.queryBox(box, m_found);
    for (const std::uint32_t k : m_found) out.push_back(m_moverDense[k]);
    const QueryCost statics = m_statics.queryBox(box, m_found);
    for (const std::uint32_t k : m_found) out.push_back(m_staticDense[k]);
    cost.visited += statics.visited;
    cost.tests += statics.tests;
    return cost;
}

template <typename Inner>
QueryCost WithStatics<Inner>::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    if (!m_layered) return m_movers.queryRay(segment, out);
    QueryCost cost = m_movers.queryRay(segment, m_hits);
    for (const RayHit hit : m_hits) out.push_back({m_moverDense[hit.index], hit.t});
    const QueryCost statics = m_statics.queryRay(segment, m_hits);
    for (const RayHit hit : m_hits) out.push_back({m_staticDense[hit.index], hit.t});
    cost.visited += statics.visited;
    cost.tests += statics.tests;
    return cost;  // the caller sorts the merged hits by t, then dense index
}

template <typename Inner>
QueryCost WithStatics<Inner>::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    if (!m_layered) return m_movers.raycastFirst(segment, hit);
    std::optional<RayHit> first;
    QueryCost cost = m_movers.raycastFirst(segment, first);
    if (first) keepNearest(hit, {m_moverDense[first->index], first->t});
    const QueryCost statics = m_statics.raycastFirst(segment, first);
    if (first) keepNearest(hit, {m_staticDense[first->index], first->t});
    cost.visited += statics.visited;
    cost.tests += statics.tests;
    return cost;
}

template <typename Inner>
std::string WithStatics<Inner>::validate() const {
    if (std::string broken = m_movers.validate(); !broken.empty()) return broken;
    if (!m_layered) return {};
    if (std::string broken = m_statics.validate(); !broken.empty()) return "static index: " + broken;
    if (m_moverDense.size() + m_staticDense.size() != m_count || m_staticSlots.size() != m_staticDense.size())
        return "statics: the compact lists do not cover the boxes";
    // Each entry mapped back to itself; the movers in dense order (their pairs keep a < b
    // through the map), the statics in the order the index was built in.
    const auto check = [&](const std::vector<std::uint32_t>& dense, std::uint8_t flag) {
        for (std::size_t k = 0; k < dense.size(); ++k) {
            const std::uint32_t i = dense[k];
            if (i >= m_count || m_compactOf[i] != k || m_wasStatic[i] != flag) return false;
            if (flag == 0 && k > 0 && dense[k - 1] >= i) return false;
        }
        return true;
    };
    if (!check(m_moverDense, 0) || !check(m_staticDense, 1)) return "statics: a compact index does not map back to its dense one";
    return {};
}

template class WithStatics<SpatialGrid>;
template class WithStatics<SpatialHash>;
template class WithStatics<HierarchicalGrid>;
template class WithStatics<SweepAndPrune>;
template class WithStatics<SingleAxisSweep>;
template class WithStatics<Quadtree>;
template class WithStatics<DynamicTree>;

}  // namespace ro

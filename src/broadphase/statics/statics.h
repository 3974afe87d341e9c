#pragma once
/// Statics as one layer any technique sits under: WithStatics<Inner> is Inner, made to cost in
/// proportion to the movers when most boxes are declared static (BoxView::isStatic).
///
/// Why: a technique that rebuilds from every box pays for a level's static geometry on every
/// step with a change, although statics never move and two statics never pair. Box2D v3 keeps
/// a tree per body type, Jolt a tree per broad-phase layer, Bepu an active and a static tree:
/// the statics sit in an index of their own that only movers query. This layer gives that to
/// every technique, once.
///
/// What it keeps: two instances of Inner, one over the statics only and one over the movers
/// only, each on compact indices (0..statics-1, 0..movers-1) with the dense index of each
/// compact one beside it, and the compact index of each dense one. The statics' boxes and
/// slots are kept too, to see them change.
///
/// Each step:
/// - update(): one pass over the static flags, and one over the statics' boxes and slots
///   against the kept copies. A static that came, went, moved or changed flag rebuilds the
///   static index; otherwise it is not touched (a static that only took another dense index,
///   as a world's swap-remove does, is found by its slot, and only the map back changes). The
///   movers' boxes are gathered into compact arrays and the mover index is updated on them.
/// - updateMoved(): the moved movers' boxes are copied to their compact places and the mover
///   index takes updateMoved with their compact indices; a moved static rebuilds the static
///   index.
/// - findPairs(): the mover index's pairs (mapped back to dense indices), then a box query of
///   the static index per mover, each hit kept when the filters accept the pair. The queries
///   are exact, so the pairs are exact when the mover index's are. Static-static pairs are
///   never looked for.
///   The static index is asked to favour queries (favourQueries(), where the inner technique
///   has it): sweep and prune then answers them from strips (sap.h).
/// - Queries ask both indexes and merge; a ray's hits are sorted by the caller (t, then dense
///   index), and raycastFirst keeps the nearer of the two indexes' first hits.
/// Without statics (no flags, or none set), or with fewer than kMinStaticsPerMover a mover, the
/// layer passes straight through: the mover index holds every box at its dense index, and each
/// call goes to it as it came.
///
/// Under Coherent (the registry's composition, Coherent<WithStatics<Inner>>; docs/statics.md
/// has the figures): Coherent keeps the pairs while the boxes stay in their fat boxes and
/// hands this layer only the boxes that left them (updateMoved), so a step where only movers
/// left rebuilds the mover index alone, and the movers' queries find their statics here. In
/// the other order every mover would query the static index every step, at rest or not.
/// The tree is not wrapped: its own statics machinery measured 14-28x faster on the static
/// field than the tree under this layer.
/// Counter: "static_builds", the times the static index was built since the layer was made
/// (a step that only moved movers leaves it as it was). One key only: under Coherent and
/// inside auto, ExtraCounters' eight places are nearly all taken.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "broadphase/technique_base.h"

namespace ro {

template <typename Inner>
class WithStatics final : public Technique<WithStatics<Inner>> {
    friend class Technique<WithStatics<Inner>>;  // calls the hooks below
    using Base = Technique<WithStatics<Inner>>;

public:
    static constexpr TechniqueGuide kGuide = Inner::kGuide;
    static constexpr const auto& kParameters = Inner::kParameters;
    /// The statics sit in an index of their own only when there are at least this many per
    /// mover; with fewer, the layer passes straight through and the inner technique holds
    /// them with the movers. Every mover's query of the static index costs more than the
    /// statics cost inside the inner technique until the statics outnumber the movers about
    /// 3 to 1 (docs/statics.md has the measurements).
    static constexpr std::uint32_t kMinStaticsPerMover = 3;

    WithStatics() : Base(kParameters) {
        // The static index answers a box query per mover each step and is built again only
        // when a static changes: an inner technique that can trade build time for query time
        // (sweep and prune's strips) is asked to.
        if constexpr (requires(Inner& index) { index.favourQueries(); }) m_statics.favourQueries();
    }

    /// Whether the last update split the boxes (there were statics) or passed straight through.
    [[nodiscard]] bool layered() const { return m_layered; }
    [[nodiscard]] const Inner& moverIndex() const { return m_movers; }
    [[nodiscard]] const Inner& staticIndex() const { return m_statics; }
    /// The last update's box at dense index `i`, for a hand-over to another technique (auto).
    template <typename Index = Inner>
    [[nodiscard]] Aabb boxOf(std::uint32_t i) const {
        const Index& movers = m_movers;
        if (!m_layered) return movers.boxOf(i);
        const std::uint32_t k = m_compactOf[i];
        if (m_wasStatic[i] != 0) return {m_staticMinX[k], m_staticMinY[k], m_staticMaxX[k], m_staticMaxY[k]};
        return {m_moverMinX[k], m_moverMinY[k], m_moverMaxX[k], m_moverMaxY[k]};
    }

    // Implementing interface of BroadPhase (see BroadPhase for documentation).
    [[nodiscard]] bool exploitsMovedLists() const override { return m_layered || m_movers.exploitsMovedLists(); }
    void findPairs(std::vector<Pair>& out) override;
    [[nodiscard]] bool pairsAreExact() const override { return m_movers.pairsAreExact(); }
    void forEachElement(const std::function<void(const StructureElement&)>& visit) const override {
        m_movers.forEachElement(visit);
        if (m_layered) m_statics.forEachElement(visit);
    }
    [[nodiscard]] std::string validate() const override;

protected:
    void applySettings(const Settings& settings) override;
    void doUpdate(const BoxView& boxes) override;
    void doUpdateMoved(const BoxView& boxes, std::span<const std::uint32_t> moved);
    QueryCost doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) override;
    QueryCost doQueryRay(const Segment& segment, std::vector<RayHit>& out) override;
    QueryCost doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) override;

private:
    /// Whether a static came, went, moved, changed index or flag since the static index was built.
    [[nodiscard]] bool staticsChanged(const BoxView& boxes) const;
    /// The compact lists for new flags or entities; false when the static index no longer
    /// holds the statics (with their boxes), which are then listed in dense order.
    [[nodiscard]] bool split(const BoxView& boxes);
    /// The statics' boxes and slots from their dense places, and the static index built on them.
    void buildStatics(const BoxView& boxes);
    /// The movers' boxes, slots and filters into their compact arrays.
    void gatherMovers(const BoxView& boxes);
    [[nodiscard]] BoxView moverView() const;
    [[nodiscard]] BoxView staticView() const;
    /// The counters of the update: the indexes' work this step.
    void countUpdate(bool staticsBuilt);
    /// Heap bytes of both indexes and the layer's arrays.
    [[nodiscard]] std::uint64_t bytesHeldNow() const;

    Inner m_movers;   ///< every box when not layered
    Inner m_statics;  ///< the statics, when layered
    bool m_layered = false;
    bool m_rebuild = true;  ///< the next update builds everything (first, new settings)
    std::uint32_t m_count = 0;
    std::uint64_t m_staticBuilds = 0;
    std::uint64_t m_staticBuildVisited = 0;  ///< elements the static index's build visited this step

    // By dense index (as of the static index's build).
    std::vector<std::uint8_t> m_wasStatic;
    std::vector<std::uint32_t> m_compactOf;
    // By compact index.
    std::vector<std::uint32_t> m_moverDense, m_staticDense;
    std::vector<float> m_moverMinX, m_moverMinY, m_moverMaxX, m_moverMaxY;
    std::vector<std::uint32_t> m_moverSlots, m_moverCategory, m_moverMask;
    std::vector<float> m_staticMinX, m_staticMinY, m_staticMaxX, m_staticMaxY;
    std::vector<std::uint32_t> m_staticSlots;
    std::vector<std::uint32_t> m_staticOfSlot;  ///< by slot: the compact index a static had at the build
    // Scratch.
    std::vector<std::uint32_t> m_movedCompact;
    std::vector<Pair> m_moverPairs;
    std::vector<std::uint32_t> m_found;
    std::vector<RayHit> m_hits;
};

}  // namespace ro

#include "broadphase/grid/grid.h"
#include "broadphase/hash/hash.h"
#include "broadphase/hshg/hshg.h"
#include "broadphase/quadtree/quadtree.h"
#include "broadphase/sap/sap.h"
#include "broadphase/sweep/sweep.h"
#include "broadphase/tree/tree.h"

namespace ro {
extern template class WithStatics<SpatialGrid>;
extern template class WithStatics<SpatialHash>;
extern template class WithStatics<HierarchicalGrid>;
extern template class WithStatics<SweepAndPrune>;
extern template class WithStatics<SingleAxisSweep>;
extern template class WithStatics<Quadtree>;
extern template class WithStatics<DynamicTree>;
}  // namespace ro

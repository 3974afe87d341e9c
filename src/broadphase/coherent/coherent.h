#pragma once
/// Temporal coherence as one layer any technique sits under: Coherent<Inner> is Inner, made to
/// work in proportion to what changed since the last step.
///
/// Why: a technique that rebuilds from every box every step pays for the whole scene each
/// step, while in most physics frames most bodies rest or creep (settled pyramids: 38% of
/// 22,000 boxes move a hundredth of their side a step, none far). The dynamic tree avoids that
/// with fat boxes and a kept pair list; this layer gives the same to the others, once.
///
/// What it keeps, by dense index: each entity's fat box (its box pushed out by the margin,
/// "fat_margin", 0 = a tenth of the boxes' median side as fat_margin.h says; statics get no
/// margin, they do not move), and the pairs whose fat boxes overlap and pass the PairRule. The
/// inner technique indexes the fat boxes, and the caller's tight boxes are copied for the
/// exact tests.
///
/// Each update, a branch-free pass over the arrays marks an entity changed when its box left
/// its fat box, its slot at that dense index is not last step's (it came, or another went and
/// it took the place: a world that swap-removes changes a few), or its static flag or filter
/// changed (updateMoved: only the moved boxes are looked at, the caller vouches for the rest).
/// - Nothing changed: the inner technique is not touched; findPairs tests the kept pairs
///   exactly (closed) and outputs those that overlap (pairsAreExact).
/// - Some changed: they take new fat boxes; the inner technique is updated (updateMoved with
///   the changed indices when no entity came, went or changed rule since its last update),
///   the kept pairs of changed entities are dropped, and each changed entity queries the inner
///   technique with its fat box for its pairs anew (a pair of two changed ones once).
/// - Many changed (more than kEnterPassThrough of them: rain, a tumbling drum, teleports), or
///   their queries would cost more work than the inner technique's pair search (a sweep's
///   query walks back through a pile that leaves no gap on its axis): the layer passes
///   through, the inner technique runs on the tight boxes with its own findPairs, as without
///   the layer.
///   Every kCalmSteps steps the layer looks: it marks the entities that left their fat
///   boxes since the last look and refattens them. When at most kLeavePassThrough of them
///   did (and their queries' work is below half the pair search's; a crowd at a steady
///   speed leaves its fat boxes in waves), the pairs are listed afresh from the inner
///   technique on the fat boxes and the layer is coherent again. The gap between the two
///   shares is the hysteresis.
/// Queries stay exact: the inner technique's answers on fat boxes are filtered by the tight
/// boxes (a ray's t is recomputed on the tight box). With "coherent" 0 the layer is absent:
/// every call goes to the inner technique on the tight boxes.

#include <array>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "broadphase/technique_base.h"
#include "broadphase/tree/tree.h"

namespace ro {

/// `inner`'s parameters, then the layer's: "coherent" and "fat_margin" (the tree's, one key one meaning).
template <std::size_t N>
constexpr std::array<ParameterSpec, N + 2> withCoherence(std::span<const ParameterSpec> inner) {
    std::array<ParameterSpec, N + 2> all{};
    for (std::size_t i = 0; i < N; ++i) all[i] = inner[i];
    all[N] = kCoherentParameter;
    all[N + 1] = DynamicTree::kMarginParameter;
    return all;
}

template <typename Inner>
class Coherent final : public Technique<Coherent<Inner>> {
    friend class Technique<Coherent<Inner>>;  // calls the hooks below
    using Base = Technique<Coherent<Inner>>;

public:
    static constexpr TechniqueGuide kGuide = Inner::kGuide;
    static constexpr auto kParameters = withCoherence<std::size(Inner::kParameters)>(Inner::kParameters);
    /// Pass through above this share of entities changed in a step, and be coherent again
    /// below the lower one (see docs/coherence.md for the measurements behind them).
    static constexpr float kEnterPassThrough = 0.25f, kLeavePassThrough = 0.125f;
    /// Steps in a row at or below kLeavePassThrough before the layer is coherent again.
    static constexpr std::uint32_t kCalmSteps = 4;
    /// Kept pairs are checked against brute force by validate() up to this many entities.
    static constexpr std::uint32_t kValidatePairsMax = 2000;

    enum class Mode : std::uint8_t { Off, Coherent, PassThrough };

    Coherent();

    [[nodiscard]] Mode mode() const { return m_mode; }
    /// The next build (the first update, or the first after new settings) passes through: the
    /// inner technique runs on the boxes themselves, and the fat pairs are listed once the
    /// scene is calm for kCalmSteps steps. For a hand-over in a busy scene (auto's), where the
    /// listing would cost ~10 of the inner technique's steps (smash, 9,601 boxes: 5 ms, 0.4).
    void startPassingThrough() { m_startPassing = true; }
    [[nodiscard]] float margin() const { return m_margin; }
    [[nodiscard]] const Inner& inner() const { return m_inner; }
    /// The last update's box at dense index `i` while the inner technique holds fat boxes (the
    /// layer's copy), for a hand-over to another technique (auto); nothing while the inner
    /// technique holds the boxes themselves.
    [[nodiscard]] std::optional<Aabb> keptBoxOf(std::uint32_t i) const {
        if (m_holds != Holds::Fat) return std::nullopt;
        return m_tight[i];
    }

    [[nodiscard]] bool exploitsMovedLists() const override {
        return m_mode == Mode::Coherent || m_inner.exploitsMovedLists();
    }
    void findPairs(std::vector<Pair>& out) override;
    [[nodiscard]] bool pairsAreExact() const override { return m_mode == Mode::Coherent || m_inner.pairsAreExact(); }
    void forEachElement(const std::function<void(const StructureElement&)>& visit) const override {
        m_inner.forEachElement(visit);
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
    /// What the inner technique was last updated with.
    enum class Holds : std::uint8_t { Nothing, Fat, Tight };
    struct IndexPair {
        std::uint32_t a, b;  ///< dense indices, a < b
    };

    /// The inner technique updated on the caller's boxes, and nothing of the layer's (off, or
    /// passing through between looks).
    void updateInnerOnBoxes(const BoxView& boxes);
    /// The step after the boxes were marked: picks the mode and does its work.
    void step(const BoxView& boxes, std::span<const std::uint32_t> moved, bool sameEntities);
    /// Passing through: whether this look ends kCalmSteps calm steps in a row (`changed`
    /// entities of `n` left their fat boxes in the `steps` since the last look, `refinding`
    /// of them would query).
    [[nodiscard]] bool calmAgain(std::uint32_t n, std::uint32_t changed, std::uint32_t refinding, std::uint32_t steps);
    /// The inner technique on the tight boxes; the fat boxes refattened where `changed` (by
    /// index, a full update's marks) or the changed list (null) says.
    void passThrough(const BoxView& boxes, std::span<const std::uint32_t> moved, bool sameEntities,
                     const std::uint8_t* changed);
    void copyTight(const BoxView& boxes);
    /// Fattens the entities at the listed indices.
    void refatten(const BoxView& boxes, std::span<const std::uint32_t> indices);
    /// Every fat box from its tight box, the inner technique updated on them, the pairs listed anew.
    void relist(const BoxView& boxes);
    /// The changed entities' pairs dropped and found anew by queries of the inner technique.
    void refind(const BoxView& boxes);
    /// The fat boxes as a BoxView over `boxes`' entities.
    [[nodiscard]] BoxView fatView(const BoxView& boxes) const;
    void measureMargin(const BoxView& boxes);
    void resizeFor(std::uint32_t count);
    Inner m_inner;
    Mode m_mode = Mode::Coherent;
    bool m_enabled = true;
    bool m_reset = true;          ///< next update lists everything afresh (first, new settings, new margin)
    bool m_startPassing = false;  ///< ... or, once, passes through instead (startPassingThrough)
    bool m_autoMargin = true;
    float m_margin = 0.0f;        ///< in use
    float m_setMargin = 0.0f;     ///< the parameter
    std::uint64_t m_churnSinceFit = 0, m_countAtFit = 0;
    Holds m_holds = Holds::Nothing;
    bool m_innerRan = false;      ///< the inner technique worked this step (its counters count)
    std::uint32_t m_count = 0;    ///< entities of the last update
    std::uint32_t m_markedCount = 0;  ///< ... of the last update that marked them (a look)
    std::uint32_t m_stepsUnlooked = 0;  ///< passing through: full updates since the last look
    std::uint32_t m_gone = 0;     ///< entities fewer than the update before (the last indices went)
    std::uint64_t m_visited = 0, m_tests = 0;  ///< the layer's queries of this step
    std::uint64_t m_refound = 0;
    /// Work (elements visited and tests) of the last step's queries, per changed entity, and
    /// of the inner technique's last pair search: refinding m entities is chosen while
    /// m * m_queryWork is below m_listWork (half of it to come back from passing through).
    double m_queryWork = 0.0, m_listWork = 0.0;
    std::uint32_t m_calmSteps = 0;  ///< passing through: steps in a row that were calm enough to come back

    // By dense index of the last update.
    std::vector<float> m_fatMinX, m_fatMinY, m_fatMaxX, m_fatMaxY;
    std::vector<Aabb> m_tight;             ///< the caller's boxes, for the exact tests
    bool m_warmedTight = false;            ///< the inner technique ran once on the tight boxes (relist)
    std::size_t m_passCandidates = 0;      ///< its candidates then
    bool m_tightStale = false;             ///< passing through, m_tight was not copied (relist copies it)
    std::vector<std::uint32_t> m_slots;    ///< the slot at each index (a new one: the entity changed)
    std::vector<std::uint8_t> m_static;    ///< the last update's flags and filters, to see them change
    std::vector<std::uint32_t> m_category, m_mask;
    std::vector<std::uint8_t> m_changed;   ///< this step: 1 if the entity changed
    std::vector<std::uint32_t> m_changedList;
    std::vector<std::uint32_t> m_partDiffers, m_partChanged;  ///< the marking pass's counts, by part
    std::vector<IndexPair> m_kept;         ///< pairs whose fat boxes overlap (and the rule accepts)
    // Scratch.
    std::vector<std::uint32_t> m_found;
    std::vector<Pair> m_innerPairs;
    std::vector<RayHit> m_hits;
    std::vector<float> m_sides;
};

}  // namespace ro

#include "broadphase/grid/grid.h"
#include "broadphase/hash/hash.h"
#include "broadphase/hshg/hshg.h"
#include "broadphase/quadtree/quadtree.h"
#include "broadphase/sap/sap.h"
#include "broadphase/sweep/sweep.h"
#include "broadphase/statics/statics.h"

namespace ro {
extern template class Coherent<SpatialGrid>;
extern template class Coherent<SpatialHash>;
extern template class Coherent<HierarchicalGrid>;
extern template class Coherent<SweepAndPrune>;
extern template class Coherent<SingleAxisSweep>;
extern template class Coherent<Quadtree>;
// The registry's: statics in an index of their own under the coherence (docs/statics.md).
extern template class Coherent<WithStatics<SpatialGrid>>;
extern template class Coherent<WithStatics<SpatialHash>>;
extern template class Coherent<WithStatics<HierarchicalGrid>>;
extern template class Coherent<WithStatics<SweepAndPrune>>;
extern template class Coherent<WithStatics<SingleAxisSweep>>;
extern template class Coherent<WithStatics<Quadtree>>;
}  // namespace ro

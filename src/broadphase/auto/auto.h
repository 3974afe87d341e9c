#pragma once
/// Auto: the HSHG, the AABB tree or sweep and prune, whichever a scene's first steps show to
/// be fastest.
///
/// The first two win in different worlds. The HSHG rebuilds its cells every step, so a step costs
/// O(n + k) whatever moved: it wins where most bodies move fast or come and go. (It sits
/// under the coherence layer, coherent/coherent.h: steps where no box left its fat box skip
/// it, which the trial's timing sees like any other cost; and over the statics layer,
/// statics/statics.h, so declared statics cost it only when they change.) The tree keeps
/// its fat boxes and its pairs across steps and works in proportion to the leaves that left
/// their fat box: it wins where most bodies are static or slow against their size (the
/// static field, 3.5x faster than the HSHG; sparse mixes of big boxes, about 2x). Sweep and
/// prune (under the same layer) wins where few boxes are near each other along its axis:
/// small, sparse piles of debris (the suite's junkyard, about 2x the HSHG's speed).
/// None can tell from the boxes alone which world it is in, so auto runs all three on the first
/// kTrialSteps steps of a scene, times the steps after the first (a build for each), and keeps
/// the fastest; the others are freed. A scene starts again at the first update, after new
/// parameters, and when most of the entities are new in one update (a new scene).
///
/// The trial can flatter the tree: just built, no leaf has left its fat box yet, and where
/// boxes are slow against the margin the first waves of reinsertion come tens of steps later,
/// while the HSHG's step costs the same every step. So a kept tree is watched: every
/// kWatchSteps steps its mean since the pick is compared with the HSHG's fastest trial step,
/// and above kGiveUp times that, plus a doubt that shrinks as steps accumulate (a wave of
/// reinsertion is a few steps; a slow tree is slow in every window), the HSHG takes over (one
/// HSHG build, passing through its coherence layer: the scene is busy) until the next scene.
/// A kept sweep and prune is watched the same way: its trial can fall on a scene's calm start
/// (a wall before it is smashed), and the HSHG's cost follows a scene's changes more closely.
///
/// The trial can also wrong the tree: its fat boxes, all made at the build without a motion
/// to reach along, run out together a few steps later, and that first wave of reinsertions
/// can fall on the timed steps (at 0.3:20:100:8 in the mixed family, 100,000 boxes: 25,000
/// and 43,000 reinsertions, 10 and 14 ms, then 0.4-2.5 ms a step once each leaf has a fat box
/// that reaches along its motion; the HSHG takes 5). So a tree that lost its trial in its
/// first wave (its first step after the build left few fat boxes, its timed steps many) is
/// kept on probation: watched as above, but against the trial's fastest, which takes over
/// (built from the tree's boxes) if the tree stays slower. Where the tree was in fact slow,
/// that costs at least kWatchSteps of its steps. The bar there is the fallback's fastest step
/// of its trial and of kProbeSteps more that it runs beside the tree: its trial steps fall on
/// its coherence layer's first listing, up to a third dearer than its later ones, and a bar
/// that high keeps a tree 1.2x slower than the HSHG for a whole run (0.5:10:40:1.5 in the
/// mixed family). The others keep the trial's bar: a kept tree's own first steps can cost more
/// than its later ones too (its statics moving to their grid), and held to a warm bar the
/// static field's tree would be handed over to an HSHG several times slower.
///
/// What it costs: the trial steps cost the three techniques' steps; after them, the kept one's
/// plus an O(n) compare of the ids. Its answers are exactly those of any (all are exact).

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "broadphase/box_copy.h"
#include "broadphase/technique_base.h"
#include "broadphase/coherent/coherent.h"
#include "broadphase/hshg/hshg.h"
#include "broadphase/sap/sap.h"
#include "broadphase/tree/tree.h"

namespace ro {

class AutoPick final : public Technique<AutoPick> {
    friend class Technique<AutoPick>;  // calls the hooks below

public:
    static constexpr TechniqueGuide kGuide{
        .how = "Runs the HSHG, the AABB tree and sweep and prune side by side for a scene's first steps, times them, "
               "and keeps the fastest: the HSHG where most bodies move, the tree where most are static or slow, "
               "sweep and prune where few are near each other along an axis.",
        .complexity = "that of the one it keeps; all three for 3 steps per scene",
        .cost = "The kept technique's cost, plus the three techniques' steps for the first 3 steps of each scene, "
                "and the fallback's for 4 more where it keeps a tree on probation.",
        .suits = "A scene you have not measured: static fields, sparse mixes of sizes and crowds of movers alike.",
        .source = "ro's own: the measurements of the mixed family and the static field (README, Performance)",
    };
    static constexpr ParameterSpec kParameters[] = {HierarchicalGrid::kFactorParameter, DynamicTree::kMarginParameter,
                                                    kCoherentParameter};
    /// Steps of a scene run by all three: the first builds, the others are timed.
    static constexpr std::uint32_t kTrialSteps = 3;
    /// At most this many untimed steps more while no box has left the HSHG's fat boxes.
    static constexpr std::uint32_t kMaxCalmSteps = 2;
    /// A new scene (most entities new in one update) starts a trial from this many entities.
    static constexpr std::uint32_t kMinTrialCount = 256;
    /// A kept tree's (or sweep and prune's) mean since its pick is judged every kWatchSteps steps: it is given up
    /// above (kGiveUp + kDoubt * kWatchSteps / steps) times the fallback's fastest step, so
    /// 2.05x after 8 steps, 1.3x after 32, 1.08x after 256. The mean forgets slowly: past
    /// kMemorySteps both sums are halved. From 2 * kWatchSteps steps after the pick (a tree's
    /// first wave is behind it), the mean of the last kWatchSteps steps is judged every step
    /// too, against the bar of 8 steps: a scene that turns busy (smash's wall, hit 20 steps
    /// in) is handed over in a few steps, not when the calm steps' share of the mean allows.
    static constexpr std::uint32_t kWatchSteps = 8;
    static constexpr double kGiveUp = 1.05, kDoubt = 1.0;
    static constexpr std::uint32_t kMemorySteps = 1024;
    /// Steps after the pick that the fallback runs beside a tree on probation, timed. At
    /// 0.5:10:40:1.5 in the mixed family (100,000 boxes) the HSHG's timed trial steps took
    /// 15 and 5.3 ms, its next ones 3.9-4.1 alone; beside the tree, 4.8-5.2 falling to 4.1-4.5
    /// over four steps.
    static constexpr std::uint32_t kProbeSteps = 4;
    /// With most entities static, the tree is kept when its trial is within this of the fastest's.
    static constexpr double kStaticTreeSlack = 1.5;
    /// A tree lost its trial in its first wave when its timed steps reinserted at least this
    /// share of the entities a step, and its first step after the build under kCalmStart of that.
    static constexpr double kWaveShare = 0.05, kCalmStart = 0.1;

    enum class Pick : std::uint8_t { Trial, Hshg, Tree, Sap };

    AutoPick() : Technique(kParameters) {}

    /// Which technique answers now (Trial while all run).
    [[nodiscard]] Pick pick() const { return m_pick; }
    /// Steps the fallback still runs beside a tree on probation (0 once it is freed).
    [[nodiscard]] std::uint32_t probeStepsLeft() const { return m_probeStepsLeft; }
    /// Hands the steps to the HSHG or sweep and prune (`pick`) now, built on the last update's
    /// boxes, until the next scene's trial: what the watch does when a kept tree or sweep and
    /// prune turns out slow. Throws std::invalid_argument for another pick.
    void handOverTo(Pick pick);

    [[nodiscard]] bool exploitsMovedLists() const override;
    void findPairs(std::vector<Pair>& out) override;
    [[nodiscard]] bool pairsAreExact() const override { return true; }
    void forEachElement(const std::function<void(const StructureElement&)>& visit) const override;
    [[nodiscard]] std::string validate() const override;

protected:
    void applySettings(const Settings& settings) override;
    void doUpdate(const BoxView& boxes) override;
    void doUpdateMoved(const BoxView& boxes, std::span<const std::uint32_t> moved);
    QueryCost doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) override;
    QueryCost doQueryRay(const Segment& segment, std::vector<RayHit>& out) override;
    QueryCost doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) override;

private:
    static constexpr std::size_t kHshg = 0, kTree = 1, kSap = 2;

    /// Starts a trial: both techniques exist and take the next update afresh.
    void startTrial();
    /// The technique that answers queries and draws: during a trial, the HSHG.
    [[nodiscard]] TechniqueBase& answering() const;
    /// Gives up a kept tree or sweep and prune that turned out slower than its fallback's
    /// trial said the fallback is.
    void watchKept(double stepMs);
    /// The fallback's step beside the kept one: its pairs, its time; freed after the last.
    void probeFallback();
    /// Reads the tree's reinsertions in a trial step (`timed` or the first after the build).
    void noteTreeTrialStep(bool timed);
    /// Whether the tree's timed trial steps fell in its first wave of reinsertions.
    [[nodiscard]] bool treeLostInItsFirstWave() const;
    /// Runs `step` on every live technique, timing each into m_stepTrialMs during the timed
    /// steps of a trial and the probe steps.
    template <typename Step>
    void onEach(Step&& step, bool timed);
    /// Whether this update times each technique apart: the timed steps of a trial, the probe steps.
    [[nodiscard]] bool timesEach() const { return (m_pick == Pick::Trial && m_trialStep > 0) || m_probeStepsLeft > 0; }

    Settings m_settings;
    std::array<std::unique_ptr<TechniqueBase>, 3> m_techniques;
    Pick m_pick = Pick::Trial;
    std::uint32_t m_trialStep = 0;
    std::uint32_t m_calmSteps = 0;          ///< trial steps left untimed while nothing moved out
    std::array<double, 3> m_trialMs{};      ///< by technique: its timed trial steps
    std::array<double, 3> m_stepTrialMs{};  ///< by technique: this trial step so far
    std::array<double, 3> m_bestStepMs{};   ///< by technique: its fastest timed trial step
    std::size_t m_fallback = kHshg;         ///< what takes over from a kept tree or SAP found slow
    double m_fallbackMsPerEntity = 0.0;     ///< the fallback's fastest timed trial or probe step, per entity
    std::uint32_t m_probeStepsLeft = 0;     ///< steps the fallback still runs beside a tree on probation
    double m_treeFirstReinserted = -1.0;    ///< the tree's reinsertions in the step after its build
    double m_treeTimedReinserted = 0.0;     ///< the tree's reinsertions in the timed trial steps
    std::uint32_t m_timedSteps = 0;
    double m_watchedMs = 0.0;        ///< a kept tree's steps since its pick (halved past kMemorySteps)
    std::uint32_t m_watchedSteps = 0;
    std::array<double, kWatchSteps> m_recentMs{};  ///< the last kWatchSteps steps' times, by step % kWatchSteps
    std::uint32_t m_count = 0;       ///< entities of the last update
    std::uint32_t m_statics = 0;     ///< of them declared static (counted during a trial)
    double m_stepMs = 0.0;           ///< the last update's time
    BoxView m_boxes;                 ///< the last update's ids, flags and filters (keyed; no coordinates)
    bool m_updated = false;          ///< m_boxes holds an update's
    std::vector<Pair> m_otherPairs;  ///< the pairs of the techniques a trial runs beside
};

}  // namespace ro

// No technique may allocate on the heap in a steady-state step. The test binary links
// ro_alloc_hook, whose replaced operator new counts every allocation.

#include <gtest/gtest.h>

#include <optional>
#include <utility>

#include "ro/registry.h"
#include "broadphase/coherent/coherent.h"
#include "broadphase/hshg/hshg.h"
#include "core/alloc_counter.h"
#include "ro/rng.h"
#include "support/settings.h"
#include "support/scenes.h"
#include "ro/world.h"

namespace ro {
namespace {

class SteadyState : public ::testing::TestWithParam<std::string_view> {};

/// Auto builds the HSHG (or sweep and prune) once, on the step it gives up a kept tree or sweep
/// and prune that turned out slow: a change of technique, like a new scene, after which the new
/// one warms up as on a first step. It is built passing through its coherence layer, which
/// lists its pairs for the first time after kCalmSteps calm steps, and its second step grows its
/// second key buffer. The watch is clock-based, so on a busy machine the hand-over can fall on
/// any step.
class TechniqueChanges {
public:
    /// Whether the step that left `now` is steady: no change of technique in the last kWarm.
    bool steady(const Counters& now) {
        const Kept kept{now.extra.find("uses_tree"), now.extra.find("uses_sap")};
        m_sinceChange = kept == m_kept ? m_sinceChange + 1 : 0;
        m_kept = kept;
        return m_sinceChange >= kWarm;
    }

private:
    using Kept = std::pair<std::optional<double>, std::optional<double>>;
    static constexpr int kWarm = Coherent<HierarchicalGrid>::kCalmSteps + 3;
    Kept m_kept;
    int m_sinceChange = kWarm;
};

TEST(AllocationHook, CountsAllocations) {
    ASSERT_TRUE(heapAllocationCountingActive());
    const std::uint64_t before = heapAllocationCount();
    auto* volatile p = new int(3);
    delete p;
    EXPECT_GE(heapAllocationCount(), before + 1);
}

TEST_P(SteadyState, NoHeapAllocationPerStep) {
    WorldConfig config;
    config.bounds = {0, 0, 800, 600};
    World world(config);
    world.setBroadPhase(findTechnique(GetParam())->create());
    world.setBroadPhaseSettings(test::withCell(14.0f, config.bounds));
    Rng rng(3);
    resizePopulation(world, rng, 3000, {2.0f, 7.0f});
    for (int i = 0; i < 30; ++i) world.tick();  // warm-up: buffers reach their working size

    TechniqueChanges changes;
    (void)changes.steady(world.broadPhase().counters());
    for (int i = 0; i < 60; ++i) {
        const std::uint64_t before = heapAllocationCount();
        world.tick();
        if (!changes.steady(world.broadPhase().counters())) continue;
        EXPECT_EQ(world.broadPhase().counters().heapAllocations, 0u) << "technique allocated in step " << i;
        EXPECT_EQ(heapAllocationCount() - before, 0u) << "the world's step allocated in step " << i;
    }
    EXPECT_GT(world.lastStats().overlaps, 0u);
}

TEST_P(SteadyState, NoHeapAllocationPerStepWhileBodiesComeAndGo) {
    // Rain and bullets: every step 2% of the boxes are destroyed (swap-removed, as the world
    // does) and as many created with ids that keep climbing, now and then 20%. Once warm, the
    // id tables hold as many entries as live bodies, and a step that churns more than any
    // before still must not allocate.
    const Aabb area{0, 0, 800, 600};
    auto technique = findTechnique(GetParam())->create();
    technique->configure(test::withCell(14.0f, area));
    test::Population population;
    Rng rng(11);
    const auto randomBox = [&] { return test::boxAt(rng.range(10, 790), rng.range(10, 590), rng.range(2, 7)); };
    for (int i = 0; i < 3000; ++i) population.add(randomBox());
    std::vector<Pair> pairs;
    pairs.reserve(20'000);
    const auto step = [&](int churned) {
        for (int k = 0; k < churned; ++k) {
            population.removeAt(rng.below(population.size()));
            population.add(randomBox());
        }
        technique->update(population.boxes.view());
        technique->findPairs(pairs);
    };
    for (int i = 0; i < 40; ++i) step(60);  // warm-up: buffers reach their working size
    TechniqueChanges changes;
    (void)changes.steady(technique->counters());
    for (int i = 0; i < 100; ++i) {
        const std::uint64_t before = heapAllocationCount();
        step(i % 10 == 9 ? 600 : 60);  // now and then a burst
        if (!changes.steady(technique->counters())) continue;
        EXPECT_EQ(heapAllocationCount() - before, 0u)
            << "step " << i << ", uses_tree " << technique->counters().extra.find("uses_tree").value_or(-1.0)
            << ", uses_sap " << technique->counters().extra.find("uses_sap").value_or(-1.0);
    }
    EXPECT_GT(pairs.size(), 0u);
}

TEST_P(SteadyState, NoHeapAllocationPerStepOverAStaticField) {
    // A level: three boxes in four static, the movers creeping and now and then jumping out
    // of their fat boxes (a fiftieth of them each step), every other step a moved list. Neither the static index nor the
    // movers' may allocate once warm.
    const Aabb area{0, 0, 800, 600};
    auto technique = findTechnique(GetParam())->create();
    technique->configure(test::withCell(14.0f, area));
    test::Population population;
    std::vector<std::uint8_t> isStatic;
    std::vector<std::uint32_t> movers;
    Rng rng(17);
    for (std::uint32_t i = 0; i < 3000; ++i) {
        population.add(test::boxAt(rng.range(10, 790), rng.range(10, 590), rng.range(2, 7)));
        isStatic.push_back(i % 4 == 0 ? 0 : 1);
        if (i % 4 == 0) movers.push_back(i);
    }
    std::vector<Pair> pairs;
    pairs.reserve(20'000);
    const auto step = [&](int i) {
        // There and back in two steps, so no mover drifts out of the grid's bounds.
        for (const std::uint32_t m : movers) {
            const float d = ((m / 4 + static_cast<std::uint32_t>(i / 2)) % 50 == 0 ? 20.0f : 0.1f) * (i % 2 == 0 ? 1.0f : -1.0f);
            population.set(m, {population.boxes.minX[m] + d, population.boxes.minY[m] - d, population.boxes.maxX[m] + d,
                               population.boxes.maxY[m] - d});
        }
        BoxView view = population.boxes.view();
        view.isStatic = isStatic.data();
        if (i % 2 == 1)
            technique->updateMoved(view, movers);
        else
            technique->update(view);
        technique->findPairs(pairs);
    };
    for (int i = 0; i < 30; ++i) step(i);  // warm-up: buffers reach their working size
    TechniqueChanges changes;
    (void)changes.steady(technique->counters());
    for (int i = 0; i < 60; ++i) {
        const std::uint64_t before = heapAllocationCount();
        step(i);
        if (!changes.steady(technique->counters())) continue;
        EXPECT_EQ(heapAllocationCount() - before, 0u) << "step " << i;
    }
    EXPECT_GT(pairs.size(), 0u);
}

TEST_P(SteadyState, ACountThatCreepsUpAllocatesOnlyNowAndThen) {
    // A spray adds a body a step: buffers grown to exactly the count would allocate on every
    // step (the boxes' copies once did, with their flags). With headroom they grow by half
    // again now and then (the tree: on 5 of the 390 steps here).
    const Aabb area{0, 0, 800, 600};
    auto technique = findTechnique(GetParam())->create();
    technique->configure(test::withCell(14.0f, area));
    test::Population population;
    std::vector<std::uint8_t> isStatic;
    Rng rng(5);
    const auto add = [&] {
        population.add(test::boxAt(rng.range(10, 790), rng.range(10, 590), rng.range(2, 7)));
        isStatic.push_back(rng.below(4) == 0);
    };
    for (int i = 0; i < 1000; ++i) add();
    std::vector<Pair> pairs;
    pairs.reserve(20'000);
    int allocatingSteps = 0;
    TechniqueChanges changes;
    for (int i = 0; i < 400; ++i) {
        add();
        BoxView view = population.boxes.view();
        view.isStatic = isStatic.data();
        const std::uint64_t before = heapAllocationCount();
        technique->update(view);
        technique->findPairs(pairs);
        const bool allocated = heapAllocationCount() != before;
        if (changes.steady(technique->counters()) && i >= 10) allocatingSteps += allocated ? 1 : 0;
    }
    EXPECT_LE(allocatingSteps, 8) << "of 390 steps, each one body more (exact-size buffers: every step)";
    EXPECT_GT(pairs.size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(AllTechniques, SteadyState, ::testing::ValuesIn(test::allTechniqueIds()),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace ro

// The HSHG on several threads: the same pair array, pair for pair and in the same order, as on
// one thread, and the pairs of brute force, over frames of churning scenes with statics and
// filters.

#include <gtest/gtest.h>

#include "broadphase/coherent/coherent.h"
#include "broadphase/hshg/hshg.h"
#include "broadphase/thread_checks.h"

namespace ro {
namespace {

using namespace thread_checks;

class HshgThreads : public ::testing::TestWithParam<ScenarioKind> {};

TEST_P(HshgThreads, PairArrayIsTheSerialOneAndMatchesBruteForce) {
    // Over findPairs' parallel threshold (16,384 placed entities), so every thread count but 1
    // cuts each level into several chunks.
    Scene scene(GetParam(), 24000, Motion::Churn, 11);
    std::uint32_t levels = 0;
    expectThreadsAgree<HierarchicalGrid>(
        scene, 5,
        [&](HierarchicalGrid& hshg, std::uint32_t threads) {
            hshg.configure(Settings(scene.bounds(), {{kThreadsParameter.key, threads}}));
        },
        [&](const HierarchicalGrid& hshg) {
            for (std::uint32_t level = 0; level < HierarchicalGrid::kMaxLevels; ++level)
                levels = std::max(levels, hshg.levelPopulation(level) > 0 ? level + 1 : 0);
        },
        true);
    if (GetParam() == ScenarioKind::Mixed) {
        EXPECT_GT(levels, 1u) << "mixed sizes should fill several levels";
    }
}

TEST(HshgThreadsMerge, KeyRangesHoldWhenEveryBoxJumpsOrOnlyATenthTurns) {
    // The merge cuts the kept order into key ranges and places each from the entities counted
    // leaving it: with every box jumping anywhere, every entity leaves its range; with a tenth
    // turning, few do, and the ranges' shares of the new order shift.
    for (const Motion motion : {Motion::Teleport, Motion::Varied}) {
        SCOPED_TRACE(motion == Motion::Teleport ? "teleport" : "varied");
        Scene scene(ScenarioKind::Uniform, 20000, motion, 5);
        expectThreadsAgree<HierarchicalGrid>(
            scene, 4,
            [&](HierarchicalGrid& hshg, std::uint32_t threads) {
                hshg.configure(Settings(scene.bounds(), {{kThreadsParameter.key, threads}}));
            },
            [&](const HierarchicalGrid&) {}, true);
    }
}

TEST(HshgThreadsCoherent, TheLayersPassesInPartsGiveTheSerialPairs) {
    // The registry's HSHG, under the coherence layer, whose passes over every box (the marks,
    // and the fat boxes kept current while passing through) take the HSHG's threads: with
    // every box jumping (the layer passes through) and with a steady drift (it stays coherent).
    using Layered = Coherent<WithStatics<HierarchicalGrid>>;
    for (const auto& [motion, mode] : {std::pair{Motion::Teleport, Layered::Mode::PassThrough},
                                       std::pair{Motion::Steady, Layered::Mode::Coherent}}) {
        SCOPED_TRACE(motion == Motion::Teleport ? "teleport" : "steady");
        Scene scene(ScenarioKind::Uniform, 20000, motion, 3);
        bool sawMode = false;
        expectThreadsAgree<Layered>(
            scene, 5,
            [&](Layered& hshg, std::uint32_t threads) {
                hshg.configure(Settings(scene.bounds(), {{kThreadsParameter.key, threads}}));
            },
            [&](const Layered& hshg) { sawMode = sawMode || hshg.mode() == mode; }, true);
        EXPECT_TRUE(sawMode) << "the layer never was in the mode this motion is for";
    }
}

INSTANTIATE_TEST_SUITE_P(Scenes, HshgThreads,
                         ::testing::Values(ScenarioKind::Uniform, ScenarioKind::Clustered, ScenarioKind::Dense,
                                           ScenarioKind::Mixed),
                         scenarioName);

}  // namespace
}  // namespace ro

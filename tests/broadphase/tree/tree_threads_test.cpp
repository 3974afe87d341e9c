// The tree's movers' queries on several threads: the same pair array, pair for pair and in the
// same order, as on one thread, and the pairs of brute force, over frames of churning scenes
// with statics and filters.

#include <gtest/gtest.h>

#include "broadphase/thread_checks.h"
#include "broadphase/tree/tree.h"

namespace ro {
namespace {

using namespace thread_checks;

class TreeThreads : public ::testing::TestWithParam<ScenarioKind> {};

TEST_P(TreeThreads, PairArrayIsTheSerialOneAndMatchesBruteForce) {
    // A small fat margin, so that enough leaves leave their fat boxes each frame for the
    // movers' queries to pass their parallel threshold, but fewer than half (which would
    // rebuild the tree and list its pairs afresh, without queries).
    Scene scene(GetParam(), 24000, Motion::Churn, 13);
    const double margin = 0.02 * scene.fittedCellSize();
    std::uint64_t mostMoved = 0;
    expectThreadsAgree<DynamicTree>(
        scene, 6,
        [&](DynamicTree& tree, std::uint32_t threads) {
            tree.configure(Settings(scene.bounds(), {{DynamicTree::kMarginParameter.key, margin},
                                                     {kThreadsParameter.key, threads}}));
        },
        [&](const DynamicTree& tree) { mostMoved = std::max(mostMoved, tree.stepStats().reinserted); });
    EXPECT_GT(mostMoved, DynamicTree::kMinParallelQueries) << "too few movers' queries to run in parallel";
}

INSTANTIATE_TEST_SUITE_P(Scenes, TreeThreads,
                         ::testing::Values(ScenarioKind::Uniform, ScenarioKind::Clustered, ScenarioKind::Dense,
                                           ScenarioKind::Mixed),
                         scenarioName);

}  // namespace
}  // namespace ro

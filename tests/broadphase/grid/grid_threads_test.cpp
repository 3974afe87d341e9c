// The grid on several threads: the same pair array, pair for pair and in the same order, as on
// one thread, and the pairs of brute force, over frames of churning scenes with statics.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "broadphase/brute/brute.h"
#include "broadphase/grid/grid.h"
#include "broadphase/threads.h"
#include "scenario/scenario.h"

namespace ro {
namespace {

/// A scene's boxes with every fifth one static: two statics must never pair.
struct Frame {
    BoxView view;
    std::vector<std::uint8_t> isStatic;
};

Frame withStatics(const Scene& scene) {
    Frame f{scene.boxes(), std::vector<std::uint8_t>(scene.boxes().count)};
    for (std::size_t i = 0; i < f.isStatic.size(); i += 5) f.isStatic[i] = 1;
    f.view.isStatic = f.isStatic.data();
    return f;
}

std::vector<Pair> pairsOf(BroadPhase& technique, const BoxView& view) {
    std::vector<Pair> out;
    technique.update(view);
    technique.findPairs(out);
    return out;
}

/// The candidates whose boxes overlap, sorted: the grid's candidates are a superset.
std::vector<Pair> overlapping(std::vector<Pair> pairs, const BoxView& view) {
    std::erase_if(pairs, [&](const Pair& p) { return !overlaps(view.box(p.a), view.box(p.b)); });
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

class GridThreads : public ::testing::TestWithParam<ScenarioKind> {};

TEST_P(GridThreads, PairArrayIsTheSerialOneAndMatchesBruteForce) {
    // A cell half the fitted size puts each box in several cells: enough entries that every
    // thread count splits the scan into several chunks, and enough entities (over the passes'
    // threshold, kMinParallelCount in threads.h) to split the update.
    Scene scene(GetParam(), 20000, Motion::Churn, 7);
    const std::vector<std::uint32_t> threadCounts{1, 2, 7};
    std::vector<SpatialGrid> grids(threadCounts.size());
    for (std::size_t t = 0; t < threadCounts.size(); ++t)
        grids[t].configure(Settings(scene.bounds(), {{kCellSizeParameter.key, 0.5 * scene.fittedCellSize()},
                                                     {kThreadsParameter.key, threadCounts[t]}}));
    BruteForce brute;
    brute.configure(Settings(scene.bounds(), {}));
    for (int frame = 0; frame < 4; ++frame) {
        SCOPED_TRACE("frame " + std::to_string(frame));
        const Frame f = withStatics(scene);
        const std::vector<Pair> serial = pairsOf(grids[0], f.view);
        ASSERT_FALSE(serial.empty());
        for (std::size_t t = 1; t < threadCounts.size(); ++t)
            EXPECT_EQ(pairsOf(grids[t], f.view), serial) << threadCounts[t] << " threads";
        EXPECT_EQ(overlapping(serial, f.view), overlapping(pairsOf(brute, f.view), f.view));
        scene.advance();
    }
    EXPECT_GT(grids[0].counters().elementsVisited, 4u * kMinParallelCount) << "too few entries to split the scan";
}

INSTANTIATE_TEST_SUITE_P(Scenes, GridThreads,
                         ::testing::Values(ScenarioKind::Uniform, ScenarioKind::Clustered, ScenarioKind::Mixed),
                         [](const auto& info) {
                             switch (info.param) {
                                 case ScenarioKind::Uniform: return std::string("Uniform");
                                 case ScenarioKind::Clustered: return std::string("Clustered");
                                 default: return std::string("Mixed");
                             }
                         });

}  // namespace
}  // namespace ro

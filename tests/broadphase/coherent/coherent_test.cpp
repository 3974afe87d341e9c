// The coherence layer under each technique the registry wraps: a step where nothing left its
// fat box does no inner work, a few leaving re-query only those, many leaving pass through to
// the inner technique and back, and "coherent" 0 leaves the inner technique alone.

#include <gtest/gtest.h>

#include <cmath>
#include <string_view>
#include <vector>

#include "broadphase/coherent/coherent.h"
#include "ro/registry.h"
#include "support/scenes.h"
#include "support/settings.h"

namespace ro {
namespace {

class CoherentLayer : public ::testing::TestWithParam<std::string_view> {
protected:
    std::unique_ptr<BroadPhase> create(double coherent = 1.0) const {
        auto technique = findTechnique(GetParam())->create();
        Settings settings = test::withCell(8.0f, kArea);
        settings.set(kCoherentParameter.key, coherent);
        technique->configure(settings);
        return technique;
    }
    static constexpr Aabb kArea{0, 0, 400, 300};

    /// 50 x 30 boxes of side 4 on a lattice 6 apart, every other row shifted so neighbours
    /// overlap: the automatic margin is 0.4. A gap every 5 columns keeps the sweeps' queries
    /// short (with none, a query walks back to the start and the layer rightly passes through).
    static test::BoxSet lattice() {
        test::BoxSet boxes;
        for (int row = 0; row < 30; ++row)
            for (int col = 0; col < 50; ++col) {
                const float x = 5.0f + 6.0f * static_cast<float>(col) + 4.0f * static_cast<float>(col / 5) +
                                (row % 2 == 0 ? 0.0f : 3.0f);
                const float y = 5.0f + 3.5f * static_cast<float>(row);
                boxes.add({x, y, x + 4.0f, y + 4.0f});
            }
        return boxes;
    }
    static void shift(test::BoxSet& boxes, std::uint32_t i, float dx, float dy) {
        boxes.minX[i] += dx, boxes.maxX[i] += dx, boxes.minY[i] += dy, boxes.maxY[i] += dy;
    }
};

TEST_P(CoherentLayer, AStepWhereNoBoxLeftItsFatBoxDoesNoInnerWork) {
    auto technique = create();
    test::BoxSet boxes = lattice();
    ASSERT_EQ(test::techniqueOverlaps(*technique, boxes.view()), test::referenceOverlaps(boxes.view()));
    EXPECT_EQ(test::extra(technique->counters(), "refound"), boxes.size()) << "the first step lists every entity";

    // Unmoved, then every box a little (0.1, inside the margin of 0.4): no inner work.
    for (const float dx : {0.0f, 0.1f, 0.1f}) {
        for (std::uint32_t i = 0; i < boxes.size(); ++i) shift(boxes, i, dx, -dx);
        ASSERT_EQ(test::techniqueOverlaps(*technique, boxes.view()), test::referenceOverlaps(boxes.view()));
        const Counters c = technique->counters();
        EXPECT_EQ(c.elementsVisited, 0u);
        EXPECT_EQ(test::extra(c, "refound"), 0.0);
        EXPECT_EQ(test::extra(c, "pass_through"), 0.0);
        EXPECT_EQ(c.pairTests, static_cast<std::uint64_t>(test::extra(c, "kept_pairs")));
        EXPECT_TRUE(technique->pairsAreExact());
        EXPECT_EQ(technique->validate(), "");
    }

    // Three boxes leave theirs: those three are found anew, and only they.
    for (const std::uint32_t i : {7u, 400u, 401u}) shift(boxes, i, 2.5f, 0.0f);
    ASSERT_EQ(test::techniqueOverlaps(*technique, boxes.view()), test::referenceOverlaps(boxes.view()));
    EXPECT_EQ(test::extra(technique->counters(), "refound"), 3.0);
    EXPECT_GT(technique->counters().elementsVisited, 0u);
    EXPECT_EQ(technique->validate(), "");

    // The same through updateMoved: only the listed boxes are looked at.
    shift(boxes, 9, 0.05f, 0.0f);   // stays inside
    shift(boxes, 900, 0.0f, 3.0f);  // leaves
    const std::uint32_t moved[] = {9, 900};
    technique->updateMoved(boxes.view(), moved);
    std::vector<Pair> pairs;
    technique->findPairs(pairs);
    EXPECT_EQ(std::set<Pair>(pairs.begin(), pairs.end()), test::referenceOverlaps(boxes.view()));
    EXPECT_EQ(test::extra(technique->counters(), "refound"), 1.0);
    EXPECT_EQ(technique->validate(), "");
}

TEST_P(CoherentLayer, ManyLeavingPassesThroughAndFewComeBack) {
    auto technique = create();
    test::BoxSet boxes = lattice();
    ASSERT_EQ(test::techniqueOverlaps(*technique, boxes.view()), test::referenceOverlaps(boxes.view()));
    const std::uint32_t n = boxes.size();
    const auto moveShare = [&](float share, float dx) {
        const auto count = static_cast<std::uint32_t>(share * static_cast<float>(n));
        for (std::uint32_t i = 0; i < count; ++i) shift(boxes, (i * 7919u) % n, dx, 0.0f);
        EXPECT_EQ(test::techniqueOverlaps(*technique, boxes.view()), test::referenceOverlaps(boxes.view()));
        EXPECT_EQ(technique->validate(), "");
        return test::extra(technique->counters(), "pass_through");
    };
    constexpr std::uint32_t kLookEvery = Coherent<SpatialGrid>::kCalmSteps;
    EXPECT_EQ(moveShare(0.2f, 1.0f), 0.0) << "a fifth leaving stays coherent";
    EXPECT_EQ(moveShare(0.5f, -1.0f), 1.0) << "half leaving passes through";
    EXPECT_EQ(moveShare(0.2f, 1.0f), 1.0) << "a fifth leaving, just after, still passes through (hysteresis)";
    for (std::uint32_t step = 2; step <= kLookEvery; ++step)
        EXPECT_EQ(moveShare(0.02f, step % 2 == 0 ? 1.0f : -1.0f), 1.0)
            << "step " << step << ": the look saw the fifth leave since the last, more than an eighth";
    for (std::uint32_t step = 1; step < kLookEvery; ++step)
        EXPECT_EQ(moveShare(0.02f, step % 2 == 0 ? 1.0f : -1.0f), 1.0) << "step " << step << " between looks";
    EXPECT_EQ(moveShare(0.02f, 1.0f), 0.0) << "a look that saw a fiftieth leave is coherent again";
    EXPECT_EQ(moveShare(0.0f, 0.0f), 0.0);
    EXPECT_EQ(technique->counters().elementsVisited, 0u);
}

TEST_P(CoherentLayer, OffLeavesTheInnerTechniqueAlone) {
    auto technique = create(0.0);
    test::BoxSet boxes = lattice();
    for (int step = 0; step < 2; ++step) {
        ASSERT_EQ(test::techniqueOverlaps(*technique, boxes.view()), test::referenceOverlaps(boxes.view()));
        EXPECT_GT(technique->counters().pairTests, 0u) << "the inner technique finds pairs every step";
        EXPECT_TRUE(std::isnan(test::extra(technique->counters(), "refound")));
    }
}

TEST_P(CoherentLayer, QueriesAnswerForTheTightBoxes) {
    auto technique = create();
    test::BoxSet boxes = lattice();
    (void)test::techniqueOverlaps(*technique, boxes.view());
    shift(boxes, 0, 0.1f, 0.1f);  // inside its fat box: the inner technique keeps the old fat box
    (void)test::techniqueOverlaps(*technique, boxes.view());
    ASSERT_EQ(technique->counters().elementsVisited, 0u);
    // A point in box 0's fat box but outside the box itself.
    std::vector<std::uint32_t> found;
    technique->queryPoint({boxes.minX[0] - 0.05f, boxes.minY[0] + 1.0f}, found);
    EXPECT_TRUE(found.empty());
    technique->queryBox({boxes.minX[0], boxes.minY[0], boxes.minX[0], boxes.minY[0]}, found);
    EXPECT_EQ(found, std::vector<std::uint32_t>{0});
    // A ray from the left along box 0's middle enters it at its own edge, not its fat box's.
    const float y = boxes.minY[0] + 1.0f;
    const Segment ray{{0.0f, y}, {boxes.minX[0] + 1.0f, y}};
    std::vector<RayHit> hits;
    technique->queryRay(ray, hits);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].index, 0u);
    EXPECT_EQ(hits[0].t, *segmentEntry(boxes.view().box(0), ray));
    std::optional<RayHit> first;
    technique->raycastFirst(ray, first);
    EXPECT_EQ(first, hits[0]);
}

// The fixture's lattice for tests of one concrete layered technique.
class CoherentStart : public CoherentLayer {};

TEST_F(CoherentStart, ABuildThatStartsPassingThroughListsThePairsOnceCalm) {
    // Auto's hand-over in a busy scene: the first update passes through (the inner technique
    // on the boxes themselves, no fat pairs listed), and kCalmSteps calm steps later the
    // layer lists them and is coherent again; a later build lists them at once.
    using Layered = Coherent<WithStatics<HierarchicalGrid>>;
    Layered technique;
    technique.configure(test::withCell(8.0f, kArea));
    technique.startPassingThrough();
    test::BoxSet boxes = lattice();
    ASSERT_EQ(test::techniqueOverlaps(technique, boxes.view()), test::referenceOverlaps(boxes.view()));
    EXPECT_EQ(technique.mode(), Layered::Mode::PassThrough);
    EXPECT_EQ(test::extra(technique.counters(), "pass_through"), 1.0);
    for (std::uint32_t step = 1; step <= Layered::kCalmSteps; ++step) {
        EXPECT_EQ(technique.mode(), Layered::Mode::PassThrough) << "step " << step;
        shift(boxes, step, 0.1f, 0.0f);  // inside the margin (0.4): calm
        ASSERT_EQ(test::techniqueOverlaps(technique, boxes.view()), test::referenceOverlaps(boxes.view()));
        EXPECT_EQ(technique.validate(), "");
    }
    EXPECT_EQ(technique.mode(), Layered::Mode::Coherent) << "calm for kCalmSteps steps: the fat pairs are listed";
    EXPECT_EQ(test::extra(technique.counters(), "refound"), boxes.size());

    technique.configure(test::withCell(8.0f, kArea));
    ASSERT_EQ(test::techniqueOverlaps(technique, boxes.view()), test::referenceOverlaps(boxes.view()));
    EXPECT_EQ(technique.mode(), Layered::Mode::Coherent) << "only the next build starts passing through";
}

INSTANTIATE_TEST_SUITE_P(Wrapped, CoherentLayer,
                         ::testing::Values("grid", "hash", "hshg", "sap", "sweep", "quadtree"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace ro

// The statics layer under each technique the registry wraps: a step where only movers moved
// leaves the static index as it was, a static that changes rebuilds it, the pairs and the
// queries are brute force's, and without statics the layer passes straight through.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string_view>
#include <vector>

#include "broadphase/coherent/coherent.h"
#include "broadphase/pair_rule.h"
#include "broadphase/statics/statics.h"
#include "ro/registry.h"
#include "support/scenes.h"
#include "support/settings.h"

namespace ro {
namespace {

/// A static field with movers among it: every fifth box of a 40 x 25 lattice moves; the
/// statics touch their neighbours, so statics overlap statics (pairs that must not appear).
struct Field {
    test::Population population;
    std::vector<std::uint8_t> isStatic;
    std::vector<std::uint32_t> category, mask;
    std::vector<std::uint32_t> movers;

    Field() {
        for (std::uint32_t row = 0; row < 25; ++row)
            for (std::uint32_t col = 0; col < 40; ++col) {
                const float x = 5.0f * static_cast<float>(col), y = 5.0f * static_cast<float>(row);
                population.add({x, y, x + 5.0f, y + 5.0f});
                const bool moves = (row * 40 + col) % 5 == 0;
                isStatic.push_back(moves ? 0 : 1);
                category.push_back(1u << (col % 3));
                mask.push_back(col % 4 == 0 ? 1u : 0xFFFFFFFFu);
                if (moves) movers.push_back(population.size() - 1);
            }
    }
    [[nodiscard]] BoxView view(bool filters) const {
        BoxView v = population.boxes.view();
        v.isStatic = isStatic.data();
        if (filters) v.category = category.data(), v.mask = mask.data();
        return v;
    }
    void shift(std::uint32_t i, float dx, float dy) {
        const test::BoxSet& b = population.boxes;
        population.set(i, {b.minX[i] + dx, b.minY[i] + dy, b.maxX[i] + dx, b.maxY[i] + dy});
    }
    /// Every mover by (dx, dy): far enough to leave its fat box.
    void moveMovers(float dx, float dy) {
        for (const std::uint32_t m : movers) shift(m, dx, dy);
    }
};

/// Brute force's pairs for the same boxes, rule included.
std::set<Pair> brutePairs(const BoxView& boxes) {
    auto brute = findTechnique("brute")->create();
    brute->update(boxes);
    std::vector<Pair> pairs;
    brute->findPairs(pairs);
    return {pairs.begin(), pairs.end()};
}

/// The technique's pairs for the boxes it was last updated with, the candidates of an inexact
/// one kept when they overlap and the rule accepts them (as a caller does).
std::set<Pair> pairsOf(BroadPhase& technique, const BoxView& boxes) {
    std::vector<Pair> pairs;
    technique.findPairs(pairs);
    std::set<Pair> kept;
    const PairRule rule(boxes);
    for (const Pair p : pairs) {
        EXPECT_LT(p.a, p.b);
        EXPECT_LT(p.b, boxes.count);
        if (!technique.pairsAreExact() && !(overlaps(boxes.box(p.a), boxes.box(p.b)) && rule.accepts(p))) continue;
        EXPECT_TRUE(kept.insert(p).second) << "a pair reported twice";
    }
    return kept;
}

double staticBuilds(const BroadPhase& technique) { return test::extra(technique.counters(), "static_builds"); }

class StaticsLayer : public ::testing::TestWithParam<std::tuple<std::string_view, int>> {
protected:
    std::unique_ptr<BroadPhase> create() const {
        auto technique = findTechnique(std::get<0>(GetParam()))->create();
        Settings settings = test::withCell(6.0f, Aabb{-50, -50, 250, 175});
        settings.set(kCoherentParameter.key, std::get<1>(GetParam()));
        technique->configure(settings);
        return technique;
    }
};

TEST_P(StaticsLayer, OnlyMoversMovingLeavesTheStaticIndexAlone) {
    for (const bool filters : {false, true}) {
        SCOPED_TRACE(filters ? "with filters" : "without filters");
        Field field;
        auto technique = create();
        technique->update(field.view(filters));
        EXPECT_EQ(pairsOf(*technique, field.view(filters)), brutePairs(field.view(filters)));
        EXPECT_EQ(staticBuilds(*technique), 1.0);

        // Movers leave their fat boxes, by update() and by updateMoved(): no build.
        for (int step = 0; step < 6; ++step) {
            SCOPED_TRACE("step " + std::to_string(step));
            field.moveMovers(step % 2 == 0 ? 1.7f : -0.6f, 0.9f);
            if (step % 2 == 0)
                technique->update(field.view(filters));
            else
                technique->updateMoved(field.view(filters), field.movers);
            EXPECT_EQ(pairsOf(*technique, field.view(filters)), brutePairs(field.view(filters)));
            EXPECT_EQ(staticBuilds(*technique), 1.0);
            EXPECT_EQ(technique->validate(), "");
        }

        // One static moves (in a moved list): one build.
        field.shift(1, 0.5f, 0.0f);
        const std::uint32_t moved[] = {1, field.movers[3]};
        field.shift(field.movers[3], 3.0f, 0.0f);
        technique->updateMoved(field.view(filters), moved);
        EXPECT_EQ(pairsOf(*technique, field.view(filters)), brutePairs(field.view(filters)));
        EXPECT_EQ(staticBuilds(*technique), 2.0);

        // A static becomes a mover: another.
        field.isStatic[2] = 0;
        technique->update(field.view(filters));
        EXPECT_EQ(pairsOf(*technique, field.view(filters)), brutePairs(field.view(filters)));
        EXPECT_EQ(staticBuilds(*technique), 3.0);
        EXPECT_EQ(technique->validate(), "");
    }
}

TEST_P(StaticsLayer, AStaticThatOnlyTakesAnotherIndexIsNoRebuild) {
    // The world swap-removes: a mover removed early hands its index to the last box, a static.
    // The static index holds the same boxes; only the map back to dense indices changes.
    Field field;
    auto technique = create();
    technique->update(field.view(false));
    EXPECT_EQ(pairsOf(*technique, field.view(false)), brutePairs(field.view(false)));
    const double builds = staticBuilds(*technique);
    EXPECT_EQ(builds, 1.0);
    ASSERT_EQ(field.isStatic.back(), 1);
    const std::uint32_t gone = field.movers[2];
    field.population.removeAt(gone);
    field.isStatic[gone] = field.isStatic.back(), field.isStatic.pop_back();
    technique->update(field.view(false));
    EXPECT_EQ(pairsOf(*technique, field.view(false)), brutePairs(field.view(false)));
    EXPECT_EQ(staticBuilds(*technique), builds);
    EXPECT_EQ(technique->validate(), "");

    // A static that comes is a rebuild.
    field.population.add({100, 100, 103, 103});
    field.isStatic.push_back(1);
    technique->update(field.view(false));
    EXPECT_EQ(pairsOf(*technique, field.view(false)), brutePairs(field.view(false)));
    EXPECT_EQ(staticBuilds(*technique), builds + 1.0);
}

TEST_P(StaticsLayer, QueriesMergeBothIndexesInTheContractsOrder) {
    // A static and a mover with the same box: a ray meets both at the same t, and the lower
    // dense index comes first whichever index holds it.
    for (const bool staticFirst : {true, false}) {
        SCOPED_TRACE(staticFirst ? "the static first" : "the mover first");
        test::Population population;
        std::vector<std::uint8_t> isStatic;
        for (int k = 0; k < 2; ++k) {
            population.add({10, 10, 12, 12});
            isStatic.push_back((k == 0) == staticFirst ? 1 : 0);
        }
        population.add({20, 10, 22, 12});  // a static further along
        isStatic.push_back(1);
        BoxView view = population.boxes.view();
        view.isStatic = isStatic.data();
        auto technique = create();
        technique->update(view);
        EXPECT_EQ(pairsOf(*technique, view), (std::set<Pair>{{0, 1}}));

        const Segment ray{{0, 11}, {30, 11}};
        std::vector<RayHit> hits;
        technique->queryRay(ray, hits);
        ASSERT_EQ(hits.size(), 3u);
        EXPECT_EQ(hits[0].index, 0u);
        EXPECT_EQ(hits[1].index, 1u);
        EXPECT_EQ(hits[0].t, hits[1].t);
        EXPECT_EQ(hits[2].index, 2u);
        std::optional<RayHit> first;
        technique->raycastFirst(ray, first);
        ASSERT_TRUE(first.has_value());
        EXPECT_EQ(first->index, 0u);

        std::vector<std::uint32_t> found;
        technique->queryPoint({11, 11}, found);
        std::sort(found.begin(), found.end());
        EXPECT_EQ(found, (std::vector<std::uint32_t>{0, 1}));
        technique->queryBox({11, 11, 21, 11}, found);
        std::sort(found.begin(), found.end());
        EXPECT_EQ(found, (std::vector<std::uint32_t>{0, 1, 2}));

        std::uint32_t elements = 0;
        technique->forEachElement([&](const StructureElement&) { ++elements; });
        EXPECT_GT(elements, 0u);
    }
}

TEST_P(StaticsLayer, StaticsThatComeAndGoEveryFewStepsMatchBruteForce) {
    Field field;
    auto technique = create();
    for (int step = 0; step < 40; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        field.moveMovers(step % 3 == 0 ? 2.0f : 0.05f, step % 2 == 0 ? 0.05f : -0.05f);
        if (step % 5 == 2) field.isStatic[(step * 37) % field.isStatic.size()] ^= 1;  // movers among them
        if (step % 7 == 3) {
            field.population.removeAt((step * 53) % field.population.size());
            field.isStatic[(step * 53) % field.isStatic.size()] = field.isStatic.back(), field.isStatic.pop_back();
            field.population.add({static_cast<float>(step), 20, static_cast<float>(step) + 6, 26});
            field.isStatic.push_back(1);
        }
        // Entities and flags as the last step's (and the movers' list still true): a moved list.
        field.movers.clear();
        for (std::uint32_t i = 0; i < field.isStatic.size(); ++i)
            if (field.isStatic[i] == 0) field.movers.push_back(i);
        if (step % 5 != 2 && step % 7 != 3 && step % 2 == 1)
            technique->updateMoved(field.view(false), field.movers);
        else
            technique->update(field.view(false));
        ASSERT_EQ(pairsOf(*technique, field.view(false)), brutePairs(field.view(false)));
        ASSERT_EQ(technique->validate(), "");
    }
}

std::string name(const ::testing::TestParamInfo<std::tuple<std::string_view, int>>& info) {
    return std::string(std::get<0>(info.param)) + (std::get<1>(info.param) != 0 ? "_coherent" : "_plain");
}

INSTANTIATE_TEST_SUITE_P(Layered, StaticsLayer,
                         ::testing::Combine(::testing::Values("grid", "hash", "hshg", "sap", "sweep", "quadtree"),
                                            ::testing::Values(0, 1)),
                         name);

// Without statics the layer is the inner technique: the same pairs, visits and tests, step for step.
template <typename Inner>
void expectPassStraightThrough() {
    Coherent<Inner> plain;
    Coherent<WithStatics<Inner>> layered;
    for (BroadPhase* technique : {static_cast<BroadPhase*>(&plain), static_cast<BroadPhase*>(&layered)})
        technique->configure(test::withCell(6.0f, Aabb{-50, -50, 250, 175}));
    Field field;
    for (int step = 0; step < 8; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        field.moveMovers(step % 2 == 0 ? 2.0f : -1.0f, 0.3f);
        const BoxView view = field.population.boxes.view();  // no static flags
        plain.update(view);
        layered.update(view);
        EXPECT_EQ(pairsOf(layered, view), pairsOf(plain, view));
        EXPECT_FALSE(layered.inner().layered());
        EXPECT_EQ(layered.counters().elementsVisited, plain.counters().elementsVisited);
        EXPECT_EQ(layered.counters().pairTests, plain.counters().pairTests);
        EXPECT_EQ(test::extra(layered.counters(), "static_builds"), 0.0);
    }
}

TEST(StaticsLayerWithoutStatics, PassesStraightThrough) {
    expectPassStraightThrough<SpatialGrid>();
    expectPassStraightThrough<HierarchicalGrid>();
    expectPassStraightThrough<SweepAndPrune>();
}

// Fewer than kMinStaticsPerMover statics a mover: the layer passes straight through, and
// crossing that line either way keeps brute force's pairs (the static index is built afresh).
template <typename Inner>
void expectLayeredOnlyWithEnoughStatics() {
    Coherent<WithStatics<Inner>> technique;
    technique.configure(test::withCell(6.0f, Aabb{-50, -50, 250, 175}));
    Field field;  // 800 statics, 200 movers: 4 a mover
    const auto flip = [&](std::uint8_t to) {  // 60 statics become movers, or back
        for (std::uint32_t i = 1, flipped = 0; flipped < 60; i += 5, ++flipped) field.isStatic[i] = to;
    };
    const bool layeredAt[] = {true, true, false, false, false, true, true};
    double buildsBefore = 0.0;
    for (int step = 0; step < 7; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        if (step == 2) flip(0);  // 740 statics, 260 movers: under 3 a mover
        if (step == 5) flip(1);
        field.moveMovers(step % 2 == 0 ? 2.0f : -1.0f, 0.3f);
        technique.update(field.view(true));
        EXPECT_EQ(pairsOf(technique, field.view(true)), brutePairs(field.view(true)));
        EXPECT_EQ(technique.inner().layered(), layeredAt[step]);
        if (step == 4) buildsBefore = staticBuilds(technique);
        if (step == 5) {
            EXPECT_EQ(staticBuilds(technique), buildsBefore + 1) << "layered again: the static index is built afresh";
        }
    }
}

TEST(StaticsLayerWithFewStatics, PassesStraightThroughUnderThreeStaticsAMover) {
    static_assert(WithStatics<SpatialGrid>::kMinStaticsPerMover == 3, "the field's 4 and 740 / 260 straddle it");
    expectLayeredOnlyWithEnoughStatics<SpatialGrid>();
    expectLayeredOnlyWithEnoughStatics<HierarchicalGrid>();
    expectLayeredOnlyWithEnoughStatics<SweepAndPrune>();
    expectLayeredOnlyWithEnoughStatics<Quadtree>();
}

TEST(StaticsLayerOverSweepAndPrune, ItsStaticIndexAnswersFromStripsAndItsMoverIndexDoesNot) {
    Field field;
    WithStatics<SweepAndPrune> layer;
    for (int step = 0; step < 4; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        if (step == 2) field.shift(1, 0.5f, 0.0f);  // a static moves: the strips are built again
        layer.update(field.view(false));
        EXPECT_EQ(pairsOf(layer, field.view(false)), brutePairs(field.view(false)));
        ASSERT_TRUE(layer.layered());
        EXPECT_GT(layer.staticIndex().stripCount(), 0u);
        EXPECT_EQ(layer.moverIndex().stripCount(), 0u);
        field.moveMovers(1.7f, 0.9f);
    }
}

}  // namespace
}  // namespace ro

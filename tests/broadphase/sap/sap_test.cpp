// Sweep and prune (Wells): void markers on the delimiters, the axis choice, the delimiters'
// swap count, the seed's interference query, queries, and incoherent motion.

#include <gtest/gtest.h>

#include <initializer_list>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "broadphase/brute/brute.h"
#include "broadphase/sap/sap.h"
#include "broadphase/sweep_checks.h"
#include "ro/rng.h"
#include "support/scenes.h"
#include "support/settings.h"

namespace ro {
namespace {

using namespace sweep_checks;

TEST(SweepAndPrune, MarksTheDelimitersAfterWhichNothingIsOpen) {
    const test::BoxSet boxes = handMadeScene();
    SweepAndPrune sap;
    sap.configure(along(SweepAxis::X));
    EXPECT_EQ(test::techniqueOverlaps(sap, boxes.view()), (std::set<Pair>{{0, 1}, {2, 3}}));
    EXPECT_EQ(sap.validate(), "");
    // The seed's depth count: 1 2 1 0 | 1 2 1 0 | 1 0. D begins before C ends at 6 (touching).
    const std::vector<Mark> expected{{0, true, false}, {1, true, false},  {2, false, false}, {3, false, true},
                                     {5, true, false}, {6, true, false},  {6, false, false}, {8, false, true},
                                     {10, true, false}, {11, false, true}};
    EXPECT_EQ(marksOf(sap), expected);
}

TEST(SweepAndPrune, OverlayShowsDelimitersInOrderWithDepthCountedVoids) { checkOverlayOrder<SweepAndPrune>("sap"); }

TEST(SweepAndPrune, ChoosesTheAxisAlongWhichCentresVaryMost) { checkAxisChoice<SweepAndPrune>(); }

TEST(SweepAndPrune, CountsTheSwapsOfItsDelimiters) {
    Population p;
    p.add({0, 0, 1, 1});
    p.add({5, 0, 6, 1});
    for (int i = 0; i < 8; ++i) p.add({100.0f + 10 * i, 0, 101.0f + 10 * i, 1});  // still, and within budget
    SweepAndPrune sap;
    sap.configure(along(SweepAxis::X));
    (void)test::techniqueOverlaps(sap, p.boxes.view());
    EXPECT_TRUE(sap.lastUpdateRebuilt());
    // A jumps past B: its begin (10) and end (11) each pass B's begin (5) and end (6).
    p.set(0, {10, 0, 11, 1});
    (void)test::techniqueOverlaps(sap, p.boxes.view());
    EXPECT_FALSE(sap.lastUpdateRebuilt());
    EXPECT_EQ(test::extra(sap.counters(), "sort_swaps"), 4u);
    EXPECT_EQ(sap.validate(), "");
}

TEST(SweepAndPrune, TheSwapBudgetDecidesWhenInsertionSortGivesUpForARadixRebuild) {
    // Ten boxes in a row whose order reverses: every pair of boxes swaps all four delimiter
    // pairs, 180 swaps among 20 delimiters (9 per delimiter).
    const auto row = [](bool reversed) {
        Population p;
        for (int i = 0; i < 10; ++i) {
            const float x = 10.0f * static_cast<float>(reversed ? 9 - i : i);
            p.add({x, 0, x + 4, 4});
        }
        return p;
    };
    for (const double budget : {0.5, 8.0, 9.0, 1024.0}) {
        SCOPED_TRACE("swap_budget " + std::to_string(budget));
        Settings settings = along(SweepAxis::X);
        settings.set(SweepAndPrune::kSwapBudgetParameter.key, budget);
        SweepAndPrune sap;
        sap.configure(settings);
        (void)test::techniqueOverlaps(sap, row(false).boxes.view());
        const Population reversed = row(true);
        EXPECT_EQ(test::techniqueOverlaps(sap, reversed.boxes.view()), test::referenceOverlaps(reversed.boxes.view()));
        EXPECT_EQ(sap.lastUpdateRebuilt(), budget < 9.0) << "180 swaps against a budget of " << budget * 20;
        if (budget >= 9.0) {
            EXPECT_EQ(test::extra(sap.counters(), "sort_swaps"), 180u);
        }
        EXPECT_EQ(sap.validate(), "");
    }
}

TEST(SweepAndPrune, InterferenceQueryMatchesBruteForce) {
    Population p;
    Rng rng(21);
    for (int i = 0; i < 600; ++i) p.add(randomBox(rng, {0, 0, 1000, 300}, 0.0f, 25.0f));
    p.add({-5000, -5000, 5000, 5000});  // overlaps everything
    p.add({400, 100, 400, 100});        // a point
    p.add({0, 0, 10, 10});
    p.add({10, 10, 20, 20});  // touches the previous one at a corner
    SweepAndPrune sap;
    sap.configure(along(SweepAxis::X));
    const BoxView view = p.boxes.view();
    (void)test::techniqueOverlaps(sap, view);
    std::vector<std::uint32_t> found;
    for (std::uint32_t e = 0; e < view.count; ++e) {
        std::vector<std::uint32_t> expected;
        for (std::uint32_t j = 0; j < view.count; ++j)
            if (j != e && overlaps(view.box(e), view.box(j))) expected.push_back(j);
        const QueryCost cost = sap.interferingWith(e, found);
        ASSERT_EQ(sorted(found), expected) << "entity " << e;
        EXPECT_GE(cost.tests, found.size());
    }
    EXPECT_THROW((void)sap.interferingWith(view.count, found), std::out_of_range);
}

TEST(SweepAndPrune, VoidMarkersStopTheInterferenceScan) {
    // Boxes 4 wide every 10 units: each is alone on the axis, so its scan ends at its own end.
    Population p;
    for (int i = 0; i < 1000; ++i) p.add({i * 10.0f, 0, i * 10.0f + 4, 4});
    SweepAndPrune sap;
    (void)test::techniqueOverlaps(sap, p.boxes.view());
    std::vector<std::uint32_t> found;
    for (std::uint32_t e = 0; e < 1000; ++e) {
        const QueryCost cost = sap.interferingWith(e, found);
        EXPECT_TRUE(found.empty());
        EXPECT_EQ(cost.visited, 2u) << "entity " << e;
    }
    std::vector<std::uint32_t> hits;
    const QueryCost cost = sap.queryPoint({5002, 2}, hits);
    EXPECT_EQ(hits, std::vector<std::uint32_t>{500});
    EXPECT_LE(cost.visited, 2u) << "the backward scan should stop at the void before 5000";
}

TEST(SweepAndPrune, QueriesMatchBruteForce) { checkQueries<SweepAndPrune>("sap"); }

TEST(SweepAndPrune, QueriesFromStripsMatchBruteForce) {
    checkQueries<SweepAndPrune>("sap strips", [](SweepAndPrune& t) { t.favourQueries(); });
}

void checkStripsOnAField(bool longBoxes) {
    Population p;
    for (int row = 0; row < 40; ++row)
        for (int col = 0; col < 100; ++col) p.add({col * 2.0f, row * 2.0f, col * 2.0f + 2, row * 2.0f + 2});
    if (longBoxes) {
        p.add({0, 39, 200, 41});
        p.add({99, 0, 101, 80});
        p.add({-10, -10, 210, 90});
    }
    SweepAndPrune strips, slab;
    strips.favourQueries();
    for (SweepAndPrune* t : {&strips, &slab}) t->configure(along(SweepAxis::X));
    BruteForce brute;
    Rng rng(5);
    std::uint64_t stripTests = 0, slabTests = 0;
    std::vector<std::uint32_t> got, want;
    for (int step = 0; step < 3; ++step) {
        const BoxView view = p.boxes.view();
        for (BroadPhase* t : std::initializer_list<BroadPhase*>{&strips, &slab, &brute}) t->update(view);
        for (int q = 0; q < 300; ++q) {
            const Aabb box = q % 3 == 0 ? Aabb{2.0f * (q % 97), 2.0f * (q % 37), 2.0f * (q % 97) + 2, 2.0f * (q % 37)}
                                        : randomBox(rng, {-20, -20, 220, 100}, 0.0f, q % 2 ? 4.0f : 60.0f);
            stripTests += strips.queryBox(box, got).tests;
            brute.queryBox(box, want);
            ASSERT_EQ(sorted(got), sorted(want)) << "step " << step << " query " << q;
            slabTests += slab.queryBox(box, got).tests;
        }
        EXPECT_GT(strips.stripCount(), 1u);
        EXPECT_EQ(slab.stripCount(), 0u);
        for (std::uint32_t i = 0; i < p.size(); ++i) {
            const Aabb b = p.boxes.view().box(i);
            const float dx = rng.range(-3.0f, 3.0f), dy = rng.range(-3.0f, 3.0f);
            p.set(i, {b.minX + dx, b.minY + dy, b.maxX + dx, b.maxY + dy});
        }
    }
    if (!longBoxes) {
        EXPECT_LT(2 * stripTests, slabTests) << "the strips test the boxes near the query on both axes";
    }
}

TEST(SweepAndPrune, StripsFollowEachUpdateAndTestFewerBoxesThanTheSlab) {
    // A field of 4,000 small boxes on a lattice (neighbours touch), then with a long one across
    // it each way and one that covers it all: queries from strips against brute force, before
    // and after every box moves. On the field alone the strips test fewer boxes than the slab.
    for (const bool longBoxes : {false, true}) {
        SCOPED_TRACE(longBoxes ? "with long boxes" : "the field alone");
        checkStripsOnAField(longBoxes);
    }
}

TEST(SweepAndPrune, IncoherentMotionStaysCorrect) { checkIncoherentMotion<SweepAndPrune>("sap"); }

}  // namespace
}  // namespace ro

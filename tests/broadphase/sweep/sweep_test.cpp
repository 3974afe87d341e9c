// The single-axis sweep (Lembcke and Korth): void markers on the ends, the axis choice,
// insertion sort's swap count, queries, and incoherent motion.

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "broadphase/sweep/sweep.h"
#include "broadphase/sweep_checks.h"
#include "support/scenes.h"
#include "support/settings.h"

namespace ro {
namespace {

using namespace sweep_checks;

TEST(SingleAxisSweep, MarksTheEndsAfterWhichNothingIsOpen) {
    const test::BoxSet boxes = handMadeScene();
    SingleAxisSweep sweep;
    sweep.configure(along(SweepAxis::X));
    EXPECT_EQ(test::techniqueOverlaps(sweep, boxes.view()), (std::set<Pair>{{0, 1}, {2, 3}}));
    EXPECT_EQ(sweep.validate(), "");
    // The same delimiters as sap's: C's end at 6 is not void, since D begins there first.
    const std::vector<Mark> expected{{0, true, false}, {1, true, false},  {2, false, false}, {3, false, true},
                                     {5, true, false}, {6, true, false},  {6, false, false}, {8, false, true},
                                     {10, true, false}, {11, false, true}};
    EXPECT_EQ(marksOf(sweep), expected);
}

TEST(SingleAxisSweep, OverlayShowsDelimitersInOrderWithDepthCountedVoids) {
    checkOverlayOrder<SingleAxisSweep>("sweep");
}

TEST(SingleAxisSweep, ChoosesTheAxisAlongWhichCentresVaryMost) { checkAxisChoice<SingleAxisSweep>(); }

TEST(SingleAxisSweep, CountsTheSwapsOfInsertionSort) {
    Population p;
    for (int i = 0; i < 5; ++i) p.add({i * 10.0f, 0, i * 10.0f + 1, 1});
    SingleAxisSweep sweep;
    sweep.configure(along(SweepAxis::X));
    (void)test::techniqueOverlaps(sweep, p.boxes.view());
    EXPECT_EQ(test::extra(sweep.counters(), "sort_swaps"), 0u) << "the first step merges, it does not insert";

    // Last order 0 1 2 3 4 now holds minima 20 0 40 10 30: the inversions are
    // (20, 0), (20, 10), (40, 10), (40, 30), so insertion sort swaps 4 times.
    const float minima[] = {20, 0, 40, 10, 30};
    for (std::uint32_t i = 0; i < 5; ++i) p.set(i, {minima[i], 0, minima[i] + 1, 1});
    EXPECT_TRUE(test::techniqueOverlaps(sweep, p.boxes.view()).empty());
    EXPECT_EQ(sweep.validate(), "");
    EXPECT_EQ(test::extra(sweep.counters(), "sort_swaps"), 4u);

    // Reversing the order of 5 (now 1 3 0 4 2) takes every one of the 10 swaps.
    const float reversed[] = {20, 40, 0, 30, 10};
    for (std::uint32_t i = 0; i < 5; ++i) p.set(i, {reversed[i], 0, reversed[i] + 1, 1});
    (void)test::techniqueOverlaps(sweep, p.boxes.view());
    EXPECT_EQ(test::extra(sweep.counters(), "sort_swaps"), 10u);

    // Removing one and adding one: survivors keep their order (no swap), the newcomer is merged.
    p.removeAt(1);
    p.add({25, 0, 26, 1});
    EXPECT_TRUE(test::techniqueOverlaps(sweep, p.boxes.view()).empty());
    EXPECT_EQ(sweep.validate(), "");
    EXPECT_EQ(test::extra(sweep.counters(), "sort_swaps"), 0u);
}

TEST(SingleAxisSweep, QueriesMatchBruteForce) { checkQueries<SingleAxisSweep>("sweep"); }

TEST(SingleAxisSweep, IncoherentMotionStaysCorrect) { checkIncoherentMotion<SingleAxisSweep>("sweep"); }

}  // namespace
}  // namespace ro

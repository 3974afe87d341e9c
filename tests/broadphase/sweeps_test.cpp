// What both sweeps (sap: Wells; sweep: Lembcke and Korth) must do alike: touching boxes and
// begins before ends, refusing bad boxes, and ray spans that keep the exact test's hits.

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

#include "broadphase/brute/brute.h"
#include "broadphase/sap/sap.h"
#include "broadphase/sweep/sweep.h"
#include "broadphase/sweep_checks.h"
#include "support/scenes.h"

namespace ro {
namespace {

using namespace sweep_checks;

TEST(Sweeps, TouchingBoxesOverlapAndBeginsSortBeforeEnds) {
    test::BoxSet boxes;
    boxes.add({0, 0, 1, 1});
    boxes.add({1, 0, 2, 1});           // touches the first at x = 1
    boxes.add({2, 0.5f, 2, 0.5f});     // a point on the second's right edge
    boxes.add({-3, 5, -0.0f, 6});      // ends at -0 ...
    boxes.add({0.0f, 6, 1, 7});        // ... where this begins at +0, touching at a corner
    const std::set<Pair> expected{{0, 1}, {1, 2}, {3, 4}};
    ASSERT_EQ(test::referenceOverlaps(boxes.view()), expected);

    SweepAndPrune sap;
    sap.configure(along(SweepAxis::X));
    EXPECT_EQ(test::techniqueOverlaps(sap, boxes.view()), expected);
    EXPECT_EQ(sap.validate(), "");
    const std::vector<Mark> marks = marksOf(sap);
    for (std::size_t k = 1; k < marks.size(); ++k) {
        if (marks[k].value == marks[k - 1].value) {
            EXPECT_FALSE(marks[k].isBegin && !marks[k - 1].isBegin) << "an end before a begin at " << marks[k].value;
        }
    }
    SingleAxisSweep sweep;
    sweep.configure(along(SweepAxis::X));
    EXPECT_EQ(test::techniqueOverlaps(sweep, boxes.view()), expected);
    EXPECT_EQ(sweep.validate(), "");
}

TEST(Sweeps, RejectBoxesWhoseMinExceedsTheirMax) {
    test::BoxSet boxes;
    boxes.add({0, 0, 1, 1});
    boxes.add({3, 0, 2, 1});
    SweepAndPrune sap;
    EXPECT_THROW(sap.update(boxes.view()), std::invalid_argument);
    EXPECT_EQ(sap.validate(), "");
    SingleAxisSweep sweep;
    EXPECT_THROW(sweep.update(boxes.view()), std::invalid_argument);
    EXPECT_EQ(sweep.validate(), "");
    test::BoxSet twice = handMadeScene();
    twice.ids[3] = twice.ids[1];
    EXPECT_THROW(sap.update(twice.view()), std::invalid_argument);
    EXPECT_THROW(sweep.update(twice.view()), std::invalid_argument);
    // Still usable afterwards.
    const test::BoxSet good = handMadeScene();
    EXPECT_EQ(test::techniqueOverlaps(sap, good.view()), test::referenceOverlaps(good.view()));
    EXPECT_EQ(test::techniqueOverlaps(sweep, good.view()), test::referenceOverlaps(good.view()));
}

TEST(Sweeps, RayQueriesKeepBoxesTheExactTestHitsPastTheSegmentsEnd) {
    // segmentEntry rounds (lo - from) / (to - from) to 1 for a box a little past `to`: a span
    // cut exactly at `to` would miss a hit brute force reports.
    test::BoxSet boxes;
    boxes.add({1.5f, 0, 2, 1});
    const Segment segment{{-1.0e8f, 0.5f}, {1.0f, 0.5f}};
    BruteForce brute;
    brute.update(boxes.view());
    std::vector<RayHit> want;
    brute.queryRay(segment, want);
    ASSERT_EQ(want.size(), 1u) << "the rounding this test relies on did not happen";
    SweepAndPrune sap;
    sap.configure(along(SweepAxis::X));
    sap.update(boxes.view());
    SingleAxisSweep sweep;
    sweep.configure(along(SweepAxis::X));
    sweep.update(boxes.view());
    std::vector<RayHit> got;
    sap.queryRay(segment, got);
    EXPECT_EQ(got, want);
    sweep.queryRay(segment, got);
    EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace ro

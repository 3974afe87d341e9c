// Brute force: it tests every pair, and counts so.

#include <gtest/gtest.h>

#include "broadphase/brute/brute.h"
#include "support/scenes.h"

namespace ro {
namespace {

using test::spreadBoxes;

TEST(BruteForce, CountsEveryPairTest) {
    const test::BoxSet boxes = spreadBoxes(100, 10.0f, 6.0f);
    BruteForce brute;
    const auto overlaps = test::techniqueOverlaps(brute, boxes.view());
    EXPECT_EQ(brute.counters().pairTests, 100u * 99u / 2u);
    EXPECT_EQ(brute.counters().candidatePairs, overlaps.size());
}

}  // namespace
}  // namespace ro

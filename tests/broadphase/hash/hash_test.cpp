// The spatial hash: the seed's hash modulo a prime table, false positives from a small table,
// table sizes, and the overlay of occupied cells.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "broadphase/hash/hash.h"
#include "ro/rng.h"
#include "support/scenes.h"
#include "support/settings.h"

namespace ro {
namespace {

using test::spreadBoxes;

TEST(SpatialHash, UsesTheSeedHashModuloAPrimeTable) {
    EXPECT_EQ(SpatialHash::hashKey(1, 0), 1640531513u);
    EXPECT_EQ(SpatialHash::hashKey(0, 1), 2654435789u);
    // Worked by hand, mod 2^32: -1 * 1640531513 = 2654435783 and 3 * 2654435789 = 3668340071.
    EXPECT_EQ(SpatialHash::hashKey(-1, 3), 2654435783u ^ 3668340071u);
    EXPECT_EQ(SpatialHash::hashKey(-1, 3), 0x449114A0u);
    EXPECT_EQ(SpatialHash::nextPrime(1000), 1009u);
    EXPECT_EQ(SpatialHash::nextPrime(1009), 1009u);

    for (const std::uint32_t size : {2u, 7u, 1031u, 0u}) {
        SpatialHash hash;
        hash.configure(test::withCellAndTable(8.0f, size));
        const test::BoxSet boxes = spreadBoxes(3000, 5.0f, 1.0f);
        (void)test::techniqueOverlaps(hash, boxes.view());
        const std::uint32_t table = hash.tableSize();
        EXPECT_EQ(table, SpatialHash::nextPrime(table));
        if (size == 0) {
            EXPECT_EQ(table, SpatialHash::nextPrime(30000));  // about 10x the count
        }
        // The division-free modulo must equal the seed's %, for every kind of coordinate.
        Rng rng(table);
        for (int k = 0; k < 20000; ++k) {
            const auto x = static_cast<std::int32_t>(rng.next());
            const auto y = static_cast<std::int32_t>(rng.next());
            ASSERT_EQ(hash.bucketOf(x, y), SpatialHash::hashKey(x, y) % table) << x << ", " << y;
        }
    }
}

TEST(SpatialHash, ASmallTableCausesCountedFalsePositivesButNoWrongAnswer) {
    const test::BoxSet boxes = spreadBoxes(1000, 10.0f, 3.0f);
    const auto expected = test::referenceOverlaps(boxes.view());

    SpatialHash tiny;
    tiny.configure(test::withCellAndTable(10.0f, 7));
    EXPECT_EQ(test::techniqueOverlaps(tiny, boxes.view()), expected);
    EXPECT_GT(test::extra(tiny.counters(), "hash_false_positives"), 1000.0);

    SpatialHash roomy;
    roomy.configure(test::withCell(10.0f));  // about 10x the entity count
    EXPECT_EQ(test::techniqueOverlaps(roomy, boxes.view()), expected);
    EXPECT_LT(test::extra(roomy.counters(), "hash_false_positives"),
              test::extra(tiny.counters(), "hash_false_positives") / 10);
    EXPECT_GE(roomy.counters().bytesHeld, 10000u * sizeof(std::uint32_t));
}

TEST(SpatialHash, TableSizesArePrimeAndBounded) {
    EXPECT_EQ(SpatialHash::tableSizeFor(0, 1000), SpatialHash::nextPrime(10000));
    EXPECT_EQ(SpatialHash::tableSizeFor(0, 0), 1031u);
    EXPECT_EQ(SpatialHash::tableSizeFor(100, 1000), 101u);
    EXPECT_EQ(SpatialHash::tableSizeFor(1, 10), 2u);
    const std::uint32_t huge = SpatialHash::tableSizeFor(0xFFFFFFFFu, 10);
    EXPECT_GE(huge, SpatialHash::kMaxTableSize);
    EXPECT_LT(huge, SpatialHash::kMaxTableSize + 1000u);
    EXPECT_EQ(SpatialHash::tableSizeFor(0, 0xFFFFFFFFu), huge);
}

TEST(SpatialHash, OverlayVisitsEachOccupiedCellOnce) {
    test::BoxSet boxes;
    boxes.add({1, 1, 2, 2});
    boxes.add({3, 3, 4, 4});     // same cell
    boxes.add({-8, 1, -2, 2});   // cell (-1, 0)
    SpatialHash hash;
    hash.configure(test::withCell(10.0f));
    (void)test::techniqueOverlaps(hash, boxes.view());
    std::vector<StructureElement> cells;
    hash.forEachElement([&](const StructureElement& c) { cells.push_back(c); });
    ASSERT_EQ(cells.size(), 2u);
    std::sort(cells.begin(), cells.end(), [](const StructureElement& a, const StructureElement& b) { return a.bounds.minX < b.bounds.minX; });
    EXPECT_EQ(cells[0].bounds.minX, -10.0f);
    EXPECT_EQ(cells[0].count, 1u);
    EXPECT_EQ(cells[1].bounds.minX, 0.0f);
    EXPECT_EQ(cells[1].count, 2u);
}

TEST(SpatialHash, OverlayCountsEachCellOnceWhateverTheBucketsShare) {
    // Boxes of 2 in cells of 3: many cover 2 or 4 cells. In 7 buckets every chain holds
    // dozens of cells; the overlay must still give each cell once with its own count.
    const test::BoxSet boxes = spreadBoxes(2000, 4.0f, 1.0f);
    const BoxView view = boxes.view();
    std::map<std::pair<std::int32_t, std::int32_t>, std::uint32_t> expected;
    const auto cell = [](float v) { return static_cast<std::int32_t>(std::floor(v / 3.0f)); };
    for (std::uint32_t i = 0; i < view.count; ++i)
        for (std::int32_t y = cell(view.minY[i]); y <= cell(view.maxY[i]); ++y)
            for (std::int32_t x = cell(view.minX[i]); x <= cell(view.maxX[i]); ++x) ++expected[{x, y}];
    ASSERT_GT(expected.size(), 1000u);
    for (const std::uint32_t buckets : {7u, 0u}) {
        SpatialHash hash;
        hash.configure(test::withCellAndTable(3.0f, buckets));
        (void)test::techniqueOverlaps(hash, view);
        std::map<std::pair<std::int32_t, std::int32_t>, std::uint32_t> found;
        hash.forEachElement([&](const StructureElement& c) {
            const std::pair key{cell(c.bounds.minX + 1.5f), cell(c.bounds.minY + 1.5f)};
            EXPECT_EQ(found.count(key), 0u) << "cell " << key.first << ", " << key.second << " visited twice";
            found[key] = c.count;
        });
        EXPECT_EQ(found, expected) << buckets << " buckets";
    }
}

TEST(SpatialHash, AQueryFarFromTheOriginVisitsNoMoreCellsThanThereAreEntities) {
    // At x = 1e7 a float is exact to 1 unit, so the cell walk pads its spans by tens of units:
    // with cells of 0.1 that is hundreds of thousands of cells for a ray of no length.
    test::BoxSet boxes;
    for (const float dx : {0.0f, 30.0f, 60.0f}) boxes.add(test::boxAt(1.0e7f + dx, 32.0f, 2.0f));
    SpatialHash hash;
    hash.configure(test::withCellAndTable(0.1f, 0));
    hash.update(boxes.view());
    const Segment point{{1.0e7f + 30.0f, 32.0f}, {1.0e7f + 30.0f, 32.0f}};
    const Segment across{{1.0e7f - 10.0f, 32.0f}, {1.0e7f + 70.0f, 32.0f}};
    for (const Segment& segment : {point, across}) {
        std::vector<RayHit> hits;
        const QueryCost cost = hash.queryRay(segment, hits);
        EXPECT_LE(cost.visited, boxes.size() + 64u) << "cells";
        EXPECT_LE(cost.tests, boxes.size()) << "box tests";
        std::vector<RayHit> expected;
        for (std::uint32_t i = 0; i < boxes.size(); ++i)
            if (const auto t = segmentEntry(boxes.view().box(i), segment)) expected.push_back({i, *t});
        std::sort(hits.begin(), hits.end(), hitBefore);
        std::sort(expected.begin(), expected.end(), hitBefore);
        EXPECT_EQ(hits, expected);
        std::optional<RayHit> first;
        hash.raycastFirst(segment, first);
        ASSERT_TRUE(first.has_value());
        EXPECT_EQ(*first, expected.front());
    }
}

}  // namespace
}  // namespace ro

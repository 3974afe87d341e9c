// Behaviour particular to each technique: counters, cell-size limits, the hash's table.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "broadphase/brute/brute.h"
#include "broadphase/registry.h"
#include "broadphase/grid/grid.h"
#include "broadphase/hash/hash.h"
#include "core/rng.h"
#include "support/settings.h"
#include "support/scenes.h"

namespace ro {
namespace {

test::BoxSet spreadBoxes(std::uint32_t count, float spacing, float half) {
    test::BoxSet boxes;
    for (std::uint32_t i = 0; i < count; ++i) {
        const float x = static_cast<float>(i % 50) * spacing;
        const float y = static_cast<float>(i / 50) * spacing;
        boxes.add({x - half, y - half, x + half, y + half});
    }
    return boxes;
}

TEST(Registry, IdsAreUniqueAndBruteForceComesFirst) {
    std::set<std::string_view> ids;
    for (const TechniqueInfo& t : techniques()) {
        EXPECT_TRUE(ids.insert(t.id).second) << t.id;
        EXPECT_FALSE(t.label.empty());
        EXPECT_FALSE(t.cost.empty());
        EXPECT_NE(t.create(), nullptr);
        EXPECT_EQ(findTechnique(t.id), &t);
    }
    EXPECT_EQ(techniques().front().id, "brute");
    EXPECT_EQ(findTechnique("no-such-technique"), nullptr);
}

TEST(BruteForce, CountsEveryPairTest) {
    const test::BoxSet boxes = spreadBoxes(100, 10.0f, 6.0f);
    BruteForce brute;
    const auto overlaps = test::techniqueOverlaps(brute, boxes.view());
    EXPECT_EQ(brute.counters().pairTests, 100u * 99u / 2u);
    EXPECT_EQ(brute.counters().candidatePairs, overlaps.size());
}

TEST(SpatialGrid, CountersDescribeTheStep) {
    const test::BoxSet boxes = spreadBoxes(500, 10.0f, 4.0f);  // apart: no overlaps
    SpatialGrid grid;
    grid.configure(test::withCell(10.0f, Aabb{0, 0, 500, 100}));
    EXPECT_TRUE(test::techniqueOverlaps(grid, boxes.view()).empty());
    const Counters& c = grid.counters();
    EXPECT_GE(c.pairTests, c.candidatePairs);
    EXPECT_GE(c.cellsTouched, 500u);
    EXPECT_GT(c.bytesHeld, 0u);
    EXPECT_EQ(test::extra(c, "cell_size"), 10.0);
}

TEST(SpatialGrid, WidensATooSmallCellInsteadOfHoldingAHugeArray) {
    SpatialGrid grid;
    grid.configure(test::withCell(0.001f, Aabb{0, 0, 10000, 10000}));
    const test::BoxSet boxes = spreadBoxes(200, 30.0f, 20.0f);
    EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
    const double cell = test::extra(grid.counters(), "cell_size");
    EXPECT_GT(cell, 0.001);
    EXPECT_LE(std::ceil(10000.0 / cell) * std::ceil(10000.0 / cell), SpatialGrid::kMaxCells);
}

TEST(SpatialGrid, EntitiesCoveringTooManyCellsSkipTheGridButStillPair) {
    // Half-extent 100 at cell 1 would put 40,401 entries in the grid per entity.
    test::BoxSet boxes = spreadBoxes(300, 12.0f, 3.0f);
    boxes.add({0, 0, 200, 200});
    boxes.add({150, 20, 350, 220});
    SpatialGrid grid;
    grid.configure(test::withCell(1.0f, Aabb{0, 0, 600, 100}));
    EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
    // Entries plus occupied cells of the small boxes; either huge box alone would add 16,000.
    EXPECT_LE(grid.counters().cellsTouched, 2u * 300u * 49u) << "the huge boxes were put in the grid";
    EXPECT_GE(grid.counters().pairTests, 2u * 300u) << "each huge box is tested against every entity";
}

TEST(Techniques, NewSettingsTakeEffectAtTheNextUpdate) {
    // The overlay may be drawn between configure() and the next step: it must still describe
    // the structure that was built, at the cell size it was built with.
    test::BoxSet boxes;
    boxes.add({1, 1, 2, 2});
    boxes.add({12, 1, 18, 2});
    for (std::string_view id : {"grid", "hash"}) {
        SCOPED_TRACE(id);
        auto technique = findTechnique(id)->create();
        technique->configure(test::withCell(10.0f, Aabb{0, 0, 100, 100}));
        (void)test::techniqueOverlaps(*technique, boxes.view());
        auto cellSides = [&] {
            std::set<float> sides;
            technique->forEachCell([&](const CellView& c) { sides.insert(c.bounds.width()); });
            return sides;
        };
        EXPECT_EQ(cellSides(), std::set<float>{10.0f});
        technique->configure(test::withCell(5.0f, Aabb{0, 0, 100, 100}));
        EXPECT_EQ(cellSides(), std::set<float>{10.0f}) << "changed before the structure was rebuilt";
        (void)test::techniqueOverlaps(*technique, boxes.view());
        EXPECT_EQ(cellSides(), std::set<float>{5.0f});
    }
}

TEST(SpatialGrid, OverlayShowsOccupiedCellsWithTheirCounts) {
    test::BoxSet boxes;
    boxes.add({1, 1, 2, 2});
    boxes.add({3, 3, 4, 4});    // same cell as the first
    boxes.add({12, 1, 18, 2});  // the next cell to the right
    SpatialGrid grid;
    grid.configure(test::withCell(10.0f, Aabb{0, 0, 100, 100}));
    (void)test::techniqueOverlaps(grid, boxes.view());
    std::vector<CellView> cells;
    grid.forEachCell([&](const CellView& c) { cells.push_back(c); });
    ASSERT_EQ(cells.size(), 2u);
    EXPECT_EQ(cells[0].count, 2u);
    EXPECT_EQ(cells[0].bounds.minX, 0.0f);
    EXPECT_EQ(cells[1].count, 1u);
    EXPECT_EQ(cells[1].bounds.minX, 10.0f);
}

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
    std::vector<CellView> cells;
    hash.forEachCell([&](const CellView& c) { cells.push_back(c); });
    ASSERT_EQ(cells.size(), 2u);
    std::sort(cells.begin(), cells.end(), [](const CellView& a, const CellView& b) { return a.bounds.minX < b.bounds.minX; });
    EXPECT_EQ(cells[0].bounds.minX, -10.0f);
    EXPECT_EQ(cells[0].count, 1u);
    EXPECT_EQ(cells[1].bounds.minX, 0.0f);
    EXPECT_EQ(cells[1].count, 2u);
}

}  // namespace
}  // namespace ro

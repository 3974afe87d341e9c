// The uniform grid: its counters, a cell too small for the bounds, entities covering too many
// cells, and the overlay of occupied cells.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "broadphase/grid/grid.h"
#include "support/scenes.h"
#include "support/settings.h"

namespace ro {
namespace {

using test::spreadBoxes;

TEST(SpatialGrid, CountersDescribeTheStep) {
    const test::BoxSet boxes = spreadBoxes(500, 10.0f, 4.0f);  // apart: no overlaps
    SpatialGrid grid;
    grid.configure(test::withCell(10.0f, Aabb{0, 0, 500, 100}));
    EXPECT_TRUE(test::techniqueOverlaps(grid, boxes.view()).empty());
    const Counters& c = grid.counters();
    EXPECT_GE(c.pairTests, c.candidatePairs);
    EXPECT_GE(c.elementsVisited, 500u);
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
    EXPECT_LE(grid.counters().elementsVisited, 2u * 300u * 49u) << "the huge boxes were put in the grid";
    EXPECT_GE(grid.counters().pairTests, 2u * 300u) << "each huge box is tested against every entity";
}

TEST(SpatialGrid, OverlayShowsOccupiedCellsWithTheirCounts) {
    test::BoxSet boxes;
    boxes.add({1, 1, 2, 2});
    boxes.add({3, 3, 4, 4});    // same cell as the first
    boxes.add({12, 1, 18, 2});  // the next cell to the right
    SpatialGrid grid;
    grid.configure(test::withCell(10.0f, Aabb{0, 0, 100, 100}));
    (void)test::techniqueOverlaps(grid, boxes.view());
    std::vector<StructureElement> cells;
    grid.forEachElement([&](const StructureElement& c) { cells.push_back(c); });
    ASSERT_EQ(cells.size(), 2u);
    EXPECT_EQ(cells[0].count, 2u);
    EXPECT_EQ(cells[0].bounds.minX, 0.0f);
    EXPECT_EQ(cells[1].count, 1u);
    EXPECT_EQ(cells[1].bounds.minX, 10.0f);
}

}  // namespace
}  // namespace ro

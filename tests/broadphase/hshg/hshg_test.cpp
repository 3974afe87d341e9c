// The hierarchical grid's structure: which level a size goes to, one cell per entity, rehash
// only on cell change, the two search directions between levels, and the hard inputs.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "support/settings.h"
#include "broadphase/brute/brute.h"
#include "broadphase/hshg/hshg.h"
#include "ro/rng.h"
#include "support/scenes.h"

namespace ro {
namespace {

Settings withFactor(float factor) {
    Settings settings;
    settings.set(HierarchicalGrid::kFactorParameter.key, factor);
    return settings;
}

test::BoxSet randomBoxes(std::uint64_t seed, std::uint32_t count, float extent, float minSide, float maxSide) {
    Rng rng(seed);
    test::BoxSet boxes;
    for (std::uint32_t i = 0; i < count; ++i) {
        const float x = rng.range(-extent, extent);
        const float y = rng.range(-extent, extent);
        boxes.add({x, y, x + rng.range(minSide, maxSide), y + rng.range(minSide, maxSide)});
    }
    return boxes;
}

/// Cells per level and entities per level, from the overlay.
struct Census {
    std::map<std::uint32_t, std::uint32_t> cells, entities;
    std::uint32_t total = 0;
};

Census census(const HierarchicalGrid& grid) {
    Census c;
    grid.forEachElement([&](const StructureElement& cell) {
        EXPECT_EQ(cell.kind, StructureElement::Kind::Cell);
        EXPECT_GT(cell.count, 0u);
        ++c.cells[cell.level];
        c.entities[cell.level] += cell.count;
        c.total += cell.count;
    });
    return c;
}

/// Point, box, ray and first-hit queries against brute force on random probes near the boxes.
void expectQueriesMatchBruteForce(HierarchicalGrid& grid, const BoxView& view, float extent, std::uint64_t seed) {
    BruteForce brute;
    brute.update(view);
    Rng rng(seed);
    std::vector<std::uint32_t> got, expected;
    std::vector<RayHit> hits, expectedHits;
    std::optional<RayHit> first, expectedFirst;
    const auto sorted = [](std::vector<std::uint32_t> v) {
        std::sort(v.begin(), v.end());
        return v;
    };
    for (int q = 0; q < 200; ++q) {
        const Vec2 a{rng.range(-extent, extent), rng.range(-extent, extent)};
        const Vec2 b{rng.range(-extent, extent), rng.range(-extent, extent)};
        (void)grid.queryPoint(a, got);
        (void)brute.queryPoint(a, expected);
        ASSERT_EQ(sorted(got), sorted(expected)) << "point " << q;
        const Aabb box{std::min(a.x, b.x), std::min(a.y, b.y), std::max(a.x, b.x), std::max(a.y, b.y)};
        (void)grid.queryBox(box, got);
        (void)brute.queryBox(box, expected);
        ASSERT_EQ(sorted(got), sorted(expected)) << "box " << q;
        (void)grid.queryRay({a, b}, hits);
        (void)brute.queryRay({a, b}, expectedHits);
        ASSERT_EQ(hits, expectedHits) << "ray " << q;
        (void)grid.raycastFirst({a, b}, first);
        (void)brute.raycastFirst({a, b}, expectedFirst);
        ASSERT_EQ(first, expectedFirst) << "first hit " << q;
    }
}

TEST(HierarchicalGrid, LevelsGrowByTheFactorUpToTheLargestEntity) {
    test::BoxSet boxes;
    for (const float side : {1.0f, 2.0f, 3.0f, 8.0f}) boxes.add({10.0f * side, 0.0f, 10.0f * side + side, side});
    HierarchicalGrid grid;
    grid.configure(withFactor(2.0f));
    (void)test::techniqueOverlaps(grid, boxes.view());
    // A level holds the sides up to s_0 * f^L; 8 = 1 * 2^3, so s_0 is the smallest side (plus
    // 2^-8 of it, the margin for rounding).
    EXPECT_EQ(grid.levelOfSide(0.0f), 0u);
    EXPECT_EQ(grid.levelOfSide(1.0f), 0u);
    EXPECT_EQ(grid.levelOfSide(1.5f), 1u);
    EXPECT_EQ(grid.levelOfSide(2.0f), 1u);
    EXPECT_EQ(grid.levelOfSide(3.0f), 2u);
    EXPECT_EQ(grid.levelOfSide(4.0f), 2u);
    EXPECT_EQ(grid.levelOfSide(4.01f), 2u) << "within the margin";
    EXPECT_EQ(grid.levelOfSide(4.02f), 3u);
    EXPECT_EQ(grid.levelOfSide(8.0f), 3u);
    EXPECT_EQ(grid.levelOfSide(3.0e30f), HierarchicalGrid::kMaxLevels) << "wider than kMaxSide: skips the levels";
    // Cells are a hair larger than the sizes they hold, and the HUD shows the smallest.
    for (std::uint32_t level = 0; level < 4; ++level) {
        const double size = std::ldexp(1.0, static_cast<int>(level));
        EXPECT_GE(grid.levelCellSize(level), size);
        EXPECT_LT(grid.levelCellSize(level), size * 1.006);
        EXPECT_EQ(grid.levelPopulation(level), 1u);
    }
    EXPECT_EQ(test::extra(grid.counters(), "cell_size"), grid.levelCellSize(0));
    const Census c = census(grid);
    EXPECT_EQ(c.entities, (std::map<std::uint32_t, std::uint32_t>{{0, 1}, {1, 1}, {2, 1}, {3, 1}}));
    EXPECT_EQ(grid.validate(), "");
}

TEST(HierarchicalGrid, LevelsAreAnchoredAtTheLargestEntity) {
    // With f = 2: sides 1 and 3 go to levels of sizes 1.5 and 3 (not 1 and 4, anchored at the
    // smallest); sides 0.8-1.2 share one level of size 1.2 (not 0.8 and 1.6); sides 0.8 and 40
    // go to levels 1.25 and 40.
    for (const auto& [smallest, largest, largestLevel] :
         {std::tuple{1.0f, 3.0f, 1u}, std::tuple{0.8f, 1.2f, 0u}, std::tuple{0.8f, 40.0f, 5u}}) {
        SCOPED_TRACE(testing::Message() << "sides " << smallest << " to " << largest);
        test::BoxSet boxes;
        boxes.add({0.0f, 0.0f, smallest, smallest});
        boxes.add({0.0f, 5.0f, 1.0f, 6.0f});
        boxes.add({0.0f, 50.0f, largest, 50.0f + largest});
        HierarchicalGrid grid;
        grid.configure(withFactor(2.0f));
        EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
        const std::uint32_t level = grid.levelOfSide(largest);
        EXPECT_EQ(level, largestLevel);
        EXPECT_GE(grid.levelSize(level), largest);
        EXPECT_LT(grid.levelSize(level), largest * 1.005) << "the largest fill their level";
        EXPECT_EQ(grid.levelOfSide(smallest), 0u);
        EXPECT_LT(grid.levelSize(0), smallest * 2.0f);
        EXPECT_EQ(grid.validate(), "");
    }
}

TEST(HierarchicalGrid, TheSmallestMayShrinkWithinTheFactorWithoutARebuild) {
    // Anchored at 40 with a smallest side of 1.26, s_0 = 2.5 (40 / 2^4, plus the margin). The
    // hysteresis is the smallest side's, not s_0's: a new box of side 1.24, under s_0 / 2,
    // joins level 0 without moving anyone else.
    test::BoxSet boxes;
    boxes.add({5.0f, 0.0f, 6.26f, 1.26f});
    boxes.add({10.0f, 0.0f, 50.0f, 40.0f});
    HierarchicalGrid grid;
    grid.configure(withFactor(2.0f));
    (void)test::techniqueOverlaps(grid, boxes.view());
    const double level0 = grid.levelSize(0);
    ASSERT_GT(level0 / 2.0, 1.24);
    boxes.add({0.0f, 0.0f, 1.24f, 1.24f});
    EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
    EXPECT_EQ(grid.levelSize(0), level0);
    EXPECT_EQ(grid.levelOfSide(1.24f), 0u);
    EXPECT_EQ(grid.rehashedLastUpdate(), 1u) << "only the new box";
    EXPECT_EQ(grid.validate(), "");
}

TEST(HierarchicalGrid, AFactorChangeTakesEffectAtTheNextUpdate) {
    const test::BoxSet boxes = randomBoxes(3, 400, 100.0f, 0.5f, 20.0f);
    HierarchicalGrid grid;
    grid.configure(withFactor(2.0f));
    EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
    const double level3 = grid.levelCellSize(3);
    EXPECT_NEAR(level3 / grid.levelCellSize(0), 8.0, 1e-9);

    grid.configure(withFactor(3.0f));
    EXPECT_EQ(grid.levelCellSize(3), level3) << "changed before the next update";
    EXPECT_EQ(grid.validate(), "");
    EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
    EXPECT_NEAR(grid.levelCellSize(3) / grid.levelCellSize(0), 27.0, 1e-9);
    EXPECT_EQ(grid.levelOfSide(3.0f * static_cast<float>(grid.levelCellSize(0)) * 0.999f), 1u);
    EXPECT_EQ(grid.rehashedLastUpdate(), 400u) << "new cells for everyone";
    EXPECT_EQ(grid.validate(), "");

    EXPECT_THROW(grid.configure(withFactor(1.2f)), std::invalid_argument);
    EXPECT_THROW(grid.configure(withFactor(17.0f)), std::invalid_argument);
}

TEST(HierarchicalGrid, EveryEntityIsInExactlyOneCell) {
    for (const float factor : {1.5f, 2.0f, 4.0f, 16.0f}) {
        SCOPED_TRACE(factor);
        const test::BoxSet boxes = randomBoxes(5, 3000, 300.0f, 0.1f, 40.0f);
        HierarchicalGrid grid;
        grid.configure(withFactor(factor));
        EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
        const Census c = census(grid);
        EXPECT_EQ(c.total, boxes.size()) << "forEachElement counts must sum to the entity count";
        for (const auto& [level, count] : c.entities) EXPECT_EQ(count, grid.levelPopulation(level));
        EXPECT_GT(c.entities.size(), 1u) << "sizes from 0.1 to 40 should span several levels";
        EXPECT_EQ(grid.validate(), "");
    }
}

TEST(HierarchicalGrid, RehashesOnlyEntitiesWhoseCellChanged) {
    test::BoxSet boxes;
    for (int i = 0; i < 100; ++i) {
        const float x = static_cast<float>(i % 10) * 10.0f + 3.0f;
        const float y = static_cast<float>(i / 10) * 10.0f + 3.0f;
        boxes.add({x, y, x + 2.0f, y + 2.0f});  // every side 2: one level, cells of ~2
    }
    HierarchicalGrid grid;
    (void)test::techniqueOverlaps(grid, boxes.view());
    EXPECT_EQ(grid.rehashedLastUpdate(), 100u) << "the first update places everyone";
    (void)test::techniqueOverlaps(grid, boxes.view());
    EXPECT_EQ(grid.rehashedLastUpdate(), 0u) << "nothing moved";

    const double cell = grid.levelCellSize(0);
    const auto moveTo = [&](std::uint32_t i, float x) {
        boxes.minX[i] = x;
        boxes.maxX[i] = x + 2.0f;
    };
    // Entity 0 sits at x = 3: its min corner is in column floor(3 / cell) = 1.
    moveTo(0, static_cast<float>(cell) * 1.5f);  // still column 1
    EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
    EXPECT_EQ(grid.rehashedLastUpdate(), 0u) << "moved inside its cell";
    moveTo(0, static_cast<float>(cell) * 2.5f);  // column 2
    EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
    EXPECT_EQ(grid.rehashedLastUpdate(), 1u) << "moved to the next cell";

    // Swap-remove entity 5 as the world does: the last entity takes its dense index and keeps
    // its id. Dense indices change, cells do not: no rehash, and the pairs follow.
    test::BoxSet fewer = boxes;
    for (auto* v : {&fewer.minX, &fewer.minY, &fewer.maxX, &fewer.maxY}) {
        (*v)[5] = v->back();
        v->pop_back();
    }
    fewer.ids[5] = fewer.ids.back();
    fewer.ids.pop_back();
    EXPECT_EQ(test::techniqueOverlaps(grid, fewer.view()), test::referenceOverlaps(fewer.view()));
    EXPECT_EQ(grid.rehashedLastUpdate(), 0u);
    EXPECT_EQ(grid.validate(), "");

    // A new entity is inserted, no one else.
    fewer.add({50.0f, 50.0f, 52.0f, 52.0f});
    fewer.ids.back() = 1000;
    EXPECT_EQ(test::techniqueOverlaps(grid, fewer.view()), test::referenceOverlaps(fewer.view()));
    EXPECT_EQ(grid.rehashedLastUpdate(), 1u);
    EXPECT_EQ(grid.validate(), "");
}

TEST(HierarchicalGrid, FortyTimesSizesEqualBruteForceInBothSearchDirections) {
    // Many small boxes and a few 40x larger: the large ones look down over their footprint.
    // A few small boxes among many large: the small ones look up into the large ones' cells.
    struct Case {
        std::uint32_t small, large;
        bool down;
    };
    for (const Case k : {Case{3000, 60, true}, Case{20, 600, false}}) {
        SCOPED_TRACE(k.small);
        Rng rng(11);
        test::BoxSet boxes;
        for (std::uint32_t i = 0; i < k.small + k.large; ++i) {
            const float side = i < k.small ? 1.0f : 40.0f;
            const float x = rng.range(-200, 200);
            const float y = rng.range(-200, 200);
            boxes.add({x, y, x + side, y + side});
        }
        HierarchicalGrid grid;
        for (int step = 0; step < 5; ++step) {
            ASSERT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
            ASSERT_EQ(grid.validate(), "");
            for (std::uint32_t i = 0; i < boxes.size(); ++i) {  // move everyone a little
                const float dx = rng.range(-1.5f, 1.5f);
                const float dy = rng.range(-1.5f, 1.5f);
                boxes.minX[i] += dx, boxes.maxX[i] += dx, boxes.minY[i] += dy, boxes.maxY[i] += dy;
            }
        }
        ASSERT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
        const std::uint32_t small = grid.levelOfSide(1.0f);
        const std::uint32_t large = grid.levelOfSide(40.0f);
        EXPECT_EQ(small, 0u);
        EXPECT_EQ(large, 5u) << "s_0 = 40 / 2^5 = 1.25";
        EXPECT_EQ(grid.searchesDown(small, large), k.down);
        expectQueriesMatchBruteForce(grid, boxes.view(), 250.0f, 12);
    }
}

// findPairs writes over the caller's vector from its start, and scans a level where many
// entities find pairs without a branch per hit (from the second step on). Both are checked
// here: a vector holding stale pairs, a crowded single level (more pairs than entities), and
// large boxes over many small ones (the cross-level table path), over several steps. In the
// last case each large box meets over 512 small ones in its first 32 rows, where the table
// path stops listing slots and tests each row's run in place.
TEST(HierarchicalGrid, AReusedOutputAndCrowdedLevelsMatchBruteForce) {
    struct Case {
        const char* name;
        std::uint32_t small, large;
        float extent, largeSide;
    };
    for (const Case k : {Case{"crowded", 600, 0, 12.0f, 0.0f}, Case{"large over small", 4000, 80, 150.0f, 40.0f},
                         Case{"large over many small", 2500, 40, 30.0f, 60.0f}}) {
        SCOPED_TRACE(k.name);
        Rng rng(23);
        test::BoxSet boxes;
        for (std::uint32_t i = 0; i < k.small + k.large; ++i) {
            const float side = i < k.small ? rng.range(1.0f, 1.5f) : rng.range(k.largeSide / 2, k.largeSide);
            const float x = rng.range(-k.extent, k.extent);
            const float y = rng.range(-k.extent, k.extent);
            boxes.add({x, y, x + side, y + side});
        }
        HierarchicalGrid grid;
        std::vector<Pair> out(5000, Pair{7, 3});  // stale, and not even ordered
        for (int step = 0; step < 6; ++step) {
            SCOPED_TRACE(step);
            const BoxView view = boxes.view();
            grid.update(view);
            grid.findPairs(out);
            ASSERT_EQ(out.size(), grid.counters().candidatePairs);
            const std::set<Pair> found(out.begin(), out.end());
            ASSERT_EQ(found.size(), out.size()) << "a pair reported twice";
            ASSERT_EQ(found, test::referenceOverlaps(view));  // so every candidate overlaps, each once, a < b
            if (k.large == 0) {
                ASSERT_GT(out.size(), boxes.size()) << "the scene must be crowded";
            }
            for (std::uint32_t i = 0; i < boxes.size(); ++i) {  // move everyone a little
                const float dx = rng.range(-0.3f, 0.3f);
                const float dy = rng.range(-0.3f, 0.3f);
                boxes.minX[i] += dx, boxes.maxX[i] += dx, boxes.minY[i] += dy, boxes.maxY[i] += dy;
            }
        }
    }
}

TEST(HierarchicalGrid, SidesOneFloatAcrossALevelBoundGoToTheLevelTheirSizePicks) {
    // An entity that stays on its level is checked against the level's bounds on floats. With
    // factor 3 and the levels anchored at a side of 72.9f the bounds are not floats; sides at
    // the float just under and just over each bound, each kept for a step (so the float check
    // decides), must land where the double test puts them: validate() compares every entity's
    // level with it.
    HierarchicalGrid grid;
    grid.configure(withFactor(3.0f));
    const auto withFixedSizes = [](const Aabb& also) {
        test::BoxSet boxes;
        boxes.add({0.0f, 0.0f, 0.1f, 0.1f});          // the smallest side
        boxes.add({100.0f, 100.0f, 172.9f, 172.9f});  // the largest, which the levels are anchored at
        boxes.add(also);
        return boxes;
    };
    grid.update(withFixedSizes({0.0f, 5.0f, 1.0f, 6.0f}).view());
    for (int level = 1; level <= 4; ++level) {
        const double bound = grid.levelSize(static_cast<std::uint32_t>(level));
        ASSERT_NE(static_cast<double>(static_cast<float>(bound)), bound) << "a bound that is a float tests nothing";
        float under = static_cast<float>(bound);
        if (static_cast<double>(under) > bound) under = std::nextafter(under, 0.0f);
        const float over = std::nextafter(under, 1.0e30f);
        ASSERT_GT(static_cast<double>(over), bound);
        for (const float side : {under, under, over, over, under}) {
            SCOPED_TRACE(testing::Message() << "level " << level << ", side " << side);
            // From x = 0 the width is exactly `side` (5 + side would round it); the height is less.
            const test::BoxSet boxes = withFixedSizes({0.0f, 20.0f, side, 20.0f + side / 2.0f});
            grid.update(boxes.view());
            ASSERT_EQ(grid.validate(), "");
            ASSERT_EQ(grid.levelSize(static_cast<std::uint32_t>(level)), bound) << "the levels stay put";
            ASSERT_EQ(grid.levelOfSide(side), side == under ? level : level + 1);
        }
    }
}

TEST(HierarchicalGrid, BoxesTouchingExactlyOnCellEdgesPair) {
    // Sides equal to the level sizes (1, 2, 4), corners on multiples of them: every contact is
    // an exact touch, on or next to a cell boundary.
    test::BoxSet boxes;
    for (int y = 0; y < 12; ++y) {
        for (int x = 0; x < 12; ++x) {
            const float side = static_cast<float>(1 << ((x + y) % 3));
            const auto fx = static_cast<float>(x * 4);
            const auto fy = static_cast<float>(y * 4);
            boxes.add({fx, fy, fx + side, fy + side});
            boxes.add({fx + side, fy, fx + 4.0f, fy + side});  // touches the previous one's right edge
        }
    }
    for (const float factor : {2.0f, 1.5f, 3.0f}) {
        SCOPED_TRACE(factor);
        HierarchicalGrid grid;
        grid.configure(withFactor(factor));
        const auto expected = test::referenceOverlaps(boxes.view());
        EXPECT_GT(expected.size(), 300u);
        EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), expected);
        EXPECT_EQ(grid.validate(), "");
        expectQueriesMatchBruteForce(grid, boxes.view(), 50.0f, 5);
    }
}

TEST(HierarchicalGrid, HardInputsMatchBruteForce) {
    test::BoxSet boxes = randomBoxes(21, 500, 200.0f, 0.5f, 3.0f);
    for (int i = 0; i < 50; ++i) boxes.add({7.25f, -3.5f, 7.25f, -3.5f});         // coincident points
    for (int i = 0; i < 50; ++i) boxes.add({-120.0f, -80.0f, -117.0f, -79.0f});   // coincident boxes
    boxes.add({-10000.0f, -10000.0f, 10000.0f, 10000.0f});                          // 20000 wide
    boxes.add({-9000.0f, 150.0f, 9000.0f, 9000.0f});
    boxes.add({1.0e6f, 1.0e6f, 1.0e6f + 1.0f, 1.0e6f + 1.0f});                      // far away
    boxes.add({1.0e6f + 0.5f, 1.0e6f, 1.0e6f + 2.0f, 1.0e6f + 2.0f});
    boxes.add({1.0e9f, 1.0e9f, 1.0e9f + 256.0f, 1.0e9f + 256.0f});                  // where cells clamp
    boxes.add({1.0e9f + 128.0f, 1.0e9f, 1.0e9f + 384.0f, 1.0e9f + 128.0f});
    boxes.add({-3.0e9f, 5.0e8f, -3.0e9f, 5.0e8f});
    boxes.add({-3.0e38f, -1.0f, 3.0e38f, 1.0f});                                    // wider than kMaxSide
    boxes.add({0.0f, 0.0f, 0.0f, 0.0f});
    for (const float factor : {2.0f, 1.5f}) {
        SCOPED_TRACE(factor);
        HierarchicalGrid grid;
        grid.configure(withFactor(factor));
        EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
        EXPECT_EQ(grid.validate(), "");
        // The 20000-wide boxes fit a level (the top one, stretched, when 24 levels of 1.5x
        // from the smallest side fall short); only the 6e38-wide box skips the levels.
        const std::uint32_t level = grid.levelOfSide(20000.0f);
        ASSERT_LT(level, HierarchicalGrid::kMaxLevels);
        EXPECT_GE(grid.levelCellSize(level), 20000.0);
        std::uint32_t placed = 0;
        for (std::uint32_t l = 0; l < HierarchicalGrid::kMaxLevels; ++l) placed += grid.levelPopulation(l);
        EXPECT_EQ(placed, boxes.size() - 1);
        expectQueriesMatchBruteForce(grid, boxes.view(), 300.0f, 7);
        // Points, boxes and rays far out, where cells clamp.
        BruteForce brute;
        brute.update(boxes.view());
        std::vector<std::uint32_t> got, expected;
        std::vector<RayHit> hits, expectedHits;
        for (const Vec2 p : {Vec2{1.0e6f + 0.75f, 1.0e6f + 0.5f}, Vec2{1.0e9f + 200.0f, 1.0e9f + 100.0f},
                             Vec2{-3.0e9f, 5.0e8f}, Vec2{0.0f, 0.0f}, Vec2{7.25f, -3.5f}}) {
            (void)grid.queryPoint(p, got);
            (void)brute.queryPoint(p, expected);
            std::sort(got.begin(), got.end());
            EXPECT_EQ(got, expected) << p.x << ", " << p.y;
            EXPECT_FALSE(got.empty());
        }
        (void)grid.queryBox({1.0e9f - 10.0f, 1.0e9f - 10.0f, 1.0e9f + 130.0f, 1.0e9f + 10.0f}, got);
        (void)brute.queryBox({1.0e9f - 10.0f, 1.0e9f - 10.0f, 1.0e9f + 130.0f, 1.0e9f + 10.0f}, expected);
        std::sort(got.begin(), got.end());
        EXPECT_EQ(got, expected);
        for (const Segment ray : {Segment{{-4.0e9f, 5.0e8f}, {1.0e9f, 5.0e8f}}, Segment{{0.0f, 0.0f}, {1.1e9f, 1.1e9f}},
                                  Segment{{1.0e6f + 3.0f, 1.0e6f + 0.5f}, {1.0e6f - 3.0f, 1.0e6f + 0.5f}}}) {
            (void)grid.queryRay(ray, hits);
            (void)brute.queryRay(ray, expectedHits);
            EXPECT_EQ(hits, expectedHits);
            EXPECT_FALSE(hits.empty());
        }
    }
}

TEST(HierarchicalGrid, SizesSpanningManyLevelsStayBounded) {
    // From 0.001 to 5000 with f = 1.5: 38 levels of growth, folded into at most 24.
    Rng rng(8);
    test::BoxSet boxes;
    float largest = 0.0f;
    for (int i = 0; i < 800; ++i) {
        const float side = std::pow(10.0f, rng.range(-3.0f, 3.7f));
        largest = std::max(largest, side);
        const float x = rng.range(-3000, 3000);
        const float y = rng.range(-3000, 3000);
        boxes.add({x, y, x + side, y + side});
    }
    HierarchicalGrid grid;
    grid.configure(withFactor(1.5f));
    EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
    EXPECT_EQ(grid.validate(), "");
    EXPECT_GT(largest, 4000.0f);
    EXPECT_EQ(grid.levelOfSide(largest), HierarchicalGrid::kMaxLevels - 1);
    EXPECT_GE(grid.levelCellSize(HierarchicalGrid::kMaxLevels - 1), largest) << "the top level stretches";
    EXPECT_GT(census(grid).entities.size(), 15u);
    expectQueriesMatchBruteForce(grid, boxes.view(), 3500.0f, 9);
}

TEST(HierarchicalGrid, ADuplicateIdIsRefusedAndTheLastStepStaysIntact) {
    test::BoxSet boxes = randomBoxes(2, 50, 20.0f, 1.0f, 2.0f);
    HierarchicalGrid grid;
    const std::set<Pair> expected = test::referenceOverlaps(boxes.view());
    EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), expected);
    boxes.ids[7] = boxes.ids[3];
    EXPECT_THROW(grid.update(boxes.view()), std::invalid_argument);
    EXPECT_EQ(grid.validate(), "");
    std::vector<Pair> pairs;
    grid.findPairs(pairs);
    EXPECT_EQ(std::set<Pair>(pairs.begin(), pairs.end()), expected) << "the refused step changed nothing";
    boxes.ids[7] = 7;
    EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), expected);
    EXPECT_EQ(grid.validate(), "");
}

TEST(HierarchicalGrid, TheSmallestSizeDriftsWithoutARebuild) {
    // s_0 is kept while the smallest entity stays within a factor f of it.
    test::BoxSet boxes = randomBoxes(4, 200, 50.0f, 1.0f, 3.0f);
    HierarchicalGrid grid;
    (void)test::techniqueOverlaps(grid, boxes.view());
    const double cell = grid.levelCellSize(0);
    boxes.add({0.0f, 0.0f, 0.7f, 0.7f});  // smaller, but within f = 2 of s_0
    boxes.ids.back() = 500;
    EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
    EXPECT_EQ(grid.levelCellSize(0), cell);
    EXPECT_EQ(grid.rehashedLastUpdate(), 1u);
    boxes.add({5.0f, 5.0f, 5.1f, 5.1f});  // ten times smaller: new levels for everyone
    boxes.ids.back() = 501;
    EXPECT_EQ(test::techniqueOverlaps(grid, boxes.view()), test::referenceOverlaps(boxes.view()));
    EXPECT_LT(grid.levelCellSize(0), cell / 5.0);
    EXPECT_EQ(grid.rehashedLastUpdate(), boxes.size());
    EXPECT_EQ(grid.validate(), "");
}

}  // namespace
}  // namespace ro

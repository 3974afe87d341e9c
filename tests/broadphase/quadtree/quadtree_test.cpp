// The quadtree: a leaf splits once it holds more than leaf_capacity, never below max_depth,
// an entity on a split line is stored once at the node it crosses, and the capacity, the depth
// and the bounds are read at the next update; entities outside the bounds are still found, and
// the tree is rebuilt and valid every step.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broadphase/brute/brute.h"
#include "broadphase/quadtree/quadtree.h"
#include "ro/rng.h"
#include "support/scenes.h"

namespace ro {
namespace {

Settings quadtreeSettings(const Aabb& bounds, double capacity, double depth) {
    return Settings(bounds, {{Quadtree::kCapacityParameter.key, capacity}, {Quadtree::kDepthParameter.key, depth}});
}

std::vector<StructureElement> overlayOf(const BroadPhase& technique) {
    std::vector<StructureElement> cells;
    technique.forEachElement([&](const StructureElement& c) { cells.push_back(c); });
    return cells;
}

/// The overlay's node at `level` whose region starts at (x0, y0); fails the test if there is none.
StructureElement nodeAt(const std::vector<StructureElement>& cells, std::uint32_t level, float x0, float y0) {
    for (const StructureElement& c : cells)
        if (c.level == level && c.bounds.minX == x0 && c.bounds.minY == y0) return c;
    ADD_FAILURE() << "no node at (" << x0 << ", " << y0 << ") level " << level;
    return StructureElement{};
}

std::uint32_t deepestOf(const std::vector<StructureElement>& cells) {
    std::uint32_t deepest = 0;
    for (const StructureElement& c : cells) deepest = std::max(deepest, c.level);
    return deepest;
}

std::uint32_t storedIn(const std::vector<StructureElement>& cells) {
    std::uint32_t stored = 0;
    for (const StructureElement& c : cells) stored += c.count;
    return stored;
}

std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
}

TEST(Quadtree, ALeafSplitsIntoQuadrantsOnlyOnceItHoldsMoreThanItsCapacity) {
    Quadtree tree;
    tree.configure(quadtreeSettings({0, 0, 100, 100}, 4, 6));
    test::BoxSet boxes;
    boxes.add({10, 10, 12, 12});  // four in the lower-left quadrant, one to a level-2 cell
    boxes.add({30, 10, 32, 12});
    boxes.add({10, 30, 12, 32});
    boxes.add({30, 30, 32, 32});
    EXPECT_EQ(test::techniqueOverlaps(tree, boxes.view()), test::referenceOverlaps(boxes.view()));
    ASSERT_EQ(tree.validate(), "");
    std::vector<StructureElement> cells = overlayOf(tree);
    ASSERT_EQ(cells.size(), 1u) << "4 entities at capacity 4: the root stays a leaf";
    EXPECT_EQ(cells[0].kind, StructureElement::Kind::Cell);
    EXPECT_EQ(cells[0].count, 4u);
    EXPECT_EQ(cells[0].bounds, (Aabb{0, 0, 100, 100}));

    boxes.add({70, 70, 72, 72});  // a fifth, in the upper-right quadrant
    EXPECT_EQ(test::techniqueOverlaps(tree, boxes.view()), test::referenceOverlaps(boxes.view()));
    ASSERT_EQ(tree.validate(), "");
    cells = overlayOf(tree);
    ASSERT_EQ(cells.size(), 5u) << "the root and its four children";
    EXPECT_EQ(tree.nodeCount(), 5u);
    EXPECT_EQ(cells[0].kind, StructureElement::Kind::Node);
    EXPECT_EQ(cells[0].count, 0u) << "every box fits a quadrant";
    const float lower[][2] = {{0, 0}, {50, 0}, {0, 50}, {50, 50}};
    const std::uint32_t counts[] = {4, 0, 0, 1};
    for (int k = 0; k < 4; ++k) {
        const StructureElement child = nodeAt(cells, 1, lower[k][0], lower[k][1]);
        EXPECT_EQ(child.kind, StructureElement::Kind::Cell) << k;
        EXPECT_EQ(child.count, counts[k]) << k;
        EXPECT_FLOAT_EQ(child.bounds.maxX, lower[k][0] + 50) << k;
        EXPECT_FLOAT_EQ(child.bounds.maxY, lower[k][1] + 50) << k;
    }

    boxes.add({11, 11, 21, 21});  // a fifth in the lower-left, overlapping the first: it splits again
    EXPECT_EQ(test::techniqueOverlaps(tree, boxes.view()), (std::set<Pair>{{0, 5}}));
    EXPECT_EQ(test::techniqueOverlaps(tree, boxes.view()), test::referenceOverlaps(boxes.view()));
    ASSERT_EQ(tree.validate(), "");
    cells = overlayOf(tree);
    EXPECT_EQ(tree.nodeCount(), 9u);
    EXPECT_EQ(tree.deepestLevel(), 2u);
    EXPECT_EQ(nodeAt(cells, 1, 0, 0).kind, StructureElement::Kind::Node);
    EXPECT_EQ(nodeAt(cells, 1, 50, 50).kind, StructureElement::Kind::Cell) << "one entity: no reason to split";
    EXPECT_EQ(nodeAt(cells, 2, 0, 0).count, 2u);
    EXPECT_EQ(nodeAt(cells, 2, 25, 0).count, 1u);
    EXPECT_EQ(nodeAt(cells, 2, 0, 25).count, 1u);
    EXPECT_EQ(nodeAt(cells, 2, 25, 25).count, 1u);
    EXPECT_EQ(storedIn(cells), boxes.size());
}

TEST(Quadtree, EntitiesStackedOnOnePointStayInOneLeafAtTheDepthLimit) {
    Quadtree tree;
    tree.configure(quadtreeSettings({0, 0, 100, 100}, 1, 3));
    test::BoxSet boxes;
    for (int i = 0; i < 40; ++i) boxes.add({60, 60, 61, 61});  // 0..39: lattice cell (4, 4) of 8 x 8
    boxes.add({10, 10, 14, 14});          // 40: alone in the lower-left quadrant
    boxes.add({80, 20, 84, 24});          // 41: alone in the lower-right quadrant
    boxes.add({60.5f, 60.5f, 70, 70});    // 42: over the stack, crossing x = y = 62.5 (level 3's lines)
    const std::set<Pair> expected = test::referenceOverlaps(boxes.view());
    ASSERT_EQ(expected.size(), 40u * 39u / 2u + 40u) << "the scene is not the one this test means";
    EXPECT_EQ(test::techniqueOverlaps(tree, boxes.view()), expected);
    ASSERT_EQ(tree.validate(), "");

    const std::vector<StructureElement> cells = overlayOf(tree);
    EXPECT_EQ(tree.deepestLevel(), 3u);
    EXPECT_EQ(deepestOf(cells), 3u);
    for (const StructureElement& c : cells) {
        EXPECT_LE(c.level, 3u);
        if (c.kind == StructureElement::Kind::Cell && c.count > 1) {
            EXPECT_EQ(c.level, 3u) << "a leaf over capacity above the limit";
        }
    }
    // Only the chain above the stack splits: root, its four, (2, 2)'s four at level 2, (4, 4)'s at 3.
    EXPECT_EQ(tree.nodeCount(), 13u);
    const StructureElement stack = nodeAt(cells, 3, 50, 50);
    EXPECT_EQ(stack.kind, StructureElement::Kind::Cell);
    EXPECT_EQ(stack.count, 40u) << "the whole stack in the one leaf at the limit";
    EXPECT_FLOAT_EQ(stack.bounds.maxX, 62.5f);
    EXPECT_FLOAT_EQ(stack.bounds.maxY, 62.5f);
    EXPECT_EQ(nodeAt(cells, 2, 50, 50).count, 1u) << "entity 42 crosses its children's split lines";
    EXPECT_EQ(storedIn(cells), boxes.size());

    std::vector<std::uint32_t> found;
    (void)tree.queryPoint({60.5f, 60.5f}, found);
    std::vector<std::uint32_t> want(40);
    std::iota(want.begin(), want.end(), 0u);
    want.push_back(42);
    EXPECT_EQ(sorted(found), want);
}

TEST(Quadtree, EntitiesAcrossTheSplitLinesAreStoredOnceAtTheParentAndMeetEveryQuadrant) {
    Quadtree tree;
    tree.configure(quadtreeSettings({0, 0, 100, 100}, 4, 4));
    test::BoxSet boxes;
    boxes.add({40, 40, 60, 60});  // 0: across both centre lines
    boxes.add({38, 38, 42, 42});  // 1: lower-left, on 0's corner
    boxes.add({58, 38, 62, 42});  // 2: lower-right, on 0's corner
    boxes.add({38, 58, 42, 62});  // 3: upper-left, on 0's corner
    boxes.add({58, 58, 62, 62});  // 4: upper-right, on 0's corner
    boxes.add({45, 20, 55, 22});  // 5: across x = 50 only, below y = 50
    boxes.add({44, 18, 46, 24});  // 6: lower-left, on 5's left end
    boxes.add({90, 90, 92, 92});  // 7: upper-right, alone
    EXPECT_EQ(test::techniqueOverlaps(tree, boxes.view()), (std::set<Pair>{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {5, 6}}));
    EXPECT_EQ(test::techniqueOverlaps(tree, boxes.view()), test::referenceOverlaps(boxes.view()));
    ASSERT_EQ(tree.validate(), "");

    const std::vector<StructureElement> cells = overlayOf(tree);
    ASSERT_EQ(cells.size(), 5u) << "8 entities at capacity 4: the root splits once";
    EXPECT_EQ(cells[0].level, 0u);
    EXPECT_EQ(cells[0].kind, StructureElement::Kind::Node);
    EXPECT_EQ(cells[0].count, 2u) << "the boxes across the centre lines stay at the root";
    const float lower[][2] = {{0, 0}, {50, 0}, {0, 50}, {50, 50}};
    const std::uint32_t counts[] = {2, 1, 1, 2};
    for (int k = 0; k < 4; ++k) {
        EXPECT_EQ(nodeAt(cells, 1, lower[k][0], lower[k][1]).count, counts[k]) << k;
    }
    EXPECT_EQ(storedIn(cells), boxes.size()) << "each entity stored exactly once";

    // Queries meet them once, inside, across the lines, and everywhere.
    std::vector<std::uint32_t> found;
    (void)tree.queryBox({48, 45, 52, 55}, found);
    EXPECT_EQ(found, std::vector<std::uint32_t>{0});
    (void)tree.queryBox({30, 30, 70, 70}, found);
    EXPECT_EQ(sorted(found), (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
    (void)tree.queryBox({-10, -10, 110, 110}, found);
    EXPECT_EQ(sorted(found), (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(Quadtree, ReadsItsCapacityDepthAndBoundsAtTheNextUpdate) {
    test::BoxSet boxes;
    for (int i = 0; i < 30; ++i) boxes.add({60, 60, 60, 60});  // points on one point: no depth splits them
    boxes.add({10, 10, 14, 14});
    boxes.add({80, 20, 84, 24});
    boxes.add({20, 80, 24, 84});
    const std::set<Pair> expected = test::referenceOverlaps(boxes.view());

    Quadtree tree;
    tree.configure(Settings({0, 0, 100, 100}, {}));  // the defaults: capacity 8, depth 10
    EXPECT_EQ(test::techniqueOverlaps(tree, boxes.view()), expected);
    ASSERT_EQ(tree.validate(), "");
    EXPECT_EQ(tree.deepestLevel(), static_cast<std::uint32_t>(Quadtree::kDepthParameter.defaultValue));
    const std::uint32_t defaultNodes = tree.nodeCount();

    tree.configure(Settings({0, 0, 100, 100}, {{"leaf_capacity", 1}, {"max_depth", 3}}));
    EXPECT_EQ(deepestOf(overlayOf(tree)), static_cast<std::uint32_t>(Quadtree::kDepthParameter.defaultValue))
        << "the overlay changed before the structure was rebuilt";
    EXPECT_EQ(tree.nodeCount(), defaultNodes);
    EXPECT_EQ(test::techniqueOverlaps(tree, boxes.view()), expected);
    ASSERT_EQ(tree.validate(), "");
    std::vector<StructureElement> cells = overlayOf(tree);
    EXPECT_EQ(deepestOf(cells), 3u);
    for (const StructureElement& c : cells) {
        if (c.kind == StructureElement::Kind::Cell && c.level < 3) {
            EXPECT_LE(c.count, 1u) << "capacity 1 above the limit";
        }
    }
    EXPECT_EQ(nodeAt(cells, 3, 50, 50).count, 30u);

    // A capacity above the count: the root alone holds everyone.
    tree.configure(quadtreeSettings({0, 0, 100, 100}, 40, 3));
    EXPECT_EQ(test::techniqueOverlaps(tree, boxes.view()), expected);
    EXPECT_EQ(tree.nodeCount(), 1u);
    EXPECT_EQ(overlayOf(tree)[0].count, boxes.size());

    // Other bounds (256 wide, so the lattice is exact): the root is the new region, and the
    // stack's level-3 leaf is the eighth of its side that holds (60, 60): [56, 88].
    tree.configure(quadtreeSettings({-40, -40, 216, 216}, 1, 3));
    EXPECT_EQ(test::techniqueOverlaps(tree, boxes.view()), expected);
    ASSERT_EQ(tree.validate(), "");
    cells = overlayOf(tree);
    ASSERT_FALSE(cells.empty());
    EXPECT_EQ(cells[0].bounds, (Aabb{-40, -40, 216, 216}));
    const StructureElement stack = nodeAt(cells, 3, 56, 56);
    EXPECT_EQ(stack.kind, StructureElement::Kind::Cell);
    EXPECT_EQ(stack.count, 30u);
    EXPECT_EQ(stack.bounds, (Aabb{56, 56, 88, 88}));
}

TEST(Quadtree, LeavesRespectCapacityUnlessAtTheDepthLimit) {
    const Aabb bounds{0, 0, 512, 512};
    const test::BoxSet boxes = [] {
        test::BoxSet b;
        Rng rng(77);
        for (int i = 0; i < 3000; ++i) b.add(test::boxAt(rng.range(0, 512), rng.range(0, 512), rng.range(0.2f, 3.0f)));
        for (int i = 0; i < 200; ++i) b.add(test::boxAt(100.3f, 200.3f, 0.1f));  // a crowd in one finest cell
        return b;
    }();
    const std::set<Pair> expected = test::referenceOverlaps(boxes.view());
    for (const std::uint32_t capacity : {1u, 4u, 16u}) {
        for (const std::uint32_t depth : {1u, 5u, 9u}) {
            SCOPED_TRACE("capacity " + std::to_string(capacity) + " depth " + std::to_string(depth));
            Quadtree tree;
            tree.configure(quadtreeSettings(bounds, capacity, depth));
            ASSERT_EQ(test::techniqueOverlaps(tree, boxes.view()), expected);
            ASSERT_EQ(tree.validate(), "");
            std::uint32_t deepest = 0, stored = 0, fullAtLimit = 0;
            tree.forEachElement([&](const StructureElement& c) {
                deepest = std::max(deepest, c.level);
                stored += c.count;
                if (c.kind == StructureElement::Kind::Cell && c.count > capacity) {
                    EXPECT_EQ(c.level, depth) << "a leaf above the depth limit holds " << c.count;
                    ++fullAtLimit;
                }
            });
            EXPECT_EQ(deepest, depth) << "3200 boxes should reach the limit";
            EXPECT_EQ(stored, boxes.size()) << "each entity is stored once";
            EXPECT_GE(fullAtLimit, 1u) << "the crowd of 200 cannot be split";
        }
    }
}

TEST(Quadtree, BoxesCrossingSplitLinesStayInTheNodeTheyCross) {
    Quadtree tree;
    tree.configure(quadtreeSettings({0, 0, 100, 100}, 1, 4));
    test::BoxSet boxes;
    boxes.add({49, 49, 51, 51});    // crosses both centre lines: the root
    boxes.add({10, 10, 12, 12});    // inside the lower-left quadrant
    boxes.add({80, 80, 82, 82});    // inside the upper-right quadrant
    boxes.add({20, 10, 50, 12});    // touches the vertical centre line: stays at the root
    boxes.add({70, 24, 72, 26});    // crosses the lower-right quadrant's horizontal line (y = 25)
    boxes.add({60, 5, 62, 7});      // with it in the lower-right quadrant, which must split
    (void)test::techniqueOverlaps(tree, boxes.view());
    ASSERT_EQ(tree.validate(), "");
    std::vector<StructureElement> cells;
    tree.forEachElement([&](const StructureElement& c) { cells.push_back(c); });
    ASSERT_FALSE(cells.empty());
    EXPECT_EQ(cells[0].kind, StructureElement::Kind::Node);
    EXPECT_EQ(cells[0].level, 0u);
    EXPECT_EQ(cells[0].count, 2u) << "the root keeps the two boxes on its split lines";
    const auto at = [&](float x0, float y0, std::uint32_t level) {
        for (const StructureElement& c : cells)
            if (c.level == level && c.bounds.minX == x0 && c.bounds.minY == y0) return c;
        ADD_FAILURE() << "no node at (" << x0 << ", " << y0 << ") level " << level;
        return StructureElement{};
    };
    EXPECT_EQ(at(50, 0, 1).kind, StructureElement::Kind::Node);
    EXPECT_EQ(at(50, 0, 1).count, 1u) << "the lower-right quadrant keeps the box on y = 25";
    EXPECT_EQ(at(0, 0, 1).kind, StructureElement::Kind::Cell);
    EXPECT_EQ(at(0, 0, 1).count, 1u);
    EXPECT_EQ(at(50, 50, 1).count, 1u);
}

TEST(Quadtree, EntitiesOutsideTheBoundsAreFoundByPairsAndQueries) {
    Quadtree tree;
    tree.configure(quadtreeSettings({0, 0, 100, 100}, 2, 6));
    test::BoxSet boxes;
    Rng rng(31);
    for (int i = 0; i < 150; ++i) boxes.add(test::boxAt(rng.range(-400, 500), rng.range(-300, 400), rng.range(0.5f, 8.0f)));
    boxes.add({-1000, 40, 1000, 42});      // crosses the whole world
    boxes.add({-5000, -5000, -4990, -4990});  // far away, alone
    boxes.add({-4995, -4995, -4980, -4980});  // ... but for this one
    boxes.add({99, 99, 140, 140});         // straddles the corner of the bounds
    EXPECT_EQ(test::techniqueOverlaps(tree, boxes.view()), test::referenceOverlaps(boxes.view()));
    EXPECT_EQ(tree.validate(), "");

    BruteForce brute;
    brute.update(boxes.view());
    std::vector<std::uint32_t> got, want;
    for (const Aabb q : {Aabb{-4996, -4996, -4994, -4994}, Aabb{120, 120, 130, 130}, Aabb{-300, -300, -100, -100},
                         Aabb{-2000, 41, 2000, 41}}) {
        (void)tree.queryBox(q, got);
        (void)brute.queryBox(q, want);
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        EXPECT_EQ(got, want) << "box query at " << q.minX << ", " << q.minY;
    }
    (void)tree.queryPoint({-4985, -4985}, got);
    EXPECT_EQ(got, std::vector<std::uint32_t>{152});
    std::vector<RayHit> hits, wantHits;
    const Segment ray{{-6000, -6000}, {600, 600}};
    (void)tree.queryRay(ray, hits);
    (void)brute.queryRay(ray, wantHits);
    EXPECT_EQ(hits, wantHits);
    std::optional<RayHit> first, wantFirst;
    (void)tree.raycastFirst(ray, first);
    (void)brute.raycastFirst(ray, wantFirst);
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(first, wantFirst);
    EXPECT_EQ(first->index, 151u);
}

TEST(Quadtree, AQueryAwayFromANodesSplitLinesSkipsTheEntitiesOnThem) {
    // 5,000 unit boxes at random: about 40 cross the root's centre lines and stay there. A
    // query two units or more from those lines meets neither run of the root, so it tests
    // fewer boxes than the root holds; every query still finds what brute force finds.
    Quadtree tree;
    tree.configure(quadtreeSettings({0, 0, 256, 256}, 8, 10));
    test::BoxSet boxes;
    Rng rng(13);
    for (int i = 0; i < 5000; ++i) {
        const float x = rng.range(0, 255), y = rng.range(0, 255);
        boxes.add({x, y, x + 1, y + 1});
    }
    BruteForce brute;
    const BoxView view = boxes.view();
    tree.update(view);
    brute.update(view);
    ASSERT_EQ(tree.validate(), "");
    const std::uint32_t rootHolds = overlayOf(tree)[0].count;
    ASSERT_GT(rootHolds, 20u);
    std::vector<std::uint32_t> found, want;
    int away = 0;
    for (int q = 0; q < 400; ++q) {
        const float x = rng.range(-5, 255), y = rng.range(-5, 255), side = rng.range(0, 6);
        const Aabb box{x, y, x + side, y + side};
        const QueryCost cost = tree.queryBox(box, found);
        (void)brute.queryBox(box, want);
        ASSERT_EQ(sorted(found), sorted(want)) << "query " << q;
        if (box.maxX < 126 || box.minX > 130) {
            if (box.maxY < 126 || box.minY > 130) {
                ++away;
                EXPECT_LT(cost.tests, rootHolds) << "query " << q;
            }
        }
    }
    EXPECT_GT(away, 300);
}

TEST(Quadtree, RebuildsEveryStepAndValidatesThroughout) {
    Quadtree tree;
    tree.configure(quadtreeSettings({0, 0, 300, 200}, 3, 7));
    test::Population population;
    Rng rng(8);
    std::uint32_t nextId = 0;
    for (int i = 0; i < 400; ++i) population.add(nextId++, test::boxAt(rng.range(0, 300), rng.range(0, 200), rng.range(0.5f, 5.0f)));
    for (int step = 0; step < 100; ++step) {
        if (step % 10 == 5) population.removeAt(rng.below(static_cast<std::uint32_t>(population.size())));
        if (step == 50) tree.configure(quadtreeSettings({-50, -50, 100, 100}, 1, 12));
        for (std::size_t i = 0; i < population.size(); ++i) {
            const Aabb b = population.boxes.view().box(static_cast<std::uint32_t>(i));
            const float dx = rng.range(-3, 3), dy = rng.range(-3, 3);
            population.set(i, {b.minX + dx, b.minY + dy, b.maxX + dx, b.maxY + dy});
        }
        ASSERT_EQ(test::techniqueOverlaps(tree, population.boxes.view()), test::referenceOverlaps(population.boxes.view()));
        ASSERT_EQ(tree.validate(), "") << "step " << step;
        if (step >= 50) {
            EXPECT_LE(tree.deepestLevel(), 12u);
        }
    }
}

}  // namespace
}  // namespace ro

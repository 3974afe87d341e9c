// The tree's grid of statics, alone and inside the tree.

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "broadphase/tree/static_cells.h"
#include "broadphase/tree/tree.h"
#include "ro/rng.h"
#include "support/scenes.h"

namespace ro {
namespace {

/// Statics of every size around (x0, y0): most near 1, some points, some 30 wide or tall.
std::vector<StaticCells::Static> mixedStatics(std::uint32_t count, float x0, float y0, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<StaticCells::Static> statics;
    for (std::uint32_t i = 0; i < count; ++i) {
        const float x = x0 + rng.range(0, 200), y = y0 + rng.range(0, 120);
        const float roll = rng.unit();
        const float w = roll < 0.05f ? 0.0f : roll < 0.08f ? 30.0f : rng.range(0.5f, 2.0f);
        const float h = roll < 0.05f ? 0.0f : roll > 0.97f ? 30.0f : rng.range(0.5f, 2.0f);
        statics.push_back({{x, y, x + w, y + h}, i, 1000 + i});
    }
    return statics;
}

/// Checks query() box by box, and queryAll() of the same boxes at once, against a loop.
void expectQueriesMatchALoop(const std::vector<StaticCells::Static>& statics, float x0, float y0) {
    StaticCells cells;
    ASSERT_TRUE(cells.build(statics));
    Rng rng(7);
    std::vector<Aabb> boxes;
    std::vector<std::multiset<std::uint32_t>> expected;
    for (int q = 0; q < 500; ++q) {
        const float x = x0 + rng.range(-20, 220), y = y0 + rng.range(-20, 140);
        boxes.push_back({x, y, x + rng.range(0.0f, 15.0f), y + rng.range(0.0f, 15.0f)});
        expected.emplace_back();
        for (const auto& s : statics)
            if (overlaps(s.box, boxes.back())) expected.back().insert(s.value);
    }
    std::vector<std::multiset<std::uint32_t>> found(boxes.size());
    for (std::size_t q = 0; q < boxes.size(); ++q) {
        cells.query(boxes[q], [&](const StaticCells::Static& hit) {
            found[q].insert(hit.value);
            EXPECT_EQ(hit.tag, 1000 + hit.value);
            EXPECT_EQ(hit.box, statics[hit.value].box);
        });
        ASSERT_EQ(found[q], expected[q]) << "query " << q;  // each once: a multiset shows repeats
    }
    std::vector<std::multiset<std::uint32_t>> foundAtOnce(boxes.size());
    std::vector<StaticCells::RowScan> scans;
    cells.queryAll(boxes, scans, [&](std::uint32_t q, const StaticCells::Static& hit) {
        foundAtOnce.at(q).insert(hit.value);
        EXPECT_EQ(hit.box, statics[hit.value].box);
    });
    for (std::size_t q = 0; q < boxes.size(); ++q) ASSERT_EQ(foundAtOnce[q], expected[q]) << "query " << q << " of queryAll";
}

TEST(StaticCells, QueriesFindEveryTouchingStaticOnceWhateverItsSize) {
    expectQueriesMatchALoop(mixedStatics(3000, 0, 0, 1), 0, 0);
}

TEST(StaticCells, QueriesStayExactAMillionUnitsFromTheOrigin) {
    expectQueriesMatchALoop(mixedStatics(3000, 1.0e6f, -1.0e6f, 2), 1.0e6f, -1.0e6f);
}

TEST(StaticCells, EdgesThatTouchCountAndBoxesOutsideFindNothing) {
    std::vector<StaticCells::Static> statics;
    for (std::uint32_t i = 0; i < 100; ++i)
        statics.push_back({{static_cast<float>(i), 0, static_cast<float>(i) + 1, 1}, i, 0});
    StaticCells cells;
    ASSERT_TRUE(cells.build(statics));
    std::set<std::uint32_t> found;
    cells.query({5, 1, 5, 3}, [&](const StaticCells::Static& hit) { found.insert(hit.value); });
    EXPECT_EQ(found, (std::set<std::uint32_t>{4, 5}));  // the corner (5, 1) of both
    found.clear();
    cells.query({-10, -10, -0.5f, 5}, [&](const StaticCells::Static& hit) { found.insert(hit.value); });
    cells.query({0, 1.5f, 200, 5}, [&](const StaticCells::Static& hit) { found.insert(hit.value); });
    EXPECT_TRUE(found.empty());
}

TEST(StaticCells, DeclinesWhereAGridWouldNotHelp) {
    StaticCells cells;
    EXPECT_FALSE(cells.build(mixedStatics(StaticCells::kMinStatics - 1, 0, 0, 3)));
    EXPECT_TRUE(cells.empty());
    // A tenth of them a thousand times the size of the rest: each would fill many cells.
    std::vector<StaticCells::Static> uneven = mixedStatics(1000, 0, 0, 4);
    for (std::uint32_t i = 0; i < uneven.size(); i += 10) uneven[i].box.maxX = uneven[i].box.minX + 1000.0f;
    EXPECT_FALSE(cells.build(uneven));
    EXPECT_TRUE(cells.empty());
    // A dense cluster in a wide field: the cells follow the mean density, so one would hold
    // the whole cluster and every query there would scan it.
    std::vector<StaticCells::Static> clustered = mixedStatics(1000, 0, 0, 5);
    for (auto& s : clustered) s.box = {s.box.minX / 20, s.box.minY / 20, s.box.minX / 20 + 0.5f, s.box.minY / 20 + 0.5f};
    Rng rng(6);
    for (std::uint32_t i = 0; i < 50; ++i) {
        const float x = rng.range(0, 1.0e5f), y = rng.range(0, 1.0e5f);
        clustered.push_back({{x, y, x + 1, y + 1}, 1000 + i, 0});
    }
    EXPECT_FALSE(cells.build(clustered));
    EXPECT_TRUE(cells.empty());
    // Every static at one point, under the per-cell bound: one cell holds them all, and answers.
    std::vector<StaticCells::Static> heap(StaticCells::kMaxPerCell, StaticCells::Static{{3, 3, 3, 3}, 0, 0});
    for (std::uint32_t i = 0; i < heap.size(); ++i) heap[i].value = i;
    ASSERT_TRUE(cells.build(heap));
    std::uint32_t hits = 0;
    cells.query({3, 3, 4, 4}, [&](const StaticCells::Static&) { ++hits; });
    EXPECT_EQ(hits, StaticCells::kMaxPerCell);
}

/// The overlapping pairs the rule lets through, by a double loop.
std::set<Pair> ruledOverlaps(const BoxView& boxes) {
    const PairRule rule(boxes);
    std::set<Pair> pairs;
    for (const Pair& p : test::referenceOverlaps(boxes))
        if (rule.accepts(p)) pairs.insert(p);
    return pairs;
}

/// Boxes each with a static flag and a filter (category 1, 2 or 4 in turn; every seventh box
/// meets category 1 alone), handed over as the world hands them.
struct RuledPopulation {
    test::Population population;
    std::vector<std::uint8_t> isStatic;
    std::vector<std::uint32_t> category, mask;

    void add(std::uint32_t i, const Aabb& box, bool still) {
        population.add(i, box);
        isStatic.push_back(still ? 1 : 0);
        category.push_back(1u << (i % 3));
        mask.push_back(i % 7 == 0 ? 1u : ~0u);
    }
    /// Swap-removes box i, as the world does: the last box takes its dense index.
    void removeAt(std::uint32_t i) {
        population.removeAt(i);
        isStatic[i] = isStatic.back(), category[i] = category.back(), mask[i] = mask.back();
        isStatic.pop_back(), category.pop_back(), mask.pop_back();
    }
    [[nodiscard]] std::uint32_t size() const { return population.size(); }
    [[nodiscard]] BoxView view() {
        BoxView boxes = population.boxes.view();
        boxes.isStatic = isStatic.data();
        boxes.category = category.data();
        boxes.mask = mask.data();
        return boxes;
    }
};

// A field of statics with movers, stepped as the world and ro_bench step it: moved lists,
// then steps where entities go (dense indices move), a static moves and filters change.
TEST(DynamicTree, AFieldOfStaticsAnsweredByItsGridMatchesBruteForceEveryStep) {
    Rng rng(11);
    RuledPopulation ruled;
    test::Population& population = ruled.population;
    const std::vector<std::uint8_t>& isStatic = ruled.isStatic;
    for (std::uint32_t i = 0; i < 3000; ++i) {
        const bool still = i % 20 != 0;
        const float half = still && i % 97 == 0 ? 12.0f : rng.range(0.3f, 1.0f);
        ruled.add(i, test::boxAt(rng.range(0, 300), rng.range(0, 200), half), still);
    }
    std::vector<Vec2> velocity(population.size());
    for (Vec2& v : velocity) v = {rng.range(-0.8f, 0.8f), rng.range(-0.8f, 0.8f)};
    const auto view = [&] { return ruled.view(); };
    DynamicTree tree;
    tree.update(view());
    bool gridSeen = false;
    for (int step = 0; step < 90; ++step) {
        std::vector<std::uint32_t> moved;
        for (std::uint32_t i = 0; i < population.size(); ++i) {
            if (isStatic[i]) continue;
            const Aabb b = population.boxes.view().box(i);
            population.set(i, {b.minX + velocity[i].x, b.minY + velocity[i].y, b.maxX + velocity[i].x, b.maxY + velocity[i].y});
            moved.push_back(i);
        }
        if (step == 30 || step == 60) {
            // Entities go (the last ones take their dense indices), then a static moves.
            for (int k = 0; k < 25; ++k) {
                const std::uint32_t i = rng.below(ruled.size());
                ruled.removeAt(i);
                velocity[i] = velocity.back();
                velocity.pop_back();
            }
            tree.update(view());
        } else if (step == 45) {
            const std::uint32_t i = 1;  // a static, moved by hand
            const Aabb b = population.boxes.view().box(i);
            population.set(i, {b.minX + 3, b.minY, b.maxX + 3, b.maxY});
            ruled.mask[2] = 2u;
            tree.update(view());
        } else {
            tree.updateMoved(view(), moved);
        }
        std::vector<Pair> found;
        tree.findPairs(found);
        ASSERT_EQ(std::set<Pair>(found.begin(), found.end()), ruledOverlaps(view())) << "step " << step;
        ASSERT_EQ(found.size(), std::set<Pair>(found.begin(), found.end()).size()) << "step " << step;
        ASSERT_EQ(tree.validate(), "") << "step " << step;
        gridSeen |= tree.usesStaticCells();
        if (step == 45) {
            EXPECT_FALSE(tree.usesStaticCells()) << "a static moved: the grid waits until the statics settle";
        }
    }
    EXPECT_TRUE(gridSeen);
    EXPECT_TRUE(tree.usesStaticCells());
}

// Movers alone keep no still reach; statics that come later, then go, must still pair with
// every mover they touch, and the movers that walk into them afterwards too.
TEST(DynamicTree, StaticsThatComeAfterTheMoversAndGoAgainPairAsTheRuleSays) {
    Rng rng(3);
    test::Population population;
    std::vector<std::uint8_t> isStatic;
    for (std::uint32_t i = 0; i < 400; ++i) {
        population.add(i, test::boxAt(rng.range(0, 100), rng.range(0, 100), rng.range(0.5f, 2.0f)));
        isStatic.push_back(0);
    }
    const auto view = [&] {
        BoxView boxes = population.boxes.view();
        boxes.isStatic = isStatic.data();
        return boxes;
    };
    DynamicTree tree;
    for (int step = 0; step < 60; ++step) {
        if (step == 10) {
            for (std::uint32_t i = 0; i < 300; ++i) {
                population.add(1000 + i, test::boxAt(rng.range(0, 100), rng.range(0, 100), rng.range(0.5f, 3.0f)));
                isStatic.push_back(1);
            }
        }
        if (step == 40) {  // the statics go
            while (isStatic.back() == 1) {
                population.removeAt(population.size() - 1);
                isStatic.pop_back();
            }
        }
        for (std::uint32_t i = 0; i < population.size(); ++i) {
            if (isStatic[i]) continue;
            const Aabb b = population.boxes.view().box(i);
            const float dx = 0.3f * static_cast<float>(static_cast<int>(i % 3) - 1), dy = 0.3f;
            population.set(i, {b.minX + dx, b.minY + dy, b.maxX + dx, b.maxY + dy});
        }
        tree.update(view());
        std::vector<Pair> found;
        tree.findPairs(found);
        ASSERT_EQ(std::set<Pair>(found.begin(), found.end()), ruledOverlaps(view())) << "step " << step;
        ASSERT_EQ(tree.validate(), "") << "step " << step;
        if (step == 30) {
            EXPECT_TRUE(tree.usesStaticCells());
        }
    }
}

// Steps where most movers jump far (a teleport) rebuild the movers' tree instead of
// reinserting each, and list every pair afresh; steps where a few jump reinsert them. Both
// kinds, among statics and filters, through full updates and moved lists, against the rule.
TEST(DynamicTree, AStepThatMovesMostLeavesOutOfTheirFatBoxesRebuildsTheMoversTree) {
    Rng rng(17);
    RuledPopulation ruled;
    test::Population& population = ruled.population;
    const std::vector<std::uint8_t>& isStatic = ruled.isStatic;
    for (std::uint32_t i = 0; i < 2500; ++i)
        ruled.add(i, test::boxAt(rng.range(0, 150), rng.range(0, 150), rng.range(0.3f, 2.0f)), i % 5 == 0);
    const auto view = [&] { return ruled.view(); };
    DynamicTree tree;
    tree.update(view());
    std::vector<Pair> found;
    tree.findPairs(found);
    const std::uint32_t movers = 2000;
    for (int step = 0; step < 24; ++step) {
        // Every third step two thirds of the movers jump anywhere (a different two thirds each
        // time), else 5% do; the others drift.
        const bool jumpStep = step % 3 == 0;
        std::vector<std::uint32_t> moved;
        for (std::uint32_t i = 0; i < population.size(); ++i) {
            if (isStatic[i]) continue;
            const Aabb b = population.boxes.view().box(i);
            const bool jumps = jumpStep ? (i / 5 + static_cast<std::uint32_t>(step / 3)) % 3 != 0 : rng.unit() < 0.05f;
            if (jumps) {
                const float x = rng.range(0, 150), y = rng.range(0, 150);
                population.set(i, {x, y, x + b.width(), y + b.height()});
            } else {
                population.set(i, {b.minX + 0.1f, b.minY, b.maxX + 0.1f, b.maxY});
            }
            moved.push_back(i);
        }
        if (step % 2 == 0) {
            tree.update(view());
        } else {
            tree.updateMoved(view(), moved);
        }
        // Rebuilt exactly when half the movers left. Neither way rotates a node: a rebuild
        // makes the tree anew, and the movers that left one at a time in an update's pass
        // grow their fat boxes where they stand (a move to where the SAH puts it would rotate
        // some of a hundred).
        const DynamicTree::StepStats stats = tree.stepStats();
        const bool halfLeft = stats.reinserted >= movers / 2;
        if (jumpStep) {
            EXPECT_TRUE(halfLeft) << "step " << step;
        }
        EXPECT_EQ(stats.rebuilds, halfLeft ? 1u : 0u) << "step " << step << ": " << stats.reinserted << " reinserted";
        EXPECT_EQ(stats.rotations, 0u) << "step " << step;
        ASSERT_EQ(tree.validate(), "") << "step " << step;
        tree.findPairs(found);
        ASSERT_EQ(std::set<Pair>(found.begin(), found.end()), ruledOverlaps(view())) << "step " << step;
        ASSERT_EQ(found.size(), std::set<Pair>(found.begin(), found.end()).size()) << "step " << step;
        ASSERT_EQ(tree.validate(), "") << "step " << step;
    }
}

}  // namespace
}  // namespace ro

// The dynamic AABB tree's structure: its invariants, balance and fat boxes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "broadphase/brute/brute.h"
#include "broadphase/fat_margin.h"
#include "broadphase/tree/tree.h"
#include "core/box_helpers.h"
#include "ro/rng.h"
#include "support/scenes.h"

namespace ro {
namespace {

Settings withMargin(float margin) {
    Settings s;
    s.set(DynamicTree::kMarginParameter.key, margin);
    return s;
}

std::set<Pair> pairsOf(BroadPhase& technique) {
    std::vector<Pair> candidates;
    technique.findPairs(candidates);
    return {candidates.begin(), candidates.end()};
}

/// Brute force updated to `boxes`; the tree's pairs equal its pairs, and the tree's
/// invariants hold.
void expectPairsOfBruteForce(DynamicTree& tree, BruteForce& brute, const BoxView& boxes, const char* when) {
    brute.update(boxes);
    EXPECT_EQ(pairsOf(tree), pairsOf(brute)) << when;
    EXPECT_EQ(tree.validate(), "") << when;
}

// ---- dynamic AABB tree --------------------------------------------------------------------

TEST(DynamicTree, EveryInvariantHoldsAfterEachOfThousandsOfRandomEdits) {
    DynamicTree tree;
    tree.configure(withMargin(2.0f));
    tree.update(test::BoxSet{}.view());  // settings take effect at an update
    test::Population population;
    Rng rng(2024);
    std::uint32_t nextId = 0;
    std::uint64_t reinserts = 0;
    // What the fat box must be: margin 2 around the last placement, stretched ahead along the
    // step that caused it (kPredictedSteps of it, at most kMaxStretch margins); not stretched
    // after a step longer than that whole reach, and none after two such steps in a row.
    std::map<std::uint32_t, Aabb> fatOf;
    std::map<std::uint32_t, bool> jumpedOf;
    const float reach = 2 * (1 + DynamicTree::kMaxStretch);
    const auto fatten = [](const Aabb& b, float dx = 0.0f, float dy = 0.0f) {
        Aabb fat{b.minX - 2, b.minY - 2, b.maxX + 2, b.maxY + 2};
        const float sx = std::clamp(DynamicTree::kPredictedSteps * dx, -2 * DynamicTree::kMaxStretch, 2 * DynamicTree::kMaxStretch);
        const float sy = std::clamp(DynamicTree::kPredictedSteps * dy, -2 * DynamicTree::kMaxStretch, 2 * DynamicTree::kMaxStretch);
        (sx > 0 ? fat.maxX : fat.minX) += sx;
        (sy > 0 ? fat.maxY : fat.minY) += sy;
        return fat;
    };
    for (int op = 0; op < 4000; ++op) {
        const float roll = rng.unit();
        const std::size_t count = population.size();
        if (count < 20 || roll < 0.35f) {
            const Aabb b = test::boxAt(rng.range(-50, 250), rng.range(-50, 150), rng.range(0.0f, 6.0f));
            tree.insert(nextId, b);
            fatOf[nextId] = fatten(b);
            population.add(nextId++, b);
        } else if (roll < 0.6f) {
            const std::uint32_t i = rng.below(static_cast<std::uint32_t>(count));
            tree.remove(population.boxes.ids[i]);
            fatOf.erase(population.boxes.ids[i]);
            jumpedOf.erase(population.boxes.ids[i]);
            population.removeAt(i);
        } else {
            const std::uint32_t i = rng.below(static_cast<std::uint32_t>(count));
            const Aabb old = population.boxes.view().box(i);
            // Mostly small steps (inside the fat box), sometimes a jump across the world.
            const float step = rng.unit() < 0.8f ? 0.5f : 80.0f;
            const float dx = rng.range(-step, step);
            const float dy = rng.range(-step, step);
            const Aabb b{old.minX + dx, old.minY + dy, old.maxX + dx, old.maxY + dy};
            const bool moved = tree.move(population.boxes.ids[i], b);
            const Aabb& fat = fatOf[population.boxes.ids[i]];
            const bool inside = fat.minX <= b.minX && fat.minY <= b.minY && b.maxX <= fat.maxX && b.maxY <= fat.maxY;
            ASSERT_EQ(moved, !inside) << "a leaf moves exactly when its box leaves its fat box";
            if (moved) {
                const std::uint32_t id = population.boxes.ids[i];
                const bool jump = std::abs(dx) > reach || std::abs(dy) > reach;
                fatOf[id] = jump && jumpedOf[id] ? b : jump ? fatten(b) : fatten(b, dx, dy);
                jumpedOf[id] = jump;
            }
            reinserts += moved;
            population.set(i, b);
        }
        ASSERT_EQ(tree.validate(), "") << "after operation " << op;
        ASSERT_EQ(tree.leafCount(), population.size());
        if (op % 50 == 0) {
            ASSERT_EQ(pairsOf(tree), test::referenceOverlaps(population.boxes.view())) << "after operation " << op;
            ASSERT_EQ(tree.validate(), "") << "after pairs at operation " << op;
        }
    }
    EXPECT_GT(reinserts, 0u);
    EXPECT_GT(tree.stepStats().rotations, 0u) << "insertions in random order should rotate sometimes";
}

TEST(DynamicTree, HeightStaysLogarithmicWhenBoxesArriveSorted) {
    // Sorted insertion is the worst case for a plain SAH tree: every new box goes to the end.
    for (const int layout : {0, 1, 2}) {
        SCOPED_TRACE("layout " + std::to_string(layout));
        DynamicTree tree;
        tree.configure(withMargin(0.1f));
        for (std::uint32_t i = 0; i < 4096; ++i) {
            const float x = layout == 1 ? static_cast<float>(i % 64) * 3.0f : static_cast<float>(i) * 3.0f;
            const float row = layout == 1 ? static_cast<float>(i / 64) : static_cast<float>(i);
            const float y = layout == 0 ? 0.0f : row * 3.0f;
            tree.insert(i, test::boxAt(x, y, 1.0f));
            const std::uint32_t n = i + 1;
            if ((n & (n - 1)) == 0 || n == 4096) {
                const double bound = 2.0 * std::log2(static_cast<double>(n)) + 2.0;
                ASSERT_LE(tree.height(), bound) << n << " leaves";
                ASSERT_EQ(tree.validate(), "") << n << " leaves";
            }
        }
        // Nor is it bought by giving up the SAH: each level of a good tree spans the boxes about
        // once (at most 6 units of half perimeter per box here), while a spine would sum to ~n^2.
        EXPECT_LT(tree.innerPerimeterSum(), 4096.0 * 6.3 * 2.0 * 12.0);
    }
    // Removing most of them keeps the bound too.
    DynamicTree tree;
    for (std::uint32_t i = 0; i < 2048; ++i) tree.insert(i, test::boxAt(static_cast<float>(i), 0.0f, 0.4f));
    for (std::uint32_t i = 0; i < 2048; ++i)
        if (i % 16 != 0) tree.remove(i);
    EXPECT_EQ(tree.validate(), "");
    EXPECT_LE(tree.height(), 2.0 * std::log2(128.0) + 2.0);
}

TEST(AabbTree, QueryManyFindsForEachBoxWhatItsOwnQueryFinds) {
    // Interleaved descents must find the same leaves per box as one query after another,
    // whether the boxes fill the lanes, leave some idle, or outnumber them many times.
    AabbTree tree;
    Rng rng(77);
    for (std::uint32_t i = 0; i < 3000; ++i) {
        const float half = i % 10 == 0 ? rng.range(5.0f, 30.0f) : rng.range(0.5f, 2.0f);
        tree.insert(test::boxAt(rng.range(0.0f, 200.0f), rng.range(0.0f, 200.0f), half), i);
    }
    for (const std::uint32_t count : {0u, 1u, 3u, AabbTree::kQueryLanes, 137u}) {
        SCOPED_TRACE(std::to_string(count) + " boxes");
        std::vector<Aabb> boxes;
        for (std::uint32_t k = 0; k < count; ++k) {
            // Boxes of every size, some outside the tree's bounds, some touching nothing.
            const float half = k % 7 == 0 ? rng.range(20.0f, 60.0f) : rng.range(0.0f, 3.0f);
            boxes.push_back(test::boxAt(rng.range(-30.0f, 230.0f), rng.range(-30.0f, 230.0f), half));
        }
        std::multiset<std::pair<std::uint32_t, std::uint32_t>> expected, got;
        std::uint64_t expectedVisits = 0;
        for (std::uint32_t k = 0; k < count; ++k)
            expectedVisits += tree.query(boxes[k], [&](std::uint32_t value) { expected.insert({k, value}); });
        const std::uint64_t visits = tree.queryMany(count, [&](std::uint32_t k) { return boxes[k]; },
                                                    [&](std::uint32_t k, std::uint32_t value) { got.insert({k, value}); });
        EXPECT_EQ(got, expected);
        EXPECT_EQ(visits, expectedVisits);
        if (count == 137) {
            EXPECT_GT(expected.size(), 137u);
        }
    }
}

TEST(AabbTree, EnlargedLeavesAreFoundExactlyAndARebuildMakesEveryBoxTightAgain) {
    AabbTree tree;
    Rng rng(31);
    std::vector<Aabb> boxes;
    std::vector<std::uint32_t> leaves;
    for (std::uint32_t i = 0; i < 1500; ++i) {
        boxes.push_back(test::boxAt(rng.range(0.0f, 100.0f), rng.range(0.0f, 100.0f), rng.range(0.2f, 3.0f)));
        leaves.push_back(tree.insert(boxes.back(), i));
    }
    for (int round = 0; round < 6; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        // Most a short step away, some across the world: the ancestors grow to hold them.
        for (int k = 0; k < 400; ++k) {
            const std::uint32_t i = rng.below(1500);
            const bool jump = rng.unit() < 0.1f;
            const float x = jump ? rng.range(0.0f, 100.0f) : 0.5f * (boxes[i].minX + boxes[i].maxX) + rng.range(-2.0f, 2.0f);
            const float y = jump ? rng.range(0.0f, 100.0f) : 0.5f * (boxes[i].minY + boxes[i].maxY) + rng.range(-2.0f, 2.0f);
            boxes[i] = test::boxAt(x, y, rng.range(0.2f, 3.0f));
            tree.enlarge(leaves[i], boxes[i]);
        }
        EXPECT_EQ(tree.enlargedSinceBuild(), 400u * static_cast<std::uint32_t>(round % 2 + 1));
        ASSERT_EQ(tree.validate([](std::uint32_t) { return std::string(); }), "");
        for (int q = 0; q < 50; ++q) {
            const Aabb query = test::boxAt(rng.range(-5.0f, 105.0f), rng.range(-5.0f, 105.0f), rng.range(0.0f, 8.0f));
            std::set<std::uint32_t> expected, got;
            for (std::uint32_t i = 0; i < 1500; ++i)
                if (overlaps(boxes[i], query)) expected.insert(i);
            tree.query(query, [&](std::uint32_t value) { got.insert(value); });
            ASSERT_EQ(got, expected);
        }
        if (round % 2 == 1) {
            // Rebuilt: the boxes are unions again (validate() holds them to it once more).
            tree.rebuildTopDown([&](std::uint32_t value, std::uint32_t leaf) { leaves[value] = leaf; });
            EXPECT_EQ(tree.enlargedSinceBuild(), 0u);
            ASSERT_EQ(tree.validate([](std::uint32_t) { return std::string(); }), "");
        }
    }
}

namespace {
/// The sum of the inner nodes' half perimeters of a top-down median build, built here by
/// sorting: the tree's own build must split the same leaves at every node.
double medianBuildPerimeterSum(std::vector<Aabb> boxes) {
    if (boxes.size() < 2) return 0.0;
    float minX = INFINITY, minY = INFINITY, maxX = -INFINITY, maxY = -INFINITY;
    for (const Aabb& b : boxes) {
        minX = std::min(minX, b.minX + b.maxX);
        maxX = std::max(maxX, b.minX + b.maxX);
        minY = std::min(minY, b.minY + b.maxY);
        maxY = std::max(maxY, b.minY + b.maxY);
    }
    const bool alongX = maxX - minX >= maxY - minY;
    std::sort(boxes.begin(), boxes.end(), [&](const Aabb& a, const Aabb& b) {
        return alongX ? a.minX + a.maxX < b.minX + b.maxX : a.minY + a.maxY < b.minY + b.maxY;
    });
    Aabb all = boxes[0];
    for (const Aabb& b : boxes) all = unite(all, b);
    const auto mid = boxes.begin() + static_cast<std::ptrdiff_t>(boxes.size() / 2);
    return static_cast<double>(all.width() + all.height()) + medianBuildPerimeterSum({boxes.begin(), mid}) +
           medianBuildPerimeterSum({mid, boxes.end()});
}
}  // namespace

TEST(AabbTree, ATopDownBuildSplitsAtMediansWhateverTheOrderAndTiesOfTheCentres) {
    // The build's median selection partitions by sampled keys. Sorted, reversed and
    // alternating runs must still give the median splits (the inner boxes of a build by
    // sorting), and equal keys or a few distinct values a balanced tree; every leaf once,
    // renumbered depth first.
    const auto centreOf = [](const std::string& order, std::uint32_t i, std::uint32_t n) -> Vec2 {
        const auto f = [](std::uint32_t v) { return static_cast<float>(v); };
        if (order == "equal") return {5.0f, 5.0f};
        if (order == "two values") return {f(i % 2), f((i / 2) % 2)};
        if (order == "sorted") return {f(i), 0.5f * f(i)};
        if (order == "reversed") return {f(n - i), 0.0f};
        if (order == "organ pipe") return {i < n / 2 ? f(2 * i) : f(2 * (n - i) + 1), 1.0f};
        Rng rng(i);  // random
        return {rng.range(0.0f, 1000.0f), rng.range(0.0f, 10.0f)};
    };
    for (const std::string order : {"equal", "two values", "sorted", "reversed", "organ pipe", "random"}) {
        for (const std::uint32_t n : {1u, 2u, 3u, 5u, 17u, 1000u, 5000u}) {
            SCOPED_TRACE(order + ", " + std::to_string(n) + " leaves");
            AabbTree tree;
            std::vector<Aabb> boxes;
            for (std::uint32_t i = 0; i < n; ++i) {
                const Vec2 c = centreOf(order, i, n);
                boxes.push_back(test::boxAt(c.x, c.y, 0.25f));
                tree.stage(boxes.back(), i);
            }
            std::vector<std::uint32_t> leafOf(n, AabbTree::kNull);
            std::uint32_t told = 0;
            tree.rebuildTopDown([&](std::uint32_t value, std::uint32_t leaf) {
                ASSERT_LT(value, n);
                EXPECT_EQ(leafOf[value], AabbTree::kNull);
                leafOf[value] = leaf;
                ++told;
            });
            EXPECT_EQ(told, n);
            ASSERT_EQ(tree.validate([](std::uint32_t) { return std::string(); }), "");
            EXPECT_EQ(tree.nodeCount(), 2u * n - 1u);
            EXPECT_EQ(tree.height(), static_cast<std::uint32_t>(std::ceil(std::log2(static_cast<double>(n)))));
            for (std::uint32_t i = 0; i < n; ++i) EXPECT_EQ(tree.value(leafOf[i]), i);
            if (order != "equal" && order != "two values") {  // distinct keys: one median split each
                const double expected = medianBuildPerimeterSum(boxes);
                EXPECT_NEAR(tree.innerPerimeterSum(), expected, 1e-9 * expected);
            }
        }
    }
}

TEST(AabbTree, ATreeWhoseBuildScratchWasFreedStillEditsRebuildsAndDefragments) {
    // The statics' tree frees the scratch of its builds (as large as the tree); a later
    // build or renumbering must grow it afresh and give the same answers.
    Rng rng(9);
    AabbTree tree;
    std::vector<Aabb> boxes;
    std::vector<std::uint32_t> leafOf;
    for (std::uint32_t i = 0; i < 3000; ++i) {
        boxes.push_back(test::boxAt(rng.range(0, 500), rng.range(0, 500), rng.range(0.5f, 3.0f)));
        tree.stage(boxes.back(), i);
    }
    leafOf.resize(boxes.size());
    const auto onLeafMoved = [&](std::uint32_t value, std::uint32_t leaf) { leafOf[value] = leaf; };
    tree.rebuildTopDown(onLeafMoved);
    const std::uint64_t withScratch = tree.bytesHeld();
    tree.releaseScratch();
    EXPECT_LT(tree.bytesHeld(), withScratch - 3000 * sizeof(std::uint32_t)) << "the scratch was not freed";
    const auto expectQueriesMatchALoop = [&](const char* when) {
        ASSERT_EQ(tree.validate([](std::uint32_t) { return std::string(); }), "") << when;
        for (int q = 0; q < 50; ++q) {
            const Aabb box = test::boxAt(rng.range(0, 500), rng.range(0, 500), 10.0f);
            std::set<std::uint32_t> found, expected;
            tree.query(box, [&](std::uint32_t value) { found.insert(value); });
            for (std::uint32_t i = 0; i < boxes.size(); ++i)
                if (overlaps(boxes[i], box)) expected.insert(i);
            ASSERT_EQ(found, expected) << when << ", query " << q;
        }
    };
    for (std::uint32_t i = 0; i < 1000; ++i) {  // a third move: the pool scatters
        boxes[i] = test::boxAt(rng.range(0, 500), rng.range(0, 500), 1.0f);
        tree.move(leafOf[i], boxes[i]);
    }
    expectQueriesMatchALoop("after moves");
    tree.defragment(onLeafMoved);
    expectQueriesMatchALoop("after a defragment");
    tree.releaseScratch();
    tree.rebuildTopDown(onLeafMoved);
    expectQueriesMatchALoop("after a rebuild");
}

TEST(DynamicTree, MoversGrowTheirFatBoxesInPlaceAndTheTreeIsTightenedOnceEachMovedOnceOnAverage) {
    // 400 boxes at 0.3 a step in random directions leave their fat boxes every ~10-20 steps:
    // their tree is built anew every kEnlargedShare * 400 departures, and the pairs stay exact.
    DynamicTree tree;
    tree.configure(withMargin(2.0f));
    test::Population population;
    Rng rng(5);
    std::vector<Vec2> velocity;
    for (std::uint32_t i = 0; i < 400; ++i) {
        population.add(i, test::boxAt(rng.range(0.0f, 80.0f), rng.range(0.0f, 80.0f), rng.range(0.3f, 1.5f)));
        const float angle = rng.range(0.0f, 6.2831853f);
        velocity.push_back({0.3f * std::cos(angle), 0.3f * std::sin(angle)});
    }
    std::vector<Pair> pairs;
    std::uint64_t tightenings = 0, departures = 0;
    for (int step = 0; step < 120; ++step) {
        for (std::uint32_t i = 0; i < population.size(); ++i) {
            const Aabb b = population.boxes.view().box(i);
            if (b.minX < 0.0f || b.maxX > 80.0f) velocity[i].x = -velocity[i].x;
            if (b.minY < 0.0f || b.maxY > 80.0f) velocity[i].y = -velocity[i].y;
            population.set(i, {b.minX + velocity[i].x, b.minY + velocity[i].y, b.maxX + velocity[i].x, b.maxY + velocity[i].y});
        }
        tree.update(population.boxes.view());
        const DynamicTree::StepStats stats = tree.stepStats();
        tightenings += stats.tightenings;
        if (step > 0) departures += stats.reinserted;
        EXPECT_EQ(stats.rotations, 0u) << "step " << step;
        ASSERT_EQ(tree.validate(), "") << "step " << step;
        tree.findPairs(pairs);
        ASSERT_EQ(std::set<Pair>(pairs.begin(), pairs.end()), test::referenceOverlaps(population.boxes.view())) << "step " << step;
    }
    EXPECT_EQ(tightenings, static_cast<std::uint64_t>(static_cast<float>(departures) / (DynamicTree::kEnlargedShare * 400.0f)));
    EXPECT_GE(tightenings, 3u);
}

/// A contact-dense pile (boxes of side 0.5 to 1.5 a side apart, jittering by up to a tenth
/// of a side a step, some drifting) on a floor of statics, at `scale` times its size.
struct PileRun {
    std::vector<std::set<Pair>> pairs;
    std::vector<std::uint64_t> reinserted;
    float margin = 0.0f;
};
PileRun runPile(float scale, const Settings& settings, int steps) {
    Rng rng(46);
    test::BoxSet unit;
    std::vector<std::uint8_t> isStatic;
    for (int i = 0; i < 40; ++i) {  // the floor
        unit.add({static_cast<float>(i) * 2.0f, -1.0f, static_cast<float>(i) * 2.0f + 1.5f, 0.25f});  // apart: statics never pair
        isStatic.push_back(1);
    }
    for (int i = 0; i < 600; ++i) {
        const float half = rng.range(0.25f, 0.75f);
        unit.add(test::boxAt(static_cast<float>(i % 40) * 1.6f + 0.8f, static_cast<float>(i / 40) * 1.6f + 0.8f, half));
        isStatic.push_back(0);
    }
    DynamicTree tree;
    tree.configure(settings);
    PileRun run;
    for (int step = 0; step < steps; ++step) {
        test::BoxSet scaled = unit;
        for (auto* v : {&scaled.minX, &scaled.minY, &scaled.maxX, &scaled.maxY})
            for (float& x : *v) x *= scale;  // a power of two: exact, so every comparison agrees
        BoxView view = scaled.view();
        view.isStatic = isStatic.data();
        tree.update(view);
        run.reinserted.push_back(tree.stepStats().reinserted);
        run.pairs.push_back(pairsOf(tree));
        EXPECT_EQ(run.pairs.back(), test::referenceOverlaps(view)) << "scale " << scale << ", step " << step;
        EXPECT_EQ(tree.validate(), "") << "scale " << scale << ", step " << step;
        for (std::uint32_t i = 40; i < unit.size(); ++i) {
            const float dx = rng.range(-0.05f, 0.05f) + (i % 7 == 0 ? 0.2f : 0.0f);
            const float dy = rng.range(-0.05f, 0.05f);
            unit.minX[i] += dx, unit.maxX[i] += dx, unit.minY[i] += dy, unit.maxY[i] += dy;
        }
    }
    run.margin = tree.margin();
    return run;
}

TEST(DynamicTree, TheAutomaticMarginFollowsTheScenesScale) {
    // 1/128 and 128 for the 0.01 and 100: powers of two scale every float exactly.
    const PileRun base = runPile(1.0f, Settings{}, 40);
    EXPECT_GT(base.margin, 0.0f);
    EXPECT_LT(base.margin, 0.5f) << "a tenth of a typical side, not the lab's 2 units";
    std::uint64_t moved = 0;
    for (const std::uint64_t r : base.reinserted) moved += r;
    EXPECT_GT(moved, 0u) << "the pile should leave some fat boxes";
    for (const float scale : {1.0f / 128.0f, 128.0f}) {
        const PileRun run = runPile(scale, Settings{}, 40);
        EXPECT_EQ(run.margin, base.margin * scale);
        EXPECT_EQ(run.reinserted, base.reinserted) << "scale " << scale;
        EXPECT_EQ(run.pairs, base.pairs) << "scale " << scale;
    }
    // A margin set by the user is honoured, whatever the scale.
    Settings explicitMargin;
    explicitMargin.set(DynamicTree::kMarginParameter.key, 3.0);
    EXPECT_EQ(runPile(128.0f, explicitMargin, 2).margin, 3.0f);
}

TEST(DynamicTree, TheAutomaticMarginIsMeasuredAgainForANewSceneOfAnotherScale) {
    DynamicTree tree;
    test::Population population;
    for (int i = 0; i < 300; ++i) population.add(test::boxAt(static_cast<float>(i % 20) * 3.0f, static_cast<float>(i / 20) * 3.0f, 1.0f));
    tree.update(population.boxes.view());
    EXPECT_EQ(tree.margin(), ro::fat_margin::kAutoShare * 2.0f);
    // Another scene, 100 times larger, replaces it: as many came and went as there were.
    test::Population larger;
    larger.nextId = 1000;
    for (int i = 0; i < 300; ++i) larger.add(test::boxAt(static_cast<float>(i % 20) * 300.0f, static_cast<float>(i / 20) * 300.0f, 100.0f));
    tree.update(larger.boxes.view());
    EXPECT_EQ(tree.margin(), ro::fat_margin::kAutoShare * 200.0f);
    EXPECT_EQ(pairsOf(tree), test::referenceOverlaps(larger.boxes.view()));
    EXPECT_EQ(tree.validate(), "");
    // A tree filled by insert() takes the first box's side.
    DynamicTree inserted;
    inserted.insert(0, test::boxAt(0.0f, 0.0f, 4.0f));
    EXPECT_EQ(inserted.margin(), ro::fat_margin::kAutoShare * 8.0f);
}

TEST(DynamicTree, ALeafMovesOnlyWhenItsBoxLeavesItsFatBox) {
    DynamicTree tree;
    tree.configure(withMargin(2.0f));
    test::BoxSet boxes;
    for (int i = 0; i < 200; ++i)
        boxes.add(test::boxAt(static_cast<float>(i % 20) * 10.0f, static_cast<float>(i / 20) * 10.0f, 1.5f));
    tree.update(boxes.view());
    EXPECT_EQ(tree.stepStats().inserted, 200u);
    // Steps of 0.75: the fat box (margin 2) holds the first two, the third leaves it.
    for (int step = 1; step <= 3; ++step) {
        for (auto* v : {&boxes.minX, &boxes.maxX})
            for (float& x : *v) x += 0.75f;
        tree.update(boxes.view());
        EXPECT_EQ(tree.stepStats().reinserted, step < 3 ? 0u : 200u) << "step " << step;
        EXPECT_EQ(tree.stepStats().inserted, 0u);
        EXPECT_EQ(tree.validate(), "");
        EXPECT_EQ(pairsOf(tree), test::referenceOverlaps(boxes.view()));
    }
    // One box moves far: one reinsertion.
    boxes.minX[7] += 100.0f;
    boxes.maxX[7] += 100.0f;
    tree.update(boxes.view());
    EXPECT_EQ(tree.stepStats().reinserted, 1u);
    EXPECT_EQ(pairsOf(tree), test::referenceOverlaps(boxes.view()));
    EXPECT_EQ(tree.validate(), "");
}

TEST(DynamicTree, MoversAmongManyStaticsPairByASweepThroughEveryChangeOfMode) {
    // Few movers among many statics pair with each other by a sweep of their boxes; when
    // woken statics make the movers many, they go back to their kept fat pairs, and back
    // again. The movers stand in a column (so the sweep runs along y) and in a crowd (more
    // of them overlap along the sweep than its window holds), some jump each step, some
    // touch at an edge, everyone is in a layer with a random mask, and some come and go
    // through the public edits.
    Rng rng(41);
    test::BoxSet boxes;
    std::vector<std::uint8_t> isStatic;
    std::vector<std::uint32_t> category, mask;
    const auto add = [&](const Aabb& box, bool still) {
        boxes.add(box);
        isStatic.push_back(still ? 1 : 0);
        category.push_back(1u << rng.below(4));
        mask.push_back(rng.below(4) == 0 ? static_cast<std::uint32_t>(rng.below(16)) : ~0u);
    };
    for (int i = 0; i < 900; ++i)
        add(test::boxAt(rng.range(0.0f, 60.0f), rng.range(0.0f, 60.0f), rng.range(0.3f, 1.0f)), true);
    for (int i = 0; i < 60; ++i) {
        const bool column = i < 30;
        add(column ? test::boxAt(rng.range(10.0f, 11.0f), rng.range(0.0f, 60.0f), 0.5f)
                   : test::boxAt(rng.range(38.0f, 41.0f), rng.range(38.0f, 41.0f), 0.6f),
            false);
    }
    // Three movers that touch at their edges, along the sweep's axis and across it.
    for (const Aabb& box : {Aabb{20, 20, 21, 21}, Aabb{20, 21, 21, 22}, Aabb{21, 20, 22, 21}}) {
        add(box, false);
        category.back() = mask.back() = ~0u;
    }
    const auto view = [&] {
        BoxView v = boxes.view();
        v.isStatic = isStatic.data();
        v.category = category.data();
        v.mask = mask.data();
        return v;
    };
    DynamicTree tree;
    BruteForce brute;
    const auto expectSamePairs = [&](const char* when) { expectPairsOfBruteForce(tree, brute, view(), when); };
    const auto moveMovers = [&](int steps) {
        std::vector<std::uint32_t> moved;
        for (int step = 0; step < steps; ++step) {
            moved.clear();
            for (std::uint32_t i = 0; i < boxes.size(); ++i) {
                if (isStatic[i]) continue;
                const bool jump = rng.below(25) == 0;
                const float dx = jump ? rng.range(-30.0f, 30.0f) : rng.range(-0.4f, 0.4f);
                const float dy = jump ? rng.range(-30.0f, 30.0f) : rng.range(-0.4f, 0.4f);
                boxes.minX[i] += dx, boxes.maxX[i] += dx, boxes.minY[i] += dy, boxes.maxY[i] += dy;
                moved.push_back(i);
            }
            tree.updateMoved(view(), moved);
            expectSamePairs("after a step of the movers");
        }
    };
    // The widest fat box of a leaf: a mover's reaches 1 margin around (2 here) and 4 ahead
    // while the movers keep fat pairs, 4 times that while they sweep.
    const auto widestFatBox = [&] {
        float widest = 0.0f;
        tree.forEachElement([&](const StructureElement& cell) {
            if (cell.kind == StructureElement::Kind::FatBox) widest = std::max({widest, cell.bounds.width(), cell.bounds.height()});
        });
        return widest;
    };
    tree.update(view());
    expectSamePairs("first update");
    EXPECT_TRUE(tree.pairsMoversBySweep());
    EXPECT_GT(pairsOf(brute).count(makePair(960, 961)), 0u);  // the touching movers pair
    // Whether the overlay shows every mover inside a fat box.
    const auto everyMoverInAFatBox = [&] {
        std::vector<Aabb> fat;
        tree.forEachElement([&](const StructureElement& cell) {
            if (cell.kind == StructureElement::Kind::FatBox) fat.push_back(cell.bounds);
        });
        for (std::uint32_t i = 0; i < boxes.size(); ++i) {
            const Aabb box = boxes.view().box(i);
            if (!isStatic[i] && std::none_of(fat.begin(), fat.end(), [&](const Aabb& f) { return containsBox(f, box); }))
                return false;
        }
        return true;
    };
    moveMovers(30);
    // While the movers sweep, no step reads their tree: the leaves that left their fat boxes
    // (the jumps, at least) wait, and none was reinserted...
    EXPECT_EQ(tree.stepStats().reinserted, 0u);
    // An overlay drawn meanwhile (a paused app) shows each waiting leaf's new fat box.
    EXPECT_TRUE(everyMoverInAFatBox());
    // ...until a query needs the tree: it settles them first, and finds every box it touches.
    const Aabb region{5, 5, 45, 45};
    std::vector<std::uint32_t> found, expected;
    tree.queryBox(region, found);
    for (std::uint32_t i = 0; i < boxes.size(); ++i)
        if (overlaps(boxes.view().box(i), region)) expected.push_back(i);
    std::sort(found.begin(), found.end());
    EXPECT_EQ(found, expected);
    EXPECT_TRUE(everyMoverInAFatBox());
    EXPECT_GT(widestFatBox(), 1.2f + 2 * 2.0f + 4 * 2.0f);
    // An overlay drawn (forEachElement, just now) keeps the tree settled at every step after it.
    moveMovers(5);
    EXPECT_TRUE(everyMoverInAFatBox());
    EXPECT_EQ(tree.validate(), "");
    // Movers come and go through the public edits, the sweep's list with them.
    tree.insert(boxes.size(), boxes.view().box(5));  // a mover on a static's box
    add(boxes.view().box(5), false);
    category.back() = mask.back() = ~0u;
    expectSamePairs("a mover inserted");
    tree.remove(boxes.ids[920]);  // a mover goes: the last entity takes its dense index
    for (auto* v : {&boxes.minX, &boxes.minY, &boxes.maxX, &boxes.maxY}) (*v)[920] = v->back(), v->pop_back();
    boxes.ids[920] = boxes.ids.back(), boxes.ids.pop_back();
    isStatic[920] = isStatic.back(), isStatic.pop_back();
    category[920] = category.back(), category.pop_back();
    mask[920] = mask.back(), mask.pop_back();
    expectSamePairs("a mover removed");
    tree.update(view());
    moveMovers(5);
    // 300 statics wake up: ~360 movers for 600 statics, too many for the sweep; their fat
    // boxes go back to the usual margin.
    for (std::uint32_t i = 0; i < 300; ++i) isStatic[i] = 0;
    tree.update(view());
    expectSamePairs("statics woken");
    EXPECT_FALSE(tree.pairsMoversBySweep());
    EXPECT_LE(widestFatBox(), 1.2f + 2 * 2.0f + 4 * 2.0f);
    moveMovers(10);
    // And asleep again: the sweep takes over from the kept pairs.
    for (std::uint32_t i = 0; i < 300; ++i) isStatic[i] = 1;
    tree.update(view());
    expectSamePairs("statics asleep again");
    EXPECT_TRUE(tree.pairsMoversBySweep());
    moveMovers(10);
    // Every mover asleep: the sweep has nothing to pair.
    for (std::uint32_t i = 0; i < boxes.size(); ++i) isStatic[i] = 1;
    tree.update(view());
    expectSamePairs("no movers");
    EXPECT_TRUE(pairsOf(tree).empty());
}

TEST(DynamicTree, LeavesThatWaitForTheMoversTreeAreSettledBeforeAnythingReadsIt) {
    // While the movers sweep and no overlay is drawn, a mover that jumps out of its fat box
    // waits for its tree. Every reader of the tree settles it first: ray casts, a static that
    // comes onto a mover's new place, and the switch back to kept fat pairs. A public move of
    // a waiting mover, and its jumping again, leave it listed once.
    Rng rng(77);
    test::BoxSet boxes;
    std::vector<std::uint8_t> isStatic;
    for (int i = 0; i < 900; ++i) {
        boxes.add(test::boxAt(rng.range(0.0f, 60.0f), rng.range(0.0f, 60.0f), rng.range(0.3f, 1.0f)));
        isStatic.push_back(1);
    }
    for (int i = 0; i < 40; ++i) {
        boxes.add(test::boxAt(rng.range(0.0f, 60.0f), rng.range(0.0f, 60.0f), 0.5f));
        isStatic.push_back(0);
    }
    const auto view = [&] {
        BoxView v = boxes.view();
        v.isStatic = isStatic.data();
        return v;
    };
    DynamicTree tree;
    BruteForce brute;
    const auto expectSamePairs = [&](const char* when) { expectPairsOfBruteForce(tree, brute, view(), when); };
    const auto shift = [&](std::uint32_t i, float dx, float dy) {
        boxes.minX[i] += dx, boxes.maxX[i] += dx, boxes.minY[i] += dy, boxes.maxY[i] += dy;
    };
    // Every mover a jump of 20 units: out of any fat box, into waiting.
    const auto jumpMovers = [&] {
        std::vector<std::uint32_t> moved;
        for (std::uint32_t i = 0; i < boxes.size(); ++i) {
            if (isStatic[i]) continue;
            shift(i, boxes.minX[i] < 30.0f ? 20.0f : -20.0f, rng.range(-1.0f, 1.0f));
            moved.push_back(i);
        }
        tree.updateMoved(view(), moved);
        EXPECT_EQ(tree.stepStats().reinserted, 0u);  // they wait
        expectSamePairs("after the movers jumped");
    };
    tree.update(view());
    expectSamePairs("first update");
    ASSERT_TRUE(tree.pairsMoversBySweep());
    jumpMovers();

    // Rays across the field, through the movers' new places.
    for (int r = 0; r < 20; ++r) {
        const Segment ray{{rng.range(0.0f, 60.0f), -5.0f}, {rng.range(0.0f, 60.0f), 65.0f}};
        std::vector<RayHit> found, expected;
        tree.queryRay(ray, found);
        brute.queryRay(ray, expected);
        EXPECT_EQ(found, expected) << "ray " << r;
        std::optional<RayHit> first, firstExpected;
        jumpMovers();
        tree.raycastFirst(ray, first);
        brute.update(view());
        brute.raycastFirst(ray, firstExpected);
        EXPECT_EQ(first, firstExpected) << "first hit of ray " << r;
        jumpMovers();
    }

    // A static comes where a waiting mover now stands: it finds the mover through the tree.
    const std::uint32_t mover = 905;
    ASSERT_FALSE(isStatic[mover]);
    boxes.add(boxes.view().box(mover));
    isStatic.push_back(1);
    tree.update(view());
    expectSamePairs("a static on a waiting mover");
    EXPECT_GT(pairsOf(brute).count(makePair(mover, static_cast<std::uint32_t>(boxes.size() - 1))), 0u);
    jumpMovers();

    // A waiting mover placed by a public move, then jumping again: listed once (validate).
    const Aabb far = test::boxAt(boxes.minX[mover] < 30.0f ? 55.0f : 5.0f, 30.0f, 0.5f);
    tree.move(boxes.ids[mover], far);
    boxes.minX[mover] = far.minX, boxes.minY[mover] = far.minY, boxes.maxX[mover] = far.maxX, boxes.maxY[mover] = far.maxY;
    expectSamePairs("a waiting mover moved by hand");
    for (int step = 0; step < 5; ++step) jumpMovers();

    // Many movers come with leaves waiting (no static changed, so nothing settled them):
    // the movers go back to kept fat pairs, and no leaf waits any longer.
    for (int i = 0; i < 150; ++i) {
        boxes.add(test::boxAt(rng.range(0.0f, 60.0f), rng.range(0.0f, 60.0f), 0.5f));
        isStatic.push_back(0);
    }
    tree.update(view());
    expectSamePairs("movers came");
    EXPECT_FALSE(tree.pairsMoversBySweep());
}

// Steps between a leaf's reinsertions as it moves `speed` a step along x, alone or beside
// `crowd` others that move with it (and pair with it).
std::vector<int> reinsertIntervals(int crowd, bool turning, float speed = 0.01f) {
    DynamicTree tree;
    tree.configure(withMargin(2.0f));
    test::Population population;
    for (int k = 0; k <= crowd; ++k) population.add(static_cast<std::uint32_t>(k), test::boxAt(0.5f * static_cast<float>(k), 0, 0.5f));
    tree.update(population.boxes.view());
    std::vector<Pair> pairs;
    tree.findPairs(pairs);
    std::vector<int> intervals;
    int since = 0;
    float direction = 1.0f;
    while (intervals.size() < 4) {
        ++since;
        for (std::uint32_t i = 0; i < population.size(); ++i) {
            const Aabb b = population.boxes.view().box(i);
            population.set(i, {b.minX + speed * direction, b.minY, b.maxX + speed * direction, b.maxY});
        }
        tree.update(population.boxes.view());
        if (tree.stepStats().reinserted > 0) {
            intervals.push_back(since);
            since = 0;
            if (turning) direction = -direction;
        }
        tree.findPairs(pairs);
    }
    return intervals;
}

TEST(DynamicTree, ALeafOnASteadyCourseThroughOpenSpaceReachesFurtherAhead) {
    // Margin 2: the first reinsertion after 200 steps, all of them the same way, so the next
    // box, alone, reaches 128 steps ahead (2 + 1.28 units, 328 steps), and so on.
    const std::vector<int> alone = reinsertIntervals(0, false);
    EXPECT_NEAR(alone[0], 200, 2);
    EXPECT_NEAR(alone[1], 328, 2);
    EXPECT_NEAR(alone[2], 328, 2);
    EXPECT_NEAR(alone[3], 328, 2);
    // Turning back at each reinsertion: never steady, so 32 steps each time (2 + 0.32 back).
    const std::vector<int> turning = reinsertIntervals(0, true);
    EXPECT_NEAR(turning[2], turning[1], 2);
    EXPECT_LT(turning[3], 300);
    // In a crowd (its fat box meets three others), the reach stays 32 steps.
    const std::vector<int> crowded = reinsertIntervals(3, false);
    EXPECT_NEAR(crowded[2], 232, 2);
    EXPECT_NEAR(crowded[3], 232, 2);
    // Fast (0.5 a step; a box on the fat box's edge is still inside): out at the 5th step,
    // too few to call the course steady (kSteadyEvidenceSteps); 32 steps ahead are capped
    // at kMaxStretch margins (2 + 8 units: out at the 21st step); then, alone on a steady
    // course, 128 steps are capped at kSteadyStretch margins (2 + 32: the 69th).
    const std::vector<int> fast = reinsertIntervals(0, false, 0.5f);
    EXPECT_EQ(fast[0], 5);
    EXPECT_EQ(fast[1], 21);
    EXPECT_EQ(fast[2], 69);
    EXPECT_EQ(fast[3], 69);
    // A fast crowd keeps the short cap.
    const std::vector<int> fastCrowd = reinsertIntervals(3, false, 0.5f);
    EXPECT_EQ(fastCrowd[2], 21);
    EXPECT_EQ(fastCrowd[3], 21);
}

// A leaf that moved further in one step than its fat box reaches ahead (margin 2: 2 + 8)
// gets the margin around but no stretch; after a second such step, it would leave any fat
// box at the next: it gets its own box. A slower one gets the margin and 8 units ahead.
TEST(DynamicTree, ALeafThatOutrunsItsReachInOneStepGetsNoFatBox) {
    DynamicTree tree;
    tree.configure(withMargin(2.0f));
    test::BoxSet boxes;
    boxes.add(test::boxAt(0, 0, 0.5f));    // fast: 12 units a step
    boxes.add(test::boxAt(0, 50, 0.5f));   // slower: 3 units a step
    tree.update(boxes.view());
    std::vector<Pair> pairs;
    for (int step = 1; step <= 3; ++step) {
        boxes.minX[0] += 12.0f, boxes.maxX[0] += 12.0f;
        boxes.minX[1] += 3.0f, boxes.maxX[1] += 3.0f;
        tree.update(boxes.view());
        tree.findPairs(pairs);
        ASSERT_EQ(tree.validate(), "");
        std::vector<float> widths;
        tree.forEachElement([&](const StructureElement& c) {
            if (c.kind == StructureElement::Kind::FatBox) widths.push_back(c.bounds.width());
        });
        ASSERT_EQ(widths.size(), 2u);
        std::sort(widths.begin(), widths.end());
        const float fast = step == 1 ? 1.0f + 4.0f : 1.0f, slow = 1.0f + 4.0f + 8.0f;
        EXPECT_FLOAT_EQ(widths[0], std::min(fast, slow)) << "step " << step << ": the fast leaf";
        EXPECT_FLOAT_EQ(widths[1], std::max(fast, slow)) << "step " << step << ": margin 2 each side, 8 ahead";
    }
}

// A moved list may name an entity twice: it moves once, as if named once.
TEST(DynamicTree, AnIndexTwiceInAMovedListMovesItsLeafOnce) {
    test::BoxSet boxes;
    for (int i = 0; i < 3; ++i) boxes.add(test::boxAt(static_cast<float>(i) * 3.0f, 0, 0.5f));
    DynamicTree once, twice;
    once.update(boxes.view());
    twice.update(boxes.view());
    const auto fatBoxes = [](const DynamicTree& tree) {
        std::vector<float> widths;
        tree.forEachElement([&](const StructureElement& c) {
            if (c.kind == StructureElement::Kind::FatBox) widths.push_back(c.bounds.width());
        });
        std::sort(widths.begin(), widths.end());
        return widths;
    };
    std::vector<Pair> pairs;
    for (int step = 1; step <= 12; ++step) {
        boxes.minX[0] += 3.0f, boxes.maxX[0] += 3.0f;
        const std::vector<std::uint32_t> one{0}, repeated{0, 2, 0};
        once.updateMoved(boxes.view(), one);
        twice.updateMoved(boxes.view(), repeated);
        EXPECT_EQ(twice.stepStats().reinserted, once.stepStats().reinserted) << "step " << step;
        EXPECT_EQ(fatBoxes(twice), fatBoxes(once)) << "step " << step;
        ASSERT_EQ(twice.validate(), "");
        twice.findPairs(pairs);
        EXPECT_EQ(std::set<Pair>(pairs.begin(), pairs.end()), test::referenceOverlaps(boxes.view()));
        once.findPairs(pairs);
    }
}

TEST(DynamicTree, UpdateDiffsByIdAcrossRemovalsThatRenumberDenseIndices) {
    DynamicTree tree;
    test::Population population;
    Rng rng(5);
    std::uint32_t nextId = 1000;  // ids far from dense indices, with gaps
    for (int i = 0; i < 300; ++i) {
        population.add(nextId, test::boxAt(rng.range(0, 100), rng.range(0, 100), rng.range(0.5f, 4.0f)));
        nextId += 1 + rng.below(5);
    }
    tree.update(population.boxes.view());
    EXPECT_EQ(tree.stepStats().inserted, 300u);
    for (int step = 0; step < 60; ++step) {
        for (int k = 0; k < 5; ++k) population.removeAt(rng.below(static_cast<std::uint32_t>(population.size())));
        for (int k = 0; k < 4; ++k) {
            population.add(nextId, test::boxAt(rng.range(0, 100), rng.range(0, 100), rng.range(0.5f, 4.0f)));
            nextId += 1 + rng.below(5);
        }
        for (std::size_t i = 0; i < population.size(); ++i) {
            const Aabb b = population.boxes.view().box(static_cast<std::uint32_t>(i));
            const float dx = rng.range(-0.6f, 0.6f);
            population.set(i, {b.minX + dx, b.minY, b.maxX + dx, b.maxY});
        }
        tree.update(population.boxes.view());
        ASSERT_EQ(tree.stepStats().removed, 5u);
        ASSERT_EQ(tree.stepStats().inserted, 4u);
        ASSERT_EQ(tree.validate(), "") << "step " << step;
        ASSERT_EQ(test::techniqueOverlaps(tree, population.boxes.view()), test::referenceOverlaps(population.boxes.view()));
        // Skipping findPairs on some steps must not lose the moves made in between.
        if (step % 3 == 1) {
            tree.update(population.boxes.view());
            ASSERT_EQ(tree.validate(), "");
        }
    }
}

TEST(DynamicTree, RefusesBadEditsAndRepeatedIdsWithoutChangingTheTree) {
    DynamicTree tree;
    tree.insert(3, {0, 0, 1, 1});
    EXPECT_THROW(tree.insert(3, {0, 0, 1, 1}), std::invalid_argument);
    EXPECT_THROW(tree.remove(4), std::invalid_argument);
    EXPECT_THROW((void)tree.move(4, {0, 0, 1, 1}), std::invalid_argument);
    EXPECT_THROW(tree.insert(5, {0, 0, NAN, 1}), std::invalid_argument);
    EXPECT_THROW(tree.insert(5, {2, 0, 1, 1}), std::invalid_argument);
    EXPECT_EQ(tree.validate(), "");

    test::BoxSet boxes;
    boxes.add({0, 0, 1, 1});
    boxes.add({0.5f, 0.5f, 2, 2});
    tree.update(boxes.view());
    const std::set<Pair> expected{{0, 1}};
    EXPECT_EQ(pairsOf(tree), expected);
    test::BoxSet repeated = boxes;
    repeated.add({5, 5, 6, 6});
    repeated.add({7, 7, 8, 8});
    repeated.ids[2] = 9;
    repeated.ids[3] = 9;  // a new id twice
    EXPECT_THROW(tree.update(repeated.view()), std::invalid_argument);
    EXPECT_EQ(tree.validate(), "");
    repeated.ids[3] = 1;  // an old id twice
    EXPECT_THROW(tree.update(repeated.view()), std::invalid_argument);
    EXPECT_EQ(tree.validate(), "");
    EXPECT_EQ(tree.leafCount(), 2u);
    tree.update(boxes.view());
    EXPECT_EQ(pairsOf(tree), expected);
}

TEST(DynamicTree, OverlayShowsInnerNodesByDepthAndEveryFatBox) {
    DynamicTree tree;
    tree.configure(withMargin(0.5f));
    test::BoxSet boxes;
    for (int i = 0; i < 50; ++i) boxes.add(test::boxAt(static_cast<float>(i) * 4.0f, 0.0f, 1.0f));
    tree.update(boxes.view());
    std::size_t fat = 0, inner = 0, roots = 0;
    tree.forEachElement([&](const StructureElement& c) {
        if (c.kind == StructureElement::Kind::FatBox) {
            ++fat;
            EXPECT_FLOAT_EQ(c.bounds.width(), 3.0f);  // side 2 plus the margin each side
            EXPECT_GE(c.level, 1u);
        } else {
            ASSERT_EQ(c.kind, StructureElement::Kind::Node);
            ++inner;
            roots += c.level == 0;
        }
        EXPECT_LE(c.level, tree.height());
    });
    EXPECT_EQ(fat, 50u);
    EXPECT_EQ(inner, 49u);
    EXPECT_EQ(roots, 1u);
    // A new margin is applied by the next update: every fat box is rebuilt.
    tree.configure(withMargin(1.0f));
    tree.update(boxes.view());
    tree.forEachElement([&](const StructureElement& c) {
        if (c.kind == StructureElement::Kind::FatBox) {
            EXPECT_FLOAT_EQ(c.bounds.width(), 4.0f);
        }
    });
    EXPECT_EQ(tree.validate(), "");
}

}  // namespace
}  // namespace ro

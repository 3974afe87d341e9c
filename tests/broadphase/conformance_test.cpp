// Every registered technique must find exactly the overlap pairs of the reference double loop,
// on every fixed scene and on every step of a simulation with motion, adds and removes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "ro/registry.h"
#include "ro/rng.h"
#include "support/settings.h"
#include "support/scenes.h"
#include "ro/world.h"

namespace ro {
namespace {

class Conformance : public ::testing::TestWithParam<std::string_view> {
protected:
    std::unique_ptr<BroadPhase> create() const { return findTechnique(GetParam())->create(); }
};

TEST_P(Conformance, FixedScenesMatchReferenceAtEveryCellSize) {
    for (const test::Scene& scene : test::conformanceScenes()) {
        const BoxView view = scene.boxes.view();
        const std::set<Pair> expected = test::referenceOverlaps(view);
        for (const float cell : scene.cellSizes) {
            SCOPED_TRACE(scene.name + " cell " + std::to_string(cell));
            auto technique = create();
            technique->configure(test::withCell(cell, scene.gridBounds));
            EXPECT_EQ(test::techniqueOverlaps(*technique, view), expected);
            // A second step on the same boxes reuses the structures; it must agree too.
            EXPECT_EQ(test::techniqueOverlaps(*technique, view), expected);
        }
    }
}

TEST_P(Conformance, TouchingEdgesOverlap) {
    test::BoxSet boxes;
    boxes.add({0, 0, 10, 10});
    boxes.add({10, 0, 20, 10});   // shares the edge x = 10 with the first
    boxes.add({20, 10, 30, 20});  // shares only the corner (20, 10) with the second
    boxes.add({30.001f, 20.001f, 40, 30});  // just apart from the third
    auto technique = create();
    technique->configure(test::withCell(10.0f, Aabb{0, 0, 40, 40}));
    EXPECT_EQ(test::techniqueOverlaps(*technique, boxes.view()), (std::set<Pair>{{0, 1}, {1, 2}}));
}

TEST_P(Conformance, EveryStepOfASimulationWithAddsAndRemoves) {
    WorldConfig config;
    config.bounds = {0, 0, 600, 400};
    World world(config);  // simulates with brute force; the technique under test runs beside it
    Rng rng(42);
    const SizeRange sizes{2.0f, 9.0f};
    resizePopulation(world, rng, 400, sizes);

    auto technique = create();
    technique->configure(test::withCell(12.0f, config.bounds));
    for (int step = 0; step < 300; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        if (step % 7 == 0) resizePopulation(world, rng, world.size() + 5, sizes);
        if (step % 11 == 0) {
            for (int k = 0; k < 4 && world.size() > 0; ++k) world.remove(world.ids()[rng.below(world.size())]);
        }
        if (step == 150) technique->configure(test::withCell(5.0f, config.bounds));  // change the cell size mid-run
        world.tick();
        const BoxView view = world.boxes();
        ASSERT_EQ(test::techniqueOverlaps(*technique, view), test::referenceOverlaps(view));
        ASSERT_EQ(technique->validate(), "");
    }
}

// Fast, incoherent motion: every box jumps anywhere each step, so nothing a technique kept
// from the last step (sort order, tree, cells) is still close to right.
TEST_P(Conformance, EveryStepOfFastIncoherentMotion) {
    const Aabb area{0, 0, 300, 200};
    Rng rng(77);
    test::BoxSet boxes;
    for (int i = 0; i < 600; ++i) boxes.add({0, 0, 1, 1});
    auto technique = create();
    technique->configure(test::withCell(8.0f, area));
    for (int step = 0; step < 40; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        for (std::uint32_t i = 0; i < boxes.size(); ++i) {
            const float x = rng.range(area.minX, area.maxX);
            const float y = rng.range(area.minY, area.maxY);
            const float side = rng.range(0.5f, 6.0f);
            boxes.minX[i] = x, boxes.minY[i] = y, boxes.maxX[i] = x + side, boxes.maxY[i] = y + side;
        }
        const BoxView view = boxes.view();
        ASSERT_EQ(test::techniqueOverlaps(*technique, view), test::referenceOverlaps(view));
        ASSERT_EQ(technique->validate(), "");
    }
}

/// The pairs of the last update as a set, after the same checks as techniqueOverlaps.
std::set<Pair> pairsOf(BroadPhase& technique, const BoxView& boxes) {
    std::vector<Pair> candidates;
    technique.findPairs(candidates);
    std::set<Pair> result;
    for (const Pair& p : candidates) {
        EXPECT_LT(p.a, p.b);
        EXPECT_LT(p.b, boxes.count);
        if (p.b >= boxes.count) continue;
        const bool overlap = overlaps(boxes.box(p.a), boxes.box(p.b));
        EXPECT_TRUE(overlap || !technique.pairsAreExact()) << "(" << p.a << ", " << p.b << ") does not overlap";
        EXPECT_TRUE(!overlap || result.insert(p).second) << "(" << p.a << ", " << p.b << ") reported twice";
    }
    return result;
}

// Coherent motion, as a physics engine's frames: most boxes creep inside their fat boxes, a
// few jump, statics are added, removed and moved, filters and static flags change, ids churn,
// and now and then everything jumps at once. Half the steps come as moved lists. Pairs (with
// the rule) and queries are compared with brute force on every step.
TEST_P(Conformance, EveryStepOfCoherentMotionWithChurnStaticsAndFilters) {
    const Aabb area{0, 0, 200, 150};
    Rng rng(2024);
    test::Population population;
    std::vector<std::uint8_t> isStatic;
    std::vector<std::uint32_t> category, mask;
    std::vector<float> velocity;  // x then y, by dense index
    const auto add = [&](bool still) {
        const float x = rng.range(0, 196), y = rng.range(0, 146), side = rng.range(1.0f, 4.0f);
        population.add({x, y, x + side, y + side});
        isStatic.push_back(still ? 1 : 0);
        category.push_back(1u << (population.nextId % 3));
        mask.push_back(population.nextId % 5 == 0 ? 1u : 0xFFFFFFFFu);
        velocity.push_back(rng.range(-0.04f, 0.04f));
        velocity.push_back(rng.range(-0.04f, 0.04f));
    };
    const auto removeAt = [&](std::uint32_t i) {
        population.removeAt(i);
        isStatic[i] = isStatic.back(), isStatic.pop_back();
        category[i] = category.back(), category.pop_back();
        mask[i] = mask.back(), mask.pop_back();
        velocity[2 * i] = velocity[velocity.size() - 2], velocity[2 * i + 1] = velocity.back();
        velocity.resize(velocity.size() - 2);
    };
    const auto shiftBy = [&](std::uint32_t i, float dx, float dy) {
        population.set(i, {population.boxes.minX[i] + dx, population.boxes.minY[i] + dy, population.boxes.maxX[i] + dx,
                           population.boxes.maxY[i] + dy});
    };
    for (int i = 0; i < 500; ++i) add(i % 6 == 0);

    auto technique = create();
    auto reference = findTechnique("brute")->create();
    technique->configure(test::withCell(6.0f, area));
    std::vector<std::uint32_t> moved, found, expectedFound;
    std::vector<RayHit> hits, expectedHits;
    for (int step = 0; step < 240; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        bool entitiesChanged = step == 0;
        moved.clear();
        for (std::uint32_t i = 0; i < population.size(); ++i) {
            if (isStatic[i] != 0) continue;
            const bool jumps = rng.below(100) == 0 || (step >= 100 && step < 104);
            shiftBy(i, jumps ? rng.range(-6.0f, 6.0f) : velocity[2 * i], jumps ? rng.range(-6.0f, 6.0f) : velocity[2 * i + 1]);
            moved.push_back(i);
        }
        if (step % 13 == 5) {  // a static moves
            for (std::uint32_t i = 0; i < population.size(); ++i)
                if (isStatic[i] != 0 && rng.below(10) == 0) shiftBy(i, 1.5f, 0.0f), moved.push_back(i);
        }
        if (step % 9 == 4) {  // entities come and go, statics among them
            for (int k = 0; k < 4; ++k) removeAt(rng.below(population.size()));
            for (int k = 0; k < 4; ++k) add(k == 0);
            entitiesChanged = true;
        }
        if (step % 17 == 8) {  // filters change
            for (int k = 0; k < 5; ++k) category[rng.below(population.size())] = 1u << rng.below(3);
            entitiesChanged = true;
        }
        if (step % 23 == 11) {  // static flags change
            for (int k = 0; k < 2; ++k) isStatic[rng.below(population.size())] ^= 1;
            entitiesChanged = true;
        }
        BoxView view = population.boxes.view();
        view.isStatic = isStatic.data(), view.category = category.data(), view.mask = mask.data();
        std::sort(moved.begin(), moved.end());
        if (!entitiesChanged && step % 2 == 0)
            technique->updateMoved(view, moved);
        else
            technique->update(view);
        reference->update(view);
        ASSERT_EQ(technique->validate(), "");
        std::vector<Pair> expected;
        reference->findPairs(expected);
        ASSERT_EQ(pairsOf(*technique, view), std::set<Pair>(expected.begin(), expected.end()));

        const float x = rng.range(0, 190), y = rng.range(0, 140);
        const Aabb query{x, y, x + rng.range(0.0f, 10.0f), y + rng.range(0.0f, 10.0f)};
        technique->queryBox(query, found);
        reference->queryBox(query, expectedFound);
        std::sort(found.begin(), found.end());
        std::sort(expectedFound.begin(), expectedFound.end());
        EXPECT_EQ(found, expectedFound);
        const Segment ray{{x, y}, {rng.range(0, 200), rng.range(0, 150)}};
        technique->queryRay(ray, hits);
        reference->queryRay(ray, expectedHits);
        EXPECT_EQ(hits, expectedHits);
        std::optional<RayHit> first, expectedFirst;
        technique->raycastFirst(ray, first);
        reference->raycastFirst(ray, expectedFirst);
        EXPECT_EQ(first, expectedFirst);
    }
}

/// Positions equal bit for bit: the technique must not change the outcome.
void expectSamePositions(const World& reference, const World& tested) {
    ASSERT_EQ(reference.size(), tested.size());
    EXPECT_EQ(0, std::memcmp(reference.posX().data(), tested.posX().data(), reference.size() * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(reference.posY().data(), tested.posY().data(), reference.size() * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(reference.prevX().data(), tested.prevX().data(), reference.size() * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(reference.prevY().data(), tested.prevY().data(), reference.size() * sizeof(float)));
}

/// A world with gravity inside `bounds`, run by technique `id` with cells of 10.
World worldWithGravity(std::string_view id, const Aabb& bounds) {
    WorldConfig config;
    config.bounds = bounds;
    config.gravity = true;
    World world(config);
    world.setBroadPhase(findTechnique(id)->create());
    world.setBroadPhaseSettings(test::withCell(10.0f, config.bounds));
    return world;
}

// The world resolves overlaps in canonical order, so the technique must not change the outcome.
TEST_P(Conformance, WorldStateIsBitIdenticalToBruteForce) {
    auto run = [](std::string_view id) {
        World world = worldWithGravity(id, {0, 0, 500, 350});
        Rng rng(7);
        resizePopulation(world, rng, 600, {2.0f, 7.0f});
        for (int step = 0; step < 300; ++step) {
            if (step % 50 == 25) world.remove(world.ids()[rng.below(world.size())]);
            if (step % 40 == 0) resizePopulation(world, rng, world.size() + 3, {2.0f, 7.0f});
            world.tick();
        }
        return world;
    };
    const World reference = run("brute");
    const World tested = run(GetParam());
    expectSamePositions(reference, tested);
    EXPECT_GT(reference.lastStats().overlaps, 0u) << "the scene should have collisions to resolve";
}

TEST_P(Conformance, WorldWithStaticsMatchesBruteForceAndStaticsStayPut) {
    // Level geometry that never moves and bodies that bounce off it: the technique is handed
    // the movers alone (updateMoved) between ticks that add or remove no one.
    auto run = [](std::string_view id) {
        World world = worldWithGravity(id, {0, 0, 400, 300});
        Rng rng(9);
        for (int i = 0; i < 300; ++i) {
            EntityDesc d = randomEntity(rng, world.config().bounds, {2.0f, 7.0f});
            if (i % 4 != 0) {
                d.isStatic = true;
                d.velocity = {};
            }
            world.add(d);
        }
        std::uint64_t overlaps = 0;
        for (int step = 0; step < 200; ++step) {
            if (step == 120) world.remove(world.ids()[5]);
            world.tick();
            overlaps += world.lastStats().overlaps;
            for (const Pair& p : world.overlapPairs())
                EXPECT_FALSE(world.isStatic()[p.a] && world.isStatic()[p.b]) << "two statics paired at step " << step;
        }
        EXPECT_GT(overlaps, 0u);
        return world;
    };
    const World reference = run("brute");
    const World tested = run(GetParam());
    expectSamePositions(reference, tested);
    // The statics are where they were put.
    Rng rng(9);
    std::uint32_t checked = 0;
    for (int i = 0; i < 300; ++i) {
        const EntityDesc d = randomEntity(rng, {0, 0, 400, 300}, {2.0f, 7.0f});
        const auto at = tested.indexOf(static_cast<EntityId>(i));
        if (i % 4 == 0 || !at) continue;
        EXPECT_EQ(tested.posX()[*at], d.position.x);
        EXPECT_EQ(tested.posY()[*at], d.position.y);
        ++checked;
    }
    EXPECT_GT(checked, 200u);
}

INSTANTIATE_TEST_SUITE_P(AllTechniques, Conformance, ::testing::ValuesIn(test::allTechniqueIds()),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace ro

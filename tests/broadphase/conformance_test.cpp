// Every registered technique must find exactly the overlap pairs of the reference double loop,
// on every fixed scene and on every step of a simulation with motion, adds and removes.

#include <gtest/gtest.h>

#include <cstring>

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

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "support/settings.h"
#include "ro/registry.h"
#include "broadphase/grid/grid.h"
#include "broadphase/hash/hash.h"
#include "ro/rng.h"
#include "ro/world.h"

namespace ro {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

bool sameState(const World& a, const World& b) {
    auto same = [&](std::span<const float> x, std::span<const float> y) {
        return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size_bytes()) == 0;
    };
    return same(a.posX(), b.posX()) && same(a.posY(), b.posY()) && same(a.prevX(), b.prevX()) &&
           same(a.prevY(), b.prevY());
}

EntityDesc entity(Vec2 position, Vec2 velocity = {}, Vec2 halfExtents = {4, 4}, Shape shape = Shape::Box) {
    EntityDesc d;
    d.position = position;
    d.velocity = velocity;
    d.halfExtents = halfExtents;
    d.shape = shape;
    return d;
}

World populated(std::uint64_t seed, std::uint32_t count, bool gravity) {
    WorldConfig config;
    config.gravity = gravity;
    World world(config);
    world.setBroadPhase(findTechnique("grid")->create());
    world.setBroadPhaseSettings(test::withCell(16.0f, config.bounds));
    Rng rng(seed);
    resizePopulation(world, rng, count, defaultSizeRange(count, config.bounds));
    return world;
}

TEST(World, BoxesVersionChangesWithTheBoxesOnly) {
    World world;
    const EntityId a = world.add(entity({100, 100}, {1, 0}));
    world.add(entity({200, 100}));
    std::uint64_t version = world.boxesVersion();
    const auto changed = [&] {
        const bool differs = world.boxesVersion() != version;
        version = world.boxesVersion();
        return differs;
    };
    world.refreshPairs();
    EXPECT_FALSE(changed()) << "a refresh moves no box";
    WorldConfig config = world.config();
    config.subSteps = 2;
    world.setConfig(config);
    EXPECT_FALSE(changed()) << "settings move no box";
    world.tick();
    EXPECT_TRUE(changed());
    world.add(entity({300, 100}));
    EXPECT_TRUE(changed());
    EXPECT_FALSE(world.remove(a + 1000));
    EXPECT_FALSE(changed()) << "no entity of that id";
    world.remove(a);
    EXPECT_TRUE(changed());
    // Another world with as many edits still has versions of its own.
    World other;
    for (int k = 0; k < 5; ++k) other.add(entity({100, 100}));  // as many as above
    EXPECT_NE(other.boxesVersion(), world.boxesVersion());
}

TEST(World, SameSeedGivesTheSameStateBitForBit) {
    World a = populated(99, 2000, true);
    World b = populated(99, 2000, true);
    for (int i = 0; i < 200; ++i) a.tick(), b.tick();
    EXPECT_TRUE(sameState(a, b));
    EXPECT_GT(a.lastStats().contacts, 0u);
    World c = populated(100, 2000, true);
    for (int i = 0; i < 200; ++i) c.tick();
    EXPECT_FALSE(sameState(a, c)) << "a different seed should give a different state";
}

TEST(World, SimulationDoesNotDependOnTheFrameRate) {
    World fast = populated(5, 500, true);
    World slow = populated(5, 500, true);
    for (int frame = 0; frame < 240; ++frame) fast.advance(1.0 / 240.0);
    for (int frame = 0; frame < 30; ++frame) slow.advance(1.0 / 30.0);
    EXPECT_EQ(fast.tickCount(), 60u);
    EXPECT_EQ(slow.tickCount(), 60u);
    EXPECT_TRUE(sameState(fast, slow));
}

TEST(World, CatchUpIsCappedAndBadFrameTimesAreIgnored) {
    World world = populated(1, 10, false);
    EXPECT_EQ(world.advance(10.0), world.config().maxCatchUpTicks);
    EXPECT_EQ(world.advance(std::numeric_limits<double>::quiet_NaN()), 0);
    EXPECT_EQ(world.advance(-1.0), 0);
    World doubled = populated(1, 10, false);
    WorldConfig config = doubled.config();
    config.speed = 2.0f;
    doubled.setConfig(config);
    EXPECT_EQ(doubled.advance(1.0 / 60.0 + 1e-9), 2);
}

TEST(World, AWallBudgetStopsTicksAfterTheFirstAndDropsTheRest) {
    World world = populated(1, 10, false);
    // A budget of zero still runs one tick (a frame always advances), then stops; the time
    // left over is dropped, not owed: the next tiny frame runs at most the tick its
    // remainder completes, not the catch-up ticks that 10 s would owe.
    EXPECT_EQ(world.advance(10.0, 0.0), 1);
    EXPECT_EQ(world.tickCount(), 1u);
    EXPECT_LE(world.advance(1e-9), 1);
    // An ample budget runs what the catch-up cap allows.
    EXPECT_EQ(world.advance(10.0, 3600.0), world.config().maxCatchUpTicks);
}

TEST(World, AFreeEntityKeepsItsVelocity) {
    World world;
    EntityDesc d;
    d.position = {100, 100};
    d.velocity = {1.5f, -0.25f};  // stays clear of the walls for 200 ticks
    const EntityId id = world.add(d);
    for (int i = 0; i < 200; ++i) world.tick();
    const std::uint32_t i = *world.indexOf(id);
    EXPECT_NEAR(world.posX()[i] - world.prevX()[i], 1.5f, 1e-4f);
    EXPECT_NEAR(world.posY()[i] - world.prevY()[i], -0.25f, 1e-4f);
    EXPECT_NEAR(world.posX()[i], 100 + 200 * 1.5f, 1e-2f);
    EXPECT_NEAR(world.posY()[i], 100 - 200 * 0.25f, 1e-2f);
}

TEST(World, BoxesWhoseEdgesTouchAreAContact) {
    // Found by search: in float the edges touch (closed intervals), while the depth's own
    // rounding, hw + hw - |dx|, is below zero. The narrow phase must agree with the AABB test.
    const float ax = 812.265747f, ahw = 0.487296492f, bx = 813.32196f, bhw = 0.568878174f;
    ASSERT_LE(bx - bhw, ax + ahw) << "the edges should touch";
    ASSERT_LT(ahw + bhw - (bx - ax), 0.0f) << "the depth formula should round below zero";
    World world;
    world.add(entity({ax, 500}, {}, {ahw, 0.5f}));
    world.add(entity({bx, 500}, {}, {bhw, 0.5f}));
    world.refreshPairs();
    EXPECT_EQ(world.lastStats().overlaps, 1u);
    EXPECT_EQ(world.lastStats().contacts, 1u) << "a pair whose AABBs touch is a contact of two boxes";
}

TEST(World, GravityPullsDown) {
    WorldConfig config;
    config.gravity = true;
    World world(config);
    const EntityId id = world.add(entity({100, 100}));
    for (int i = 0; i < 30; ++i) world.tick();
    const std::uint32_t i = *world.indexOf(id);
    EXPECT_GT(world.posY()[i], 100.0f);
    EXPECT_GT(world.posY()[i] - world.prevY()[i], 0.0f);
    EXPECT_EQ(world.posX()[i], 100.0f);
}

TEST(World, WallsBounceAndKeepEntitiesInside) {
    WorldConfig config;
    config.bounds = {-50, -20, 250, 180};
    config.gravity = true;
    World world(config);
    Rng rng(8);
    for (int i = 0; i < 400; ++i) {
        EntityDesc d = randomEntity(rng, config.bounds, {1.0f, 6.0f});
        d.velocity = {rng.range(-9, 9), rng.range(-9, 9)};  // fast: several walls hit per second
        world.add(d);
    }
    const float tolerance = 1e-3f;
    for (int step = 0; step < 600; ++step) {
        world.tick();
        const BoxView b = world.boxes();
        for (std::uint32_t i = 0; i < b.count; ++i) {
            ASSERT_GE(b.minX[i], config.bounds.minX - tolerance) << "step " << step;
            ASSERT_LE(b.maxX[i], config.bounds.maxX + tolerance) << "step " << step;
            ASSERT_GE(b.minY[i], config.bounds.minY - tolerance) << "step " << step;
            ASSERT_LE(b.maxY[i], config.bounds.maxY + tolerance) << "step " << step;
        }
    }
}

TEST(World, ABounceReversesTheVelocityTowardsTheWall) {
    World world;  // bounds 0..1600
    const EntityId id = world.add(entity({1590, 500}, {4, 0}, {5, 5}));
    world.tick();
    world.tick();
    const std::uint32_t i = *world.indexOf(id);
    EXPECT_LT(world.posX()[i] - world.prevX()[i], 0.0f);
    EXPECT_LE(world.posX()[i] + 5.0f, 1600.0f);
}

TEST(World, IdsStayStableAcrossRemovals) {
    World world;
    const EntityId a = world.add(entity({10, 10}));
    const EntityId b = world.add(entity({20, 20}));
    const EntityId c = world.add(entity({30, 30}));
    EXPECT_TRUE(world.remove(a));
    EXPECT_FALSE(world.remove(a));
    EXPECT_FALSE(world.contains(a));
    ASSERT_TRUE(world.contains(b) && world.contains(c));
    EXPECT_EQ(world.posX()[*world.indexOf(b)], 20.0f);
    EXPECT_EQ(world.posX()[*world.indexOf(c)], 30.0f);
    EXPECT_EQ(world.size(), 2u);
    const EntityId d = world.add(entity({40, 40}));
    EXPECT_NE(d, a) << "ids are never reused";
}

TEST(World, PointQueryFindsTheEntityUnderThePoint) {
    World world;
    const EntityId box = world.add(entity({100, 100}, {}, {10, 5}));
    const EntityId circle = world.add(entity({200, 100}, {}, {10, 10}, Shape::Circle));
    EXPECT_EQ(world.entityAt({109, 104}), box);
    EXPECT_EQ(world.entityAt({110, 105}), box) << "the boundary belongs to the box";
    EXPECT_EQ(world.entityAt({100, 106}), std::nullopt);
    EXPECT_EQ(world.entityAt({200, 109}), circle);
    EXPECT_EQ(world.entityAt({208, 108}), std::nullopt) << "inside the circle's box, outside the circle";
}

TEST(World, RejectsBadInputWithAClearError) {
    World world;
    EXPECT_THROW(world.add(entity({kNaN, 0})), std::invalid_argument);
    EXPECT_THROW(world.add(entity({0, kInf})), std::invalid_argument);
    EXPECT_THROW(world.add(entity({}, {kInf, 0})), std::invalid_argument);
    EXPECT_THROW(world.add(entity({}, {}, {0, 1})), std::invalid_argument);
    EXPECT_THROW(world.add(entity({}, {}, {1, -1})), std::invalid_argument);
    EXPECT_THROW(world.add(entity({}, {}, {kNaN, 1})), std::invalid_argument);
    EXPECT_EQ(world.size(), 0u);
    EXPECT_THROW(world.setBroadPhaseSettings(test::withCell(0.0f, world.config().bounds)), std::invalid_argument);
    EXPECT_THROW(world.setBroadPhaseSettings(test::withCell(kNaN, world.config().bounds)), std::invalid_argument);
    EXPECT_THROW(world.setBroadPhaseSettings(test::withCell(-4.0f, world.config().bounds)), std::invalid_argument);
    EXPECT_THROW(world.setBroadPhase(nullptr), std::invalid_argument);
    WorldConfig inverted;
    inverted.bounds = {0, 0, -1, 10};
    EXPECT_THROW(World{inverted}, std::invalid_argument);
    WorldConfig overflowing;
    overflowing.bounds = {-3e38f, 0, 3e38f, 10};  // finite corners, infinite width
    EXPECT_THROW(World{overflowing}, std::invalid_argument);
    WorldConfig stopped;
    stopped.tickHz = 0.0f;
    EXPECT_THROW(World{stopped}, std::invalid_argument);
    WorldConfig noSubSteps;
    noSubSteps.subSteps = 0;
    EXPECT_THROW(World{noSubSteps}, std::invalid_argument);

    // A running world rejects the same settings and keeps the ones it had.
    for (const float speed : {kNaN, kInf, -1.0f}) {
        WorldConfig bad = world.config();
        bad.speed = speed;
        EXPECT_THROW(world.setConfig(bad), std::invalid_argument) << "speed " << speed;
    }
    WorldConfig badGravity = world.config();
    badGravity.gravityAccel = kNaN;
    EXPECT_THROW(world.setConfig(badGravity), std::invalid_argument);
    EXPECT_THROW(world.setConfig(stopped), std::invalid_argument);
    EXPECT_EQ(world.config().speed, 1.0f);
    EXPECT_EQ(world.config().tickHz, 60.0f);
}

TEST(Techniques, RejectBadBoundsInConfigure) {
    for (const TechniqueInfo& t : techniques()) {
        auto technique = t.create();
        for (const Aabb& bounds : {Aabb{0, 0, -1, 10}, Aabb{0, 0, kInf, 10}, Aabb{-3e38f, 0, 3e38f, 10}})
            EXPECT_THROW(technique->configure(test::withCell(8.0f, bounds)), std::invalid_argument) << t.id;
    }
}

TEST(World, SwitchingTechniqueMidRunKeepsTheWorldAndItsFuture) {
    // One world switches technique every 20 ticks; the other keeps the grid. Switching must
    // neither touch the entities nor change where they go from there.
    World switching = populated(3, 1500, true);
    World steady = populated(3, 1500, true);
    const auto all = techniques();
    for (int i = 0; i < 200; ++i) {
        if (i % 20 == 10) {
            switching.setBroadPhase(all[static_cast<std::size_t>(i / 20) % all.size()].create());
            EXPECT_TRUE(sameState(switching, steady)) << "the switch itself moved something, tick " << i;
        }
        switching.tick();
        steady.tick();
    }
    EXPECT_TRUE(sameState(switching, steady));
    EXPECT_GT(steady.lastStats().contacts, 0u) << "the scene should have collisions to resolve";
    EXPECT_EQ(switching.tickCount(), 200u);
}

TEST(World, SubStepsSplitATick) {
    WorldConfig config;
    config.subSteps = 4;
    World world(config);
    world.add(entity({100, 100}, {2, 0}));
    world.tick();
    EXPECT_EQ(world.tickCount(), 1u);
    EXPECT_NEAR(world.posX()[0], 108.0f, 1e-4f) << "four sub-steps of the same implicit velocity";
}

TEST(Scene, DefaultSizesScaleWithTheCount) {
    const Aabb bounds{0, 0, 1600, 1000};
    const SizeRange few = defaultSizeRange(1000, bounds);
    const SizeRange many = defaultSizeRange(100000, bounds);
    EXPECT_GT(few.maxHalf, many.maxHalf);
    EXPECT_GT(many.minHalf, 0.0f);
    EXPECT_LT(few.minHalf, few.maxHalf);
}

}  // namespace
}  // namespace ro

namespace ro {
namespace {

// ---- fast movers: swept boxes, time of impact, missed collisions ------------------------

struct BulletRun {
    float finalX = 0.0f;        ///< where the bullet ends
    std::uint64_t missed = 0;   ///< collisions the broad phase did not report, over the run
    std::uint64_t impacts = 0;  ///< pairs moved to their first contact
};

/// A 1000 x 200 world that counts missed collisions, with `technique` and cells of 4.
World missCountingWorld(const TechniqueInfo& technique, bool swept = false, bool toi = false) {
    WorldConfig config;
    config.bounds = {0, 0, 1000, 200};
    config.sweptBoxes = swept;
    config.timeOfImpact = toi;
    config.countMissed = true;
    World world(config);
    world.setBroadPhase(technique.create());
    world.setBroadPhaseSettings(test::withCell(4.0f, config.bounds));
    return world;
}

/// A bullet (a box of half-extent 1) fired at 60 units a tick at a static wall 1 unit thick
/// 100 units ahead: between two ticks it is 40 units short, then 20 past it.
BulletRun fireAtWall(std::string_view technique, bool swept, bool toi, Shape bulletShape = Shape::Box) {
    World world = missCountingWorld(*findTechnique(technique), swept, toi);
    world.add({.position = {500, 100}, .velocity = {}, .acceleration = {}, .halfExtents = {0.5f, 50}, .isStatic = true});
    const EntityId bullet = world.add({.position = {400, 100}, .velocity = {60, 0}, .acceleration = {},
                                       .halfExtents = {1, 1}, .shape = bulletShape});
    BulletRun run;
    for (int tick = 0; tick < 4; ++tick) {
        world.tick();
        run.missed += world.lastStats().missed;
        run.impacts += world.lastStats().impacts;
    }
    run.finalX = world.posX()[*world.indexOf(bullet)];
    return run;
}

TEST(FastMovers, ABulletTunnelsThroughAThinWallWithoutSweptBoxesAndTheCounterSaysSo) {
    for (const TechniqueInfo& t : techniques()) {
        SCOPED_TRACE(std::string(t.id));
        const BulletRun run = fireAtWall(t.id, false, false);
        EXPECT_GT(run.finalX, 500.0f) << "the discrete broad phase never sees the bullet touch the wall";
        EXPECT_EQ(run.missed, 1u);
        EXPECT_EQ(run.impacts, 0u);
    }
}

TEST(FastMovers, AMissedPairIsListedWithWhereItPassedForOneTick) {
    World world = missCountingWorld(*findTechnique("grid"));
    const EntityId wall =
        world.add({.position = {500, 100}, .velocity = {}, .acceleration = {}, .halfExtents = {0.5f, 50}, .isStatic = true});
    const EntityId bullet =
        world.add({.position = {400, 100}, .velocity = {60, 0}, .acceleration = {}, .halfExtents = {1, 1}});
    world.tick();  // 400 to 460: short of the wall
    EXPECT_TRUE(world.missedPairs().empty());
    world.refreshPairs();  // counts the coming tick's miss, lists none: it has not happened
    EXPECT_EQ(world.lastStats().missed, 1u);
    EXPECT_TRUE(world.missedPairs().empty());
    world.tick();  // 460 to 520: through it
    ASSERT_EQ(world.missedPairs().size(), 1u);
    const MissedPair& m = world.missedPairs()[0];
    EXPECT_EQ(std::minmax(m.a, m.b), std::minmax(wall, bullet));
    // First touch with the bullet's centre at 498.5, the wall's at 500: midway, 499.25.
    EXPECT_NEAR(m.where.x, 499.25f, 1e-3f);
    EXPECT_NEAR(m.where.y, 100.0f, 1e-3f);
    world.tick();
    EXPECT_TRUE(world.missedPairs().empty());
}

TEST(FastMovers, APairThatEndsTheTickTouchingIsReportedByTheNextTickNotMissed) {
    // A box 0.5 short of a static wall, at 1 unit a tick: it meets the wall within the first
    // tick and ends it overlapping, so the second tick reports it. Late, not missed: the
    // counter is for pairs no tick ever shows (ordinary contacts would otherwise fill it).
    for (const TechniqueInfo& t : techniques()) {
        SCOPED_TRACE(std::string(t.id));
        World world = missCountingWorld(t);
        world.add({.position = {500, 100}, .velocity = {}, .acceleration = {}, .halfExtents = {0.5f, 50}, .isStatic = true});
        world.add({.position = {498, 100}, .velocity = {1, 0}, .acceleration = {}, .halfExtents = {1, 1}});
        world.tick();
        EXPECT_EQ(world.lastStats().missed, 0u);
        EXPECT_TRUE(world.overlapPairs().empty()) << "apart at the first tick's start";
        world.tick();
        EXPECT_EQ(world.lastStats().missed, 0u);
        EXPECT_EQ(world.overlapPairs().size(), 1u) << "the second tick reports the pair";
    }
}

TEST(FastMovers, TwoCirclesWhoseBoxesEndTheTickTouchingAreNotMissed) {
    // b's circle grazes a's within the tick and ends apart from it, but their boxes end the
    // tick overlapping (corner to corner), so the next tick's broad phase reports the pair:
    // late, not missed. The count is of boxes, whatever the shapes.
    for (const TechniqueInfo& t : techniques()) {
        SCOPED_TRACE(std::string(t.id));
        World world = missCountingWorld(t);
        world.add({.position = {50, 50}, .velocity = {}, .acceleration = {}, .halfExtents = {1, 1}, .shape = Shape::Circle,
                   .isStatic = true});
        world.add({.position = {47.5f, 51}, .velocity = {4.4f, 0.9f}, .acceleration = {}, .halfExtents = {1, 1},
                   .shape = Shape::Circle});
        ASSERT_TRUE(world.timeOfImpact(0, 1)) << "the circles meet within the tick";
        world.tick();
        EXPECT_EQ(world.lastStats().missed, 0u);
        world.tick();
        EXPECT_EQ(world.overlapPairs().size(), 1u) << "the second tick reports the pair";
    }
}

TEST(FastMovers, SweptBoxesAndTimeOfImpactStopTheTunnelling) {
    for (const TechniqueInfo& t : techniques()) {
        for (const Shape shape : {Shape::Box, Shape::Circle}) {
            SCOPED_TRACE(std::string(t.id) + (shape == Shape::Circle ? " circle" : " box"));
            const BulletRun run = fireAtWall(t.id, true, true, shape);
            EXPECT_LT(run.finalX, 500.0f) << "the bullet bounces off the wall's near side";
            EXPECT_EQ(run.missed, 0u);
            EXPECT_EQ(run.impacts, 1u);
        }
    }
}

TEST(FastMovers, SweptBoxesAloneReportThePairButNothingStopsTheBullet) {
    const BulletRun run = fireAtWall("grid", true, false);
    EXPECT_EQ(run.missed, 0u) << "the swept boxes overlap: the pair was reported";
    EXPECT_GT(run.finalX, 500.0f);
}

TEST(FastMovers, TimeOfImpactIsWhereTheShapesFirstTouch) {
    World world(WorldConfig{.bounds = {0, 0, 100, 100}});
    world.add({.position = {10, 50}, .velocity = {8, 0}, .acceleration = {}, .halfExtents = {1, 1}});
    world.add({.position = {20, 50}, .velocity = {0, 0}, .acceleration = {}, .halfExtents = {1, 1}});
    world.add({.position = {10, 60}, .velocity = {8, 0}, .acceleration = {}, .halfExtents = {1, 1}, .shape = Shape::Circle});
    world.add({.position = {20, 60}, .velocity = {0, 0}, .acceleration = {}, .halfExtents = {1, 1}, .shape = Shape::Circle});
    world.add({.position = {20, 90}, .velocity = {0, 0}, .acceleration = {}, .halfExtents = {1, 1}});
    // Boxes: the gap of 8 closes at t = 1; circles the same along the line of centres.
    ASSERT_TRUE(world.timeOfImpact(0, 1).has_value());
    EXPECT_FLOAT_EQ(*world.timeOfImpact(0, 1), 1.0f);
    ASSERT_TRUE(world.timeOfImpact(2, 3).has_value());
    EXPECT_FLOAT_EQ(*world.timeOfImpact(2, 3), 1.0f);
    EXPECT_FALSE(world.timeOfImpact(0, 4).has_value()) << "paths that never meet";
    EXPECT_FALSE(world.timeOfImpact(1, 3).has_value()) << "two still shapes apart";
}

}  // namespace
}  // namespace ro

namespace ro {
namespace {

TEST(WorldBatches, ABatchAddsAllOrNothingAndRemovesTheLiving) {
    World world(WorldConfig{.bounds = {0, 0, 100, 100}});
    std::vector<EntityDesc> descs(3);
    for (std::size_t k = 0; k < descs.size(); ++k) descs[k].position = {10.0f + 10.0f * static_cast<float>(k), 50.0f};
    descs[2].halfExtents = {-1.0f, 1.0f};  // refused: the whole batch is
    EXPECT_THROW(world.addBatch(descs), std::invalid_argument);
    EXPECT_EQ(world.size(), 0u);
    descs[2].halfExtents = {1.0f, 1.0f};
    std::vector<EntityId> ids;
    world.addBatch(descs, &ids);
    ASSERT_EQ(ids.size(), 3u);
    EXPECT_EQ(world.size(), 3u);
    const EntityId gone[] = {ids[0], ids[2], 9999};
    EXPECT_EQ(world.removeBatch(gone), 2u);
    EXPECT_EQ(world.size(), 1u);
    EXPECT_TRUE(world.contains(ids[1]));
}

TEST(WorldBatches, TheBeforeTickHookRunsOncePerTickAndItsBatchesReachThePairs) {
    World world(WorldConfig{.bounds = {0, 0, 100, 100}, .response = ContactResponse::None});
    int calls = 0;
    // Every tick one entity comes on top of the first and the oldest other one goes.
    world.add({.position = {50, 50}, .velocity = {}, .acceleration = {}, .halfExtents = {2, 2}});
    world.setBeforeTick([&](World& w) {
        ++calls;
        if (w.size() > 1) w.remove(w.ids()[1]);
        const EntityDesc d{.position = {51, 50}, .velocity = {}, .acceleration = {}, .halfExtents = {2, 2}};
        w.addBatch(std::span(&d, 1));
    });
    for (int t = 0; t < 5; ++t) {
        world.tick();
        EXPECT_EQ(world.size(), 2u);
        EXPECT_EQ(world.lastStats().overlaps, 1u) << "the new entity overlaps the first in the tick it came";
    }
    EXPECT_EQ(calls, 5);
}

}  // namespace
}  // namespace ro

namespace ro {
namespace {

// A world steps only its movers once the broad phase knows them (a field of statics costs
// nothing a tick). Against a twin whose still boxes are dynamic with no velocity, with no
// response between them: every box the same, tick by tick, through entities that come and go.
TEST(WorldStatics, StepsOnlyItsMoversAndKeepsEveryBoxAsATwinWithoutStaticsDoes) {
    const WorldConfig config{.bounds = {0, 0, 200, 200}, .response = ContactResponse::None};
    World withStatics(config), twin(config);
    Rng rng(21);
    std::vector<EntityId> ids, twinIds;
    const auto addBoth = [&](bool still) {
        EntityDesc d{.position = {rng.range(5, 195), rng.range(5, 195)},
                     .velocity = still ? Vec2{} : Vec2{rng.range(-2, 2), rng.range(-2, 2)},
                     .acceleration = {},
                     .halfExtents = {rng.range(0.5f, 3.0f), rng.range(0.5f, 3.0f)}};
        EntityDesc twinDesc = d;
        d.isStatic = still;
        ids.push_back(withStatics.add(d));
        twinIds.push_back(twin.add(twinDesc));
    };
    for (int i = 0; i < 400; ++i) addBoth(i % 10 != 0);
    for (int tick = 0; tick < 60; ++tick) {
        if (tick == 20 || tick == 40) {  // a static and a mover come, one of each goes
            addBoth(true);
            addBoth(false);
            const std::size_t k = tick == 20 ? 3 : 10;  // a static, then a mover
            withStatics.remove(ids[k]);
            twin.remove(twinIds[k]);
        }
        withStatics.tick();
        twin.tick();
        const BoxView a = withStatics.boxes(), b = twin.boxes();
        ASSERT_EQ(a.count, b.count);
        for (std::uint32_t i = 0; i < a.count; ++i) ASSERT_EQ(a.box(i), b.box(i)) << "tick " << tick << ", entity " << i;
    }
    EXPECT_NE(withStatics.boxes().box(0), Aabb{}) << "sanity: the boxes are set";
}

TEST(World, AnEntitysOwnAccelerationMovesItAndEveryBoxFollowsItsPosition) {
    // Without gravity the world skips the acceleration pass while no entity accelerates: it
    // must run again as soon as one that does comes. Every box follows its position all along,
    // and after the accelerated one goes the others keep their course.
    const WorldConfig config{.bounds = {0, 0, 1000, 1000}, .response = ContactResponse::None};
    World world(config);
    const EntityId drifting = world.add(entity({100, 500}, {1, 0}));
    const auto boxesFollowPositions = [&] {
        const BoxView boxes = world.boxes();
        for (std::uint32_t i = 0; i < world.size(); ++i) {
            const float x = world.posX()[i], y = world.posY()[i], hw = world.halfW()[i], hh = world.halfH()[i];
            if (boxes.box(i) != Aabb{x - hw, y - hh, x + hw, y + hh}) return false;
        }
        return true;
    };
    for (int tick = 0; tick < 3; ++tick) world.tick();
    EntityDesc pushed = entity({500, 500});
    pushed.acceleration = {0, 3600};  // 1 unit per tick per tick at 60 Hz
    const EntityId accelerating = world.add(pushed);
    for (int tick = 1; tick <= 10; ++tick) {
        world.tick();
        ASSERT_TRUE(boxesFollowPositions()) << "tick " << tick;
        const std::uint32_t i = *world.indexOf(accelerating);
        // From rest, a tick adds a (1) to the position and then the velocity: after k ticks
        // it has gone k(k + 3) / 2.
        EXPECT_NEAR(world.posY()[i], 500.0f + static_cast<float>(tick * (tick + 3)) / 2.0f, 1e-3f) << "tick " << tick;
    }
    world.remove(accelerating);
    const float before = world.posX()[*world.indexOf(drifting)];
    for (int tick = 0; tick < 3; ++tick) world.tick();
    EXPECT_TRUE(boxesFollowPositions());
    EXPECT_EQ(world.posX()[*world.indexOf(drifting)], before + 3.0f);
}

}  // namespace
}  // namespace ro

// The range of sizes, positions and rates the world supports: refused outside, well defined
// inside (every step keeps positions finite and every technique agrees with brute force),
// and tables that follow the live entities through a long churn.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>

#include "ro/registry.h"
#include "ro/rng.h"
#include "support/scenes.h"
#include "ro/world.h"

namespace ro {
namespace {

using L = WorldLimits;

EntityDesc entity(Vec2 position, Vec2 velocity, Vec2 half, Shape shape = Shape::Box) {
    EntityDesc d;
    d.position = position;
    d.velocity = velocity;
    d.halfExtents = half;
    d.shape = shape;
    return d;
}

std::string refusal(World& world, const EntityDesc& d) {
    try {
        world.add(d);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return {};
}

TEST(WorldLimits, AddRefusesWhatLiesOutsideTheRangeWithTheRangeInTheMessage) {
    World world;
    // Tiny sizes made the push's masses underflow to 0/0, huge ones inf/inf.
    EXPECT_EQ(refusal(world, entity({10, 10}, {}, {1e-30f, 1e-30f})),
              "entity half-extent x must be between 0.001 and 100000, got 1e-30");
    EXPECT_NE(refusal(world, entity({10, 10}, {}, {1, 1e20f})), "");
    EXPECT_NE(refusal(world, entity({10, 10}, {}, {1e20f, 1}, Shape::Circle)), "");
    // Velocity 3e38 made the previous position -inf.
    EXPECT_EQ(refusal(world, entity({-3e38f, 0}, {3e38f, 0}, {1, 1})),
              "entity position x must be between -1e+07 and 1e+07, got -3e+38");
    EXPECT_NE(refusal(world, entity({0, 0}, {3e38f, 0}, {1, 1})), "");
    // Just past the bound: the value is printed so that it is not read as the bound itself.
    EXPECT_EQ(refusal(world, entity({10000001.0f, 0}, {}, {1, 1})),
              "entity position x must be between -1e+07 and 1e+07, got 10000001");
    EXPECT_NE(refusal(world, entity({0, std::numeric_limits<float>::quiet_NaN()}, {}, {1, 1})), "");
    EntityDesc accelerated = entity({0, 0}, {}, {1, 1});
    accelerated.acceleration = {0, 1e30f};
    EXPECT_NE(refusal(world, accelerated), "");
    EXPECT_EQ(world.size(), 0u);
    // The edges of the range are accepted.
    EXPECT_EQ(refusal(world, entity({L::kMaxCoordinate, -L::kMaxCoordinate}, {L::kMaxSpeedPerTick, 0},
                                    {L::kMinHalfExtent, L::kMaxHalfExtent})),
              "");
}

TEST(WorldLimits, SetConfigRefusesRatesThatOverflowAStepAndKeepsTheOldOnes) {
    World world;
    const WorldConfig good = world.config();
    const auto refuses = [&](auto spoil) {
        WorldConfig bad = good;
        spoil(bad);
        EXPECT_THROW(world.setConfig(bad), std::invalid_argument);
        EXPECT_THROW(World{bad}, std::invalid_argument);
    };
    refuses([](WorldConfig& c) { c.tickHz = 1e-20f; });  // dt^2 overflowed: NaN after one tick
    refuses([](WorldConfig& c) { c.tickHz = 1e9f; });
    refuses([](WorldConfig& c) { c.speed = 1e30f; });
    refuses([](WorldConfig& c) { c.subSteps = 1'000'000; });
    refuses([](WorldConfig& c) { c.maxCatchUpTicks = 1'000'000'000; });
    refuses([](WorldConfig& c) { c.gravityAccel = 1e30f; });
    refuses([](WorldConfig& c) { c.bounds = {-1e30f, 0, 10, 10}; });
    refuses([](WorldConfig& c) { c.bounds = {0, 0, 10, std::numeric_limits<float>::infinity()}; });
    EXPECT_EQ(world.config().tickHz, good.tickHz);
}

class WorldAtTheLimits : public ::testing::TestWithParam<std::string_view> {};

TEST_P(WorldAtTheLimits, EveryStepStaysFiniteAndMatchesBruteForce) {
    // The sizes that made NaN (tiny and huge, overlapping at one spot) and sizes of every mix,
    // far from the origin, with each response. Every tick: finite positions, and the
    // technique's overlaps equal brute force's on the same boxes.
    for (const ContactResponse response : {ContactResponse::PushApart, ContactResponse::Bounce}) {
        WorldConfig config;
        config.bounds = {L::kMaxCoordinate - 4e5f, -L::kMaxCoordinate, L::kMaxCoordinate, -L::kMaxCoordinate + 4e5f};
        config.response = response;
        World world(config);
        world.setBroadPhase(findTechnique(GetParam())->create());
        Rng rng(5);
        const Vec2 centre{L::kMaxCoordinate - 2e5f, -L::kMaxCoordinate + 2e5f};
        for (int i = 0; i < 40; ++i) {
            const float half = i % 3 == 0 ? L::kMinHalfExtent : (i % 3 == 1 ? rng.range(1.0f, 50.0f) : 3e4f);
            const Vec2 at{centre.x + rng.range(-10, 10), centre.y + rng.range(-10, 10)};
            world.add(entity(at, {rng.range(-5, 5), rng.range(-5, 5)}, {half, half}, i % 2 ? Shape::Circle : Shape::Box));
        }
        for (int tick = 0; tick < 60; ++tick) {
            world.tick();
            for (std::uint32_t i = 0; i < world.size(); ++i)
                ASSERT_TRUE(std::isfinite(world.posX()[i]) && std::isfinite(world.posY()[i])) << "tick " << tick;
            world.refreshPairs();
            const std::set<Pair> found(world.overlapPairs().begin(), world.overlapPairs().end());
            ASSERT_EQ(found, test::referenceOverlaps(world.boxes())) << "tick " << tick;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllTechniques, WorldAtTheLimits, ::testing::ValuesIn(test::allTechniqueIds()),
                         [](const auto& info) { return std::string(info.param); });

TEST(WorldLimits, AChurnOfHundredsOfThousandsOfIdsKeepsTheTablesAtTheLiveCount) {
    // 2,000 live, 200 removed and 200 added a tick for 2,000 ticks: 400,000 ids issued. The
    // world's id table grew to 20 MB and the HSHG's to 161 MB with 4 M ids.
    for (const std::string_view id : {"hshg", "tree", "sap", "sweep"}) {
        SCOPED_TRACE(id);
        World world;
        world.setBroadPhase(findTechnique(id)->create());
        Rng rng(9);
        const SizeRange sizes{2.0f, 6.0f};
        for (int i = 0; i < 2000; ++i) world.add(randomEntity(rng, world.config().bounds, sizes));
        std::uint64_t warmWorld = 0, warmTechnique = 0;
        for (int tick = 0; tick < 2000; ++tick) {
            for (int k = 0; k < 200; ++k) world.remove(world.ids()[rng.below(world.size())]);
            for (int k = 0; k < 200; ++k) world.add(randomEntity(rng, world.config().bounds, sizes));
            world.tick();
            if (tick == 20) {
                warmWorld = world.bytesHeld();
                warmTechnique = world.broadPhase().counters().bytesHeld;
            }
        }
        EXPECT_LE(world.bytesHeld(), warmWorld + warmWorld / 2);
        EXPECT_LE(world.broadPhase().counters().bytesHeld, warmTechnique + warmTechnique / 2);
        world.refreshPairs();
        const std::set<Pair> found(world.overlapPairs().begin(), world.overlapPairs().end());
        EXPECT_EQ(found, test::referenceOverlaps(world.boxes()));
    }
}

TEST(WorldLimits, TheTechniquesMemoryFollowsTheLiveEntities) {
    // A scene of 200,000 (brute force: its limit) that shrinks to 100: the world's technique
    // then holds memory for 100, not for what it once held (the tree kept 474 MB after every
    // one of 1,000,000 entities was removed).
    for (const TechniqueInfo& info : techniques()) {
        SCOPED_TRACE(info.id);
        const std::uint32_t largeCount = info.maxEntities != 0 ? info.maxEntities : 200'000;
        WorldConfig config;
        config.bounds = {0, 0, 4000, 4000};
        World world(config);
        world.setBroadPhase(info.create());
        Rng rng(4);
        resizePopulation(world, rng, largeCount, {1.0f, 3.0f});
        world.tick();
        const std::uint64_t large = world.broadPhase().counters().bytesHeld;
        resizePopulation(world, rng, 100, {1.0f, 3.0f});
        world.tick();
        const std::uint64_t small = world.broadPhase().counters().bytesHeld;
        EXPECT_LT(small, large / 100) << large << " bytes at " << largeCount << ", " << small << " at 100";
        world.refreshPairs();
        const std::set<Pair> found(world.overlapPairs().begin(), world.overlapPairs().end());
        EXPECT_EQ(found, test::referenceOverlaps(world.boxes())) << "the fresh technique answers as the old one";
    }
}

}  // namespace
}  // namespace ro

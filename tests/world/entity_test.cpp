#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "ro/registry.h"
#include "ro/world.h"

namespace ro {
namespace {

EntityDesc box(Vec2 position, Vec2 velocity = {}, Vec2 halfExtents = {4, 3}) {
    EntityDesc d;
    d.position = position;
    d.velocity = velocity;
    d.halfExtents = halfExtents;
    return d;
}

TEST(Entity, ReadsWhatTheArraysHold) {
    World world;
    EntityDesc circle = box({50, 60}, {1, -2}, {5, 5});
    circle.shape = Shape::Circle;
    circle.acceleration = {0, 10};
    const EntityId id = world.add(circle);
    const Entity e = world.entity(id);
    EXPECT_EQ(e.id(), id);
    EXPECT_EQ(e.position().x, 50.0f);
    EXPECT_EQ(e.position().y, 60.0f);
    EXPECT_EQ(e.velocity().x, 1.0f);
    EXPECT_EQ(e.velocity().y, -2.0f);
    EXPECT_EQ(e.acceleration().y, 10.0f);
    EXPECT_EQ(e.halfExtents().x, 5.0f);
    EXPECT_EQ(e.size().x, 10.0f);  // the full width, twice the half-extent
    EXPECT_EQ(e.size().y, 10.0f);
    EXPECT_EQ(e.shape(), Shape::Circle);
    EXPECT_FALSE(e.isStatic());

    for (int t = 0; t < 5; ++t) world.tick();  // the arrays move on; the handle reads them
    const std::uint32_t i = *world.indexOf(id);
    EXPECT_EQ(e.position().x, world.posX()[i]);
    EXPECT_EQ(e.position().y, world.posY()[i]);
    EXPECT_EQ(e.velocity().x, world.posX()[i] - world.prevX()[i]);
}

TEST(Entity, WhatItSetsTheArraysSee) {
    World world;
    const EntityId id = world.add(box({100, 100}, {2, 0}));
    Entity e = world.entity(id);
    const std::uint64_t version = world.boxesVersion();
    e.setPosition({300, 200});
    const std::uint32_t i = *world.indexOf(id);
    EXPECT_EQ(world.posX()[i], 300.0f);
    EXPECT_EQ(world.posY()[i], 200.0f);
    EXPECT_EQ(world.boxes().box(i), (Aabb{296, 197, 304, 203}));
    EXPECT_EQ(e.velocity().x, 2.0f);  // a move keeps the velocity
    EXPECT_NE(world.boxesVersion(), version);
    e.setVelocity({0, 3});
    EXPECT_EQ(world.posY()[i] - world.prevY()[i], 3.0f);
    e.setAcceleration({0, 60});
    EXPECT_EQ(world.accY()[i], 60.0f);
    world.tick();
    EXPECT_GT(e.position().y, 203.0f);  // velocity and acceleration both took effect
    EXPECT_EQ(e.position().x, 300.0f);
}

TEST(Entity, FollowsItsEntityWhenOthersAreRemoved) {
    World world;
    const EntityId first = world.add(box({10, 10}));
    world.add(box({20, 20}));
    const EntityId last = world.add(box({30, 30}));
    const Entity e = world.entity(last);
    ASSERT_TRUE(world.remove(first));  // the last entity takes the first's dense index
    EXPECT_EQ(*world.indexOf(last), 0u);
    EXPECT_EQ(e.position().x, 30.0f);
}

TEST(Entity, AnIdThatIsGoneGivesAClearError) {
    World world;
    const EntityId id = world.add(box({10, 10}));
    const Entity e = world.entity(id);
    ASSERT_TRUE(world.remove(id));
    try {
        (void)e.position();
        FAIL() << "a removed entity's handle must throw";
    } catch (const std::out_of_range& error) {
        EXPECT_NE(std::string(error.what()).find("entity " + std::to_string(id) + " is not in the world"), std::string::npos)
            << error.what();
    }
    EXPECT_THROW((void)world.entity(id), std::out_of_range);
    EXPECT_THROW((void)world.entity(12345), std::out_of_range);
}

TEST(Entity, SettersRefuseWhatTheWorldRefuses) {
    World world;
    EntityDesc wall = box({500, 500});
    wall.isStatic = true;
    const EntityId wallId = world.add(wall);
    const EntityId moverId = world.add(box({100, 100}, {1, 1}));
    Entity w = world.entity(wallId);
    Entity m = world.entity(moverId);
    EXPECT_THROW(w.setVelocity({1, 0}), std::invalid_argument);
    EXPECT_THROW(w.setAcceleration({0, 1}), std::invalid_argument);
    EXPECT_THROW(m.setPosition({2.0e7f, 0}), std::invalid_argument);
    EXPECT_THROW(m.setVelocity({0, 2.0e6f}), std::invalid_argument);
    EXPECT_EQ(m.position().x, 100.0f);  // refused: left as it was
    EXPECT_EQ(m.velocity().y, 1.0f);
    w.setPosition({600, 500});  // level geometry can be placed
    EXPECT_EQ(w.position().x, 600.0f);
    EXPECT_EQ(w.velocity().x, 0.0f);
}

TEST(Entity, AMovedStaticIsSeenByTheBroadPhase) {
    World world;
    world.setBroadPhase(createTechnique("tree"));  // it works from the moved lists
    EntityDesc wall = box({500, 500}, {}, {10, 10});
    wall.isStatic = true;
    const EntityId wallId = world.add(wall);
    world.add(box({100, 100}, {}, {10, 10}));
    for (int t = 0; t < 3; ++t) world.tick();
    EXPECT_TRUE(world.overlapPairs().empty());
    world.entity(wallId).setPosition({105, 100});
    world.tick();
    EXPECT_EQ(world.overlapPairs().size(), 1u);
}

TEST(Entity, AResizedEntityIsSeenByTheBroadPhaseAndKeepsItsId) {
    for (const char* technique : {"tree", "grid", "sap"}) {
        World world;
        world.setBroadPhase(createTechnique(technique));
        EntityDesc wall = box({500, 500}, {}, {10, 10});
        wall.isStatic = true;
        const EntityId wallId = world.add(wall);
        const EntityId moverId = world.add(box({100, 300}, {}, {10, 10}));
        for (int t = 0; t < 3; ++t) world.tick();
        EXPECT_TRUE(world.overlapPairs().empty()) << technique;
        world.entity(moverId).setHalfExtents({10, 195});  // down to y 495: still apart
        world.tick();
        EXPECT_TRUE(world.overlapPairs().empty()) << technique;
        world.entity(wallId).setHalfExtents({400, 10});   // from x 100: the two meet
        world.tick();
        EXPECT_EQ(world.overlapPairs().size(), 1u) << technique;
        EXPECT_EQ(world.entity(moverId).halfExtents().y, 195.0f);
        EXPECT_EQ(world.size(), 2u);
        EXPECT_THROW(world.entity(moverId).setHalfExtents({0.0f, 5.0f}), std::invalid_argument);
        EXPECT_EQ(world.entity(moverId).halfExtents().x, 10.0f) << "refused: left as it was";
    }
    World world;
    EntityDesc circle = box({50, 50}, {}, {5, 5});
    circle.shape = Shape::Circle;
    const EntityId id = world.add(circle);
    world.entity(id).setHalfExtents({8, 3});  // a circle stays round: x is its radius
    EXPECT_EQ(world.entity(id).halfExtents().y, 8.0f);
}

}  // namespace
}  // namespace ro

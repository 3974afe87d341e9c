// The query tools' twin of the technique: brought up to the world's boxes when they changed,
// and only then (a million boxes rebuilt every frame the cursor is over the world cost the
// paused HSHG half its frame rate).

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "app/queries.h"
#include "ro/registry.h"
#include "ro/world.h"

namespace {

using ro::app::QueryTool;

/// The dense indices of the entities whose box holds `p`, by a loop over the boxes.
std::vector<std::uint32_t> boxesHolding(const ro::World& world, ro::Vec2 p) {
    std::vector<std::uint32_t> out;
    const ro::BoxView boxes = world.boxes();
    for (std::uint32_t i = 0; i < boxes.count; ++i)
        if (boxes.box(i).contains(p)) out.push_back(i);
    return out;
}

ro::EntityDesc entity(ro::Vec2 position, ro::Vec2 velocity, float half) {
    ro::EntityDesc desc;
    desc.position = position;
    desc.velocity = velocity;
    desc.halfExtents = {half, half};
    return desc;
}

std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
}

TEST(QueryTool, TheTwinFollowsTheBoxesAndOnlyThem) {
    ro::World world;
    for (int k = 0; k < 40; ++k)
        world.add(entity({100.0f + 3.0f * static_cast<float>(k), 100.0f}, {1.5f, 0.0f}, 4.0f));
    const ro::TechniqueInfo& grid = *ro::findTechnique("grid");
    world.setBroadPhase(grid.create());
    QueryTool queries;
    const ro::Vec2 p{130.0f, 100.0f};
    queries.hover(p);
    queries.run(world, grid);
    EXPECT_EQ(queries.twinUpdates(), 1u);
    EXPECT_EQ(sorted(queries.pointHits()), boxesHolding(world, p));
    // Nothing moved: the same answer, from the same twin.
    for (int frame = 0; frame < 3; ++frame) queries.run(world, grid);
    EXPECT_EQ(queries.twinUpdates(), 1u);
    EXPECT_EQ(sorted(queries.pointHits()), boxesHolding(world, p));
    // A tick, a removal and an addition each bring it up to date.
    const std::vector<std::uint32_t> before = boxesHolding(world, p);
    world.tick();
    queries.run(world, grid);
    EXPECT_EQ(queries.twinUpdates(), 2u);
    EXPECT_NE(boxesHolding(world, p), before);
    EXPECT_EQ(sorted(queries.pointHits()), boxesHolding(world, p));
    world.remove(world.ids()[world.size() / 2]);
    queries.run(world, grid);
    EXPECT_EQ(sorted(queries.pointHits()), boxesHolding(world, p));
    world.add(entity(p, {}, 1.0f));
    queries.run(world, grid);
    EXPECT_EQ(queries.twinUpdates(), 4u);
    EXPECT_EQ(sorted(queries.pointHits()), boxesHolding(world, p));
    // Another technique is a new twin, updated at once.
    queries.run(world, *ro::findTechnique("tree"));
    EXPECT_EQ(queries.twinUpdates(), 5u);
    EXPECT_EQ(sorted(queries.pointHits()), boxesHolding(world, p));
}

}  // namespace

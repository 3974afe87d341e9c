// A snapshot of a scene tiled for the sweeps: k copies with distinct ids, k times the boxes,
// each copy's pairs the original's and none across copies; every moving box goes on by its
// velocity and turns back at its copy's walls, and statics stay where they are.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

#include "ro/rng.h"
#include "scenario/snapshot_scene.h"

namespace ro {
namespace {

using IdPairs = std::set<std::pair<std::uint32_t, std::uint32_t>>;

IdPairs overlaps(const BoxView& v) {
    IdPairs out;
    for (std::uint32_t i = 0; i < v.count; ++i)
        for (std::uint32_t j = i + 1; j < v.count; ++j)
            if (v.minX[i] <= v.maxX[j] && v.minX[j] <= v.maxX[i] && v.minY[i] <= v.maxY[j] && v.minY[j] <= v.maxY[i])
                out.insert(std::minmax(v.ids[i], v.ids[j]));
    return out;
}

/// Boxes crowded into 50 x 30 walls, some static, some against a wall (a box of one copy there
/// lies nearest the next copy).
std::shared_ptr<const Snapshot> crowd() {
    auto s = std::make_shared<Snapshot>();
    s->walls = {0, 0, 50, 30};
    Rng rng(11);
    for (int i = 0; i < 70; ++i) {
        Snapshot::Box b;
        b.halfW = rng.range(0.5f, 4.0f), b.halfH = rng.range(0.5f, 4.0f);
        b.centreX = rng.range(b.halfW, 50 - b.halfW), b.centreY = rng.range(b.halfH, 30 - b.halfH);
        if (i % 10 == 0) b.centreX = 50 - b.halfW;  // against the right wall
        b.isStatic = i % 7 == 0;
        if (!b.isStatic) b.velocityX = rng.range(-2.0f, 2.0f), b.velocityY = rng.range(-2.0f, 2.0f);
        s->boxes.push_back(b);
    }
    return s;
}

TEST(SnapshotScene, CopiesHaveDistinctIdsAndTheOriginalsPairsOnly) {
    const auto snapshot = crowd();
    const auto count = static_cast<std::uint32_t>(snapshot->boxes.size());
    for (const std::uint32_t copies : {1u, 2u, 5u, 9u}) {
        SnapshotScene one(snapshot, 1), tiled(snapshot, copies);
        for (int tick = 0; tick < 40; ++tick) {  // long enough for boxes to reach walls and turn
            const BoxView v = tiled.boxes();
            ASSERT_EQ(v.count, count * copies);
            const std::set<std::uint32_t> ids(v.ids, v.ids + v.count);
            EXPECT_EQ(ids.size(), v.count) << copies << " copies";
            IdPairs want;
            for (const auto& [a, b] : overlaps(one.boxes()))
                for (std::uint32_t c = 0; c < copies; ++c) want.insert({c * count + a, c * count + b});
            ASSERT_FALSE(want.empty());
            EXPECT_EQ(overlaps(v), want) << copies << " copies, tick " << tick;
            for (std::uint32_t i = 0; i < v.count; ++i) {
                const Aabb b = tiled.bounds();
                EXPECT_TRUE(v.minX[i] >= b.minX && v.maxX[i] <= b.maxX && v.minY[i] >= b.minY && v.maxY[i] <= b.maxY);
            }
            tiled.advance();
            one.advance();
        }
    }
}

TEST(SnapshotScene, BoxesGoOnByTheirVelocitiesAndStaticsStay) {
    auto s = std::make_shared<Snapshot>();
    s->walls = {0, 0, 100, 100};
    s->boxes.push_back({.centreX = 10, .centreY = 20, .halfW = 1, .halfH = 2, .velocityX = 0.5f, .velocityY = -0.25f});
    s->boxes.push_back({.centreX = 50, .centreY = 50, .halfW = 3, .halfH = 3, .isStatic = true});
    s->boxes.push_back({.centreX = 98, .centreY = 50, .halfW = 1, .halfH = 1, .velocityX = 1.5f});  // about to hit a wall
    SnapshotScene scene(s, 2);
    const float stepX = scene.bounds().width() - 100.0f;  // two copies side by side: the second's offset
    ASSERT_GT(stepX, 100.0f);
    for (int tick = 1; tick <= 3; ++tick) {
        scene.advance();
        const BoxView v = scene.boxes();
        for (std::uint32_t c = 0; c < 2; ++c) {
            const float dx = stepX * static_cast<float>(c);
            EXPECT_FLOAT_EQ(v.minX[3 * c], 9.0f + 0.5f * tick + dx);
            EXPECT_FLOAT_EQ(v.minY[3 * c], 18.0f - 0.25f * tick);
            EXPECT_FLOAT_EQ(v.minX[3 * c + 1], 47.0f + dx);
            EXPECT_FLOAT_EQ(v.minY[3 * c + 1], 47.0f);
            // 98 -> against the wall (99), then back by 1.5 a tick.
            EXPECT_FLOAT_EQ(v.maxX[3 * c + 2], (tick == 1 ? 100.0f : 100.0f - 1.5f * static_cast<float>(tick - 1)) + dx);
            ASSERT_NE(v.isStatic, nullptr);
            EXPECT_EQ(v.isStatic[3 * c + 1], 1);
        }
    }
}

TEST(SnapshotScene, ScenesAreWholeCopiesNearestTheCount) {
    const auto snapshot = crowd();
    const SweepSceneMaker make = snapshotScenes(snapshot);
    EXPECT_EQ(make(1)->boxes().count, 70u);
    EXPECT_EQ(make(70)->boxes().count, 70u);
    EXPECT_EQ(make(700)->boxes().count, 700u);
    EXPECT_EQ(make(730)->boxes().count, 700u);
    EXPECT_EQ(mostSnapshotCopies(1u << 16), 1u << 16);
}

}  // namespace
}  // namespace ro

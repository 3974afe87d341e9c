#include "support/scenes.h"

#include <gtest/gtest.h>

#include "ro/registry.h"
#include "ro/rng.h"

namespace ro::test {

void BoxSet::add(const Aabb& b) {
    minX.push_back(b.minX);
    minY.push_back(b.minY);
    maxX.push_back(b.maxX);
    maxY.push_back(b.maxY);
    ids.push_back(size());
}

BoxView BoxSet::view() const { return {minX.data(), minY.data(), maxX.data(), maxY.data(), ids.data(), size()}; }

namespace {

Aabb boxAt(float x, float y, float halfW, float halfH) { return {x - halfW, y - halfH, x + halfW, y + halfH}; }

BoxSet randomBoxes(std::uint64_t seed, std::uint32_t count, const Aabb& area, float minHalf, float maxHalf) {
    Rng rng(seed);
    BoxSet set;
    for (std::uint32_t i = 0; i < count; ++i)
        set.add(boxAt(rng.range(area.minX, area.maxX), rng.range(area.minY, area.maxY), rng.range(minHalf, maxHalf),
                      rng.range(minHalf, maxHalf)));
    return set;
}

}  // namespace

std::vector<std::string_view> allTechniqueIds() {
    std::vector<std::string_view> ids;
    for (const TechniqueInfo& t : techniques()) ids.push_back(t.id);
    return ids;
}

std::vector<Scene> conformanceScenes() {
    const Aabb world{0, 0, 400, 300};
    const std::vector<float> cells{4.0f, 16.0f, 64.0f};
    std::vector<Scene> scenes;

    scenes.push_back({"empty", {}, world, cells});

    Scene one{"one_entity", {}, world, cells};
    one.boxes.add(boxAt(50, 50, 5, 5));
    scenes.push_back(one);

    Scene coincident{"all_coincident", {}, world, cells};
    for (int i = 0; i < 60; ++i) coincident.boxes.add(boxAt(123.5f, 77.25f, 6, 3));
    scenes.push_back(coincident);

    // A lattice of 10x10 boxes whose edges touch exactly, on cell boundaries and off them;
    // touching counts as overlap, so each inner box has 8 neighbours (corners touch too).
    Scene touching{"touching_edges", {}, world, {10.0f, 16.0f, 7.0f}};
    for (int y = 0; y < 12; ++y)
        for (int x = 0; x < 15; ++x) touching.boxes.add({x * 10.0f, y * 10.0f, x * 10.0f + 10.0f, y * 10.0f + 10.0f});
    touching.boxes.add({200.0f, 0.0f, 210.0f, 10.0f});  // apart from the lattice
    touching.boxes.add({210.0f, 0.0f, 220.0f, 10.0f});  // touches the previous one edge to edge
    touching.boxes.add({220.0f, 10.0f, 230.0f, 20.0f}); // touches the previous one corner to corner
    scenes.push_back(touching);

    Scene negative{"negative_coordinates", randomBoxes(11, 400, {-500, -400, -100, -50}, 1, 8), {-600, -500, 0, 0}, cells};
    scenes.push_back(negative);

    // The grid covers only the middle of the scene: boxes outside clamp to the edge cells.
    Scene outside{"outside_grid_bounds", randomBoxes(12, 500, {-300, -200, 700, 500}, 1, 10), world, cells};
    scenes.push_back(outside);

    Scene mixed{"huge_and_tiny_mixed", randomBoxes(13, 400, world, 0.05f, 0.5f), world, {1.0f, 8.0f, 64.0f}};
    BoxSet huge = randomBoxes(14, 12, world, 40, 120);
    for (std::uint32_t i = 0; i < huge.size(); ++i) mixed.boxes.add(huge.view().box(i));
    mixed.boxes.add({-10000, -10000, 10000, 10000});  // two boxes far larger than the world
    mixed.boxes.add({-9000, 150, 9000, 9000});
    scenes.push_back(mixed);

    Scene crowded{"hundreds_in_one_cell", randomBoxes(15, 300, {32.5f, 32.5f, 47.5f, 47.5f}, 0.5f, 2.0f), world,
                  {64.0f, 16.0f}};
    scenes.push_back(crowded);

    // Sizes that differ by 40x: the case a single cell size cannot fit (Petersen).
    Scene spread{"sizes_differ_40x", randomBoxes(17, 1500, world, 0.5f, 0.5f), world, {1.0f, 4.0f, 40.0f}};
    BoxSet large = randomBoxes(18, 60, world, 20, 20);
    for (std::uint32_t i = 0; i < large.size(); ++i) spread.boxes.add(large.view().box(i));
    scenes.push_back(spread);

    Scene dense{"random_dense", randomBoxes(16, 2000, world, 1, 6), world, cells};
    scenes.push_back(dense);
    return scenes;
}

BoxSet spreadBoxes(std::uint32_t count, float spacing, float half) {
    BoxSet boxes;
    for (std::uint32_t i = 0; i < count; ++i) {
        const float x = static_cast<float>(i % 50) * spacing;
        const float y = static_cast<float>(i / 50) * spacing;
        boxes.add({x - half, y - half, x + half, y + half});
    }
    return boxes;
}

std::set<Pair> referenceOverlaps(const BoxView& boxes) {
    std::set<Pair> pairs;
    for (std::uint32_t i = 0; i < boxes.count; ++i)
        for (std::uint32_t j = i + 1; j < boxes.count; ++j)
            if (overlaps(boxes.box(i), boxes.box(j))) pairs.insert({i, j});
    return pairs;
}

std::set<Pair> techniqueOverlaps(BroadPhase& technique, const BoxView& boxes) {
    std::vector<Pair> candidates;
    technique.update(boxes);
    technique.findPairs(candidates);
    std::set<Pair> unique;
    std::set<Pair> result;
    for (const Pair& p : candidates) {
        EXPECT_LT(p.a, p.b) << "pair (" << p.a << ", " << p.b << ") is not ordered";
        EXPECT_LT(p.b, boxes.count) << "pair (" << p.a << ", " << p.b << ") names no entity";
        if (p.b >= boxes.count) continue;
        EXPECT_TRUE(unique.insert(p).second) << "pair (" << p.a << ", " << p.b << ") reported twice";
        const bool overlap = overlaps(boxes.box(p.a), boxes.box(p.b));
        if (technique.pairsAreExact()) {
            EXPECT_TRUE(overlap) << "pair (" << p.a << ", " << p.b << ") does not overlap, yet its technique's pairs are exact";
        }
        if (overlap) result.insert(p);
    }
    EXPECT_EQ(technique.counters().candidatePairs, candidates.size());
    return result;
}

}  // namespace ro::test

// Every technique's point, box and segment queries equal brute force's on every fixed scene,
// including points on edges and corners and segments along edges, and bad input throws.

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "broadphase/brute/brute.h"
#include "ro/registry.h"
#include "ro/rng.h"
#include "support/settings.h"
#include "support/scenes.h"

namespace ro {
namespace {

class Queries : public ::testing::TestWithParam<std::string_view> {
protected:
    std::unique_ptr<BroadPhase> create() const { return findTechnique(GetParam())->create(); }
};

std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
}

/// A coordinate near the scene: often exactly on a box's edge.
Vec2 probe(Rng& rng, const BoxView& boxes, const Aabb& area) {
    if (boxes.count > 0 && rng.below(2) == 0) {
        const Aabb b = boxes.box(rng.below(boxes.count));
        return {rng.below(2) ? b.minX : b.maxX, rng.below(2) ? b.minY : b.maxY};
    }
    return {rng.range(area.minX - 20, area.maxX + 20), rng.range(area.minY - 20, area.maxY + 20)};
}

TEST_P(Queries, EqualBruteForceOnEveryScene) {
    for (const test::Scene& scene : test::conformanceScenes()) {
        const BoxView view = scene.boxes.view();
        BruteForce reference;
        reference.update(view);
        for (const float cell : scene.cellSizes) {
            SCOPED_TRACE(scene.name + " cell " + std::to_string(cell));
            auto technique = create();
            technique->configure(test::withCell(cell, scene.gridBounds));
            technique->update(view);
            Rng rng(99);
            std::vector<std::uint32_t> got, expected;
            std::vector<RayHit> hits, expectedHits;
            std::optional<RayHit> first, expectedFirst;
            for (int q = 0; q < 150; ++q) {
                const Vec2 a = probe(rng, view, scene.gridBounds);
                Vec2 b = probe(rng, view, scene.gridBounds);
                if (q % 5 == 0) b.y = a.y;  // along an edge, when a is a corner
                (void)technique->queryPoint(a, got);
                (void)reference.queryPoint(a, expected);
                ASSERT_EQ(sorted(got), sorted(expected)) << "point (" << a.x << ", " << a.y << ")";
                const Aabb box{std::min(a.x, b.x), std::min(a.y, b.y), std::max(a.x, b.x), std::max(a.y, b.y)};
                (void)technique->queryBox(box, got);
                (void)reference.queryBox(box, expected);
                ASSERT_EQ(sorted(got), sorted(expected)) << "box " << box.minX << " " << box.minY << " " << box.maxX << " " << box.maxY;
                const Segment segment{a, b};
                (void)technique->queryRay(segment, hits);
                (void)reference.queryRay(segment, expectedHits);
                ASSERT_EQ(hits, expectedHits) << "ray (" << a.x << ", " << a.y << ") -> (" << b.x << ", " << b.y << ")";
                (void)technique->raycastFirst(segment, first);
                (void)reference.raycastFirst(segment, expectedFirst);
                ASSERT_EQ(first, expectedFirst) << "first hit (" << a.x << ", " << a.y << ") -> (" << b.x << ", " << b.y << ")";
                if (q == 75) {  // queries must also agree once the pairs have been found
                    std::vector<Pair> pairs;
                    technique->findPairs(pairs);
                }
            }
        }
    }
}

TEST_P(Queries, ReportCostAndRejectNonFiniteInput) {
    test::BoxSet boxes;
    for (int i = 0; i < 50; ++i) boxes.add({i * 4.0f, 0, i * 4.0f + 3, 3});
    auto technique = create();
    technique->configure(test::withCell(4.0f, Aabb{0, 0, 200, 200}));
    technique->update(boxes.view());
    std::vector<std::uint32_t> out;
    const QueryCost cost = technique->queryBox({10, 1, 30, 2}, out);
    EXPECT_EQ(sorted(out), (std::vector<std::uint32_t>{2, 3, 4, 5, 6, 7}));
    EXPECT_GE(cost.tests, out.size()) << "every reported box was tested";
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_THROW((void)technique->queryPoint({nan, 0}, out), std::invalid_argument);
    EXPECT_THROW((void)technique->queryBox({0, 0, inf, 1}, out), std::invalid_argument);
    EXPECT_THROW((void)technique->queryBox({5, 0, 1, 1}, out), std::invalid_argument);
    std::vector<RayHit> hits;
    EXPECT_THROW((void)technique->queryRay({{0, 0}, {nan, 1}}, hits), std::invalid_argument);
    std::optional<RayHit> hit;
    EXPECT_THROW((void)technique->raycastFirst({{-inf, 0}, {1, 1}}, hit), std::invalid_argument);
}

TEST_P(Queries, FirstHitIsTheNearestAlongTheSegment) {
    test::BoxSet boxes;
    boxes.add({50, -1, 52, 1});  // 0: far
    boxes.add({10, -1, 12, 1});  // 1: near
    boxes.add({30, 5, 32, 7});   // 2: off the line
    boxes.add({10, -3, 11, 0});  // 3: entered at the same t as 1, larger index
    auto technique = create();
    technique->configure(test::withCell(4.0f, Aabb{0, -10, 100, 10}));
    technique->update(boxes.view());
    std::optional<RayHit> hit;
    (void)technique->raycastFirst({{0, 0}, {100, 0}}, hit);
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->index, 1u);
    EXPECT_FLOAT_EQ(hit->t, 0.1f);
    std::vector<RayHit> hits;
    (void)technique->queryRay({{100, 0}, {0, 0}}, hits);  // backwards: the far box comes first
    ASSERT_EQ(hits.size(), 3u);
    EXPECT_EQ(hits[0].index, 0u);
    EXPECT_EQ(hits[1].index, 1u);
    EXPECT_EQ(hits[2].index, 3u);
}

TEST_P(Queries, BeforeTheFirstUpdateFindNothing) {
    auto technique = create();
    std::vector<std::uint32_t> out{7};
    (void)technique->queryPoint({1, 1}, out);
    EXPECT_TRUE(out.empty());
    (void)technique->queryBox({0, 0, 10, 10}, out);
    EXPECT_TRUE(out.empty());
    std::vector<RayHit> hits{{1, 0.5f}};
    (void)technique->queryRay({{0, 0}, {10, 10}}, hits);
    EXPECT_TRUE(hits.empty());
    std::optional<RayHit> hit;
    (void)technique->raycastFirst({{0, 0}, {10, 10}}, hit);
    EXPECT_FALSE(hit.has_value());
}

// A segment whose ends are finite but whose extent overflows has no meaningful t.
TEST_P(Queries, RejectARayWhoseExtentOverflows) {
    test::BoxSet boxes;
    boxes.add({100, 0, 110, 10});
    auto technique = create();
    technique->update(boxes.view());
    std::vector<RayHit> hits;
    EXPECT_THROW((void)technique->queryRay({{-3e38f, 5}, {3e38f, 5}}, hits), std::invalid_argument);
}

// Cell edges computed far from the origin round by several units; the walk must still visit
// the cell a box is in (found by a review: the padding once followed only the segment).
TEST_P(Queries, RayFarFromTheGridOrigin) {
    test::BoxSet boxes;
    boxes.add({9461, -138, 9462, -137});
    auto technique = create();
    technique->configure(test::withCell(1.0f, {0, -1e8f, 10000, 0}));
    technique->update(boxes.view());
    std::vector<RayHit> hits;
    (void)technique->queryRay({{69, -121.5f}, {9940, -138.5f}}, hits);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].index, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllTechniques, Queries, ::testing::ValuesIn(test::allTechniqueIds()),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace ro

// The two sweeps (Wells; Lembcke and Korth): void markers, the axis choice, insertion sort's swap
// count, the seed's interference query, touching boxes, queries, and incoherent motion.

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "support/settings.h"
#include "broadphase/brute/brute.h"
#include "broadphase/sweep/sweep.h"
#include "broadphase/sap/sap.h"
#include "core/rng.h"
#include "support/scenes.h"

namespace ro {
namespace {

struct Mark {
    float value;
    bool isBegin;
    bool touchesVoid;
    friend bool operator==(const Mark&, const Mark&) = default;
    friend std::ostream& operator<<(std::ostream& os, const Mark& m) {
        return os << (m.isBegin ? "begin " : "end ") << m.value << (m.touchesVoid ? " (void)" : "");
    }
};

std::vector<Mark> marksOf(const BroadPhase& technique) {
    std::vector<Mark> marks;
    technique.forEachCell([&](const CellView& c) {
        EXPECT_EQ(c.kind, CellView::Kind::Delimiter);
        marks.push_back({c.bounds.minX, c.isBegin, c.touchesVoid});
    });
    return marks;
}

Settings along(SweepAxis axis) {
    Settings settings;
    settings.set(sweep::kAxisParameter.key, static_cast<double>(axis));
    return settings;
}

/// Boxes that can move, vanish (swap-removed, as the world does) and appear with fresh ids.
struct Population {
    test::BoxSet boxes;
    std::uint32_t nextId = 0;

    void add(const Aabb& b) {
        boxes.add(b);
        boxes.ids.back() = nextId++;
    }
    void remove(std::uint32_t i) {
        for (auto* v : {&boxes.minX, &boxes.minY, &boxes.maxX, &boxes.maxY}) {
            (*v)[i] = v->back();
            v->pop_back();
        }
        boxes.ids[i] = boxes.ids.back();
        boxes.ids.pop_back();
    }
    void set(std::uint32_t i, const Aabb& b) {
        boxes.minX[i] = b.minX;
        boxes.minY[i] = b.minY;
        boxes.maxX[i] = b.maxX;
        boxes.maxY[i] = b.maxY;
    }
};

Aabb randomBox(Rng& rng, const Aabb& area, float minSide, float maxSide) {
    const float x = rng.range(area.minX, area.maxX);
    const float y = rng.range(area.minY, area.maxY);
    return {x, y, x + rng.range(minSide, maxSide), y + rng.range(minSide, maxSide)};
}

std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
}

// On x: A [0, 2] and B [1, 3] overlap, C [5, 6] and D [6, 8] touch, E [10, 11] stands alone.
test::BoxSet handMadeScene() {
    test::BoxSet boxes;
    boxes.add({0, 0, 2, 1});
    boxes.add({1, 0, 3, 1});
    boxes.add({5, 0, 6, 1});
    boxes.add({6, 0, 8, 1});
    boxes.add({10, 0, 11, 1});
    return boxes;
}

TEST(SweepAndPrune, MarksTheDelimitersAfterWhichNothingIsOpen) {
    const test::BoxSet boxes = handMadeScene();
    SweepAndPrune sap;
    sap.configure(along(SweepAxis::X));
    EXPECT_EQ(test::techniqueOverlaps(sap, boxes.view()), (std::set<Pair>{{0, 1}, {2, 3}}));
    EXPECT_EQ(sap.validate(), "");
    // The seed's depth count: 1 2 1 0 | 1 2 1 0 | 1 0. D begins before C ends at 6 (touching).
    const std::vector<Mark> expected{{0, true, false}, {1, true, false},  {2, false, false}, {3, false, true},
                                     {5, true, false}, {6, true, false},  {6, false, false}, {8, false, true},
                                     {10, true, false}, {11, false, true}};
    EXPECT_EQ(marksOf(sap), expected);
}

TEST(SingleAxisSweep, MarksTheEndsAfterWhichNothingIsOpen) {
    const test::BoxSet boxes = handMadeScene();
    SingleAxisSweep sweep;
    sweep.configure(along(SweepAxis::X));
    EXPECT_EQ(test::techniqueOverlaps(sweep, boxes.view()), (std::set<Pair>{{0, 1}, {2, 3}}));
    EXPECT_EQ(sweep.validate(), "");
    // The same delimiters as sap's: C's end at 6 is not void, since D begins there first.
    const std::vector<Mark> expected{{0, true, false}, {1, true, false},  {2, false, false}, {3, false, true},
                                     {5, true, false}, {6, true, false},  {6, false, false}, {8, false, true},
                                     {10, true, false}, {11, false, true}};
    EXPECT_EQ(marksOf(sweep), expected);
}

template <typename Technique>
void checkOverlayOrder(const char* name) {
    // Whatever the scene, the overlay's delimiters come in sorted order (begins first at equal
    // coordinates), two per entity, and the void marks are exactly where a depth count hits zero.
    SCOPED_TRACE(name);
    for (const test::Scene& scene : test::conformanceScenes()) {
        SCOPED_TRACE(scene.name);
        Technique t;
        (void)test::techniqueOverlaps(t, scene.boxes.view());
        const std::vector<Mark> marks = marksOf(t);
        ASSERT_EQ(marks.size(), 2u * scene.boxes.size());
        int depth = 0;
        for (std::size_t k = 0; k < marks.size(); ++k) {
            if (k > 0) {
                ASSERT_LE(marks[k - 1].value, marks[k].value) << k;
                ASSERT_FALSE(marks[k - 1].value == marks[k].value && !marks[k - 1].isBegin && marks[k].isBegin) << k;
            }
            depth += marks[k].isBegin ? 1 : -1;
            ASSERT_GE(depth, 0) << k;
            ASSERT_EQ(marks[k].touchesVoid, depth == 0) << k;
        }
    }
}

TEST(SweepAndPrune, OverlayShowsDelimitersInOrderWithDepthCountedVoids) { checkOverlayOrder<SweepAndPrune>("sap"); }
TEST(SingleAxisSweep, OverlayShowsDelimitersInOrderWithDepthCountedVoids) {
    checkOverlayOrder<SingleAxisSweep>("sweep");
}

template <typename Technique>
void checkAxisChoice() {
    // The same coordinates on both axes, shuffled for y and scaled by `stretch`: the variance
    // along y is exactly stretch^2 times that along x.
    const auto scene = [](float stretch, Population& p) {
        Rng rng(5);
        std::vector<float> xs(p.boxes.size());
        for (float& x : xs) x = rng.range(0, 1000);
        for (std::uint32_t i = 0; i < p.boxes.size(); ++i) {
            const float y = xs[(i * 7) % xs.size()] * stretch;
            p.set(i, {xs[i], y, xs[i] + 2, y + 2});
        }
    };
    Population p;
    for (int i = 0; i < 300; ++i) p.add({});
    const auto step = [&](Technique& t) {
        (void)test::techniqueOverlaps(t, p.boxes.view());
        EXPECT_EQ(t.validate(), "");
        return t.axis();
    };

    scene(0.1f, p);
    Technique wide;
    EXPECT_EQ(step(wide), 0u);
    scene(10.0f, p);
    Technique tall;
    EXPECT_EQ(step(tall), 1u);
    Technique forced;
    forced.configure(along(SweepAxis::X));
    EXPECT_EQ(step(forced), 0u) << "the setting overrides the variance";

    // Re-chosen every kCheckInterval steps, and only for a clear margin.
    scene(1.05f, p);  // variance ratio 1.1: not worth a rebuild
    for (std::uint32_t i = 0; i < 2 * sweep::AxisChooser::kCheckInterval; ++i) EXPECT_EQ(step(wide), 0u);
    scene(10.0f, p);
    for (std::uint32_t i = 1; i < sweep::AxisChooser::kCheckInterval; ++i) EXPECT_EQ(step(wide), 0u) << i;
    EXPECT_EQ(step(wide), 1u);
    wide.configure(along(SweepAxis::X));
    EXPECT_EQ(step(wide), 0u);
    wide.configure(along(SweepAxis::Auto));
    EXPECT_EQ(step(wide), 1u) << "back to Auto decides at once";
}

TEST(SweepAndPrune, ChoosesTheAxisAlongWhichCentresVaryMost) { checkAxisChoice<SweepAndPrune>(); }
TEST(SingleAxisSweep, ChoosesTheAxisAlongWhichCentresVaryMost) { checkAxisChoice<SingleAxisSweep>(); }

TEST(SingleAxisSweep, CountsTheSwapsOfInsertionSort) {
    Population p;
    for (int i = 0; i < 5; ++i) p.add({i * 10.0f, 0, i * 10.0f + 1, 1});
    SingleAxisSweep sweep;
    sweep.configure(along(SweepAxis::X));
    (void)test::techniqueOverlaps(sweep, p.boxes.view());
    EXPECT_EQ(test::extra(sweep.counters(), "sort_swaps"), 0u) << "the first step merges, it does not insert";

    // Last order 0 1 2 3 4 now holds minima 20 0 40 10 30: the inversions are
    // (20, 0), (20, 10), (40, 10), (40, 30), so insertion sort swaps 4 times.
    const float minima[] = {20, 0, 40, 10, 30};
    for (std::uint32_t i = 0; i < 5; ++i) p.set(i, {minima[i], 0, minima[i] + 1, 1});
    EXPECT_TRUE(test::techniqueOverlaps(sweep, p.boxes.view()).empty());
    EXPECT_EQ(sweep.validate(), "");
    EXPECT_EQ(test::extra(sweep.counters(), "sort_swaps"), 4u);

    // Reversing the order of 5 (now 1 3 0 4 2) takes every one of the 10 swaps.
    const float reversed[] = {20, 40, 0, 30, 10};
    for (std::uint32_t i = 0; i < 5; ++i) p.set(i, {reversed[i], 0, reversed[i] + 1, 1});
    (void)test::techniqueOverlaps(sweep, p.boxes.view());
    EXPECT_EQ(test::extra(sweep.counters(), "sort_swaps"), 10u);

    // Removing one and adding one: survivors keep their order (no swap), the newcomer is merged.
    p.remove(1);
    p.add({25, 0, 26, 1});
    EXPECT_TRUE(test::techniqueOverlaps(sweep, p.boxes.view()).empty());
    EXPECT_EQ(sweep.validate(), "");
    EXPECT_EQ(test::extra(sweep.counters(), "sort_swaps"), 0u);
}

TEST(SweepAndPrune, CountsTheSwapsOfItsDelimiters) {
    Population p;
    p.add({0, 0, 1, 1});
    p.add({5, 0, 6, 1});
    for (int i = 0; i < 8; ++i) p.add({100.0f + 10 * i, 0, 101.0f + 10 * i, 1});  // still, and within budget
    SweepAndPrune sap;
    sap.configure(along(SweepAxis::X));
    (void)test::techniqueOverlaps(sap, p.boxes.view());
    EXPECT_TRUE(sap.lastUpdateRebuilt());
    // A jumps past B: its begin (10) and end (11) each pass B's begin (5) and end (6).
    p.set(0, {10, 0, 11, 1});
    (void)test::techniqueOverlaps(sap, p.boxes.view());
    EXPECT_FALSE(sap.lastUpdateRebuilt());
    EXPECT_EQ(test::extra(sap.counters(), "sort_swaps"), 4u);
    EXPECT_EQ(sap.validate(), "");
}

TEST(SweepAndPrune, InterferenceQueryMatchesBruteForce) {
    Population p;
    Rng rng(21);
    for (int i = 0; i < 600; ++i) p.add(randomBox(rng, {0, 0, 1000, 300}, 0.0f, 25.0f));
    p.add({-5000, -5000, 5000, 5000});  // overlaps everything
    p.add({400, 100, 400, 100});        // a point
    p.add({0, 0, 10, 10});
    p.add({10, 10, 20, 20});  // touches the previous one at a corner
    SweepAndPrune sap;
    sap.configure(along(SweepAxis::X));
    const BoxView view = p.boxes.view();
    (void)test::techniqueOverlaps(sap, view);
    std::vector<std::uint32_t> found;
    for (std::uint32_t e = 0; e < view.count; ++e) {
        std::vector<std::uint32_t> expected;
        for (std::uint32_t j = 0; j < view.count; ++j)
            if (j != e && overlaps(view.box(e), view.box(j))) expected.push_back(j);
        const QueryCost cost = sap.interferingWith(e, found);
        ASSERT_EQ(sorted(found), expected) << "entity " << e;
        EXPECT_GE(cost.tests, found.size());
    }
    EXPECT_THROW((void)sap.interferingWith(view.count, found), std::out_of_range);
}

TEST(SweepAndPrune, VoidMarkersStopTheInterferenceScan) {
    // Boxes 4 wide every 10 units: each is alone on the axis, so its scan ends at its own end.
    Population p;
    for (int i = 0; i < 1000; ++i) p.add({i * 10.0f, 0, i * 10.0f + 4, 4});
    SweepAndPrune sap;
    (void)test::techniqueOverlaps(sap, p.boxes.view());
    std::vector<std::uint32_t> found;
    for (std::uint32_t e = 0; e < 1000; ++e) {
        const QueryCost cost = sap.interferingWith(e, found);
        EXPECT_TRUE(found.empty());
        EXPECT_EQ(cost.visited, 2u) << "entity " << e;
    }
    std::vector<std::uint32_t> hits;
    const QueryCost cost = sap.queryPoint({5002, 2}, hits);
    EXPECT_EQ(hits, std::vector<std::uint32_t>{500});
    EXPECT_LE(cost.visited, 2u) << "the backward scan should stop at the void before 5000";
}

TEST(Sweeps, TouchingBoxesOverlapAndBeginsSortBeforeEnds) {
    test::BoxSet boxes;
    boxes.add({0, 0, 1, 1});
    boxes.add({1, 0, 2, 1});           // touches the first at x = 1
    boxes.add({2, 0.5f, 2, 0.5f});     // a point on the second's right edge
    boxes.add({-3, 5, -0.0f, 6});      // ends at -0 ...
    boxes.add({0.0f, 6, 1, 7});        // ... where this begins at +0, touching at a corner
    const std::set<Pair> expected{{0, 1}, {1, 2}, {3, 4}};
    ASSERT_EQ(test::referenceOverlaps(boxes.view()), expected);

    SweepAndPrune sap;
    sap.configure(along(SweepAxis::X));
    EXPECT_EQ(test::techniqueOverlaps(sap, boxes.view()), expected);
    EXPECT_EQ(sap.validate(), "");
    const std::vector<Mark> marks = marksOf(sap);
    for (std::size_t k = 1; k < marks.size(); ++k) {
        if (marks[k].value == marks[k - 1].value) {
            EXPECT_FALSE(marks[k].isBegin && !marks[k - 1].isBegin) << "an end before a begin at " << marks[k].value;
        }
    }
    SingleAxisSweep sweep;
    sweep.configure(along(SweepAxis::X));
    EXPECT_EQ(test::techniqueOverlaps(sweep, boxes.view()), expected);
    EXPECT_EQ(sweep.validate(), "");
}

TEST(Sweeps, RejectBoxesWhoseMinExceedsTheirMax) {
    test::BoxSet boxes;
    boxes.add({0, 0, 1, 1});
    boxes.add({3, 0, 2, 1});
    SweepAndPrune sap;
    EXPECT_THROW(sap.update(boxes.view()), std::invalid_argument);
    EXPECT_EQ(sap.validate(), "");
    SingleAxisSweep sweep;
    EXPECT_THROW(sweep.update(boxes.view()), std::invalid_argument);
    EXPECT_EQ(sweep.validate(), "");
    test::BoxSet twice = handMadeScene();
    twice.ids[3] = twice.ids[1];
    EXPECT_THROW(sap.update(twice.view()), std::invalid_argument);
    EXPECT_THROW(sweep.update(twice.view()), std::invalid_argument);
    // Still usable afterwards.
    const test::BoxSet good = handMadeScene();
    EXPECT_EQ(test::techniqueOverlaps(sap, good.view()), test::referenceOverlaps(good.view()));
    EXPECT_EQ(test::techniqueOverlaps(sweep, good.view()), test::referenceOverlaps(good.view()));
}

template <typename Technique>
void checkQueries(const char* name) {
    SCOPED_TRACE(name);
    BruteForce brute;
    for (const test::Scene& scene : test::conformanceScenes()) {
        SCOPED_TRACE(scene.name);
        const BoxView view = scene.boxes.view();
        for (const SweepAxis axis : {SweepAxis::X, SweepAxis::Y}) {
            Technique t;
            t.configure(along(axis));
            t.update(view);
            brute.update(view);
            Rng rng(77);
            const Aabb area{scene.gridBounds.minX - 50, scene.gridBounds.minY - 50, scene.gridBounds.maxX + 50,
                            scene.gridBounds.maxY + 50};
            std::vector<std::uint32_t> got, want;
            std::vector<RayHit> gotHits, wantHits;
            for (int q = 0; q < 200; ++q) {
                const Aabb box = randomBox(rng, area, 0.0f, q % 2 ? 5.0f : 80.0f);
                t.queryBox(box, got);
                brute.queryBox(box, want);
                ASSERT_EQ(sorted(got), sorted(want)) << "box query " << q;
                const Vec2 point{box.minX, box.minY};
                t.queryPoint(point, got);
                brute.queryPoint(point, want);
                ASSERT_EQ(sorted(got), sorted(want)) << "point query " << q;
                const Segment segment{{box.minX, box.minY}, {rng.range(area.minX, area.maxX), box.maxY}};
                t.queryRay(segment, gotHits);
                brute.queryRay(segment, wantHits);
                ASSERT_EQ(gotHits, wantHits) << "ray query " << q;
                std::optional<RayHit> gotFirst, wantFirst;
                t.raycastFirst(segment, gotFirst);
                brute.raycastFirst(segment, wantFirst);
                ASSERT_EQ(gotFirst, wantFirst) << "first hit " << q;
            }
        }
    }
}

TEST(SweepAndPrune, QueriesMatchBruteForce) { checkQueries<SweepAndPrune>("sap"); }
TEST(SingleAxisSweep, QueriesMatchBruteForce) { checkQueries<SingleAxisSweep>("sweep"); }

TEST(Sweeps, RayQueriesKeepBoxesTheExactTestHitsPastTheSegmentsEnd) {
    // segmentEntry rounds (lo - from) / (to - from) to 1 for a box a little past `to`: a span
    // cut exactly at `to` would miss a hit brute force reports.
    test::BoxSet boxes;
    boxes.add({1.5f, 0, 2, 1});
    const Segment segment{{-1.0e8f, 0.5f}, {1.0f, 0.5f}};
    BruteForce brute;
    brute.update(boxes.view());
    std::vector<RayHit> want;
    brute.queryRay(segment, want);
    ASSERT_EQ(want.size(), 1u) << "the rounding this test relies on did not happen";
    SweepAndPrune sap;
    sap.configure(along(SweepAxis::X));
    sap.update(boxes.view());
    SingleAxisSweep sweep;
    sweep.configure(along(SweepAxis::X));
    sweep.update(boxes.view());
    std::vector<RayHit> got;
    sap.queryRay(segment, got);
    EXPECT_EQ(got, want);
    sweep.queryRay(segment, got);
    EXPECT_EQ(got, want);
}

template <typename Technique>
void checkIncoherentMotion(const char* name) {
    SCOPED_TRACE(name);
    constexpr std::uint32_t kCount = 3000;
    constexpr int kChaos = 6;  // steps where every box jumps anywhere, then small moves
    const Aabb area{0, 0, 400, 400};
    Population p;
    Rng rng(99);
    for (std::uint32_t i = 0; i < kCount; ++i) p.add(randomBox(rng, area, 1.0f, 6.0f));
    Technique t;
    t.configure(along(SweepAxis::X));
    int calmSince = -1;  // first small-move step sap sorted by insertion again
    for (int step = 0; step < kChaos + 40; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        const bool teleport = step < kChaos;
        for (std::uint32_t i = 0; i < p.boxes.size(); ++i) {
            if (teleport) {
                p.set(i, randomBox(rng, area, 1.0f, 6.0f));
            } else {
                const float dx = rng.range(-0.01f, 0.01f);
                const Aabb b = p.boxes.view().box(i);
                p.set(i, {b.minX + dx, b.minY, b.maxX + dx, b.maxY});
            }
        }
        for (int k = 0; k < 20; ++k) p.remove(rng.below(p.boxes.size()));
        for (int k = 0; k < 20; ++k) p.add(randomBox(rng, area, 1.0f, 6.0f));
        const BoxView view = p.boxes.view();
        ASSERT_EQ(test::techniqueOverlaps(t, view), test::referenceOverlaps(view));
        ASSERT_EQ(t.validate(), "");
        if constexpr (std::is_same_v<Technique, SingleAxisSweep>) {
            // A random permutation has n^2 / 4 inversions in expectation; small moves, few.
            if (teleport && step > 0) {
                EXPECT_GT(test::extra(t.counters(), "sort_swaps"), kCount * kCount / 8);
            } else if (!teleport) {
                EXPECT_LT(test::extra(t.counters(), "sort_swaps"), kCount * 10);
            }
        } else if (teleport) {
            EXPECT_TRUE(t.lastUpdateRebuilt());
        } else if (calmSince >= 0) {
            EXPECT_FALSE(t.lastUpdateRebuilt()) << "swaps " << test::extra(t.counters(), "sort_swaps");
        } else if (!t.lastUpdateRebuilt()) {
            calmSince = step;
        }
    }
    if constexpr (std::is_same_v<Technique, SweepAndPrune>) {
        ASSERT_GE(calmSince, 0) << "never went back to insertion sort";
        EXPECT_LE(calmSince - kChaos, static_cast<int>(SweepAndPrune::kMaxRebuildStreak));
    }
}

TEST(SweepAndPrune, IncoherentMotionStaysCorrect) { checkIncoherentMotion<SweepAndPrune>("sap"); }
TEST(SingleAxisSweep, IncoherentMotionStaysCorrect) { checkIncoherentMotion<SingleAxisSweep>("sweep"); }

}  // namespace
}  // namespace ro

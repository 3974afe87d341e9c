#pragma once
// What the tests of the two sweeps (sap: Wells; sweep: Lembcke and Korth) share: the overlay's
// delimiters as marks, settings along an axis, a population that moves, vanishes and appears,
// and the checks both run (overlay order, axis choice, queries, incoherent motion).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "broadphase/brute/brute.h"
#include "broadphase/sap/sap.h"
#include "broadphase/sweep/sweep.h"
#include "ro/rng.h"
#include "support/scenes.h"
#include "support/settings.h"

namespace ro::sweep_checks {

struct Mark {
    float value;
    bool isBegin;
    bool touchesVoid;
    friend bool operator==(const Mark&, const Mark&) = default;
    friend std::ostream& operator<<(std::ostream& os, const Mark& m) {
        return os << (m.isBegin ? "begin " : "end ") << m.value << (m.touchesVoid ? " (void)" : "");
    }
};

inline std::vector<Mark> marksOf(const BroadPhase& technique) {
    std::vector<Mark> marks;
    technique.forEachElement([&](const StructureElement& c) {
        EXPECT_EQ(c.kind, StructureElement::Kind::Delimiter);
        marks.push_back({c.bounds.minX, c.isBegin, c.touchesVoid});
    });
    return marks;
}

inline Settings along(SweepAxis axis) {
    Settings settings;
    settings.set(sweep::kAxisParameter.key, static_cast<double>(axis));
    return settings;
}

using test::Population;

inline Aabb randomBox(Rng& rng, const Aabb& area, float minSide, float maxSide) {
    const float x = rng.range(area.minX, area.maxX);
    const float y = rng.range(area.minY, area.maxY);
    return {x, y, x + rng.range(minSide, maxSide), y + rng.range(minSide, maxSide)};
}

inline std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
}

// On x: A [0, 2] and B [1, 3] overlap, C [5, 6] and D [6, 8] touch, E [10, 11] stands alone.
inline test::BoxSet handMadeScene() {
    test::BoxSet boxes;
    boxes.add({0, 0, 2, 1});
    boxes.add({1, 0, 3, 1});
    boxes.add({5, 0, 6, 1});
    boxes.add({6, 0, 8, 1});
    boxes.add({10, 0, 11, 1});
    return boxes;
}

template <typename Technique>
void checkOverlayOrder(const char* name) {
    // Whatever the scene, the overlay's delimiters come in sorted order (begins first at equal
    // coordinates), two per entity, and the void marks are exactly where a depth count hits zero.
    SCOPED_TRACE(name);
    std::vector<test::Scene> scenes = test::conformanceScenes();
    // Equal ends whose entities come in the other order than their begins: box 0 [1, 2] begins
    // after box 1 [0, 2], and of the two ends the one after which no interval is open is the
    // second in entity order, which is not the sorted positions' order.
    test::Scene equalEnds;
    equalEnds.name = "equal ends, entities against begins";
    equalEnds.boxes.add({1, 0, 2, 1});
    equalEnds.boxes.add({0, 0, 2, 1});
    equalEnds.boxes.add({4, 0, 5, 1});
    scenes.push_back(equalEnds);
    for (const test::Scene& scene : scenes) {
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

/// `prepare(t)` runs on each technique before its first update (sweep and prune's strips).
template <typename Technique, typename Prepare = void (*)(Technique&)>
void checkQueries(const char* name, Prepare prepare = [](Technique&) {}) {
    SCOPED_TRACE(name);
    BruteForce brute;
    for (const test::Scene& scene : test::conformanceScenes()) {
        SCOPED_TRACE(scene.name);
        const BoxView view = scene.boxes.view();
        for (const SweepAxis axis : {SweepAxis::X, SweepAxis::Y}) {
            Technique t;
            prepare(t);
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
        for (int k = 0; k < 20; ++k) p.removeAt(rng.below(p.boxes.size()));
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

}  // namespace ro::sweep_checks

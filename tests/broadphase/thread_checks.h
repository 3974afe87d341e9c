#pragma once
// What the thread tests of the HSHG and the tree share: a churning scene with statics and
// filters, run through one technique per thread count, each frame's pair array compared with
// the one thread's (pair for pair, in order) and, as a set, with brute force's.
// (tests/broadphase/grid/grid_threads_test.cpp checks the grid the same way.)

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "broadphase/brute/brute.h"
#include "scenario/scenario.h"

namespace ro::thread_checks {

/// 1 first (the serial path the others must match), a few more, and 0: the hardware's.
inline const std::vector<std::uint32_t> kThreadCounts{1, 2, 4, 7, 0};

/// A scene's boxes with rules that follow the entity (its id): every fifth static (two statics
/// never pair), and layers that refuse a share of the pairs.
struct Frame {
    BoxView view;
    std::vector<std::uint8_t> isStatic;
    std::vector<std::uint32_t> category, mask;
};

inline Frame withRules(const Scene& scene) {
    const BoxView boxes = scene.boxes();
    Frame f{boxes, std::vector<std::uint8_t>(boxes.count), std::vector<std::uint32_t>(boxes.count),
            std::vector<std::uint32_t>(boxes.count)};
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        const std::uint32_t id = boxes.ids[i];
        f.isStatic[i] = id % 5 == 0 ? 1 : 0;
        f.category[i] = 1u << (id % 4);
        f.mask[i] = ~(1u << ((id + 1) % 4));  // layer k does not collide with layer k - 1
    }
    f.view.isStatic = f.isStatic.data();
    f.view.category = f.category.data();
    f.view.mask = f.mask.data();
    return f;
}

inline std::vector<Pair> pairsOf(BroadPhase& technique, const BoxView& view) {
    std::vector<Pair> out;
    technique.update(view);
    technique.findPairs(out);
    return out;
}

/// The pairs sorted, those whose boxes do not overlap dropped (a technique's candidates may
/// be a superset).
inline std::vector<Pair> overlapping(std::vector<Pair> pairs, const BoxView& view) {
    std::erase_if(pairs, [&](const Pair& p) { return !overlaps(view.box(p.a), view.box(p.b)); });
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

/// Runs `frames` frames of the scene through one technique per thread count (configured by
/// configure(technique, threads)); every frame, each count's pairs must be the one thread's
/// array, and on the first and last frames brute force's set. afterFrame(the one thread's technique) runs after each frame.
/// With `validateEach`, every count's structure must validate every frame (quick for the HSHG,
/// not for the tree).
template <typename Technique, typename Configure, typename AfterFrame>
void expectThreadsAgree(Scene& scene, int frames, Configure configure, AfterFrame afterFrame,
                        bool validateEach = false) {
    std::vector<std::unique_ptr<Technique>> techniques;
    for (const std::uint32_t threads : kThreadCounts) {
        techniques.push_back(std::make_unique<Technique>());
        configure(*techniques.back(), threads);
    }
    BruteForce brute;
    brute.configure(Settings(scene.bounds(), {}));
    for (int frame = 0; frame < frames; ++frame) {
        SCOPED_TRACE("frame " + std::to_string(frame));
        const Frame f = withRules(scene);
        const std::vector<Pair> serial = pairsOf(*techniques[0], f.view);
        ASSERT_FALSE(serial.empty());
        for (std::size_t t = 1; t < kThreadCounts.size(); ++t) {
            EXPECT_EQ(pairsOf(*techniques[t], f.view), serial) << kThreadCounts[t] << " threads";
            if (validateEach) {
                EXPECT_EQ(techniques[t]->validate(), "") << kThreadCounts[t] << " threads";
            }
        }
        // Brute force is quadratic: on the first frame and the last (the churn between them
        // reaches both), and every frame's array is checked against the one thread's above.
        if (frame == 0 || frame + 1 == frames) {
            EXPECT_EQ(overlapping(serial, f.view), overlapping(pairsOf(brute, f.view), f.view));
        }
        afterFrame(*techniques[0]);
        scene.advance();
    }
}

inline std::string scenarioName(const ::testing::TestParamInfo<ScenarioKind>& info) {
    switch (info.param) {
        case ScenarioKind::Uniform: return "Uniform";
        case ScenarioKind::Clustered: return "Clustered";
        case ScenarioKind::Dense: return "Dense";
        case ScenarioKind::Mixed: return "Mixed";
        default: return "Other";
    }
}

}  // namespace ro::thread_checks

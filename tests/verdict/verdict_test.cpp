// The verdict: a scene's properties measured from its frames, the ranking with its ties, and
// the sentence that names the technique to pick.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/scenes.h"
#include "verdict/scene_profile.h"
#include "verdict/verdict.h"

namespace ro {
namespace {

/// A frame of boxes (side 2) at the given centres, with the given ids and static flags.
struct Frame {
    test::BoxSet boxes;
    std::vector<std::uint8_t> isStatic;
    void add(std::uint32_t id, float x, float y, bool still) {
        boxes.add(test::boxAt(x, y, 1.0f));
        boxes.ids.back() = id;
        isStatic.push_back(still ? 1 : 0);
    }
    [[nodiscard]] BoxView view() const {
        BoxView v = boxes.view();
        v.isStatic = isStatic.data();
        return v;
    }
};

TEST(SceneProfile, MeasuresStaticsMotionSizesOverlapsAndChurn) {
    // Frame 1: ids 1-4, 1 and 2 static, 3 and 4 overlapping 1. Frame 2: 3 moved by 0.5 (a
    // quarter of its side), 4 is gone, 5 is new.
    Frame first, second;
    first.add(1, 0, 0, true);
    first.add(2, 100, 0, true);
    first.add(3, 1, 0, false);
    first.add(4, 0, 1, false);
    second.add(1, 0, 0, true);
    second.add(2, 100, 0, true);
    second.add(3, 1.5f, 0, false);
    second.add(5, 50, 50, false);
    SceneProfiler profiler;
    profiler.addFrame(first.view());
    profiler.addFrame(second.view());
    const SceneProfile p = profiler.profile();
    EXPECT_EQ(p.frames, 2u);
    EXPECT_DOUBLE_EQ(p.meanBoxes, 4.0);
    EXPECT_DOUBLE_EQ(p.staticShare, 0.5);
    EXPECT_DOUBLE_EQ(p.movedShare, 1.0 / 3.0) << "of ids 1, 2 and 3, present in both, 3 moved";
    EXPECT_DOUBLE_EQ(p.motionPerSize, 0.25);
    EXPECT_DOUBLE_EQ(p.sideP50, 2.0);
    EXPECT_DOUBLE_EQ(p.sideP99, 2.0);
    // Frame 1: 1-3, 1-4, 3-4 overlap (3 pairs); frame 2: 1-3 (1 pair): 4 pairs over 8 boxes.
    EXPECT_DOUBLE_EQ(p.overlapsPerBox, 0.5);
    EXPECT_DOUBLE_EQ(p.churnPerFrame, 2.0) << "4 destroyed and 5 created";
}

Measured measured(std::string name, double ms, double jitter, bool peer = false) {
    Measured m{std::move(name), peer, {}, ms + jitter, 1.5};
    for (int k = 0; k < 50; ++k) m.frameMs.push_back(ms + (k % 2 == 0 ? jitter : -jitter));
    return m;
}

TEST(Verdict, RanksByMeanWithRatiosToTheFastestAndCallsTiesWithinTheNoise) {
    const auto ranking = rank({measured("sweep", 0.51, 0.01), measured("hshg", 0.32, 0.01), measured("grid", 0.33, 0.05),
                               measured("brute", 9.0, 0.1)});
    ASSERT_EQ(ranking.size(), 4u);
    EXPECT_EQ(ranking[0].name, "hshg");
    EXPECT_EQ(ranking[1].name, "grid");
    EXPECT_EQ(ranking[2].name, "sweep");
    EXPECT_EQ(ranking[3].name, "brute");
    EXPECT_DOUBLE_EQ(ranking[0].ratioToFastest, 1.0);
    EXPECT_NEAR(ranking[2].ratioToFastest, 0.51 / 0.32, 1e-9);
    EXPECT_TRUE(ranking[1].tiedWithFastest) << "0.01 ms apart, with frames that spread by 0.05";
    EXPECT_FALSE(ranking[2].tiedWithFastest);
}

TEST(Verdict, NamesTheFastestOfOursAndSaysWhyFromTheScene) {
    SceneProfile scene;
    scene.meanBoxes = 1000;
    scene.movedShare = 1.0;
    scene.motionPerSize = 0.02;
    scene.sideP50 = 2.0;
    scene.sideP99 = 2.4;
    scene.overlapsPerBox = 0.3;
    const auto ranking = rank({measured("box2d-tree", 0.2, 0.001, true), measured("hshg", 0.32, 0.001),
                               measured("sweep", 0.51, 0.001)});
    const std::string text = verdictSentence(ranking, scene);
    EXPECT_EQ(text.rfind("For this scene pick hshg: 0.32 ms a frame, 1.6x faster than sweep (0.51)", 0), 0u) << text;
    EXPECT_NE(text.find("box2d-tree was 1.6x faster"), std::string::npos) << text;
    EXPECT_NE(text.find("Why: 1000 boxes, 0 % static, sizes within 1.2x, 100 % of the boxes move a frame, by 2 % of "
                        "their size, 0.3 overlaps per box."),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("The hshg suits:"), std::string::npos) << "the technique's guide: " << text;
}

TEST(Verdict, ATieNamesBoth) {
    const auto ranking = rank({measured("grid", 0.330, 0.05), measured("hshg", 0.329, 0.05)});
    const std::string text = verdictSentence(ranking, SceneProfile{});
    EXPECT_EQ(text.rfind("For this scene pick hshg or grid (a tie within the measured noise)", 0), 0u) << text;
}

TEST(Verdict, NoneOfOursNoSentence) {
    EXPECT_TRUE(verdictSentence(rank({measured("box2d-tree", 0.2, 0.01, true)}), SceneProfile{}).empty());
    EXPECT_TRUE(rank({}).empty());
}

}  // namespace
}  // namespace ro

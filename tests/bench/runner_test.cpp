// The bench's own machinery: --check must catch a wrong answer and name it, and a scene must
// be the same frames for everyone who replays it.

#include <gtest/gtest.h>

#include <fmt/core.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/contestant.h"
#include "bench/runner.h"
#include "bench/scenario.h"

namespace ro::bench {
namespace {

const Settings kSettings{1.2f, {0, 0, 100, 100}, 0};

/// Answers as the grid does, except on one frame, where it drops or repeats the first pair.
class FaultyContestant final : public Contestant {
public:
    enum class Fault { Drop, Repeat };
    FaultyContestant(int faultFrame, Fault fault) : m_faultFrame(faultFrame), m_fault(fault) {}

    void step(const BoxView& boxes, std::vector<Pair>& overlaps) override {
        m_inner->step(boxes, overlaps);
        if (m_frame++ != m_faultFrame || overlaps.empty()) return;
        std::sort(overlaps.begin(), overlaps.end());
        if (m_fault == Fault::Drop) overlaps.erase(overlaps.begin());
        else overlaps.push_back(overlaps.front());
    }
    FrameFigures figures() const override { return m_inner->figures(); }

private:
    std::unique_ptr<Contestant> m_inner = makeTechniqueContestant(*findTechnique("grid"), kSettings);
    int m_frame = 0;
    int m_faultFrame;
    Fault m_fault;
};

const RunSpec kSpec{findScenario("dense"), 400, Motion::Steady, 3, 10, 2};

std::unique_ptr<Contestant> makeTechnique(std::string_view technique) {
    return makeTechniqueContestant(*findTechnique(technique), kSettings);
}

/// Brute force's sorted pairs on a frame of `spec`, replayed from scratch.
ReferenceAt bruteAt(const RunSpec& spec) {
    return [spec](int frame) {
        auto fresh = makeTechnique("brute");
        return pairsAtFrame(*fresh, spec, frame);
    };
}

struct Checked {
    Row row;
    std::string mismatch;
    std::vector<Pair> expectedAtFault;
};

/// Runs `contestant` side by side with brute force, its reference.
Checked runChecked(Contestant& contestant, const RunSpec& spec, int faultFrame) {
    auto brute = makeTechnique("brute");
    const Lane lanes[] = {{brute.get(), "brute", false}, {&contestant, "tested", false}};
    const std::vector<LaneResult> results = runSideBySide(lanes, spec, bruteAt(spec));
    return {results[1].row, results[1].mismatch, bruteAt(spec)(faultFrame)};
}

TEST(BenchCheck, NamesTheFrameAndThePairADroppedPairWasMissingFrom) {
    FaultyContestant faulty(5, FaultyContestant::Fault::Drop);
    const Checked c = runChecked(faulty, kSpec, 5);
    ASSERT_FALSE(c.expectedAtFault.empty()) << "the scene should have overlaps at frame 5";
    const Pair dropped = c.expectedAtFault.front();
    EXPECT_EQ(c.row.check, "failed");
    EXPECT_EQ(c.mismatch.rfind(fmt::format("frame 5: pair ({}, {}) missing", dropped.a, dropped.b), 0), 0u)
        << c.mismatch;
}

TEST(BenchCheck, NamesARepeatedPair) {
    FaultyContestant faulty(7, FaultyContestant::Fault::Repeat);
    const Checked c = runChecked(faulty, kSpec, 7);
    const Pair repeated = c.expectedAtFault.front();
    EXPECT_EQ(c.row.check, "failed");
    EXPECT_EQ(c.mismatch, fmt::format("frame 7: pair ({}, {}) reported twice", repeated.a, repeated.b));
}

TEST(BenchCheck, ACorrectTechniquePasses) {
    auto hash = makeTechnique("hash");
    const Checked c = runChecked(*hash, kSpec, 0);
    EXPECT_EQ(c.row.check, "ok");
    EXPECT_TRUE(c.mismatch.empty()) << c.mismatch;
    EXPECT_GT(c.row.overlaps, 0u);
    EXPECT_LE(c.row.medianMs, c.row.maxMs);
    EXPECT_LE(c.row.p99Ms, c.row.maxMs);
}

TEST(BenchCheck, FingerprintsTellSetsApart) {
    const std::vector<Pair> pairs{{0, 1}, {2, 3}, {4, 9}};
    EXPECT_EQ(fingerprintOf(pairs), fingerprintOf({{4, 9}, {0, 1}, {2, 3}})) << "order does not matter";
    EXPECT_NE(fingerprintOf(pairs), fingerprintOf({{0, 1}, {2, 3}, {4, 8}}));
    EXPECT_NE(fingerprintOf(pairs), fingerprintOf({{0, 1}, {2, 3}}));
    EXPECT_NE(fingerprintOf({{0, 1}, {0, 1}}), fingerprintOf({{0, 1}}));
}

TEST(BenchScenario, TheSameSeedReplaysTheSameFrames) {
    for (const ScenarioInfo& s : scenarios()) {
        SCOPED_TRACE(std::string(s.name));
        Scene a(s.kind, 500, Motion::Varied, 11), b(s.kind, 500, Motion::Varied, 11), c(s.kind, 500, Motion::Varied, 12);
        for (int f = 0; f < 20; ++f) a.advance(), b.advance(), c.advance();
        const BoxView va = a.boxes(), vb = b.boxes(), vc = c.boxes();
        bool same = true, sameAsOtherSeed = true;
        for (std::uint32_t i = 0; i < va.count; ++i) {
            same = same && va.minX[i] == vb.minX[i] && va.minY[i] == vb.minY[i] && va.maxX[i] == vb.maxX[i];
            sameAsOtherSeed = sameAsOtherSeed && va.minX[i] == vc.minX[i] && va.minY[i] == vc.minY[i];
        }
        EXPECT_TRUE(same);
        EXPECT_FALSE(sameAsOtherSeed);
    }
}

TEST(BenchScenario, BoxesStayInsideTheWorldEvenForSmallCounts) {
    for (const ScenarioInfo& s : scenarios()) {
        for (const std::uint32_t n : {1u, 10u, 2000u}) {
            for (const Motion motion : {Motion::Varied, Motion::Teleport}) {
                SCOPED_TRACE(fmt::format("{} n={} {}", s.name, n, motionName(motion)));
                Scene scene(s.kind, n, motion, 5);
                for (int f = 0; f < 200; ++f) scene.advance();
                const BoxView v = scene.boxes();
                const Aabb& w = scene.bounds();
                for (std::uint32_t i = 0; i < v.count; ++i) {
                    ASSERT_TRUE(v.minX[i] >= w.minX - 1e-3f && v.maxX[i] <= w.maxX + 1e-3f) << "box " << i;
                    ASSERT_TRUE(v.minY[i] >= w.minY - 1e-3f && v.maxY[i] <= w.maxY + 1e-3f) << "box " << i;
                }
            }
        }
    }
}

// Teleport motion must really be incoherent: after one frame almost every box is elsewhere.
TEST(BenchScenario, TeleportMovesEveryBoxFar) {
    Scene scene(ScenarioKind::Uniform, 2000, Motion::Teleport, 3);
    const std::vector<float> before(scene.boxes().minX, scene.boxes().minX + scene.size());
    scene.advance();
    std::uint32_t far = 0;
    for (std::uint32_t i = 0; i < scene.size(); ++i) far += std::abs(scene.boxes().minX[i] - before[i]) > 5.0f;
    EXPECT_GT(far, 1800u);
}

}  // namespace
}  // namespace ro::bench

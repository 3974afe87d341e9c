// The bench's own machinery: --check must catch a wrong answer and name it, contestants run
// side by side must take turns and answer as they do alone, passes must combine frame by
// frame, and a scene must be the same frames for everyone who replays it.

#include <gtest/gtest.h>

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/settings.h"
#include "bench/contestant.h"
#include "bench/runner.h"
#include "scenario/scenario.h"

namespace ro::bench {
namespace {

const Settings kSettings = test::withCell(1.2f, {0, 0, 100, 100});

/// Answers as the grid does, except on one frame, where it drops or repeats the first pair.
class FaultyContestant final : public Contestant {
public:
    enum class Fault { Drop, Repeat };
    FaultyContestant(int faultFrame, Fault fault) : m_faultFrame(faultFrame), m_fault(fault) {}

    void step(const BoxView& boxes, MovedList moved, std::vector<Pair>& overlaps) override {
        m_inner->step(boxes, moved, overlaps);
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

const RunSpec kSpec{findScenario("dense"), 400, Motion::Steady, 3, 10, 2, std::nullopt};
constexpr int kAllFrames = 1 + 2 + 10;  // kSpec's build frame, warm-up and measured frames

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

/// Steps an inner contestant, and logs each step: (its frame, its name) in a log the lanes of
/// a run share, so the log is the order they stepped in; and its pairs' fingerprint.
class LoggingContestant final : public Contestant {
public:
    using Log = std::vector<std::pair<int, std::string>>;
    LoggingContestant(std::unique_ptr<Contestant> inner, std::string name, Log& log)
        : m_inner(std::move(inner)), m_name(std::move(name)), m_log(log) {}

    void step(const BoxView& boxes, MovedList moved, std::vector<Pair>& overlaps) override {
        m_log.emplace_back(static_cast<int>(m_prints.size()), m_name);
        m_inner->step(boxes, moved, overlaps);
        m_prints.push_back(fingerprintOf(overlaps));
    }
    FrameFigures figures() const override { return m_inner->figures(); }
    const std::vector<Fingerprint>& prints() const { return m_prints; }

private:
    std::unique_ptr<Contestant> m_inner;
    std::string m_name;
    Log& m_log;
    std::vector<Fingerprint> m_prints;
};

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

// A lane that fails stops at its fault; a correct lane beside it runs every frame, each with
// brute force's pairs of that frame.
TEST(BenchSideBySide, AFailingLaneStopsAndTheOthersRunOn) {
    LoggingContestant::Log log;
    auto brute = makeTechnique("brute");
    LoggingContestant loggedFaulty(std::make_unique<FaultyContestant>(5, FaultyContestant::Fault::Drop), "faulty",
                                   log);
    LoggingContestant hash(makeTechnique("hash"), "hash", log);
    const Lane lanes[] = {{brute.get(), "brute", false}, {&loggedFaulty, "faulty", false}, {&hash, "hash", false}};
    const std::vector<LaneResult> results = runSideBySide(lanes, kSpec, bruteAt(kSpec));
    ASSERT_EQ(results.size(), 3u);

    const Pair dropped = bruteAt(kSpec)(5).front();
    EXPECT_EQ(results[1].row.check, "failed");
    EXPECT_EQ(results[1].mismatch.rfind(fmt::format("frame 5: pair ({}, {}) missing", dropped.a, dropped.b), 0), 0u)
        << results[1].mismatch;
    EXPECT_EQ(loggedFaulty.prints().size(), 6u) << "frames 0 to 5, then no more";

    EXPECT_EQ(results[2].row.check, "ok");
    EXPECT_TRUE(results[2].mismatch.empty()) << results[2].mismatch;
    EXPECT_EQ(results[2].frameMs.size(), static_cast<std::size_t>(kSpec.frames)) << "a time for each measured frame";
    std::vector<Fingerprint> expected;
    for (int frame = 0; frame < kAllFrames; ++frame) expected.push_back(fingerprintOf(bruteAt(kSpec)(frame)));
    EXPECT_EQ(hash.prints(), expected);
}

// The order the lanes step in must not change any answer: each lane's figures and pairs are
// those it gives when run alone.
TEST(BenchSideBySide, EveryLaneAnswersAsItDoesAlone) {
    const RunSpec spec{findScenario("mixed"), 600, Motion::Varied, 4, 8, 2, std::nullopt};
    const Settings settings = test::withCell(4.0f, Scene(ScenarioKind::Mixed, 600, Motion::Varied, 4).bounds());
    LoggingContestant::Log log;
    std::vector<std::unique_ptr<LoggingContestant>> together;
    std::vector<Lane> lanes;
    for (const TechniqueInfo& t : techniques()) {
        together.push_back(std::make_unique<LoggingContestant>(makeTechniqueContestant(t, settings),
                                                               std::string(t.id), log));
        lanes.push_back({together.back().get(), std::string(t.id), false});
    }
    const std::vector<LaneResult> side = runSideBySide(lanes, spec, {});
    ASSERT_EQ(side.size(), lanes.size());

    for (std::size_t i = 0; i < lanes.size(); ++i) {
        SCOPED_TRACE(lanes[i].name);
        LoggingContestant alone(makeTechniqueContestant(techniques()[i], settings), lanes[i].name, log);
        const Lane lane{&alone, lanes[i].name, false};
        const Row aloneRow = runSideBySide(std::span(&lane, 1), spec, {}).front().row;
        EXPECT_EQ(together[i]->prints(), alone.prints());
        EXPECT_EQ(side[i].row.overlaps, aloneRow.overlaps);
        EXPECT_EQ(side[i].row.candidates, aloneRow.candidates);
        // Auto keeps whichever of two techniques its first steps timed faster, so its work
        // (tests, bytes) is that of the one it kept, which the load beside it can change; its
        // answers above cannot.
        if (lanes[i].name != "auto") {
            EXPECT_EQ(side[i].row.tests, aloneRow.tests);
            EXPECT_EQ(side[i].row.bytes, aloneRow.bytes);
        }
        EXPECT_EQ(side[i].row.check, "unchecked");
    }
}

/// The names of the lanes in the order they stepped on `frame`.
std::vector<std::string> stepsOf(const LoggingContestant::Log& log, int frame) {
    std::vector<std::string> names;
    for (const auto& [f, name] : log)
        if (f == frame) names.push_back(name);
    return names;
}

// The side-by-side run steps its lanes in laneToStep's order (tested below), the reference
// first on every frame when checked.
TEST(BenchSideBySide, LanesStepInTheDesignsOrder) {
    for (const bool checked : {false, true}) {
        SCOPED_TRACE(checked ? "checked" : "unchecked");
        LoggingContestant::Log log;
        std::vector<std::unique_ptr<LoggingContestant>> logged;
        std::vector<Lane> lanes;
        const std::vector<std::string> ids{"brute", "grid", "hash", "sap"};
        for (const std::string& id : ids) {
            logged.push_back(std::make_unique<LoggingContestant>(makeTechnique(id), id, log));
            lanes.push_back({logged.back().get(), id, false});
        }
        const std::vector<LaneResult> results = runSideBySide(lanes, kSpec, checked ? bruteAt(kSpec) : ReferenceAt{});
        for (const LaneResult& r : results) EXPECT_TRUE(r.mismatch.empty()) << r.mismatch;

        const std::size_t fixed = checked ? 1 : 0;
        for (int frame = 0; frame < kAllFrames; ++frame) {
            std::vector<std::string> expected;
            for (std::size_t k = 0; k < ids.size(); ++k) expected.push_back(ids[laneToStep(k, frame, ids.size(), fixed)]);
            if (checked) {
                EXPECT_EQ(expected.front(), "brute");
            }
            EXPECT_EQ(stepsOf(log, frame), expected) << "frame " << frame;
        }
    }
}

// The order itself, for 1 to 14 changing lanes behind 0 or 1 fixed ones: each frame a
// permutation with the fixed lanes first, and over any m frames in a row (2m for odd m), each
// lane right after every other one as often (once, or twice), and first as often.
TEST(BenchSideBySide, TheStepOrderIsAWilliamsDesign) {
    for (std::size_t fixed = 0; fixed <= 1; ++fixed) {
        for (std::size_t m = 1; m <= 14; ++m) {
            const std::size_t lanes = fixed + m, rows = m % 2 == 0 ? m : 2 * m;
            for (const int start : {0, 5}) {
                std::map<std::pair<std::size_t, std::size_t>, std::size_t> follows;
                std::map<std::size_t, std::size_t> firsts;
                for (int frame = start; frame < start + static_cast<int>(rows); ++frame) {
                    std::vector<std::size_t> order;
                    for (std::size_t k = 0; k < lanes; ++k) order.push_back(laneToStep(k, frame, lanes, fixed));
                    for (std::size_t k = 0; k < fixed; ++k) ASSERT_EQ(order[k], k);
                    std::vector<std::size_t> sorted = order;
                    std::sort(sorted.begin(), sorted.end());
                    for (std::size_t k = 0; k < lanes; ++k) ASSERT_EQ(sorted[k], k) << "m " << m << " frame " << frame;
                    ++firsts[order[fixed]];
                    for (std::size_t k = fixed + 1; k < lanes; ++k) ++follows[{order[k - 1], order[k]}];
                }
                SCOPED_TRACE("m " + std::to_string(m) + ", fixed " + std::to_string(fixed));
                EXPECT_EQ(follows.size(), m * (m - 1));
                for (const auto& [pair, count] : follows) EXPECT_EQ(count, rows / m) << pair.second << " after " << pair.first;
                EXPECT_EQ(firsts.size(), m);
                for (const auto& [lane, count] : firsts) EXPECT_EQ(count, rows / m) << lane << " first";
            }
        }
    }
}

/// A lane's result of one pass, with these frame times.
LaneResult passResult(std::vector<double> frameMs, double buildMs, std::optional<double> allocs = 0.0,
                      std::uint64_t overlaps = 42) {
    LaneResult result;
    result.row.technique = "lane";
    result.row.buildMs = buildMs;
    result.row.allocsPerFrame = allocs;
    result.row.overlaps = overlaps;
    result.row.check = "ok";
    result.frameMs = std::move(frameMs);
    return result;
}

// A burst in one pass drops out; a spike that comes back in every pass (frame 2) stays.
TEST(BenchPasses, EachFrameKeepsTheMedianOfItsPasses) {
    const std::vector<std::vector<LaneResult>> passes{{passResult({1, 9, 7, 1}, 5, 0.0)},
                                                      {passResult({1, 1, 6, 8}, 50, 0.5, 43)},
                                                      {passResult({2, 1, 8, 1}, 6, 0.0, 43)}};
    const std::vector<LaneResult> combined = combinePasses(passes);
    ASSERT_EQ(combined.size(), 1u);
    EXPECT_EQ(combined[0].frameMs, (std::vector<double>{1, 1, 7, 1}));
    const Row& row = combined[0].row;
    EXPECT_DOUBLE_EQ(row.meanMs, 2.5);
    EXPECT_DOUBLE_EQ(row.medianMs, 1.0);
    EXPECT_DOUBLE_EQ(row.maxMs, 7.0);
    EXPECT_DOUBLE_EQ(row.buildMs, 6.0);
    EXPECT_EQ(row.allocsPerFrame, 0.5) << "the most any pass allocated";
    EXPECT_EQ(row.overlaps, 42u) << "the first pass's figures";
    EXPECT_EQ(row.passes, 3);
    EXPECT_EQ(row.check, "ok");
}

// Of two passes a frame keeps the lower time, so a burst drops out rather than being halved;
// one pass is kept as it is.
TEST(BenchPasses, TwoPassesKeepTheLowerAndOnePassItself) {
    const std::vector<LaneResult> two =
        combinePasses({{passResult({1, 9, 3}, 5)}, {passResult({5, 1, 3}, 4)}});
    ASSERT_EQ(two.size(), 1u);
    EXPECT_EQ(two[0].frameMs, (std::vector<double>{1, 1, 3}));
    EXPECT_DOUBLE_EQ(two[0].row.buildMs, 4.0);
    EXPECT_EQ(two[0].row.passes, 2);

    const LaneResult single = passResult({2, 7, 3}, 5);
    const std::vector<LaneResult> one = combinePasses({{single}});
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].frameMs, single.frameMs);
    EXPECT_DOUBLE_EQ(one[0].row.meanMs, 4.0);
    EXPECT_DOUBLE_EQ(one[0].row.maxMs, 7.0);
    EXPECT_EQ(one[0].row.passes, 1);
}

// A lane that failed in any pass shows that pass: its check, its mismatch, its frames.
TEST(BenchPasses, AFailureInAnyPassIsKept) {
    LaneResult failed = passResult({1, 1}, 5);
    failed.row.check = "failed";
    failed.mismatch = "frame 4: pair (1, 2) missing";
    const std::vector<std::vector<LaneResult>> passes{{passResult({1, 1, 1, 1}, 5), passResult({2, 2, 2, 2}, 5)},
                                                      {passResult({1, 1, 1, 1}, 5), failed}};
    const std::vector<LaneResult> combined = combinePasses(passes);
    ASSERT_EQ(combined.size(), 2u);
    EXPECT_EQ(combined[0].row.check, "ok");
    EXPECT_EQ(combined[1].row.check, "failed");
    EXPECT_EQ(combined[1].mismatch, failed.mismatch);
    EXPECT_EQ(combined[1].frameMs, failed.frameMs);
    EXPECT_EQ(combined[1].row.passes, 1) << "its figures are one pass's";
    EXPECT_EQ(combined[0].row.passes, 2);
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

// Churn destroys 1% of the boxes and creates as many every frame: the count stays, the ids stay
// unique, and each frame brings exactly that many ids never seen before.
TEST(BenchScenario, ChurnReplacesOnePercentOfTheBoxesEveryFrame) {
    for (const ScenarioInfo& s : scenarios()) {
        if (!motionApplies(Motion::Churn, s.kind)) continue;
        SCOPED_TRACE(std::string(s.name));
        Scene scene(s.kind, 3000, Motion::Churn, 9);
        std::set<std::uint32_t> seen(scene.boxes().ids, scene.boxes().ids + 3000);
        for (int f = 0; f < 30; ++f) {
            scene.advance();
            const BoxView v = scene.boxes();
            ASSERT_EQ(v.count, 3000u);
            const std::set<std::uint32_t> now(v.ids, v.ids + v.count);
            ASSERT_EQ(now.size(), 3000u) << "an id twice";
            std::size_t fresh = 0;
            for (const std::uint32_t id : now) fresh += seen.insert(id).second ? 1 : 0;
            // 30 destroyed (a new box can be destroyed again in the same frame: at most 30 new).
            EXPECT_GE(fresh, 25u);
            EXPECT_LE(fresh, 30u);
            for (std::uint32_t i = 0; i < v.count; ++i)
                ASSERT_TRUE(v.minX[i] >= scene.bounds().minX - 1e-3f && v.maxX[i] <= scene.bounds().maxX + 1e-3f);
        }
    }
    EXPECT_FALSE(motionApplies(Motion::Churn, ScenarioKind::Orbit));
    EXPECT_FALSE(motionApplies(Motion::Churn, ScenarioKind::OneCell));
}

// The static field moves only its movers (a world does not integrate its statics): their
// boxes change, within the walls, and every static's box stays as it was built.
TEST(BenchScenario, AStaticFieldMovesItsMoversAndLeavesItsStaticsWhereTheyAre) {
    Scene scene(ScenarioKind::Static, 3000, Motion::Steady, 4);
    ASSERT_TRUE(scene.declaresStatics());
    const BoxView start = scene.boxes();
    const std::vector<float> minX(start.minX, start.minX + start.count), maxX(start.maxX, start.maxX + start.count);
    const std::vector<float> minY(start.minY, start.minY + start.count), maxY(start.maxY, start.maxY + start.count);
    for (int f = 0; f < 100; ++f) scene.advance();
    const BoxView v = scene.boxes();
    const auto moved = scene.moved();
    ASSERT_TRUE(moved.has_value());
    const std::set<std::uint32_t> movers(moved->begin(), moved->end());
    EXPECT_EQ(movers.size(), 30u) << "1% by default";
    for (std::uint32_t i = 0; i < v.count; ++i) {
        ASSERT_EQ(v.isStatic[i] != 0, movers.count(i) == 0) << "box " << i;
        const bool same = v.minX[i] == minX[i] && v.maxX[i] == maxX[i] && v.minY[i] == minY[i] && v.maxY[i] == maxY[i];
        if (v.isStatic[i] != 0) {
            ASSERT_TRUE(same) << "static " << i << " moved";
        } else {
            EXPECT_FALSE(same) << "mover " << i << " stayed put";
            EXPECT_NEAR(v.maxX[i] - v.minX[i], maxX[i] - minX[i], 1e-3f) << "mover " << i << " changed size";
        }
        ASSERT_TRUE(v.minX[i] >= scene.bounds().minX - 1e-3f && v.maxX[i] <= scene.bounds().maxX + 1e-3f);
        ASSERT_TRUE(v.minY[i] >= scene.bounds().minY - 1e-3f && v.maxY[i] <= scene.bounds().maxY + 1e-3f);
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

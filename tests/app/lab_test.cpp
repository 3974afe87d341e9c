// The lab's rules, without a window (Lab knows nothing of SDL or ImGui): what the person
// sees while paused is true, Tab in either direction skips a technique the population is too
// large for, a count far beyond the sizes fits the sizes, and a slow tick leaves the UI frames.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "app/lab.h"
#include "app/window_request.h"
#include "broadphase/hash/hash.h"
#include "core/box_helpers.h"
#include "ro/registry.h"
#include "scenario/scenario.h"

namespace {

using ro::app::Command;
using ro::app::Lab;
using ro::app::LabState;
using ro::app::SavedEntity;

/// The overlapping pairs of the world's current positions, by brute force.
std::vector<ro::Pair> bruteOverlaps(const ro::World& world) {
    std::vector<ro::Pair> out;
    const auto x = world.posX(), y = world.posY(), hw = world.halfW(), hh = world.halfH();
    for (std::uint32_t a = 0; a < world.size(); ++a)
        for (std::uint32_t b = a + 1; b < world.size(); ++b)
            if (std::abs(x[a] - x[b]) <= hw[a] + hw[b] && std::abs(y[a] - y[b]) <= hh[a] + hh[b]) out.push_back({a, b});
    return out;
}

std::vector<ro::Pair> sorted(std::vector<ro::Pair> pairs) {
    std::sort(pairs.begin(), pairs.end(), [](ro::Pair p, ro::Pair q) { return p.a != q.a ? p.a < q.a : p.b < q.b; });
    return pairs;
}

TEST(Lab, PausedStepShowsThePairsOfThePositionsItLeft) {
    Lab lab(*ro::findTechnique("grid"), 400, 3, {});
    for (int frame = 0; frame < 30; ++frame) lab.update(1.0 / 60.0, true);
    lab.apply(Command::togglePause());
    lab.apply(Command::step());
    lab.update(1.0 / 60.0, false);
    // The step's response moved entities after its pair finding; the HUD's pairs must be the
    // pairs of what is drawn now.
    EXPECT_EQ(sorted(lab.world().overlapPairs()), sorted(bruteOverlaps(lab.world())));
    EXPECT_EQ(lab.world().lastStats().overlaps, bruteOverlaps(lab.world()).size());
}

TEST(Lab, PausedCountChangeRefreshesPairsAndContactsWithoutATick) {
    Lab lab(*ro::findTechnique("hshg"), 2000, 5, {});
    lab.apply(Command::togglePause());
    lab.update(1.0 / 60.0, false);
    const std::uint64_t ticks = lab.world().tickCount();
    lab.apply(Command::count(600));
    lab.refreshIfChanged();
    EXPECT_EQ(lab.world().tickCount(), ticks);
    EXPECT_EQ(sorted(lab.world().overlapPairs()), sorted(bruteOverlaps(lab.world())));
    // Contacts are counted on the new population too: never more than its overlaps.
    EXPECT_LE(lab.world().lastStats().contacts, lab.world().lastStats().overlaps);
    lab.apply(Command::count(10));
    lab.refreshIfChanged();
    EXPECT_LE(lab.world().lastStats().contacts, lab.world().lastStats().overlaps);
}

TEST(Lab, WhilePausedTheTimesAreOfTheSceneOnScreen) {
    Lab lab(*ro::findTechnique("grid"), 2000, 5, {});
    for (int frame = 0; frame < 5; ++frame) lab.update(1.0 / 60.0, true);
    lab.apply(Command::togglePause());
    lab.apply(Command::step());
    lab.update(1.0 / 60.0, false);
    // A single step: its tick's times stay beside the pairs of where it left the entities.
    EXPECT_GT(lab.world().lastStats().msIntegrate, 0.0) << "the step integrated";
    // So they do when only the view of the scene changes: a compared technique, a pause.
    const double stepIntegrate = lab.world().lastStats().msIntegrate;
    lab.apply(Command::compared(*ro::findTechnique("sap"), true));
    lab.refreshIfChanged();
    lab.apply(Command::togglePause());
    lab.apply(Command::togglePause());
    lab.refreshIfChanged();
    EXPECT_EQ(lab.world().lastStats().msIntegrate, stepIntegrate);
    // A change of count (as of preset or technique): the last tick ran on another scene, so
    // the times become the refresh's own, which integrated nothing.
    lab.apply(Command::count(500));
    lab.refreshIfChanged();
    EXPECT_EQ(lab.world().lastStats().msIntegrate, 0.0);
    EXPECT_GT(lab.world().lastStats().msBroadUpdate + lab.world().lastStats().msPairFind, 0.0);
}

TEST(Lab, ATechniqueThatShrinksFarBelowItsLargestSceneIsMadeAfresh) {
    // A technique keeps the capacity of the most entities it held; the HUD's memory row would
    // then describe the scene before.
    const auto bytesAfterATick = [](Lab& lab) {
        lab.update(1.0 / 60.0, true);
        return lab.world().lastStats().broadPhase.bytesHeld;
    };
    Lab lab(*ro::findTechnique("sap"), 100'000, 5, {});
    const std::uint64_t big = bytesAfterATick(lab);
    lab.apply(Command::count(1'000));
    const std::uint64_t shrunk = bytesAfterATick(lab);
    Lab fresh(*ro::findTechnique("sap"), 1'000, 5, {});
    const std::uint64_t made = bytesAfterATick(fresh);
    EXPECT_LT(shrunk, big / 20);
    EXPECT_LE(shrunk, 2 * made);
    // A quarter or more of the peak keeps the technique (and what it built).
    const ro::BroadPhase* kept = &lab.world().broadPhase();
    lab.apply(Command::count(4'000));
    (void)bytesAfterATick(lab);
    lab.apply(Command::count(1'000));
    (void)bytesAfterATick(lab);
    EXPECT_EQ(&lab.world().broadPhase(), kept) << "1,000 is a quarter of 4,000: the technique stays";
    lab.apply(Command::count(999));
    (void)bytesAfterATick(lab);
    EXPECT_NE(&lab.world().broadPhase(), kept);
}

TEST(Lab, TabEitherWaySkipsATechniqueOverItsLimit) {
    const auto all = ro::techniques();
    const ro::TechniqueInfo& limited = all.front();  // brute force
    ASSERT_NE(limited.maxEntities, 0u);
    Lab lab(*ro::findTechnique("grid"), limited.maxEntities + 1, 1, {});
    for (int direction : {+1, -1}) {
        for (std::size_t k = 0; k < 2 * all.size(); ++k) {
            lab.apply(Command::stepTechnique(direction));
            EXPECT_NE(lab.session().technique().id, limited.id) << "direction " << direction << ", press " << k;
        }
    }
    // Under the limit both directions reach it.
    lab.apply(Command::count(100));
    bool reached = false;
    for (std::size_t k = 0; k < all.size(); ++k) {
        lab.apply(Command::stepTechnique(-1));
        reached |= lab.session().technique().id == limited.id;
    }
    EXPECT_TRUE(reached);
}

TEST(Lab, ACountFarBeyondTheSizesFitsTheSizesAndSaysSo) {
    Lab lab(*ro::findTechnique("grid"), 100, 1, {});
    const float bigHalf = lab.session().sizeRange().maxHalf;
    lab.apply(Command::count(200'000));
    EXPECT_EQ(lab.world().size(), 200'000u);
    EXPECT_LT(lab.session().sizeRange().maxHalf, bigHalf / 10.0f);
    EXPECT_FALSE(lab.notice().empty());
    EXPECT_EQ(lab.noticesGiven(), 1u) << "the window shows a notice when this count grows";
    // A count the sizes suit keeps them.
    const ro::SizeRange kept = lab.session().sizeRange();
    lab.apply(Command::count(150'000));
    EXPECT_EQ(lab.session().sizeRange().maxHalf, kept.maxHalf);
    EXPECT_TRUE(lab.notice().empty());
    EXPECT_EQ(lab.noticesGiven(), 1u);
    // Sizes that would cover the world once over are fitted too (100,000's at 1,000,000 made
    // 2.4 million overlaps and 1 s ticks), and so are specks that would cover under 1% of it.
    Lab crowded(*ro::findTechnique("grid"), 100'000, 1, {});
    const float crowdedHalf = crowded.session().sizeRange().maxHalf;
    crowded.apply(Command::count(1'000'000));
    EXPECT_LT(crowded.session().sizeRange().maxHalf, crowdedHalf);
    EXPECT_NE(crowded.notice().find("cover the world"), std::string::npos) << crowded.notice();
    const float speckHalf = crowded.session().sizeRange().maxHalf;
    crowded.apply(Command::count(2'000));
    EXPECT_EQ(crowded.world().size(), 2'000u);
    EXPECT_GT(crowded.session().sizeRange().maxHalf, 5.0f * speckHalf);
    EXPECT_NE(crowded.notice().find("% of the world"), std::string::npos) << crowded.notice();
}

TEST(Lab, ACellSetByHandThatTheBoxesOutgrewIsRefitAndSaysSo) {
    const auto cell = [](const Lab& lab) { return *lab.world().broadPhaseSettings().find(ro::kCellSizeParameter.key); };
    // The trap: a cell of 30 set at 122 entities, then 200,000 (sizes fitted to about 2).
    Lab lab(*ro::findTechnique("grid"), 122, 1, {});
    lab.apply(Command::parameter(ro::kCellSizeParameter, 30.0));
    EXPECT_FALSE(lab.session().autoCellSize());
    lab.apply(Command::count(200'000));
    EXPECT_TRUE(lab.session().autoCellSize());
    EXPECT_LT(cell(lab), 30.0 / ro::app::LabSession::kUnfitCellRatio);
    EXPECT_NE(lab.notice().find("cell size 30 set by hand no longer fits"), std::string::npos) << lab.notice();

    // A cell that still fits is kept: twice Auto's, across a count change the sizes suit.
    lab.apply(Command::parameter(ro::kCellSizeParameter, 2.0 * cell(lab)));
    const double kept = cell(lab);
    lab.apply(Command::count(150'000));
    EXPECT_FALSE(lab.session().autoCellSize());
    EXPECT_EQ(cell(lab), kept);

    // A cell far below the boxes, carried to another technique that has one: refit on the switch.
    Lab small(*ro::findTechnique("grid"), 2'000, 1, {});
    small.apply(Command::parameter(ro::kCellSizeParameter, 0.05));
    small.apply(Command::useTechnique(*ro::findTechnique("hash")));
    EXPECT_TRUE(small.session().autoCellSize());
    EXPECT_GT(cell(small), 0.05 * ro::app::LabSession::kUnfitCellRatio);
    EXPECT_NE(small.notice().find("cell size 0.05 set by hand no longer fits"), std::string::npos) << small.notice();
}

TEST(Lab, ABucketCountSetByHandFarBelowTheCountIsRefitAndSaysSo) {
    const ro::ParameterSpec& spec = ro::SpatialHash::kTableSizeParameter;
    const auto buckets = [&](const Lab& lab) { return *lab.world().broadPhaseSettings().find(spec.key); };
    Lab lab(*ro::findTechnique("hash"), 1'000, 1, {});
    lab.apply(Command::parameter(spec, 2'000));
    // 10,000 entities in 2,000 buckets still fit (at most kUnfitBucketRatio a bucket): kept.
    lab.apply(Command::count(10'000));
    EXPECT_EQ(buckets(lab), 2'000);
    EXPECT_EQ(lab.notice().find("buckets"), std::string::npos) << lab.notice();
    // 100,000 do not: back to Auto (0), and the HUD's notice says what was set and why.
    lab.apply(Command::count(100'000));
    EXPECT_EQ(buckets(lab), 0);
    EXPECT_NE(lab.notice().find("2000 buckets set by hand no longer fit 100000 entities"), std::string::npos)
        << lab.notice();
    // Undo brings the count and the hand-set buckets back together.
    lab.apply(Command::undo());
    EXPECT_EQ(lab.world().size(), 10'000u);
    EXPECT_EQ(buckets(lab), 2'000);

    // Carried through a technique without buckets, the count grew meanwhile: refit on the way back.
    Lab carried(*ro::findTechnique("hash"), 1'000, 1, {});
    carried.apply(Command::parameter(spec, 1'500));
    carried.apply(Command::useTechnique(*ro::findTechnique("grid")));
    carried.apply(Command::count(50'000));
    EXPECT_EQ(buckets(carried), 1'500);
    carried.apply(Command::useTechnique(*ro::findTechnique("hash")));
    EXPECT_EQ(buckets(carried), 0);
    EXPECT_NE(carried.notice().find("1500 buckets set by hand"), std::string::npos) << carried.notice();
}

TEST(Lab, PublishesWhatChangedOnceAndOnlyThat) {
    Lab lab(*ro::findTechnique("grid"), 500, 1, {});
    EXPECT_TRUE(lab.takeEvents().empty()) << "a lab as built has nothing to say";
    // Each change says what it changed, and nothing else.
    lab.apply(Command::useTechnique(*ro::findTechnique("sap")));
    ro::app::LabEvents e = lab.takeEvents();
    EXPECT_TRUE(e.technique);
    EXPECT_FALSE(e.scene || e.restored || e.count || !e.notices.empty());
    EXPECT_TRUE(lab.takeEvents().empty()) << "taken once";
    lab.apply(Command::count(800));
    e = lab.takeEvents();
    EXPECT_EQ(e.count, 800u);
    EXPECT_FALSE(e.technique || e.scene || e.restored);
    lab.apply(Command::preset(ro::findScenario("uniform")));
    e = lab.takeEvents();
    EXPECT_TRUE(e.scene);
    EXPECT_FALSE(e.technique || e.restored);
    // A setting that changes neither (the same technique again, the world paused) says nothing.
    lab.apply(Command::useTechnique(*ro::findTechnique("sap")));
    lab.apply(Command::pause(true));
    EXPECT_TRUE(lab.takeEvents().empty());
    // A count that refits a hand-set cell: the count and the notice, in one frame's events.
    lab.apply(Command::preset(nullptr));
    lab.apply(Command::useTechnique(*ro::findTechnique("grid")));
    lab.apply(Command::parameter(ro::kCellSizeParameter, 30.0));
    lab.takeEvents();
    lab.apply(Command::count(200'000));
    e = lab.takeEvents();
    EXPECT_EQ(e.count, 200'000u);
    ASSERT_EQ(e.notices.size(), 1u);
    EXPECT_NE(e.notices[0].find("cell size 30 set by hand no longer fits"), std::string::npos) << e.notices[0];
    // A scene file brings its camera: restored, and no scene or count for the camera to follow.
    Lab other(*ro::findTechnique("hshg"), 300, 2, {}, std::nullopt, ro::findScenario("clustered"));
    lab.restore(other.capture());
    e = lab.takeEvents();
    EXPECT_TRUE(e.restored);
    EXPECT_TRUE(e.technique);
    EXPECT_FALSE(e.scene || e.count);
    // A tick that changes nothing the window follows says nothing.
    lab.apply(Command::pause(false));
    lab.update(1.0 / 60.0, true);
    EXPECT_TRUE(lab.takeEvents().empty());
}

TEST(Lab, PredictsATicksWorkFromASimpleModel) {
    Lab brute(*ro::findTechnique("brute"), 1'000, 1, {});
    // Brute force: n(n-1)/2 pair tests at the count asked for, at kOperationsPerSecond.
    EXPECT_DOUBLE_EQ(brute.predictedTickSeconds(Command::count(20'000)),
                     20'000.0 * 19'999.0 / 2.0 / Lab::kOperationsPerSecond);
    EXPECT_EQ(brute.predictedTickSeconds(Command::parameter(ro::kCellSizeParameter, 0.05)), 0.0) << "brute has no cell";
    // A technique with cells: the work grows as the cell shrinks under the same boxes.
    Lab grid(*ro::findTechnique("grid"), 20'000, 1, {});
    const double side = grid.session().sizeRange().minHalf + grid.session().sizeRange().maxHalf;
    const double fine = grid.predictedTickSeconds(Command::parameter(ro::kCellSizeParameter, side / 100.0));
    const double fitted = grid.predictedTickSeconds(Command::parameter(ro::kCellSizeParameter, side));
    EXPECT_GT(fine, fitted * 1000.0) << "a cell 100 x smaller: each box covers about 10,000 cells, not 4";
    EXPECT_EQ(grid.predictedTickSeconds(Command::useTechnique(*ro::findTechnique("sap"))), 0.0) << "not predicted";
}

TEST(Lab, AChangePredictedToTakeSecondsATickIsHeldUntilConfirmed) {
    Lab lab(*ro::findTechnique("brute"), 1'000, 1, {});
    ASSERT_TRUE(lab.startRecording());
    // 20,000 under brute force: held, nothing changed, nothing recorded, nothing to undo.
    lab.apply(Command::count(20'000));
    ASSERT_TRUE(lab.held());
    EXPECT_EQ(lab.held()->command.kind, Command::Kind::Count);
    EXPECT_GT(lab.held()->seconds, Lab::kConfirmAboveSeconds);
    EXPECT_EQ(lab.world().size(), 1'000u);
    EXPECT_EQ(lab.recordedInputs(), 0u);
    EXPECT_EQ(lab.session().undoDepth(), 0u);
    // Cancel drops it.
    lab.apply(Command::dropHeld());
    EXPECT_FALSE(lab.held());
    EXPECT_EQ(lab.world().size(), 1'000u);
    // A count predicted under the limit is applied at once.
    lab.apply(Command::count(2'000));
    EXPECT_FALSE(lab.held());
    EXPECT_EQ(lab.world().size(), 2'000u);
    // Asked again and confirmed (the panel's Apply): applied and recorded.
    lab.apply(Command::count(20'000));
    ASSERT_TRUE(lab.held());
    Command confirmed = lab.held()->command;
    confirmed.confirmed = true;
    lab.apply(confirmed);
    EXPECT_FALSE(lab.held());
    EXPECT_EQ(lab.world().size(), 20'000u);
    EXPECT_EQ(lab.recordedInputs(), 2u);
    const ro::app::Recording recording = lab.stopRecording();

    // The replay applies the recorded count without asking, and arrives where the recording ended.
    Lab replayer(*ro::findTechnique("brute"), 1'000, 1, {});
    replayer.startReplay(recording);
    EXPECT_FALSE(replayer.held());
    EXPECT_EQ(replayer.world().size(), 20'000u);
    ASSERT_TRUE(replayer.replayStatus());
    EXPECT_TRUE(replayer.replayStatus()->finished);
    EXPECT_TRUE(replayer.replayStatus()->matched);
}

TEST(Lab, ACountChangeStartsTheCompareMediansOver) {
    // The table's medians are of the last 60 ticks: after 100 -> 2,000 they must describe the
    // 2,000, not show the 100's times beside the new p95s.
    Lab lab(*ro::findTechnique("grid"), 100, 1, {});
    lab.apply(Command::compared(*ro::findTechnique("hshg"), true));
    for (int frame = 0; frame < 5; ++frame) lab.update(1.0 / 60.0, true);
    ASSERT_EQ(lab.compare().rows().size(), 1u);
    ASSERT_GT(lab.compare().rows()[0].ticks, 0u);
    lab.apply(Command::count(2'000));
    EXPECT_EQ(lab.compare().rows()[0].ticks, 0u);
    lab.update(1.0 / 60.0, true);
    EXPECT_EQ(lab.compare().rows()[0].ticks, 1u);
}

/// A clock on which every reading is a tenth of a second after the last: every update that
/// runs ticks takes 0.1 s, four times the budget, however fast the machine is.
double slowTicksClock() {
    static double now = 0.0;
    return now += 0.1;
}

TEST(Lab, ASlowTickIsFollowedByFramesWithoutTicks) {
    Lab lab(*ro::findTechnique("grid"), 100, 1, {});
    lab.setWallClock(slowTicksClock);
    lab.update(0.05, false);
    const std::uint64_t afterFirst = lab.world().tickCount();
    ASSERT_GE(afterFirst, 1u);
    ASSERT_DOUBLE_EQ(lab.lastTicksSeconds(), 0.1);
    // Frames of 20 ms, each longer than a tick's 16.7 ms, would each run a tick; for as long
    // as the slow tick took they are the UI's and run none, then ticks resume. The first
    // one's time (ImGui's delta) holds the tick too, which is not the UI's.
    constexpr double kFrame = 0.02;
    const double tickSeconds = lab.lastTicksSeconds();
    lab.update(tickSeconds + kFrame, false);
    const int uiFrames = static_cast<int>(std::lround(tickSeconds / kFrame)) - 2;
    for (int frame = 0; frame < uiFrames; ++frame) lab.update(kFrame, false);
    EXPECT_EQ(lab.world().tickCount(), afterFirst) << uiFrames + 1 << " frames of 20 ms after a tick of "
                                                  << tickSeconds << " s";
    for (int frame = 0; frame < 4 && lab.world().tickCount() == afterFirst; ++frame) lab.update(kFrame, false);
    EXPECT_GT(lab.world().tickCount(), afterFirst);
    EXPECT_LT(lab.simulationRate(), 1.0);
    // A change of technique or count starts the pace over: the slowness was the old scene's.
    lab.apply(Command::useTechnique(*ro::findTechnique("hash")));
    EXPECT_EQ(lab.simulationRate(), 1.0);
    for (int frame = 0; frame < 3; ++frame) lab.update(0.05, false);
    ASSERT_LT(lab.simulationRate(), 1.0);
    lab.apply(Command::count(200));
    EXPECT_EQ(lab.simulationRate(), 1.0);
}

/// True when the two views hold the same corners, bit for bit, in the same order.
bool sameBoxes(const ro::BoxView& a, const ro::BoxView& b) {
    if (a.count != b.count) return false;
    const std::size_t bytes = a.count * sizeof(float);
    return std::memcmp(a.minX, b.minX, bytes) == 0 && std::memcmp(a.minY, b.minY, bytes) == 0 &&
           std::memcmp(a.maxX, b.maxX, bytes) == 0 && std::memcmp(a.maxY, b.maxY, bytes) == 0;
}

TEST(Lab, ASceneOfACrowdAtOnePointIsRefusedBeforeItsFirstStep) {
    // 20,000 entities at one point are 200 million pairs: listing them took gigabytes.
    Lab crowded(*ro::findTechnique("grid"), 20'000, 1, {});
    LabState state = crowded.capture();
    for (SavedEntity& e : state.entities) e.position = e.previous = {800.0f, 500.0f};
    Lab lab(*ro::findTechnique("grid"), 10, 1, {});
    try {
        lab.restore(state);
        FAIL() << "a scene of 20,000 entities at one point was loaded";
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("pairs of entities overlap"), std::string::npos) << error.what();
    }
    EXPECT_EQ(lab.world().size(), 10u) << "the lab kept its scene";
}

TEST(Lab, ClicksThatWouldCrowdPastThePairLimitAreRefused) {
    // Each entity clicked at one point overlaps every one before it: the n-th adds n - 1 pairs.
    // Without a tick in between (a replay's inputs of one tick), the count must still hold.
    Lab lab(*ro::findTechnique("grid"), 0, 1, {});
    lab.apply(Command::sizeRange({4.0f, 4.0f}));
    std::uint32_t n = 0;
    while (static_cast<std::uint64_t>(n + 1) * n / 2 <= Lab::kMostOverlappingPairs) ++n;
    for (std::uint32_t k = 0; k < n + 5; ++k) lab.apply(Command::spawn({800.0f, 500.0f}));
    EXPECT_EQ(lab.world().size(), n);
    EXPECT_NE(lab.notice().find("not added"), std::string::npos) << lab.notice();
}

TEST(Lab, EveryPresetIsTheBenchSceneForTheSameSeedAndCount) {
    for (const ro::ScenarioInfo& s : ro::scenarios()) {
        for (const std::uint32_t count : {1u, 700u, 3000u}) {
            const Lab lab(*ro::findTechnique("grid"), count, 7, {}, std::nullopt, &s);
            const ro::Scene bench(s.kind, count, ro::Motion::Steady, 7);
            EXPECT_TRUE(sameBoxes(lab.world().boxes(), bench.boxes())) << s.name << " n=" << count;
            EXPECT_TRUE(sameBox(lab.world().config().bounds, bench.walls())) << s.name;
            EXPECT_EQ(lab.session().sceneName(), s.name);
        }
    }
}

TEST(Lab, OneCellsBoxesStayInTheirSquare) {
    // The world bounces them off the scene's walls, as ro_bench's scene does (with the whole
    // scene's walls, all 300 had drifted out of the square after 600 ticks).
    const ro::ScenarioInfo* onecell = ro::findScenario("onecell");
    Lab lab(*ro::findTechnique("grid"), 300, 3, {}, std::nullopt, onecell);
    const ro::Aabb square = ro::Scene(onecell->kind, 300, ro::Motion::Steady, 3).walls();
    EXPECT_EQ(square.width(), 2.0f);
    EXPECT_EQ(square.height(), 2.0f);
    // 0.005 a tick at most: 600 ticks take every box across the square and back.
    for (int frame = 0; frame < 600; ++frame) lab.update(1.0 / 60.0, true);
    ASSERT_GE(lab.world().tickCount(), 600u);
    const ro::BoxView boxes = lab.world().boxes();
    std::uint32_t outside = 0;
    for (std::uint32_t i = 0; i < boxes.count; ++i) outside += !ro::containsBox(square, boxes.box(i));
    EXPECT_EQ(outside, 0u);
}

TEST(Lab, APresetClickReplacesTheSceneAndKeepsItAcrossCounts) {
    Lab lab(*ro::findTechnique("hshg"), 1500, 3, {});
    EXPECT_EQ(lab.session().sceneName(), "random");
    const ro::ScenarioInfo* clustered = ro::findScenario("clustered");
    lab.apply(Command::preset(clustered));
    EXPECT_EQ(lab.session().sceneName(), "clustered");
    EXPECT_EQ(lab.world().config().response, ro::ContactResponse::None);  // ro_bench's workload
    EXPECT_TRUE(sameBoxes(lab.world().boxes(), ro::Scene(clustered->kind, 1500, ro::Motion::Steady, 3).boxes()));
    // A new count is the same scenario's scene at that count.
    lab.apply(Command::count(8000));
    EXPECT_TRUE(sameBoxes(lab.world().boxes(), ro::Scene(clustered->kind, 8000, ro::Motion::Steady, 3).boxes()));
    // onecell's limit caps the count it is loaded with.
    lab.apply(Command::preset(ro::findScenario("onecell")));
    EXPECT_EQ(lab.world().size(), ro::findScenario("onecell")->maxCount);
    // Back to the random mix: the lab's walls and bouncing, the same count.
    lab.apply(Command::preset(nullptr));
    EXPECT_EQ(lab.session().sceneName(), "random");
    EXPECT_EQ(lab.world().size(), ro::findScenario("onecell")->maxCount);
    EXPECT_EQ(lab.world().config().bounds.maxX, ro::WorldConfig{}.bounds.maxX);
    EXPECT_EQ(lab.world().config().response, ro::WorldConfig{}.response);
}

TEST(Lab, APausedPresetSwitchShowsTheNewScenesPairs) {
    Lab lab(*ro::findTechnique("sap"), 900, 5, {});
    lab.apply(Command::togglePause());
    lab.apply(Command::preset(ro::findScenario("dense")));
    lab.refreshIfChanged();
    EXPECT_EQ(sorted(lab.world().overlapPairs()), sorted(bruteOverlaps(lab.world())));
    EXPECT_FALSE(lab.world().overlapPairs().empty());
}

/// A box at (500, 500) and a bullet that crosses it within one tick, 20 units a tick from
/// x = 490: apart before the tick and after it, so a discrete broad phase never sees them meet.
LabState tunnellingBullet(bool sweptBoxes) {
    LabState state;
    state.technique = "grid";
    state.preset = "random";
    state.world.countMissed = true;
    state.world.sweptBoxes = sweptBoxes;
    state.world.response = ro::ContactResponse::None;
    state.entities.push_back({.position = {500.0f, 500.0f}, .previous = {500.0f, 500.0f}, .acceleration = {}, .halfExtents = {1.0f, 1.0f}});
    state.entities.push_back({.position = {490.0f, 500.0f}, .previous = {470.0f, 500.0f}, .acceleration = {}, .halfExtents = {1.0f, 1.0f}});
    return state;
}

TEST(Lab, ATunnellingBulletsMissIsCountedInTheTotalAndMarkedWhereItPassed) {
    Lab lab(*ro::findTechnique("grid"), 0, 1, {});
    lab.restore(tunnellingBullet(false));
    lab.update(1.0 / 60.0, true);
    EXPECT_EQ(lab.world().lastStats().missed, 1u);
    EXPECT_EQ(lab.missedTotal(), 1u);
    ASSERT_EQ(lab.missMarks().size(), 1u);
    // The bullet first touches the box with its centre at x = 498: midway between them, x = 499.
    EXPECT_NEAR(lab.missMarks()[0].where.x, 499.0f, 1e-3f);
    EXPECT_NEAR(lab.missMarks()[0].where.y, 500.0f, 1e-3f);
    // The bullet flies on past the box: the per-tick count falls back to 0, the total stays.
    for (int frame = 0; frame < 5; ++frame) lab.update(1.0 / 60.0, true);
    EXPECT_EQ(lab.world().lastStats().missed, 0u);
    EXPECT_EQ(lab.missedTotal(), 1u);
    // The mark fades and goes; a new scene starts the total over.
    for (std::uint64_t tick = 0; tick < Lab::kMissMarkTicks; ++tick) lab.update(1.0 / 60.0, true);
    EXPECT_TRUE(lab.missMarks().empty());
    lab.restore(tunnellingBullet(false));
    EXPECT_EQ(lab.missedTotal(), 0u);
}

TEST(Lab, ATunnellingBulletIsNotMissedWithSweptBoxes) {
    Lab lab(*ro::findTechnique("grid"), 0, 1, {});
    lab.restore(tunnellingBullet(true));
    for (int frame = 0; frame < 5; ++frame) lab.update(1.0 / 60.0, true);
    EXPECT_EQ(lab.missedTotal(), 0u);
    EXPECT_TRUE(lab.missMarks().empty());
}

TEST(Lab, MissesOfTicksRunInOneUpdateAreAllCounted) {
    // A slow frame runs several ticks; the total must not keep only the last one's.
    Lab lab(*ro::findTechnique("grid"), 0, 1, {});
    LabState state = tunnellingBullet(false);
    state.world.maxCatchUpTicks = 3;
    lab.restore(state);
    lab.update(3.0 / 60.0 + 1e-6, false);
    EXPECT_EQ(lab.world().tickCount(), 3u);
    EXPECT_EQ(lab.missedTotal(), 1u);
    ASSERT_EQ(lab.missMarks().size(), 1u);
    EXPECT_EQ(lab.missMarks()[0].tick, 1u);
}

TEST(Lab, UndoRestoresTheSettingsBeforeTheLastChange) {
    Lab lab(*ro::findTechnique("grid"), 500, 3, {});
    lab.apply(Command::parameter(ro::kCellSizeParameter, 30.0));
    lab.apply(Command::parameter(ro::kCellSizeParameter, 35.0));  // one slider drag: one change
    lab.apply(Command::useTechnique(*ro::findTechnique("hash")));
    lab.apply(Command::count(800));
    ASSERT_EQ(lab.session().undoDepth(), 3u);

    lab.apply(Command::undo());
    EXPECT_EQ(lab.world().size(), 500u);
    EXPECT_EQ(lab.session().technique().id, "hash");
    lab.apply(Command::undo());
    EXPECT_EQ(lab.session().technique().id, "grid");
    EXPECT_FALSE(lab.session().autoCellSize());
    EXPECT_EQ(lab.world().broadPhaseSettings().value(ro::kCellSizeParameter), 35.0);
    lab.apply(Command::undo());
    EXPECT_TRUE(lab.session().autoCellSize());
    EXPECT_NE(lab.world().broadPhaseSettings().value(ro::kCellSizeParameter), 35.0) << "Auto's cell, fitted to the boxes";
    EXPECT_EQ(lab.session().undoDepth(), 0u);
    lab.apply(Command::undo());  // nothing left to take back
    EXPECT_EQ(lab.session().technique().id, "grid");
    EXPECT_EQ(lab.world().size(), 500u);
}

TEST(LabSession, KeepsOneUndoADraggedParameterAndAtMostItsDepth) {
    using ro::app::LabSession;
    LabSession session(*ro::findTechnique("grid"), nullptr, 1, {1.0f, 2.0f});
    session.remember({"grid", {}, true, 10}, "cell_size");
    session.remember({"grid", {}, false, 11}, "cell_size");  // the same slider, dragged on
    ASSERT_EQ(session.undoDepth(), 1u);
    session.remember({"grid", {}, false, 12}, "");
    const auto last = session.takeUndo();
    ASSERT_TRUE(last);
    EXPECT_EQ(last->count, 12u);
    // After an undo, the same parameter again is a change of its own.
    session.remember({"grid", {}, false, 13}, "cell_size");
    EXPECT_EQ(session.undoDepth(), 2u);
    for (std::uint32_t k = 0; k < 2 * LabSession::kUndoDepth; ++k) session.remember({"hash", {}, true, 100 + k}, "");
    EXPECT_EQ(session.undoDepth(), LabSession::kUndoDepth) << "the oldest go first";
    EXPECT_EQ(session.takeUndo()->count, 100u + 2 * LabSession::kUndoDepth - 1);
    session.clearUndo();
    EXPECT_FALSE(session.takeUndo());
}

TEST(Lab, AnUndoReplaysAsTheCommandsItApplied) {
    Lab lab(*ro::findTechnique("grid"), 300, 11, {});
    ASSERT_TRUE(lab.startRecording());
    lab.apply(Command::count(600));
    lab.update(1.0 / 60.0, true);
    lab.apply(Command::undo());
    lab.update(1.0 / 60.0, true);
    const ro::app::Recording recording = lab.stopRecording();
    EXPECT_EQ(recording.inputs.size(), 2u) << "the count, and the count the undo set";

    Lab replay(*ro::findTechnique("grid"), 10, 5, {});
    replay.startReplay(recording);
    for (int frame = 0; frame < 100 && !replay.replayStatus()->finished; ++frame) replay.update(1.0 / 60.0, true);
    ASSERT_TRUE(replay.replayStatus()->finished);
    EXPECT_TRUE(replay.replayStatus()->matched);
    EXPECT_EQ(replay.world().size(), 300u);
}

TEST(Lab, QueuedCommandsApplyInTheOrderTheyWereMade) {
    Lab lab(*ro::findTechnique("grid"), 100, 1, {});
    ro::app::CommandQueue queue;
    queue.push(Command::count(200));
    queue.push(Command::undo());
    EXPECT_EQ(lab.world().size(), 100u) << "nothing changes before the queue is applied";
    for (Command& command : queue.take()) lab.apply(std::move(command));
    EXPECT_EQ(lab.world().size(), 100u) << "the count, then its undo (the other way round: 200)";
    EXPECT_TRUE(queue.empty());
}


TEST(WindowRequests, AreTakenInTheOrderTheyWereMadeAndOnesMadeMeanwhileWait) {
    using ro::app::WindowRequest;
    ro::app::WindowRequests requests;
    requests.push(WindowRequest::screenshot());
    requests.push(WindowRequest::startScaling());
    requests.push(WindowRequest::saveImage("ro_scaling.png", {364.0f, 319.0f, 616.0f, 480.0f}));
    std::vector<WindowRequest::Kind> kinds;
    for (const WindowRequest& request : requests.take()) {
        kinds.push_back(request.kind);
        // Carrying one out may ask for more (a sweep that cannot start says why): the next frame's.
        if (request.kind == WindowRequest::Kind::StartScaling) requests.push(WindowRequest::say("still stopping"));
    }
    EXPECT_EQ(kinds, (std::vector{WindowRequest::Kind::Screenshot, WindowRequest::Kind::StartScaling,
                                  WindowRequest::Kind::SaveImage}));
    const std::vector<WindowRequest> next = requests.take();
    ASSERT_EQ(next.size(), 1u);
    EXPECT_EQ(next[0].kind, WindowRequest::Kind::Say);
    EXPECT_EQ(next[0].text, "still stopping");
    EXPECT_TRUE(requests.empty());
}

}  // namespace

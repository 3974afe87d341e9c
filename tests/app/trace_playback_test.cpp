// A trace played in the lab: every frame's overlapping pairs, found by the world's technique,
// are the same set as brute force finds on the trace's own boxes, under more than one
// technique, forward, looping and scrubbed back; a trace the lab cannot play is refused with
// its message and leaves the running scene as it was.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <unistd.h>

#include "app/compare_verdict.h"
#include "app/lab.h"
#include "ro/registry.h"
#include "ro/rng.h"
#include "ro/trace.h"

namespace {

using ro::app::Command;
using ro::app::Lab;
using IdPair = std::pair<std::uint32_t, std::uint32_t>;

/// The process id in the name: suites of other checkouts may run at the same time.
std::string tempPath(const std::string& name) {
    const std::string file = "ro_trace_playback_" + std::to_string(::getpid()) + "_" + name;
    return (std::filesystem::temp_directory_path() / file).string();
}

/// One frame's boxes, held by the test.
struct Frame {
    std::vector<float> minX, minY, maxX, maxY;
    std::vector<std::uint32_t> ids;
    std::vector<std::uint8_t> isStatic;
    [[nodiscard]] ro::BoxView view() const {
        return {minX.data(), minY.data(), maxX.data(), maxY.data(), ids.data(), static_cast<std::uint32_t>(ids.size()),
                isStatic.data()};
    }
};

/// Frames of bodies on a grid of quarter units (their corners are exact in float, and so are
/// the world's centre -+ half): some static, a few created and destroyed every frame, one that
/// changes size, some exactly touching (closed intervals count).
std::vector<Frame> makeFrames(std::uint32_t frames) {
    ro::Rng rng(7);
    struct Body {
        std::uint32_t id;
        float x, y, w, h;
        bool isStatic;
    };
    std::vector<Body> bodies;
    std::uint32_t nextId = 1000;
    const auto quarter = [&](float lo, float hi) { return std::round(rng.range(lo, hi) * 4.0f) / 4.0f; };
    const auto spawn = [&] {
        bodies.push_back({nextId, quarter(0, 60), quarter(0, 60), quarter(0.5f, 4), quarter(0.5f, 4), rng.range(0, 1) < 0.2f});
        nextId += 7;  // ids need not be dense
    };
    for (int i = 0; i < 80; ++i) spawn();
    std::vector<Frame> out;
    for (std::uint32_t f = 0; f < frames; ++f) {
        Frame frame;
        for (const Body& b : bodies) {
            frame.ids.push_back(b.id);
            frame.minX.push_back(b.x);
            frame.minY.push_back(b.y);
            frame.maxX.push_back(b.x + b.w);
            frame.maxY.push_back(b.y + b.h);
            frame.isStatic.push_back(b.isStatic ? 1 : 0);
        }
        out.push_back(std::move(frame));
        for (Body& b : bodies)
            if (!b.isStatic) {
                b.x = std::clamp(b.x + quarter(-1, 1), 0.0f, 60.0f);
                b.y = std::clamp(b.y + quarter(-1, 1), 0.0f, 60.0f);
            }
        bodies.front().w = bodies.front().w == 1.0f ? 2.0f : 1.0f;  // a body that changes size
        for (int k = 0; k < 3; ++k) bodies.erase(bodies.begin() + static_cast<std::ptrdiff_t>(rng.below(static_cast<std::uint32_t>(bodies.size()))));
        for (int k = 0; k < 3; ++k) spawn();
    }
    return out;
}

std::string writeTrace(const std::string& name, const std::vector<Frame>& frames) {
    const std::string path = tempPath(name);
    ro::TraceWriter writer(path);
    for (const Frame& frame : frames) writer.frame(frame.view());
    writer.close();
    return path;
}

/// The frame's overlapping pairs by trace id, by brute force on the trace's own boxes.
std::vector<IdPair> bruteIdPairs(const Frame& f) {
    std::vector<IdPair> out;
    for (std::size_t a = 0; a < f.ids.size(); ++a)
        for (std::size_t b = a + 1; b < f.ids.size(); ++b)
            if (!(f.isStatic[a] && f.isStatic[b]) && f.minX[a] <= f.maxX[b] && f.minX[b] <= f.maxX[a] &&
                f.minY[a] <= f.maxY[b] && f.minY[b] <= f.maxY[a])
                out.emplace_back(std::min(f.ids[a], f.ids[b]), std::max(f.ids[a], f.ids[b]));
    std::sort(out.begin(), out.end());
    return out;
}

/// The world's overlapping pairs (found by its technique) by trace id.
std::vector<IdPair> labIdPairs(const Lab& lab) {
    std::unordered_map<ro::EntityId, std::uint32_t> traceIdOf;
    for (const auto& body : lab.session().trace()->bodies()) traceIdOf[body.entity] = body.traceId;
    const auto ids = lab.world().ids();
    std::vector<IdPair> out;
    for (const ro::Pair& p : lab.world().overlapPairs()) {
        const std::uint32_t a = traceIdOf.at(ids[p.a]), b = traceIdOf.at(ids[p.b]);
        out.emplace_back(std::min(a, b), std::max(a, b));
    }
    std::sort(out.begin(), out.end());
    return out;
}

TEST(TracePlayback, EveryFramesPairsAreBruteForcesUnderTwoTechniques) {
    const std::vector<Frame> frames = makeFrames(24);
    const std::string path = writeTrace("pairs.trace", frames);
    for (const char* id : {"grid", "sap"}) {
        SCOPED_TRACE(id);
        Lab lab(*ro::findTechnique(id), 100, 1);
        lab.loadTrace(path);
        ASSERT_NE(lab.session().trace(), nullptr);
        EXPECT_EQ(lab.session().trace()->frames(), frames.size());
        EXPECT_EQ(lab.session().sceneName(), "trace");
        std::uint64_t pairsSeen = 0;
        // Played to its end and once round the loop: frame k after k ticks.
        for (std::size_t k = 0; k < frames.size() + 3; ++k) {
            if (k > 0) lab.update(1.0 / 60.0, true);
            const std::size_t f = k % frames.size();
            ASSERT_EQ(lab.session().trace()->frame(), f);
            ASSERT_EQ(lab.world().size(), frames[f].ids.size());
            EXPECT_EQ(lab.world().staticCount(),
                      static_cast<std::uint32_t>(std::count(frames[f].isStatic.begin(), frames[f].isStatic.end(), 1)));
            const std::vector<IdPair> expected = bruteIdPairs(frames[f]);
            EXPECT_EQ(labIdPairs(lab), expected) << "frame " << f;
            pairsSeen += expected.size();
        }
        EXPECT_GT(pairsSeen, 0u);  // the comparison had something to compare
        // Scrubbed back: the file is read again from its start.
        lab.apply(Command::traceSeek(5));
        lab.refreshIfChanged();
        EXPECT_EQ(lab.session().trace()->frame(), 5u);
        EXPECT_EQ(labIdPairs(lab), bruteIdPairs(frames[5]));
    }
    std::filesystem::remove(path);
}

TEST(TracePlayback, ABodyKeepsItsEntityWhileItLives) {
    const std::vector<Frame> frames = makeFrames(3);
    const std::string path = writeTrace("ids.trace", frames);
    Lab lab(*ro::findTechnique("grid"), 0, 1);
    lab.loadTrace(path);
    std::unordered_map<std::uint32_t, ro::EntityId> first;
    for (const auto& body : lab.session().trace()->bodies()) first[body.traceId] = body.entity;
    lab.update(1.0 / 60.0, true);
    std::size_t kept = 0;
    for (const auto& body : lab.session().trace()->bodies()) {
        const auto was = first.find(body.traceId);
        // The first body changes size every frame (a box that turns): it keeps its entity too.
        if (was == first.end()) continue;
        EXPECT_EQ(body.entity, was->second) << "trace id " << body.traceId;
        ++kept;
    }
    EXPECT_GT(kept, 70u);
    std::filesystem::remove(path);
}

TEST(TracePlayback, WithoutLoopItStopsPausedOnTheLastFrame) {
    const std::vector<Frame> frames = makeFrames(4);
    const std::string path = writeTrace("end.trace", frames);
    Lab lab(*ro::findTechnique("grid"), 0, 1);
    lab.loadTrace(path);
    lab.apply(Command::traceLoop(false));
    for (int k = 0; k < 10; ++k) lab.update(1.0 / 60.0, true);
    EXPECT_TRUE(lab.paused());
    EXPECT_EQ(lab.session().trace()->frame(), 3u);
    lab.apply(Command::togglePause());  // played again: from the start
    EXPECT_EQ(lab.session().trace()->frame(), 0u);
    std::filesystem::remove(path);
}

TEST(TracePlayback, SpeedPlaysFramesPerTick) {
    const std::vector<Frame> frames = makeFrames(12);
    const std::string path = writeTrace("speed.trace", frames);
    Lab lab(*ro::findTechnique("grid"), 0, 1);
    lab.loadTrace(path);
    lab.apply(Command::traceSpeed(0.25f));
    for (int k = 0; k < 8; ++k) lab.update(1.0 / 60.0, true);
    EXPECT_EQ(lab.session().trace()->frame(), 2u);
    lab.apply(Command::traceSpeed(4.0f));
    lab.update(1.0 / 60.0, true);
    EXPECT_EQ(lab.session().trace()->frame(), 6u);
    EXPECT_EQ(labIdPairs(lab), bruteIdPairs(frames[6]));
    std::filesystem::remove(path);
}

TEST(TracePlayback, CompareVerdictRanksTheComparedTechniquesAndPicksOne) {
    const std::vector<Frame> frames = makeFrames(10);
    const std::string path = writeTrace("verdict.trace", frames);
    Lab lab(*ro::findTechnique("grid"), 0, 1);
    lab.loadTrace(path);
    for (const char* id : {"grid", "sap", "hshg"}) lab.apply(Command::compared(*ro::findTechnique(id), true));
    for (int k = 0; k < 9; ++k) lab.update(1.0 / 60.0, true);
    for (const auto& row : lab.compare().rows()) EXPECT_EQ(row.mismatchTicks, 0u) << row.technique->id;
    const ro::app::CompareVerdict verdict = ro::app::compareVerdict(lab.compare(), lab.comparedSceneProfile());
    ASSERT_EQ(verdict.ranking.size(), 3u);
    std::vector<std::string> names;
    for (const ro::Ranked& r : verdict.ranking) names.push_back(r.name);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"grid", "hshg", "sap"}));
    ASSERT_NE(verdict.winner, nullptr);
    EXPECT_EQ(verdict.winner->id, verdict.ranking.front().name);
    EXPECT_NE(verdict.sentence.find("For this scene pick " + verdict.ranking.front().name), std::string::npos)
        << verdict.sentence;
    EXPECT_NE(verdict.scene.find("static"), std::string::npos) << verdict.scene;
    std::filesystem::remove(path);
}

TEST(TracePlayback, ATechniqueWithALimitBelowTheTraceGivesWayToTheGrid) {
    const ro::TechniqueInfo& brute = *ro::findTechnique("brute");
    ASSERT_GT(brute.maxEntities, 0u);
    Frame frame;
    for (std::uint32_t i = 0; i <= brute.maxEntities; ++i) {
        const auto x = static_cast<float>(i % 200), y = static_cast<float>(i / 200);
        frame.ids.push_back(i);
        frame.minX.push_back(x);
        frame.minY.push_back(y);
        frame.maxX.push_back(x + 0.5f);
        frame.maxY.push_back(y + 0.5f);
        frame.isStatic.push_back(0);
    }
    const std::string path = writeTrace("many.trace", {frame});
    Lab lab(brute, 100, 1);
    const std::uint64_t noticesBefore = lab.noticesGiven();
    lab.loadTrace(path);
    EXPECT_EQ(lab.session().technique().id, "grid");
    EXPECT_GT(lab.noticesGiven(), noticesBefore);
    EXPECT_NE(lab.notice().find("too many for brute"), std::string::npos) << lab.notice();
    EXPECT_EQ(lab.world().size(), brute.maxEntities + 1);
    std::filesystem::remove(path);
}

void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

/// Each bad trace throws its message naming the file (and `detail`), and the lab keeps its scene.
void expectRefused(const std::string& path, const std::string& detail) {
    SCOPED_TRACE(path);
    Lab lab(*ro::findTechnique("grid"), 300, 3);
    const std::uint64_t before = lab.stateHash();
    const std::string sceneBefore(lab.session().sceneName());
    try {
        lab.loadTrace(path);
        ADD_FAILURE() << "loaded a bad trace";
    } catch (const ro::TraceError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(path), std::string::npos) << message;
        EXPECT_NE(message.find(detail), std::string::npos) << message;
    }
    EXPECT_EQ(lab.session().trace(), nullptr);
    EXPECT_EQ(lab.stateHash(), before);
    EXPECT_EQ(lab.session().sceneName(), sceneBefore);
    EXPECT_EQ(lab.world().size(), 300u);
}

TEST(TracePlayback, HostileTracesAreRefusedAndTheSceneStays) {
    const std::string header = "frame,id,min_x,min_y,max_x,max_y,static\n";
    const std::string nan = tempPath("nan.csv"), inverted = tempPath("inverted.csv"), twice = tempPath("twice.csv"),
                      tiny = tempPath("tiny.csv"), empty = tempPath("empty.csv"), magic = tempPath("magic.trace"),
                      truncated = tempPath("truncated.trace"), many = tempPath("many.trace"),
                      missing = tempPath("missing.trace");
    writeText(nan, header + "0,1,0,0,1,1,0\n1,1,nan,0,1,1,0\n");
    writeText(inverted, header + "0,1,5,0,2,1,0\n");
    writeText(twice, header + "0,1,0,0,1,1,0\n0,1,2,2,3,3,0\n");
    writeText(tiny, header + "0,1,0,0,1,1,0\n2,9,4,4,4,5,0\n");  // a box with no width: the world holds none
    writeText(empty, header);
    writeText(magic, "not a trace at all, just text\n");
    {
        const std::string whole = writeTrace("whole.trace", makeFrames(3));
        const auto size = std::filesystem::file_size(whole);
        std::filesystem::copy_file(whole, truncated, std::filesystem::copy_options::overwrite_existing);
        std::filesystem::resize_file(truncated, size - 30);
        std::filesystem::remove(whole);
    }
    {
        // A header, then a frame that claims more boxes than a frame may hold.
        std::string bytes("\x89ROTRACE", 8);
        const auto u32 = [&](std::uint32_t v) {
            for (int k = 0; k < 4; ++k) bytes.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
        };
        u32(ro::kTraceVersion);
        u32(0);
        u32(ro::kTraceMaxBoxesPerFrame + 1);
        writeText(many, bytes);
    }
    expectRefused(nan, "frame 1");
    expectRefused(inverted, "frame 0");
    expectRefused(twice, "frame 0");
    expectRefused(tiny, "id 9");
    expectRefused(empty, "no boxes");
    expectRefused(magic, "");
    expectRefused(truncated, "");
    expectRefused(many, "");
    expectRefused(missing, "");
    for (const std::string& p : {nan, inverted, twice, tiny, empty, magic, truncated, many}) std::filesystem::remove(p);
}

}  // namespace

// ro_record's scenes: each one records the frames asked for and reads back; the binary and
// CSV encodings of a recording hold the same frames (recording is deterministic); statics are
// flagged where the engine's body is static and only there; rain has churn. No time is
// compared with anything.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "record/record.h"
#include "ro/trace.h"

namespace {

using ro::record::SceneInfo;

/// One frame as read: (id, corners, static) per box, sorted by id.
struct Box {
    std::uint32_t id;
    float minX, minY, maxX, maxY;
    bool isStatic;
    auto operator<=>(const Box&) const = default;
};
using Frame = std::vector<Box>;

std::vector<Frame> readAll(const std::string& path) {
    ro::TraceReader reader(path);
    std::vector<Frame> frames;
    while (reader.next()) {
        const ro::BoxView& v = reader.frame();
        Frame frame;
        for (std::uint32_t i = 0; i < v.count; ++i)
            frame.push_back({v.ids[i], v.minX[i], v.minY[i], v.maxX[i], v.maxY[i], v.isStatic && v.isStatic[i] != 0});
        std::sort(frame.begin(), frame.end());
        frames.push_back(std::move(frame));
    }
    return frames;
}

std::string workPath(const std::string& name) {
    // A directory per test: ctest runs the cases in parallel, and record() looks for a
    // recording's .partial files in its directory, where another case's would be in progress.
    // The process id too: suites of other checkouts may run at the same time.
    const auto dir = std::filesystem::temp_directory_path() / ("ro_record_tests_" + std::to_string(::getpid())) /
                     ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

std::vector<Frame> record(const SceneInfo& scene, int frames, double scale, const std::string& extension = ".trace") {
    const std::string path = workPath(std::string(scene.engine) + "_" + std::string(scene.name) + extension);
    ro::record::RecordOptions options;
    options.frames = frames;
    options.scale = scale;
    ro::record::recordToFile(scene, options, path);
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
        EXPECT_EQ(entry.path().string().find(".partial"), std::string::npos) << entry.path();
    return readAll(path);
}

std::size_t staticCount(const Frame& frame) {
    return static_cast<std::size_t>(std::count_if(frame.begin(), frame.end(), [](const Box& b) { return b.isStatic; }));
}

const SceneInfo& scene(std::string_view engine, std::string_view name) {
    const SceneInfo* s = ro::record::findScene(engine, name);
    if (!s) throw std::runtime_error("no scene " + std::string(engine) + " " + std::string(name));
    return *s;
}

TEST(Record, EveryEngineFoundIsBuiltIn) {
    // The tests are built only with all three packages (tests/record/CMakeLists.txt).
    const std::vector<std::string_view> engines = ro::record::enginesBuilt();
    EXPECT_EQ(engines, (std::vector<std::string_view>{"box2d", "bullet", "chipmunk"}));
    EXPECT_TRUE(ro::record::missingEnginePackages().empty());
    EXPECT_EQ(ro::record::findScene("box2d", "nosuch"), nullptr);
    EXPECT_EQ(ro::record::findScene("bullet", "tumbler"), nullptr);
}

TEST(Record, EverySceneRecordsItsFramesAndReadsBack) {
    for (const SceneInfo& s : ro::record::scenes()) {
        SCOPED_TRACE(std::string(s.engine) + " " + std::string(s.name));
        const std::vector<Frame> frames = record(s, 3, 0.02);
        ASSERT_EQ(frames.size(), 3u);
        for (const Frame& frame : frames) {
            EXPECT_GT(frame.size(), staticCount(frame)) << "no moving body";
            for (const Box& b : frame) {
                EXPECT_LE(b.minX, b.maxX);
                EXPECT_LE(b.minY, b.maxY);
            }
        }
    }
}

TEST(Record, BinaryAndCsvHoldTheSameFrames) {
    // Two recordings of one scene, one per encoding: a deterministic scene, and an encoding
    // that gives back every box as written.
    for (const SceneInfo* s : {&scene("box2d", "rain"), &scene("bullet", "rain"), &scene("chipmunk", "rain")}) {
        SCOPED_TRACE(std::string(s->engine));
        const std::vector<Frame> binary = record(*s, 5, 0.1, ".trace");
        const std::vector<Frame> csv = record(*s, 5, 0.1, ".csv");
        ASSERT_EQ(binary.size(), 5u);
        EXPECT_EQ(binary, csv);
    }
}

TEST(Record, RainHasChurn) {
    for (const SceneInfo* s : {&scene("box2d", "rain"), &scene("bullet", "rain"), &scene("chipmunk", "rain")}) {
        SCOPED_TRACE(std::string(s->engine));
        const std::vector<Frame> frames = record(*s, 20, 0.5);
        ASSERT_EQ(frames.size(), 20u);
        std::size_t born = 0, gone = 0;
        for (std::size_t f = 1; f < frames.size(); ++f) {
            std::set<std::uint32_t> before, after;
            for (const Box& b : frames[f - 1]) before.insert(b.id);
            for (const Box& b : frames[f]) after.insert(b.id);
            for (const std::uint32_t id : after) born += before.count(id) == 0 ? 1 : 0;
            for (const std::uint32_t id : before) gone += after.count(id) == 0 ? 1 : 0;
        }
        EXPECT_GT(born, 0u) << "no body created during the frames";
        EXPECT_GT(gone, 0u) << "no body destroyed during the frames";
    }
}

TEST(Record, StaticsAreFlaggedAndOnlyStatics) {
    // The pegs, the floors, the ledges: static in every frame, and nothing else is.
    const std::vector<Frame> rain = record(scene("box2d", "rain"), 2, 0.1);
    for (const Frame& f : rain) EXPECT_EQ(staticCount(f), 200u);
    for (const std::string_view engine : {"bullet", "chipmunk"}) {
        for (const Frame& f : record(scene(engine, "pyramid"), 2, 0.1)) EXPECT_EQ(staticCount(f), 1u) << engine;
        for (const Frame& f : record(scene(engine, "rain"), 2, 0.1)) EXPECT_EQ(staticCount(f), 12u) << engine;
    }
    // The tumbler's drum is kinematic: it moves, so it is not static.
    for (const Frame& f : record(scene("box2d", "tumbler"), 2, 0.05)) EXPECT_EQ(staticCount(f), 0u);
    // The spinner's container is one static body of 72 fixtures, each its own box.
    for (const Frame& f : record(scene("box2d", "spinner"), 2, 0.02)) EXPECT_EQ(staticCount(f), 72u);
}

TEST(Record, PyramidsAreSettled) {
    // Recorded after their warm-up: every box of the pyramid, floor apart, moves less than a
    // tenth of its side (1) a step. (In Box2D 2.4 a tall pyramid still creeps: they do not all
    // sleep.)
    const std::vector<Frame> frames = record(scene("box2d", "large_pyramid"), 3, 0.05);
    ASSERT_EQ(frames.size(), 3u);
    ASSERT_EQ(frames[1].size(), frames[2].size());
    for (std::size_t i = 0; i < frames[1].size(); ++i) {
        const Box& a = frames[1][i];
        const Box& b = frames[2][i];
        ASSERT_EQ(a.id, b.id);
        EXPECT_LT(std::max({std::abs(a.minX - b.minX), std::abs(a.minY - b.minY), std::abs(a.maxX - b.maxX),
                            std::abs(a.maxY - b.maxY)}),
                  0.1f)
            << "box " << a.id;
    }
}

}  // namespace

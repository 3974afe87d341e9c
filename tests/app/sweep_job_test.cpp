// The Plots window's sweeps on the person's own scene, through SweepJob without a window: with
// a trace loaded, a scaling sweep measures whole copies of its largest frame under the trace's
// name, and a parameter sweep one copy; with a scene file loaded, the same on a snapshot of it;
// a preset's scene is swept as before. No figure of time is compared.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "app/lab.h"
#include "app/scene_file.h"
#include "app/sweeps.h"
#include "ro/registry.h"
#include "ro/rng.h"
#include "ro/trace.h"
#include "scenario/scenario.h"

namespace {

using ro::app::Command;
using ro::app::Lab;
using ro::app::LabSession;
using ro::app::SweepJob;

std::string tempPath(const std::string& name) {
    // A directory by process id: suites of other checkouts may run at the same time, and a
    // trace's file name is the name its sweep is shown under.
    const auto dir = std::filesystem::temp_directory_path() / ("ro_sweep_job_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return (dir / ("ro_sweep_job_" + name)).string();
}

/// `frames` frames of drifting boxes, the largest holding `most` of them (the first frames fewer).
std::string writeTrace(const std::string& name, std::uint32_t most, int frames) {
    const std::string path = tempPath(name);
    ro::TraceWriter writer(path);
    ro::Rng rng(5);
    std::vector<float> x0(most), y0(most), x1(most), y1(most);
    std::vector<std::uint32_t> ids(most);
    for (std::uint32_t i = 0; i < most; ++i) {
        ids[i] = 10 + 2 * i;
        x0[i] = rng.range(0.0f, 40.0f), y0[i] = rng.range(0.0f, 40.0f);
        x1[i] = x0[i] + rng.range(0.5f, 3.0f), y1[i] = y0[i] + rng.range(0.5f, 3.0f);
    }
    for (int f = 0; f < frames; ++f) {
        const std::uint32_t count = f < 2 ? most - 5 : most;
        for (std::uint32_t i = 0; i < most; ++i) x0[i] += 0.25f, x1[i] += 0.25f;
        writer.frame({x0.data(), y0.data(), x1.data(), y1.data(), ids.data(), count});
    }
    writer.close();
    return path;
}

/// Polls as the window does, once a frame, until the worker has stopped.
void runToEnd(SweepJob& job) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
    while (job.poll()) {
        if (std::chrono::steady_clock::now() > deadline) {
            job.cancel();
            FAIL() << "the sweep did not end";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

TEST(SweepJob, AScalingSweepOfATraceMeasuresWholeCopiesUnderItsName) {
    const std::string path = writeTrace("tumbler.trace", 50, 8);
    Lab lab(*ro::findTechnique("grid"), 300, 1);
    lab.loadTrace(path);
    const SweepJob::Source source = SweepJob::sourceOf(lab);
    EXPECT_EQ(source.kind, SweepJob::Source::Kind::Trace);
    EXPECT_EQ(source.name, "ro_sweep_job_tumbler");
    EXPECT_EQ(source.perCopy, 50u);

    SweepJob job;
    ASSERT_TRUE(job.startScaling(lab, 2000));
    runToEnd(job);
    EXPECT_TRUE(job.error().empty()) << job.error();
    ASSERT_EQ(job.points().size(), job.planned());
    ASSERT_GE(job.points().size(), 5u);
    EXPECT_EQ(job.points().front().n, 50u) << "the first point is one copy";
    std::uint32_t last = 0;
    for (const ro::SweepPoint& p : job.points()) {
        EXPECT_EQ(p.n % 50, 0u) << p.n;
        EXPECT_GT(p.n, last) << "a count twice";
        EXPECT_LE(p.n, 2000u);
        EXPECT_EQ(p.scenario, "ro_sweep_job_tumbler");
        EXPECT_EQ(p.value, static_cast<double>(p.n));
        last = p.n;
    }
    EXPECT_EQ(last, 2000u);

    // The parameter sweep runs on the trace as recorded: one copy.
    ASSERT_TRUE(job.startParameter(lab, ro::kCellSizeParameter, 4));
    runToEnd(job);
    ASSERT_EQ(job.points().size(), job.planned());
    for (const ro::SweepPoint& p : job.points()) {
        EXPECT_EQ(p.n, 50u);
        EXPECT_EQ(p.scenario, "ro_sweep_job_tumbler");
    }
    ASSERT_TRUE(job.autoValue().has_value());
    EXPECT_EQ(*job.autoValue(), static_cast<double>(lab.session().trace()->tiling().cellSize));
}

TEST(SweepJob, AScalingSweepOfALoadedSceneMeasuresCopiesOfItsSnapshot) {
    const std::string path = tempPath("scene.json");
    {
        std::ofstream file(path);
        file << R"({"entities": [
            {"x": 100, "y": 100, "w": 20, "h": 20},
            {"x": 115, "y": 100, "w": 20, "h": 20, "vx": -30},
            {"x": 300, "y": 300, "w": 40, "h": 10, "static": true},
            {"x": 300, "y": 306, "w": 10, "h": 10, "shape": "circle", "vy": 50}]})";
    }
    Lab lab(*ro::findTechnique("grid"), 300, 1);
    ro::app::Camera camera;
    ASSERT_EQ(ro::app::loadInto(path, lab, camera), "");
    EXPECT_EQ(lab.session().sceneOrigin(), LabSession::SceneOrigin::Loaded);
    const SweepJob::Source source = SweepJob::sourceOf(lab);
    EXPECT_EQ(source.kind, SweepJob::Source::Kind::Snapshot);
    EXPECT_EQ(source.perCopy, 4u);

    SweepJob job;
    ASSERT_TRUE(job.startScaling(lab, 1000));
    runToEnd(job);
    ASSERT_EQ(job.points().size(), job.planned());
    ASSERT_GE(job.points().size(), 5u);
    EXPECT_EQ(job.points().front().n, 4u);
    for (const ro::SweepPoint& p : job.points()) {
        EXPECT_EQ(p.n % 4, 0u) << p.n;
        EXPECT_EQ(p.scenario, "loaded-scene");
    }
    EXPECT_EQ(job.points().back().n, 1000u);
}

TEST(SweepJob, APresetsSceneIsSweptAsBeforeAndClicksMakeItYours) {
    Lab lab(*ro::findTechnique("grid"), 300, 1);
    EXPECT_EQ(SweepJob::sourceOf(lab).kind, SweepJob::Source::Kind::Preset);
    EXPECT_EQ(SweepJob::sourceOf(lab).name, "uniform");
    SweepJob job;
    ASSERT_TRUE(job.startScaling(lab, 1000));
    runToEnd(job);
    ASSERT_EQ(job.points().size(), job.planned());
    EXPECT_EQ(job.points().front().n, SweepJob::kMinScalingCount);
    for (const ro::SweepPoint& p : job.points()) EXPECT_EQ(p.scenario, "uniform");

    lab.apply(Command::spawn({0.0f, 0.0f}));
    EXPECT_EQ(lab.session().sceneOrigin(), LabSession::SceneOrigin::Edited);
    EXPECT_EQ(SweepJob::sourceOf(lab).kind, SweepJob::Source::Kind::Snapshot);
    EXPECT_EQ(SweepJob::sourceOf(lab).perCopy, 301u);
    lab.apply(Command::respawn());  // a preset's control: the preset's scene again
    EXPECT_EQ(SweepJob::sourceOf(lab).kind, SweepJob::Source::Kind::Preset);
}

TEST(SweepJob, AutosCellIsOneRuleInThePanelAndTheParameterPlot) {
    // The mixed preset: a tenth of the boxes 10-40 across. Auto's cell follows the median boxes
    // (at most four of their sides), not the largest, in the panel's cell and the plot's marker.
    Lab lab(*ro::findTechnique("grid"), 2'000, 1);
    lab.apply(Command::preset(ro::findScenario("mixed")));
    lab.apply(Command::autoCellSize());
    ASSERT_TRUE(lab.session().autoCellSize());
    const double cell = *lab.world().broadPhaseSettings().find(ro::kCellSizeParameter.key);
    EXPECT_EQ(cell, static_cast<double>(ro::autoCellSize(lab.world().boxes())));
    EXPECT_LT(cell, lab.world().largestHalfExtent());

    SweepJob job;
    ASSERT_TRUE(job.startParameter(lab, ro::kCellSizeParameter, 3));
    ASSERT_TRUE(job.autoValue().has_value());
    EXPECT_NEAR(*job.autoValue(), cell, 1e-4 * cell);  // the preset's scene again: its boxes' float sides
    job.cancel();
    runToEnd(job);
}

}  // namespace

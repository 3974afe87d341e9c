#pragma once
/// The app's sweeps (scaling over n, or one parameter over its range), measured on a oneTBB
/// worker while the window goes on drawing; no SDL or ImGui here.
///
/// A point can hold its thread for seconds (the AABB tree inserts a million boxes in about
/// 14 s), so the sweep does not share the window's thread. The worker touches only what the
/// job hands it (the plan, its own scenes and techniques) and the points it hands back under
/// a lock; the window takes them each frame (poll). Cancel stops the worker after the call it
/// is in; a job dropped while its worker still runs leaves the worker its own state, so the
/// window can quit at once (see workersRunning).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app/lab.h"
#include "scenario/sweeps.h"

namespace ro::app {

class SweepJob {
public:
    enum class Kind { Scaling, Parameter };

    /// The largest count a scaling sweep offers: the panel's limit.
    static constexpr std::uint32_t kMaxScalingCount = 1'000'000;
    static constexpr std::uint32_t kMinScalingCount = 100;
    /// Entity counts of a scaling sweep: 100 up to `top`, 10 steps, log-spaced.
    static std::vector<std::uint32_t> scalingCounts(std::uint32_t top = kMaxScalingCount);

    SweepJob() = default;
    SweepJob(const SweepJob&) = delete;
    SweepJob& operator=(const SweepJob&) = delete;
    /// Cancels the sweep; a worker still inside a call finishes it on its own.
    ~SweepJob();

    /// What a sweep started now would run on: the trace playing, tiled; a snapshot of the
    /// person's own scene (Lab::sceneOrigin), tiled; or the preset's library scene (the random
    /// mix's is "uniform", its nearest).
    struct Source {
        enum class Kind { Preset, Trace, Snapshot } kind = Kind::Preset;
        /// The CSV's scenario column: the scenario's, the trace file's stem (as ro_bench names
        /// a trace), or "loaded-scene" / "edited-scene".
        std::string_view name;
        /// Boxes in one copy (the trace's largest frame, the snapshot's count); 0 for a preset.
        std::uint32_t perCopy = 0;
    };
    /// Views into the lab (and static names): for the Plots window's "next:" line each frame.
    [[nodiscard]] static Source sourceOf(const Lab& lab);

    /// A scaling sweep up to `top` entities of the lab's scene (sourceOf) for every compared
    /// technique, or the lab's own when none is compared: a preset's scene at log-spaced
    /// counts, a trace or a snapshot at whole copies of it from one. Refused (false) while a
    /// worker still runs.
    bool startScaling(const Lab& lab, std::uint32_t top = kMaxScalingCount);
    /// A sweep of one of the lab's technique's numeric parameters over the range it offers, at
    /// the lab's count (at most 20,000) of its preset's scene, or on one copy of its trace or
    /// of its own scene. Refused (false) while a worker still runs.
    bool startParameter(const Lab& lab, const ParameterSpec& spec, int steps = 12);
    /// Asks the worker to stop after the call it is in; running() stays true until it has.
    void cancel();
    /// Takes the points the worker measured since the last poll (the window calls it once a
    /// frame); false once the worker has stopped and every point is taken.
    bool poll();

    /// True from a start until the worker has stopped (done, cancelled, or failed).
    [[nodiscard]] bool running() const { return m_running; }
    [[nodiscard]] bool cancelling() const;
    [[nodiscard]] Kind kind() const { return m_kind; }
    /// Points measured (taken by poll) over points planned.
    [[nodiscard]] double progress() const {
        return m_plan.empty() ? 1.0 : static_cast<double>(m_points.size()) / static_cast<double>(m_plan.size());
    }
    [[nodiscard]] std::span<const SweepPoint> points() const { return m_points; }
    [[nodiscard]] std::size_t planned() const { return m_plan.size(); }
    /// Why the worker stopped early (out of memory, ...), empty when it did not.
    [[nodiscard]] const std::string& error() const { return m_error; }
    /// What the sweep ran on, and its name in the CSV's scenario column (the points' too).
    [[nodiscard]] Source::Kind sourceKind() const { return m_sourceKind; }
    [[nodiscard]] const std::string& sceneName() const { return m_sceneName; }
    /// Boxes in one copy of a trace or snapshot swept (0 for a preset's scene).
    [[nodiscard]] std::uint32_t perCopy() const { return m_perCopy; }
    /// The parameter swept (Parameter sweeps), and the value Auto would pick, if it has one.
    [[nodiscard]] const ParameterSpec* parameter() const { return m_parameter; }
    [[nodiscard]] std::optional<double> autoValue() const { return m_autoValue; }
    /// The technique whose parameter is swept (Parameter sweeps).
    [[nodiscard]] const TechniqueInfo* technique() const { return m_technique; }
    /// The count a parameter sweep runs at, or the largest of a scaling sweep.
    [[nodiscard]] std::uint32_t count() const { return m_count; }
    /// The measured point with the least median ms, if any.
    [[nodiscard]] const SweepPoint* best() const;
    /// Writes the points as CSV (ro_bench's sweep columns); false when the file cannot be written.
    bool writeCsv(const std::string& path) const;

    /// Workers of any job still running: the app ends its process without destroying what a
    /// worker might still touch when this is not 0.
    static int workersRunning();

    struct Planned {
        const TechniqueInfo* technique;
        Settings settings;
        bool fitCell;
        std::uint32_t n;
        std::string_view parameter;
        double value;
    };
    struct Shared;  ///< what the worker and the window share (sweeps.cpp)

private:
    void begin(Kind kind, const Lab& lab);
    void launch();

    Kind m_kind = Kind::Scaling;
    const ScenarioInfo* m_scenario = nullptr;  ///< a preset's (a trace or snapshot has none)
    Source::Kind m_sourceKind = Source::Kind::Preset;
    std::string m_sceneName;
    std::uint32_t m_perCopy = 0;
    /// A trace's or snapshot's scenes (made on the window's thread; the worker takes it over).
    SweepSceneMaker m_makeScene;
    float m_fittedCell = 1.0f;  ///< the trace's or snapshot's cell, Auto's value
    std::uint32_t m_mostCopies = 1;
    std::uint64_t m_seed = 1;
    const ParameterSpec* m_parameter = nullptr;
    const TechniqueInfo* m_technique = nullptr;
    std::uint32_t m_count = 0;
    std::optional<double> m_autoValue;
    std::vector<Planned> m_plan;
    std::vector<SweepPoint> m_points;
    std::string m_error;
    bool m_running = false;
    std::shared_ptr<Shared> m_shared;  ///< the running worker's, until it has stopped
};

}  // namespace ro::app

#pragma once
/// The lab: the world, its random population, the chosen technique and the clock controls.
/// The panel, the keys, the mouse and the plots change it only by commands (apply); it knows
/// nothing about SDL or ImGui. Its parts by concern: the session (lab_session.h: the scene in
/// use and the technique on it), the clock (lab_clock.h: pacing) and the recorder
/// (lab_recorder.h, lab_replay.cpp: record and replay); Lab ties them to the world.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/command.h"
#include "app/compare.h"
#include "app/lab_clock.h"
#include "app/lab_recorder.h"
#include "app/lab_session.h"
#include "app/lab_state.h"
#include "app/trace_playback.h"
#include "ro/registry.h"
#include "ro/rng.h"
#include "scenario/scenario.h"
#include "ro/world.h"
#include "verdict/scene_profile.h"

namespace ro::app {

/// Whether the panel and the plots offer a technique's parameter: the threads a technique may
/// use are the host's to give (the default, the hardware's, is what the lab runs), not part of
/// the structure the lab shows; the coherence layer's switch and margin are the layer's, not
/// the technique's structure (the tree's own fat margin is offered). --param KEY=VALUE still
/// sets them all.
[[nodiscard]] inline bool labOffers(const TechniqueInfo& technique, const ParameterSpec& spec) {
    if (spec.key == kThreadsParameter.key || spec.key == kCoherentParameter.key) return false;
    const bool layered = std::any_of(technique.parameters.begin(), technique.parameters.end(),
                                     [](const ParameterSpec& p) { return p.key == kCoherentParameter.key; });
    return !(layered && spec.key == "fat_margin");
}

/// What changed in the lab since the window last took it (Lab::takeEvents): what the window
/// keeps of its own follows it (the camera, the overlays' levels, the HUD's line).
struct LabEvents {
    bool technique = false;  ///< another technique: its structure's levels are others
    bool scene = false;      ///< another scene (a preset, a trace): other walls, a camera fitted to them
    bool restored = false;   ///< a scene file or a replay's start: it brings its own camera
    std::optional<std::uint32_t> count;  ///< the entity count changed, to this
    std::vector<std::string> notices;    ///< lines about automatic changes, oldest first (notice())
    [[nodiscard]] bool empty() const { return !technique && !scene && !restored && !count && notices.empty(); }
};

class Lab {
public:
    /// Builds the world with `entities` entities from `seed`, and the technique with the
    /// parameter values in `parameters` (a cell size among them turns auto off). The entities
    /// are the scenario's (its boxes, as ro_bench makes them for that seed and count) or, with
    /// none, the lab's random mix of boxes and circles; `sizes` unset means sizes that fit the count.
    Lab(const TechniqueInfo& technique, std::uint32_t entities, std::uint64_t seed, const Settings& parameters = {},
        std::optional<SizeRange> sizes = std::nullopt, const ScenarioInfo* scenario = nullptr);

    // The world calls back into the lab every tick (compare): the lab stays where it was built.
    Lab(const Lab&) = delete;
    Lab& operator=(const Lab&) = delete;

    [[nodiscard]] World& world() { return m_world; }
    [[nodiscard]] const World& world() const { return m_world; }

    /// The one way to change the lab as a person can: during a replay a person's
    /// world-changing command is ignored; while recording, a recorded kind is noted with its
    /// tick; then the command takes effect.
    void apply(Command command);

    // ---- changes that ask first ---------------------------------------------------------------
    /// Pair tests (and cell visits) a second, for the predictions: the grid's 296 M pair tests at
    /// a million entities under a cell of 30 took 3.1 s a tick (issue 45's measurement).
    static constexpr double kOperationsPerSecond = 1e8;
    /// A change predicted to make ticks longer than this is held until confirmed.
    static constexpr double kConfirmAboveSeconds = 1.0;
    /// Seconds a tick would take after `command` (0 for a command whose cost is not predicted).
    [[nodiscard]] double predictedTickSeconds(const Command& command) const;
    /// A person's change whose predicted tick takes seconds, held instead of applied: the panel
    /// asks, and pushes it again confirmed (Apply) or DropHeld (Cancel).
    struct Held {
        Command command;
        double seconds = 0.0;  ///< predicted per tick
    };
    [[nodiscard]] const std::optional<Held>& held() const { return m_held; }
    /// What apply, update, restore and the trace changed since the last call; then nothing.
    LabEvents takeEvents() { return std::exchange(m_events, {}); }

    // ---- session: the scene in use and the technique on it (lab_session.h) -----------------------
    /// The preset or trace in use, the technique, Auto and the settings Undo keeps; the
    /// technique's parameter values are the world's (world().broadPhaseSettings()).
    [[nodiscard]] const LabSession& session() const { return m_session; }

    // ---- trace playback ---------------------------------------------------------------------------
    /// Plays the trace at `path` in place of the scene: its first frame now, then `speed`
    /// frames per tick while running (pause, step and the clock act on it as on any scene).
    /// The world gets the trace's extent as walls and no motion of its own (no gravity, no
    /// response, one sub-step). Throws TraceError for a trace it cannot play, and then nothing
    /// has changed. Another preset, count, scene file or replay ends the playback.
    void loadTrace(const std::string& path);

    // ---- state ------------------------------------------------------------------------------------
    [[nodiscard]] LabState capture() const;
    /// Replaces the whole state by `state`. Throws std::invalid_argument naming what is wrong
    /// (an unknown technique or preset, settings or entities outside the world's ranges, more
    /// entities than the technique allows), and then nothing has changed.
    void restore(const LabState& state);

    // ---- record and replay (lab_replay.cpp) ------------------------------------------------------
    /// Records every input that changes the world from now on, with its tick, starting from
    /// the state now. Refused (false) while a replay runs; after one has finished, its status goes.
    /// Called as each tick begins (after the rain): the world the tick steps from. ro_demo
    /// --record-trace writes it. An empty function for none.
    void setTickListener(std::function<void(const World&)> listener) { m_tickListener = std::move(listener); }
    bool startRecording(const Camera& camera = {});
    [[nodiscard]] bool recording() const { return m_recorder.recording(); }
    /// Inputs recorded so far (0 when not recording).
    [[nodiscard]] std::size_t recordedInputs() const { return m_recorder.recordedInputs(); }
    /// Ends the recording here: its end tick and the state's fingerprint there.
    Recording stopRecording();
    /// Restores the recording's start and replays its inputs at their ticks, one tick per
    /// update (the person's own world-changing inputs are ignored meanwhile; the technique can
    /// still be switched). With `technique` set, the replay runs with it and skips the recorded
    /// switches: the world's state does not depend on the technique. At the end tick the lab
    /// pauses and says whether it arrived at the recorded state. Throws as restore() does.
    void startReplay(const Recording& recording, const TechniqueInfo* technique = nullptr);
    struct ReplayStatus {
        std::uint64_t tick = 0, endTick = 0;
        bool finished = false;
        bool matched = false;  ///< finished at the recorded state, bit for bit
    };
    [[nodiscard]] std::optional<ReplayStatus> replayStatus() const;
    /// Leaves the replay where it is (the person's inputs count again).
    void stopReplay() { m_recorder.stopReplay(); }
    /// A fingerprint (FNV-1a) of every entity's every float, bit for bit, and of the count.
    [[nodiscard]] std::uint64_t stateHash() const;

    // ---- compare ----------------------------------------------------------------------------------
    /// Techniques run beside the world's own on its boxes every tick (and every refresh).
    [[nodiscard]] const Compare& compare() const { return m_compare; }
    /// A technique whose pairs differed from the reference's; the world paused when it was found.
    struct CompareAlarm {
        std::string_view technique;
        Mismatch mismatch;
    };
    /// The first mismatch since the world last resumed, if any.
    [[nodiscard]] const std::optional<CompareAlarm>& compareAlarm() const { return m_alarm; }
    /// What the frames compared since the scene last changed are made of (the verdict's "why").
    [[nodiscard]] SceneProfile comparedSceneProfile() const { return m_profiler.profile(); }

    // ---- fast movers -------------------------------------------------------------------------------
    /// Where a missed pair passed (World::missedPairs) and the tick it passed in: the window
    /// flashes a mark there that fades over kMissMarkTicks.
    struct MissMark {
        Vec2 where;
        std::uint64_t tick = 0;
    };
    /// Ticks a miss stays marked: 1 s at 60 Hz, long enough to find it, short enough that a
    /// bullet's trail of misses stays short; paused, it stays.
    static constexpr std::uint64_t kMissMarkTicks = 60;
    /// Missed collisions since the scene was made (a preset, a count, a respawn, a file), with
    /// the world's missed count on: the per-tick count is often 0 between two misses.
    [[nodiscard]] std::uint64_t missedTotal() const { return m_missedTotal; }
    /// The misses of the last kMissMarkTicks ticks, oldest first.
    [[nodiscard]] std::span<const MissMark> missMarks() const { return m_missMarks; }

    // ---- population -----------------------------------------------------------------------------
    /// How many times over a count's entities may cover the world at the current sizes before
    /// the sizes are fitted to the count (see setEntityCount).
    static constexpr double kMaxCoverage = 1.0, kMinCoverage = 0.01;
    /// A line about the last automatic change (empty when there was none), and how many such
    /// lines have been given: the window shows each new one in the HUD for a while, not in
    /// the panel, where a line that came and went would move every control below it.
    [[nodiscard]] const std::string& notice() const { return m_notice; }
    /// The most overlapping pairs a scene may hold: listing them costs memory (about 24 bytes a
    /// pair through the step) and time in proportion. A scene file or a click that would go past
    /// it is refused; a world that crowds past it while running pauses with a notice.
    static constexpr std::uint64_t kMostOverlappingPairs = 20'000'000;
    [[nodiscard]] std::uint64_t noticesGiven() const { return m_noticesGiven; }

    // ---- clock ----------------------------------------------------------------------------------
    [[nodiscard]] bool paused() const { return m_paused; }
    /// Advances the simulation for one frame: by `realSeconds` of real time, or by exactly one
    /// tick on a virtual clock; while paused only a requested single step runs.
    ///
    /// On the real clock the window comes first: ticks stop after kTickBudgetSeconds of a frame,
    /// and when a frame's ticks took longer than that in all, frames without ticks follow for
    /// as long as they took, so the UI gets at least half of the wall clock whatever a tick
    /// costs. The simulation slows down instead (simulationRate says by how much).
    void update(double realSeconds, bool virtualClock);
    static constexpr double kTickBudgetSeconds = LabClock::kTickBudgetSeconds;
    using WallClock = LabClock::WallClock;
    void setWallClock(WallClock clock) { m_clock.setWallClock(clock); }
    /// Simulated time over real time (times the speed setting) across about the last second:
    /// 1 when the simulation keeps up, below 1 when ticks are too slow for real time.
    [[nodiscard]] double simulationRate() const { return m_clock.rate(); }
    /// Wall time of the ticks of the last frame that ran any, in seconds.
    [[nodiscard]] double lastTicksSeconds() const { return m_clock.lastTicksSeconds(); }
    /// Heap allocations made by the last update that ran ticks.
    [[nodiscard]] std::uint64_t lastStepAllocations() const { return m_lastStepAllocations; }

    /// After any change to the population, technique or settings while paused, the structure
    /// and the pairs are rebuilt on the current positions (the clock stays), so what the HUD
    /// and the overlays show is what is on screen. Changes are gathered and the rebuild runs
    /// once, here (the app calls it after the panel) or at the next update.
    void refreshIfChanged();

private:
    // ---- what apply() dispatches to ----------------------------------------------------------------
    /// Swaps the technique live; the entities stay as they are.
    void setTechnique(std::size_t index);
    void setTechnique(const TechniqueInfo& technique);
    /// The next (+1) or previous (-1) technique in registry order, skipping any the population
    /// is too large for (brute force above its limit).
    void stepTechnique(int direction);
    /// Sets one of the technique's parameters (a cell size turns auto off). The value is
    /// one the spec accepts: the panel's widgets clamp to its offered range.
    void setParameter(std::string_view key, double value);
    /// Cell size follows the largest entity (2 x largest half-extent) whenever the population changes.
    void useAutoCellSize();
    /// Replaces the scene by the preset's at the current count (capped at its limit), with the
    /// seed the lab was started with. A scenario brings ro_bench's workload with it: its walls,
    /// its boxes, and no contact response (boxes pass through each other); the random mix
    /// brings back the lab's walls and bouncing.
    void loadScenario(const ScenarioInfo* scenario);
    /// The static preset's share of moving boxes (0 to 1); remakes its scene when it is on.
    void setMovingFraction(float fraction);
    /// The layers preset's collision layers (1 to 4); remakes its scene when it is on.
    void setLayers(std::uint32_t layers);
    /// Shows frame `index` of the trace (its pairs found, no tick), from where playing goes on.
    void seekTrace(std::uint64_t index);
    void setTraceLoop(bool loop);
    /// Frames per tick, clamped to TracePlayback's range.
    void setTraceSpeed(float speed);
    /// Leaves the last frame shown as the scene, to play with as any other.
    void endTrace();
    void setCompared(const TechniqueInfo& technique, bool compared);
    /// Adds or removes entities to reach `count`. When the current sizes would cover the world
    /// more than kMaxCoverage times over at that count, or less than kMinCoverage of it, the
    /// sizes are fitted to the count first (as "Sizes for count" does) and notice() says so: a
    /// slider moved from 100 to a million entities of the 100-entity size would otherwise make
    /// billions of overlaps (and 100,000 sizes at a million, 2.4 million overlaps and 1 s
    /// ticks), and one moved back down would leave specks that never meet.
    /// A scenario's scene is made anew at that count.
    void setEntityCount(std::uint32_t count);
    /// Size range of entities spawned from now on.
    void setSizeRange(const SizeRange& sizes);
    /// Picks the default size range for the current count (about 15% of the area covered) and respawns.
    void fitSizesToCount();
    /// Replaces every entity by a new random one with the current size range (a scenario's
    /// scene is made anew from the next seed).
    void respawn();
    /// Adds one random entity centred on `p` (world coordinates).
    void spawnAt(Vec2 p);
    /// Removes the entity under `p`; false when there is none.
    bool removeAt(Vec2 p);
    void togglePause();
    /// Runs one tick at the next update, when paused.
    void requestStep() { m_stepRequested = m_paused; }
    /// World settings (speed, sub-steps, gravity, response); while paused the pairs are redone.
    void setWorldConfig(const WorldConfig& config);
    void refreshIfPaused() { m_refreshPending = m_paused; }
    /// Adds to m_events what differs from what was last noted (after each change).
    void noteEvents();
    void populationChanged();
    void fitCellSizeToPopulation();
    /// A cell size set by hand that the boxes have outgrown (after a count, size or technique
    /// change) is refit, with a notice: kept, it could make every tick take seconds.
    void refitUnfitCellSize();
    /// The same for the hash's bucket count set by hand: refit to Auto (0), with a notice.
    void refitUnfitBucketCount();
    /// Adds `line` to the notice (beside a notice of the same change, not over it).
    void addNotice(const std::string& line);
    void respawnPopulation();
    /// Notes an input while recording (with the tick it comes at).
    void record(Command input);
    /// True for a person's world-changing input during a replay: it is ignored. After the
    /// replay has finished such an input is taken, and the replay's status goes (the world
    /// is no longer the replayed one).
    [[nodiscard]] bool ignoredDuringReplay();
    /// Applies the recorded inputs due before the next tick; at the end tick, finishes.
    void applyDueInputs();
    /// Whether `command` can take effect (a known name, a scene it may change); fits its value
    /// to the range that is kept, so that a recording holds what was applied.
    [[nodiscard]] bool accept(Command& command) const;
    void dispatch(const Command& command);
    void compareTick(const BoxView& boxes, std::uint64_t tick);
    /// Takes the last tick's missed pairs into the total and the marks, once per tick (before
    /// the next tick, which clears them, and after an update's last).
    void collectMisses();
    /// A new scene: its misses start from 0 and the old marks go.
    void forgetMisses();
    /// Forgets the compared figures and the scene's profile: they describe another scene.
    void resetMeasurements();
    /// Runs the trace's due frames (speed frames per tick); returns how many ticks ran.
    int playTrace(bool single);
    void applySettings(Settings settings);
    /// Notes the settings `command` is about to change, for Undo. A run of changes to the same
    /// parameter (a slider dragged over many frames) is one change.
    void rememberSettings(const Command& command);
    /// Applies the commands that bring the last remembered settings back.
    void undo();
    /// The scenario's scene at `count` entities, in place of the entities; its measurements and misses start anew.
    void makeScenarioScene(std::uint32_t count);

    /// Before every tick: the rain, then the tick listener.
    void beforeTick(World& world);

    World m_world;
    LabSession m_session;
    std::function<void(const World&)> m_tickListener;
    bool m_undoing = false;
    bool m_paused = false;
    bool m_stepRequested = false;
    std::uint64_t m_lastStepAllocations = 0;  ///< of the last step on this scene and technique (0 until one runs)
    bool m_refreshPending = false;
    /// What the pending refresh does with the last tick's times: it measures its own when the
    /// scene on screen is another (count, preset), and keeps the tick's when only the view of
    /// it changed (a pause, a compared technique, a world setting).
    World::RefreshTimes m_refreshTimes = World::RefreshTimes::KeepTheTicks;
    std::string m_notice;
    std::uint64_t m_addedOverlaps = 0;  ///< overlaps of entities added since the pairs were last listed
    std::uint64_t m_noticesGiven = 0;
    Compare m_compare;
    SceneProfiler m_profiler;
    std::uint64_t m_profiledTick = ~std::uint64_t{0};  ///< a refresh shows a tick's boxes again: profiled once
    LabRecorder m_recorder;
    std::optional<CompareAlarm> m_alarm;
    std::uint64_t m_missedTotal = 0;
    std::uint64_t m_missesCollectedTick = 0;  ///< the tick whose missed pairs were taken last
    std::vector<MissMark> m_missMarks;        ///< reused: oldest first, faded ones dropped
    LabClock m_clock;
    LabEvents m_events;
    std::optional<Held> m_held;
    /// What the events last said: a change is what differs from it.
    struct Noted {
        std::size_t technique = 0;
        std::string scene;
        std::uint32_t count = 0;
        std::uint64_t notices = 0;
    } m_noted;
};

}  // namespace ro::app

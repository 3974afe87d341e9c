#pragma once
/// The lab's session: the scene in use (a preset at its seed and settings, the person's own
/// entities, or a trace) and the technique that runs on it, with its cell policy and the
/// settings Undo brings back. Lab owns one; the world, which holds the entities and the
/// technique's settings, is the lab's and is passed in.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/command.h"
#include "app/lab_state.h"
#include "app/trace_playback.h"
#include "ro/registry.h"
#include "ro/rng.h"
#include "ro/world.h"
#include "scenario/scenario.h"

namespace ro::app {

class LabSession {
public:
    /// Where the entities on screen came from: the preset made them (at its count and seed), or
    /// they are the person's own: restored from a file (a scene file, a replay's start), or a
    /// preset's changed by clicks, or a trace's frame left as the scene. A preset's controls
    /// (preset, count, respawn, sizes for count) make the scene the preset's again. The sweeps
    /// run on a preset's library scene, and on a snapshot of the person's own.
    enum class SceneOrigin { Preset, Loaded, Edited };
    /// A cell set by hand is unfit once it is this many times smaller than the smallest box's
    /// side (each box then spans hundreds of cells) or larger than the largest's (each cell
    /// holds a crowd): a cell of 0.05 under boxes of 1 to 40, or of 30 under boxes of 0.5.
    static constexpr double kUnfitCellRatio = 8.0;
    /// A bucket count set by hand is unfit once the entities outnumber the buckets this many
    /// times (Auto gives about 10 buckets an entity): each bucket's crowd is tested pair by pair.
    static constexpr double kUnfitBucketRatio = 8.0;
    /// Settings changes an Undo command can take back.
    static constexpr std::size_t kUndoDepth = 32;
    /// The scenario's boxes have sides of about 1 (0.8 to 1.2); entities added by a click match them.
    static constexpr SizeRange kScenarioSizes{0.4f, 0.6f};

    LabSession(const TechniqueInfo& technique, const ScenarioInfo* scenario, std::uint64_t seed, const SizeRange& sizes);

    // ---- technique and its settings -------------------------------------------------------------
    [[nodiscard]] std::size_t techniqueIndex() const { return m_technique; }
    [[nodiscard]] const TechniqueInfo& technique() const;
    /// Picks technique `index` (modulo the registry's size); the world's structure is the lab's to swap.
    void setTechnique(std::size_t index);
    /// The cell size follows the largest entity whenever the population changes.
    [[nodiscard]] bool autoCellSize() const { return m_autoCellSize; }
    void setAutoCellSize(bool on) { m_autoCellSize = on; }
    /// Auto's cell, by the rule ro_bench and the plots use too.
    [[nodiscard]] static double fittedCellSize(const World& world);
    /// Predicted work of a tick of `technique` at `count` entities under cell `cell` (for a
    /// technique with cells), with the world's sizes and walls: brute force n(n-1)/2 pair tests;
    /// a technique with cells n x (cells a box covers) x (1 + boxes a cell holds / 2), from
    /// the mean side. Other techniques: 0 (their cost follows the overlaps, not a setting).
    [[nodiscard]] static double predictedOperations(const World& world, const TechniqueInfo& technique,
                                                    std::uint32_t count, double cell);

    // ---- undo -----------------------------------------------------------------------------------
    /// The settings before a settings change.
    struct UndoSettings {
        std::string technique;
        Settings parameters;
        bool autoCellSize = true;
        std::uint32_t count = 0;
    };
    [[nodiscard]] std::size_t undoDepth() const { return m_undo.size(); }
    /// Keeps `before`, the settings before a change of parameter `changed` ("" for a change of
    /// another kind): a run of changes to the same parameter (a slider dragged over many
    /// frames) is one change. At most kUndoDepth are kept, the oldest go first.
    void remember(UndoSettings before, const std::string& changed);
    /// The last settings kept, if any, and forgets them.
    [[nodiscard]] std::optional<UndoSettings> takeUndo();
    void clearUndo() { m_undo.clear(); }

    // ---- scene ----------------------------------------------------------------------------------
    /// The preset in use: a library scenario, or nullptr for the lab's random mix.
    [[nodiscard]] const ScenarioInfo* scenario() const { return m_scenario; }
    void setScenario(const ScenarioInfo* scenario) { m_scenario = scenario; }
    /// "random" (the lab's mix), "trace" or the scenario's name.
    [[nodiscard]] std::string_view sceneName() const;
    [[nodiscard]] SceneOrigin sceneOrigin() const { return m_origin; }
    void setSceneOrigin(SceneOrigin origin) { m_origin = origin; }
    [[nodiscard]] float movingFraction() const { return m_movingFraction; }
    void setMovingFraction(float fraction) { m_movingFraction = fraction; }
    [[nodiscard]] std::uint32_t layers() const { return m_layers; }
    void setLayers(std::uint32_t layers) { m_layers = layers; }
    /// The most entities the preset allows (onecell's pairs grow as n^2), 0 for no limit.
    [[nodiscard]] std::uint32_t scenarioLimit() const { return m_scenario ? m_scenario->maxCount : 0; }
    /// The half-extent range of entities made from now on.
    [[nodiscard]] const SizeRange& sizeRange() const { return m_sizes; }
    void setSizeRange(const SizeRange& sizes) { m_sizes = sizes; }
    /// The next seed for the scenario's scene (a respawn).
    void nextSeed() { ++m_sceneSeed; }
    /// The world settings a preset brings: a scenario is ro_bench's workload (its own walls,
    /// set by the scene, and no response); the random mix is the lab's (its walls, bouncing).
    [[nodiscard]] static WorldConfig presetConfig(WorldConfig config, const ScenarioInfo* scenario);
    /// The scenario's scene at `count` entities from the scene's seed, in place of the world's entities.
    void makeScenarioScene(World& world, std::uint32_t count);
    /// The random mix grown or shrunk to `count` entities of the current sizes.
    void resizeMix(World& world, std::uint32_t count);
    /// A random entity of the current sizes inside `bounds`.
    [[nodiscard]] EntityDesc randomEntity(const Aabb& bounds);
    /// The rain preset's step, before every tick: drops at the bottom go, new ones fall.
    void rain(World& world);

    // ---- trace ----------------------------------------------------------------------------------
    /// The trace playing in place of the scene, or null.
    [[nodiscard]] const TracePlayback* trace() const { return m_trace.get(); }
    [[nodiscard]] TracePlayback* trace() { return m_trace.get(); }
    void setTrace(std::unique_ptr<TracePlayback> trace) { m_trace = std::move(trace); }
    void endTrace() { m_trace.reset(); }

    // ---- state ----------------------------------------------------------------------------------
    /// Writes the session's part of `state` (technique, Auto, preset, seed, preset settings,
    /// generator, sizes).
    void capture(LabState& state) const;
    /// Takes the session's part of a checked `state`: its technique and preset are `technique`
    /// and `scenario`. The scene is a loaded one; no trace plays; nothing is left to undo.
    void restore(const LabState& state, const TechniqueInfo& technique, const ScenarioInfo* scenario);

private:
    Rng m_rng;
    SizeRange m_sizes;
    const ScenarioInfo* m_scenario = nullptr;
    SceneOrigin m_origin = SceneOrigin::Preset;
    std::uint64_t m_sceneSeed = 0;
    float m_movingFraction = 0.01f;
    std::uint32_t m_layers = 4;
    std::vector<EntityId> m_rainGone;  ///< reused from tick to tick
    std::vector<EntityDesc> m_rainNew;
    std::unique_ptr<TracePlayback> m_trace;
    std::size_t m_technique = 0;
    bool m_autoCellSize = true;
    /// The settings before each settings change, oldest first (Undo).
    std::vector<UndoSettings> m_undo;
    std::string m_lastSettingChanged;  ///< the parameter the last change set ("" for none)
};

}  // namespace ro::app

#pragma once
/// The lab: the world, its random population, the chosen technique and the clock controls.
/// The panel, the keys and the mouse all act through it; it knows nothing about SDL or ImGui.

#include <cstddef>
#include <cstdint>
#include <optional>

#include "broadphase/registry.h"
#include "core/rng.h"
#include "world/scene.h"
#include "world/world.h"

namespace ro::app {

class Lab {
public:
    /// Smallest cell size "Auto" picks: below it cells hold too little to be worth their memory.
    static constexpr float kMinAutoCellSize = 1.0f;

    /// Builds the world with `entities` random entities from `seed`; `cellSize` unset means auto,
    /// `sizes` unset means sizes that fit the count.
    Lab(const TechniqueInfo& technique, std::uint32_t entities, std::uint64_t seed, std::optional<float> cellSize,
        std::optional<SizeRange> sizes = std::nullopt);

    [[nodiscard]] World& world() { return m_world; }
    [[nodiscard]] const World& world() const { return m_world; }

    // ---- technique and its settings -------------------------------------------------------------
    [[nodiscard]] std::size_t techniqueIndex() const { return m_technique; }
    [[nodiscard]] const TechniqueInfo& technique() const;
    /// Swaps the technique live; the entities stay as they are.
    void setTechnique(std::size_t index);
    void nextTechnique();
    /// A fixed cell size (turns auto off).
    void setCellSize(float cellSize);
    /// Cell size follows the largest entity (2 x largest half-extent) whenever the population changes.
    void useAutoCellSize();
    [[nodiscard]] bool autoCellSize() const { return m_autoCellSize; }
    void setHashTableSize(std::uint32_t buckets);
    /// Every other technique parameter (factor, margin, capacity, depth, axis) at once; the
    /// cell size keeps following auto mode when it is on.
    void setSettings(const Settings& settings);

    // ---- population -----------------------------------------------------------------------------
    /// Adds or removes entities to reach `count`.
    void setEntityCount(std::uint32_t count);
    /// Size range of entities spawned from now on.
    void setSizeRange(const SizeRange& sizes) { m_sizes = sizes; }
    [[nodiscard]] const SizeRange& sizeRange() const { return m_sizes; }
    /// Picks the default size range for the current count (about 15% of the area covered) and respawns.
    void fitSizesToCount();
    /// Replaces every entity by a new random one with the current size range.
    void respawn();
    /// Adds one random entity centred on `p` (world coordinates).
    void spawnAt(Vec2 p);
    /// Removes the entity under `p`; false when there is none.
    bool removeAt(Vec2 p);

    // ---- clock ----------------------------------------------------------------------------------
    [[nodiscard]] bool paused() const { return m_paused; }
    void togglePause() { m_paused = !m_paused; }
    /// Runs one tick at the next update, when paused.
    void requestStep() { m_stepRequested = m_paused; }
    /// Advances the simulation for one frame: by `realSeconds` of real time, or by exactly one
    /// tick on a virtual clock; while paused only a requested single step runs.
    void update(double realSeconds, bool virtualClock);
    /// Heap allocations made by the last update that ran ticks.
    [[nodiscard]] std::uint64_t lastStepAllocations() const { return m_lastStepAllocations; }

private:
    void populationChanged();
    void applySettings(Settings settings);

    World m_world;
    Rng m_rng;
    SizeRange m_sizes;
    std::size_t m_technique = 0;
    bool m_autoCellSize = true;
    bool m_paused = false;
    bool m_stepRequested = false;
    std::uint64_t m_lastStepAllocations = 0;
};

}  // namespace ro::app

#pragma once
/// What the lab is at one moment (LabState: a scene file holds it) and how it got somewhere
/// else (Recording: a replay file holds it). No SDL, no ImGui, no JSON here.

#include <cstdint>
#include <string>
#include <vector>

#include "app/camera.h"
#include "app/command.h"
#include "ro/parameters.h"
#include "ro/world.h"

namespace ro::app {

/// One entity as the world holds it: Verlet's previous position keeps its velocity exactly
/// (a velocity per tick is position - previous).
struct SavedEntity {
    Shape shape = Shape::Box;
    Vec2 position, previous, acceleration, halfExtents;
    bool isStatic = false;
    std::uint32_t category = 1;  ///< collision filter (EntityDesc's defaults: pairs with everyone)
    std::uint32_t mask = ~0u;
};

/// Everything that decides what the lab does next.
struct LabState {
    std::string technique;  ///< registry id
    Settings parameters;
    bool autoCellSize = true;
    std::string preset;     ///< a scenario's name, or "random"
    std::uint64_t sceneSeed = 1;
    float movingFraction = 0.01f;  ///< the static preset's share of moving boxes
    std::uint32_t layers = 4;      ///< the layers preset's collision layers, 1 to 4
    std::uint64_t rngState = 1;  ///< where the random mix's generator is (clicks spawn from it)
    SizeRange sizes;
    WorldConfig world;
    std::vector<SavedEntity> entities;
};

/// A run to replay: where it started, every input with its tick, and a fingerprint of where it
/// ended (Lab::stateHash), so a replay can tell whether it arrived at the same state.
struct Recording {
    LabState start;
    Camera camera;
    std::vector<Command> inputs;
    std::uint64_t endTick = 0;
    std::uint64_t endHash = 0;
};

}  // namespace ro::app

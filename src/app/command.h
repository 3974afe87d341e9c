#pragma once
/// A command: one change a person makes to the lab, and the tick it came at.

#include <cstdint>
#include <string>

#include "ro/parameters.h"
#include "ro/world.h"

namespace ro::app {

/// One input that changed the world (or the technique), and the tick it came at.
struct Command {
    enum class Kind : std::uint8_t {
        Spawn,         ///< a left click or a spray step at `point`
        Remove,        ///< a right click at `point`
        Count,         ///< the entity count slider, to `value`
        Preset,        ///< a preset button: `name` is a scenario or "random"
        Respawn,       ///< "Respawn all" or "New seed"
        FitSizes,      ///< "Sizes for count"
        Sizes,         ///< the half-extent range, to `sizes`
        Technique,     ///< a technique switch, to `name`
        Parameter,     ///< a parameter `name` set to `value`
        AutoCellSize,  ///< the cell size's Auto button
        World,         ///< world settings (speed, sub-steps, gravity, response), to `world`
        MovingFraction,  ///< the static preset's moving share, to `value`
        Layers,          ///< the layers preset's layer count, to `value`
    };
    std::uint64_t tick = 0;  ///< ticks run when it came: it applies before the next one
    Kind kind = Kind::Spawn;
    Vec2 point{};
    double value = 0.0;
    std::string name{};
    SizeRange sizes{};
    WorldConfig world{};
};

}  // namespace ro::app

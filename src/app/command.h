#pragma once
/// A command: one change a person makes to the lab (a click, a key, a panel control, a plot),
/// and the tick it came at. Lab::apply is the one way to change the lab's state; a recording
/// is the recorded commands written out, and a replay applies them again.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ro/parameters.h"
#include "ro/registry.h"
#include "ro/world.h"
#include "scenario/scenario.h"

namespace ro::app {

struct Command {
    enum class Kind : std::uint8_t {
        // Recorded: they change the world (or the technique). A replay file names them in this
        // order (scene_file.cpp's kInputNames); a new one goes after Layers, with kLastRecorded.
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
        // Not recorded: how the person watches the world, not what it is. A replay runs tick
        // by tick whatever the clock did when it was recorded.
        StepTechnique,  ///< Tab: the next (`value` +1) or previous (-1) technique that fits
        Pause,          ///< pause (`value` 1) or resume (0)
        TogglePause,    ///< Space's and the panel's Pause/Play
        Step,           ///< one tick, when paused
        Compared,       ///< `technique` run beside the world's own (`value` 1) or not (0)
        TraceSeek,      ///< the trace's frame `value`
        TraceLoop,      ///< the trace loops (`value` 1) or stops at its end (0)
        TraceSpeed,     ///< the trace's frames per tick, to `value`
        TraceEnd,       ///< the trace's frame shown stays as the scene
        /// Ctrl+Z: the settings before the last settings change (technique, parameters, Auto,
        /// count) come back, as the recorded commands that set them.
        Undo,
        /// The Cancel of "predicted ~N s a tick": the command held for a confirmation goes.
        DropHeld,
        // Files: the app runs them in the queue's order, outside the lab (which has no files),
        // and says what came of each (main.cpp's FileResult). `name` is the path.
        SaveScene,    ///< the scene and the camera to a scene file
        LoadScene,    ///< a scene file in place of the scene
        Record,       ///< starts recording, or stops and writes the replay file
        Replay,       ///< a replay file played from its start
        LoadTrace,    ///< a trace played in place of the scene
    };
    /// Kinds up to here are recorded and replayed.
    static constexpr Kind kLastRecorded = Kind::Layers;

    std::uint64_t tick = 0;  ///< ticks run when it came: it applies before the next one
    Kind kind = Kind::Spawn;
    Vec2 point{};
    double value = 0.0;
    std::string name{};
    SizeRange sizes{};
    WorldConfig world{};
    /// Compared's technique (one outside the registry too: tests compare a faulty one).
    const TechniqueInfo* technique = nullptr;
    /// Applied even when its predicted tick takes seconds: the person said Apply (a replay
    /// never asks either).
    bool confirmed = false;

    [[nodiscard]] bool recorded() const { return kind <= kLastRecorded; }
    /// A file to read or write: run by the app, not applied to the lab.
    [[nodiscard]] bool fileRequest() const { return kind >= Kind::SaveScene; }

    // One maker per kind, so that a caller says what it wants and not how it is stored.
    static Command spawn(Vec2 p) { return {.kind = Kind::Spawn, .point = p}; }
    static Command remove(Vec2 p) { return {.kind = Kind::Remove, .point = p}; }
    static Command count(std::uint32_t entities) {
        return {.kind = Kind::Count, .value = static_cast<double>(entities)};
    }
    /// `scenario` null for the lab's random mix.
    static Command preset(const ScenarioInfo* scenario) {
        return {.kind = Kind::Preset, .name = std::string(scenario ? scenario->name : "random")};
    }
    static Command respawn() { return {.kind = Kind::Respawn}; }
    static Command fitSizes() { return {.kind = Kind::FitSizes}; }
    static Command sizeRange(const SizeRange& range) { return {.kind = Kind::Sizes, .sizes = range}; }
    static Command useTechnique(const TechniqueInfo& t) { return {.kind = Kind::Technique, .name = std::string(t.id)}; }
    static Command parameter(const ParameterSpec& spec, double value) {
        return {.kind = Kind::Parameter, .value = value, .name = std::string(spec.key)};
    }
    static Command autoCellSize() { return {.kind = Kind::AutoCellSize}; }
    static Command worldConfig(const WorldConfig& config) { return {.kind = Kind::World, .world = config}; }
    static Command movingFraction(float fraction) { return {.kind = Kind::MovingFraction, .value = fraction}; }
    static Command layers(std::uint32_t count) { return {.kind = Kind::Layers, .value = static_cast<double>(count)}; }
    static Command stepTechnique(int direction) {
        return {.kind = Kind::StepTechnique, .value = direction >= 0 ? 1.0 : -1.0};
    }
    static Command pause(bool paused) { return {.kind = Kind::Pause, .value = paused ? 1.0 : 0.0}; }
    static Command togglePause() { return {.kind = Kind::TogglePause}; }
    static Command step() { return {.kind = Kind::Step}; }
    static Command compared(const TechniqueInfo& t, bool on) {
        return {.kind = Kind::Compared, .value = on ? 1.0 : 0.0, .technique = &t};
    }
    static Command traceSeek(std::uint64_t frame) {
        return {.kind = Kind::TraceSeek, .value = static_cast<double>(frame)};
    }
    static Command traceLoop(bool loop) { return {.kind = Kind::TraceLoop, .value = loop ? 1.0 : 0.0}; }
    static Command traceSpeed(float speed) { return {.kind = Kind::TraceSpeed, .value = speed}; }
    static Command traceEnd() { return {.kind = Kind::TraceEnd}; }
    static Command undo() { return {.kind = Kind::Undo}; }
    static Command dropHeld() { return {.kind = Kind::DropHeld}; }
    static Command file(Kind kind, std::string path) { return {.kind = kind, .name = std::move(path)}; }
};

/// The commands made in a frame, oldest first: the keys and the mouse, the panel, the plots and
/// the Compare window push them, and the main loop hands them to Lab::apply once a frame,
/// before the step. What is pushed after that (a window drawn late) waits for the next frame.
class CommandQueue {
public:
    void push(Command command) { m_commands.push_back(std::move(command)); }
    [[nodiscard]] bool empty() const { return m_commands.empty(); }
    /// The commands pushed so far, in order; the queue is left empty.
    [[nodiscard]] std::vector<Command> take() { return std::exchange(m_commands, {}); }

private:
    std::vector<Command> m_commands;
};

}  // namespace ro::app

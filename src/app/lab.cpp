#include "app/lab.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/core.h>

#include "broadphase/hash/hash.h"
#include "core/alloc_counter.h"
#include "core/overlap_count.h"

namespace ro::app {
namespace {

std::size_t indexOf(const TechniqueInfo& technique) {
    return static_cast<std::size_t>(&technique - techniques().data());
}

constexpr std::uint32_t kSparseCount = 100;

/// How many of `boxes` overlap `box`.
std::uint64_t overlapsWith(const BoxView& boxes, const Aabb& box) {
    std::uint64_t count = 0;
    for (std::uint32_t i = 0; i < boxes.count; ++i) count += overlaps(boxes.box(i), box);
    return count;
}

double steadySeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

Lab::Lab(const TechniqueInfo& technique, std::uint32_t entities, std::uint64_t seed, const Settings& parameters,
         std::optional<SizeRange> sizes, const ScenarioInfo* scenario)
    : m_session(technique, scenario, seed,
                // An empty world gets the sizes of a sparse one, so clicked entities look sensible.
                sizes.value_or(defaultSizeRange(std::max(entities, kSparseCount), m_world.config().bounds))),
      m_clock(steadySeconds) {
    m_world.setBroadPhase(technique.create());
    m_world.setBroadPhaseObserver([this](const BoxView& boxes, std::uint64_t tick) { compareTick(boxes, tick); });
    m_world.setBeforeTick([this](World& w) { beforeTick(w); });
    if (m_session.scenario()) {
        m_world.setConfig(LabSession::presetConfig(m_world.config(), m_session.scenario()));
        makeScenarioScene(entities);
    } else {
        m_session.resizeMix(m_world, entities);
    }
    Settings settings = m_world.broadPhaseSettings();
    settings.bounds = m_world.config().bounds;  // a preset's walls are the technique's region
    for (const auto& [key, value] : parameters.values()) settings.set(key, value);
    m_session.setAutoCellSize(!parameters.find(kCellSizeParameter.key));
    if (m_session.autoCellSize()) settings.set(kCellSizeParameter.key, LabSession::fittedCellSize(m_world));
    applySettings(settings);
    m_world.refreshPairs();  // a lab started paused shows its pairs before the first tick
    noteEvents();
    m_events = {};  // the window starts with the lab as built
}

void Lab::apply(Command command) {
    using Kind = Command::Kind;
    // The technique and its parameters may change during a replay: the world's state does not
    // depend on them. What changes the world is the replay's alone.
    const bool changesWorld = command.recorded() && command.kind != Kind::Technique &&
                              command.kind != Kind::Parameter && command.kind != Kind::AutoCellSize;
    if (changesWorld && ignoredDuringReplay()) return;
    if (!accept(command)) return;
    // Seconds a tick: asked first. Undo's own commands bring back what ran before; a replay's
    // were confirmed when recorded.
    if (!command.confirmed && !m_undoing && !m_recorder.applyingReplay()) {
        if (const double seconds = predictedTickSeconds(command); seconds > kConfirmAboveSeconds) {
            m_held = Held{std::move(command), seconds};
            return;
        }
    }
    if (command.kind == Kind::DropHeld || command.confirmed) m_held.reset();
    command.confirmed = true;  // recorded as applied: its replay does not ask
    rememberSettings(command);
    if (command.recorded()) record(command);
    dispatch(command);
    noteEvents();
}

double Lab::predictedTickSeconds(const Command& c) const {
    using Kind = Command::Kind;
    const double cell = m_world.broadPhaseSettings().find(kCellSizeParameter.key).value_or(0.0);
    double operations = 0.0;
    // A count under a technique with cells fits the sizes and a hand-set cell to it: only
    // brute force's grows as n^2 whatever the sizes. A technique switch refits an unfit cell.
    const TechniqueInfo& technique = m_session.technique();
    if (c.kind == Kind::Count && technique.id == "brute")
        operations = LabSession::predictedOperations(m_world, technique, static_cast<std::uint32_t>(c.value), cell);
    else if (c.kind == Kind::Technique && c.name == "brute")
        operations = LabSession::predictedOperations(m_world, *findTechnique(c.name), m_world.size(), cell);
    else if (c.kind == Kind::Parameter && c.name == kCellSizeParameter.key &&
             findParameter(technique.parameters, c.name))
        operations = LabSession::predictedOperations(m_world, technique, m_world.size(), c.value);
    return operations / kOperationsPerSecond;
}

void Lab::noteEvents() {
    if (m_session.techniqueIndex() != m_noted.technique) m_events.technique = true;
    if (m_session.sceneName() != m_noted.scene) m_events.scene = true;
    if (m_world.size() != m_noted.count) m_events.count = m_world.size();
    if (m_noticesGiven != m_noted.notices) m_events.notices.push_back(m_notice);
    m_noted = {m_session.techniqueIndex(), std::string(m_session.sceneName()), m_world.size(), m_noticesGiven};
}

bool Lab::accept(Command& command) const {
    using Kind = Command::Kind;
    switch (command.kind) {
        // A trace says which bodies there are and where they go.
        case Kind::Spawn:
        case Kind::Remove:
        case Kind::World: return !m_session.trace();
        case Kind::Preset: return command.name == "random" || findScenario(command.name);
        // A replay run under another technique skips the recorded switches.
        case Kind::Technique: return findTechnique(command.name) && !m_recorder.forcedTechnique();
        case Kind::Parameter:
            for (const TechniqueInfo& t : techniques())
                if (findParameter(t.parameters, command.name)) return true;
            return false;
        case Kind::Layers: command.value = std::clamp(static_cast<std::uint32_t>(command.value), 1u, 4u); return true;
        case Kind::MovingFraction:
            command.value = std::clamp(static_cast<float>(command.value), 0.0f, 1.0f);
            return true;
        case Kind::Compared: return command.technique != nullptr;
        default: return true;
    }
}

void Lab::dispatch(const Command& c) {
    using Kind = Command::Kind;
    switch (c.kind) {
        case Kind::Spawn: spawnAt(c.point); break;
        case Kind::Remove: removeAt(c.point); break;
        case Kind::Count: setEntityCount(static_cast<std::uint32_t>(c.value)); break;
        case Kind::Preset: loadScenario(c.name == "random" ? nullptr : findScenario(c.name)); break;
        case Kind::Respawn: respawn(); break;
        case Kind::FitSizes: fitSizesToCount(); break;
        case Kind::Sizes: setSizeRange(c.sizes); break;
        case Kind::Technique: setTechnique(*findTechnique(c.name)); break;
        case Kind::Parameter: setParameter(c.name, c.value); break;
        case Kind::AutoCellSize: useAutoCellSize(); break;
        case Kind::World: setWorldConfig(c.world); break;
        case Kind::MovingFraction: setMovingFraction(static_cast<float>(c.value)); break;
        case Kind::Layers: setLayers(static_cast<std::uint32_t>(c.value)); break;
        case Kind::StepTechnique: stepTechnique(c.value >= 0.0 ? +1 : -1); break;
        case Kind::Pause:
            if ((c.value != 0.0) != m_paused) togglePause();
            break;
        case Kind::TogglePause: togglePause(); break;
        case Kind::Step: requestStep(); break;
        case Kind::Compared: setCompared(*c.technique, c.value != 0.0); break;
        case Kind::TraceSeek: seekTrace(static_cast<std::uint64_t>(c.value)); break;
        case Kind::TraceLoop: setTraceLoop(c.value != 0.0); break;
        case Kind::TraceSpeed: setTraceSpeed(static_cast<float>(c.value)); break;
        case Kind::TraceEnd: endTrace(); break;
        case Kind::Undo: undo(); break;
        case Kind::DropHeld: break;
        // The lab has no files: the app runs these (a stray one here does nothing).
        case Kind::SaveScene:
        case Kind::LoadScene:
        case Kind::Record:
        case Kind::Replay:
        case Kind::LoadTrace: break;
    }
}

void Lab::rememberSettings(const Command& command) {
    using Kind = Command::Kind;
    // Undo's own commands are not changes to take back; a replay's are not the person's.
    if (m_undoing || m_recorder.applyingReplay()) return;
    if (command.kind != Kind::Technique && command.kind != Kind::Parameter && command.kind != Kind::AutoCellSize &&
        command.kind != Kind::Count)
        return;
    m_session.remember({std::string(m_session.technique().id), m_world.broadPhaseSettings(), m_session.autoCellSize(),
                        m_world.size()},
                       command.kind == Kind::Parameter ? command.name : std::string());
}

void Lab::undo() {
    const std::optional<LabSession::UndoSettings> taken = m_session.takeUndo();
    if (!taken) return;
    const LabSession::UndoSettings& was = *taken;
    // Through apply: a recording holds what the undo did, as the commands that did it.
    m_undoing = true;
    // A trace's frames hold as many boxes as they do: a count would end it.
    if (!m_session.trace() && was.count != m_world.size()) apply(Command::count(was.count));
    if (was.technique != m_session.technique().id) apply({.kind = Command::Kind::Technique, .name = was.technique});
    for (const auto& [key, value] : was.parameters.values()) {
        if (was.autoCellSize && key == kCellSizeParameter.key) continue;  // Auto fits it again
        if (m_world.broadPhaseSettings().find(key) != value)
            apply({.kind = Command::Kind::Parameter, .value = value, .name = std::string(key)});
    }
    // A parameter first set after it runs with its default again.
    const Settings now = m_world.broadPhaseSettings();
    for (const auto& [key, value] : now.values()) {
        if (was.parameters.find(key)) continue;
        for (const TechniqueInfo& t : techniques())
            if (const ParameterSpec* spec = findParameter(t.parameters, key)) {
                if (value != spec->defaultValue) apply(Command::parameter(*spec, spec->defaultValue));
                break;
            }
    }
    if (was.autoCellSize && !m_session.autoCellSize()) apply(Command::autoCellSize());
    m_undoing = false;
}

void Lab::setTechnique(std::size_t index) {
    m_session.setTechnique(index);
    m_world.setBroadPhase(m_session.technique().create());
    m_lastStepAllocations = 0;
    m_clock.forgetPace();
    refitUnfitCellSize();  // a cell set for another technique's scene
    refitUnfitBucketCount();
    // The HUD's pairs become the new technique's at once, even while paused.
    m_world.refreshPairs();
}

LabState Lab::capture() const {
    LabState state;
    m_session.capture(state);
    state.parameters = m_world.broadPhaseSettings();
    state.world = m_world.config();
    const World& w = m_world;
    state.entities.resize(w.size());
    for (std::uint32_t i = 0; i < w.size(); ++i)
        state.entities[i] = {w.shapes()[i], {w.posX()[i], w.posY()[i]}, {w.prevX()[i], w.prevY()[i]},
                             {w.accX()[i], w.accY()[i]}, {w.halfW()[i], w.halfH()[i]}, w.isStatic()[i] != 0,
                             w.category()[i],   w.mask()[i]};
    return state;
}

void Lab::restore(const LabState& state) {
    // Everything is built aside and checked first; the lab changes only once all of it holds.
    const TechniqueInfo* technique = findTechnique(state.technique);
    if (!technique) throw std::invalid_argument(fmt::format("unknown technique '{}'", state.technique));
    const ScenarioInfo* scenario = nullptr;
    if (state.preset != "random") {
        scenario = findScenario(state.preset);
        if (!scenario) throw std::invalid_argument(fmt::format("unknown preset '{}'", state.preset));
    }
    const auto count = static_cast<std::uint32_t>(state.entities.size());
    if (technique->maxEntities != 0 && count > technique->maxEntities)
        throw std::invalid_argument(fmt::format("{} entities are too many for '{}' (at most {})", count, technique->id,
                                                technique->maxEntities));
    if (!(state.sizes.minHalf >= WorldLimits::kMinHalfExtent && state.sizes.minHalf <= state.sizes.maxHalf &&
          state.sizes.maxHalf <= WorldLimits::kMaxHalfExtent))
        throw std::invalid_argument(fmt::format("sizes [{}, {}] must satisfy {} <= min <= max <= {}", state.sizes.minHalf,
                                                state.sizes.maxHalf, WorldLimits::kMinHalfExtent, WorldLimits::kMaxHalfExtent));
    World world(state.world);
    Settings parameters = state.parameters;
    parameters.bounds = state.world.bounds;  // the technique's region is the walls (a file keeps no other)
    world.setBroadPhaseSettings(parameters);
    for (std::uint32_t i = 0; i < count; ++i) {
        const SavedEntity& e = state.entities[i];
        try {
            world.add({.position = e.position, .velocity = {}, .acceleration = e.acceleration,
                       .halfExtents = e.halfExtents, .shape = e.shape, .previous = e.previous, .isStatic = e.isStatic,
                       .category = e.category, .mask = e.mask});
        } catch (const std::invalid_argument& error) {
            throw std::invalid_argument(fmt::format("entity {}: {}", i, error.what()));
        }
    }
    if (const std::uint64_t pairs = countOverlappingPairs(world.boxes()); pairs > kMostOverlappingPairs)
        throw std::invalid_argument(fmt::format("{} pairs of entities overlap, more than the {} a scene may hold: its "
                                                "pairs would not fit in memory",
                                                pairs, kMostOverlappingPairs));
    world.setBroadPhase(technique->create());

    m_world = std::move(world);
    m_world.setBroadPhaseObserver([this](const BoxView& boxes, std::uint64_t tick) { compareTick(boxes, tick); });
    m_world.setBeforeTick([this](World& w) { beforeTick(w); });
    m_session.restore(state, *technique, scenario);
    m_lastStepAllocations = 0;
    m_notice.clear();
    m_alarm.reset();
    resetMeasurements();
    forgetMisses();
    m_world.refreshPairs();
    // The file's scene comes with its camera: no scene or count change for the window to follow.
    m_events.restored = true;
    m_noted.scene = m_session.sceneName();
    m_noted.count = m_world.size();
    noteEvents();
}

void Lab::setCompared(const TechniqueInfo& technique, bool compared) {
    m_compare.setPicked(technique, compared);
    m_refreshPending = m_paused;  // a new row gets its figures at once, even while paused
}

void Lab::compareTick(const BoxView& boxes, std::uint64_t tick) {
    const auto mismatches = m_compare.run(boxes, m_world.broadPhaseSettings(), tick);
    // The verdict's "why": what the compared frames are made of (a refresh shows a tick again).
    if (!m_compare.empty() && tick != m_profiledTick) {
        m_profiler.addFrame(boxes);
        m_profiledTick = tick;
    }
    if (mismatches.empty() || m_alarm) return;
    // Stop where it went wrong, so the pair can be looked at.
    m_alarm = CompareAlarm{mismatches.front().first->technique->id, mismatches.front().second};
    m_paused = true;
    m_clock.cancelUiTurn();
}

void Lab::setTechnique(const TechniqueInfo& technique) { setTechnique(indexOf(technique)); }

void Lab::collectMisses() {
    const std::uint64_t tick = m_world.tickCount();
    if (tick == m_missesCollectedTick) return;
    m_missesCollectedTick = tick;
    const std::span<const MissedPair> missed = m_world.missedPairs();
    m_missedTotal += missed.size();
    for (const MissedPair& m : missed) m_missMarks.push_back({m.where, tick});
    const auto live = std::find_if(m_missMarks.begin(), m_missMarks.end(),
                                   [&](const MissMark& m) { return m.tick + kMissMarkTicks > tick; });
    m_missMarks.erase(m_missMarks.begin(), live);
}

void Lab::forgetMisses() {
    m_missedTotal = 0;
    m_missMarks.clear();
    m_missesCollectedTick = m_world.tickCount();  // the last tick's list is the old scene's
}

void Lab::resetMeasurements() {
    m_compare.resetHistory();
    m_profiler = SceneProfiler{};
    m_profiledTick = ~std::uint64_t{0};
}

void Lab::loadTrace(const std::string& path) {
    // Checked through first: a bad trace leaves the running scene as it was.
    if (m_recorder.recording()) throw std::invalid_argument("stop recording before playing a trace");
    auto trace = std::make_unique<TracePlayback>(path);
    m_recorder.stopReplay();
    WorldConfig config = m_world.config();
    config.gravity = false;
    config.response = ContactResponse::None;
    config.subSteps = 1;
    config.countMissed = false;
    config.sweptBoxes = false;
    config.timeOfImpact = false;
    config.bounds = trace->extent();
    m_world.setConfig(config);  // checked before the scene goes
    m_world.removeBatch(std::vector<EntityId>(m_world.ids().begin(), m_world.ids().end()));
    m_session.setScenario(nullptr);
    // A technique with a limit (brute force) would take minutes a frame past it.
    if (m_session.technique().maxEntities != 0 && trace->mostBoxes() > m_session.technique().maxEntities) {
        const std::string_view was = m_session.technique().id;
        setTechnique(*findTechnique("grid"));
        m_notice = fmt::format("the trace's frames hold up to {} boxes, too many for {}: the grid runs instead",
                               trace->mostBoxes(), was);
        ++m_noticesGiven;
    }
    m_session.setTrace(std::move(trace));
    m_session.trace()->show(m_world, 0);
    m_alarm.reset();
    resetMeasurements();
    forgetMisses();
    populationChanged();
    m_world.refreshPairs();
    m_events.scene = true;  // another trace is another scene, under the same name
    noteEvents();
}

void Lab::seekTrace(std::uint64_t index) {
    TracePlayback* trace = m_session.trace();
    if (!trace) return;
    trace->show(m_world, index);
    trace->owed = 0.0;
    m_refreshTimes = World::RefreshTimes::Measure;
    m_refreshPending = true;
}

void Lab::setTraceLoop(bool loop) {
    if (TracePlayback* trace = m_session.trace()) trace->loop = loop;
}

void Lab::setTraceSpeed(float speed) {
    if (TracePlayback* trace = m_session.trace())
        trace->speed = std::clamp(speed, TracePlayback::kMinSpeed, TracePlayback::kMaxSpeed);
}

void Lab::endTrace() {
    if (m_session.trace()) m_session.setSceneOrigin(LabSession::SceneOrigin::Edited);  // its last frame stays as the scene
    m_session.endTrace();
}

int Lab::playTrace(bool single) {
    TracePlayback& trace = *m_session.trace();
    // Whole frames due: speed frames per tick, a fraction owed to the next ticks.
    int due = 1;
    if (!single) {
        trace.owed += trace.speed;
        due = static_cast<int>(trace.owed);
        trace.owed -= due;
    }
    int ticks = 0;
    for (; ticks < due; ++ticks) {
        std::uint64_t next = trace.frame() + 1;
        if (next >= trace.frames()) {
            if (!trace.loop) {
                // The end: it stays on the last frame, paused, until played again from the start.
                m_paused = true;
                m_refreshPending = true;
                break;
            }
            next = 0;
        }
        trace.show(m_world, next);
        m_world.tick();
    }
    return ticks;
}

void Lab::togglePause() {
    m_paused = !m_paused;
    if (!m_paused) m_alarm.reset();
    // Played again at the end of a trace that does not loop: from its start.
    const TracePlayback* trace = m_session.trace();
    if (!m_paused && trace && !trace->loop && trace->frame() + 1 >= trace->frames()) seekTrace(0);
    m_clock.cancelUiTurn();
    // A tick finds pairs before its response moves the entities: once paused, the pairs are
    // found again on the positions on screen.
    if (m_paused) m_refreshPending = true;
}

void Lab::setWorldConfig(const WorldConfig& config) {
    m_world.setConfig(config);
    refreshIfPaused();
}

void Lab::refreshIfChanged() {
    if (m_refreshPending) {
        m_world.refreshPairs(m_refreshTimes);
        m_addedOverlaps = 0;
    }
    m_refreshPending = false;
    m_refreshTimes = World::RefreshTimes::KeepTheTicks;
}

void Lab::stepTechnique(int direction) {
    const std::size_t count = techniques().size();
    const std::size_t stride = direction >= 0 ? 1 : count - 1;  // -1, modulo the count
    for (std::size_t k = 1; k <= count; ++k) {
        const std::size_t index = (m_session.techniqueIndex() + k * stride) % count;
        const TechniqueInfo& next = techniques()[index];
        if (next.maxEntities == 0 || m_world.size() <= next.maxEntities) {
            apply(Command::useTechnique(next));  // recorded as the technique it reached
            return;
        }
    }
}

void Lab::setParameter(std::string_view key, double value) {
    if (key == kCellSizeParameter.key) m_session.setAutoCellSize(false);
    Settings settings = m_world.broadPhaseSettings();
    settings.set(key, value);
    applySettings(settings);
}

void Lab::useAutoCellSize() {
    fitCellSizeToPopulation();
}

void Lab::fitCellSizeToPopulation() {
    m_session.setAutoCellSize(true);
    Settings settings = m_world.broadPhaseSettings();
    settings.set(kCellSizeParameter.key, LabSession::fittedCellSize(m_world));
    applySettings(settings);
}

void Lab::refitUnfitCellSize() {
    const std::optional<double> cell = m_world.broadPhaseSettings().find(kCellSizeParameter.key);
    if (m_session.autoCellSize() || !cell || !findParameter(m_session.technique().parameters, kCellSizeParameter.key) || m_world.size() == 0)
        return;
    float smallest = std::numeric_limits<float>::max();
    for (std::uint32_t i = 0; i < m_world.size(); ++i)
        smallest = std::min({smallest, m_world.halfW()[i], m_world.halfH()[i]});
    const double smallestSide = 2.0 * smallest, largestSide = 2.0 * m_world.largestHalfExtent();
    if (*cell * LabSession::kUnfitCellRatio >= smallestSide && *cell <= LabSession::kUnfitCellRatio * largestSide) return;
    const double was = *cell;
    fitCellSizeToPopulation();
    addNotice(fmt::format("cell size {:.3g} set by hand no longer fits boxes of {:.3g} to {:.3g}: Auto gives {:.3g} "
                          "(set it by hand again to keep another)",
                          was, smallestSide, largestSide, *m_world.broadPhaseSettings().find(kCellSizeParameter.key)));
}

void Lab::refitUnfitBucketCount() {
    const ParameterSpec& spec = SpatialHash::kTableSizeParameter;
    const std::optional<double> buckets = m_world.broadPhaseSettings().find(spec.key);
    if (!buckets || *buckets == 0.0 || !findParameter(m_session.technique().parameters, spec.key)) return;
    if (static_cast<double>(m_world.size()) <= LabSession::kUnfitBucketRatio * *buckets) return;
    Settings settings = m_world.broadPhaseSettings();
    settings.set(spec.key, 0.0);
    applySettings(settings);
    addNotice(fmt::format("{:.0f} buckets set by hand no longer fit {} entities: Auto gives {} "
                          "(set it by hand again to keep another)",
                          *buckets, m_world.size(), SpatialHash::tableSizeFor(0, m_world.size())));
}

void Lab::addNotice(const std::string& line) {
    // Beside a notice of the same change (the sizes fitted to a count), not over it.
    m_notice += (m_notice.empty() ? "" : "; ") + line;
    ++m_noticesGiven;
}

void Lab::applySettings(Settings settings) {
    // Reconfiguring rebuilds the technique's tables: skip it when nothing changed (auto mode
    // calls this on every spawned entity).
    if (settings == m_world.broadPhaseSettings()) return;
    m_world.setBroadPhaseSettings(settings);
    refreshIfPaused();
}

void Lab::loadScenario(const ScenarioInfo* scenario) {
    m_session.endTrace();
    const std::uint32_t count = m_world.size();
    m_session.setScenario(scenario);
    m_session.setSceneOrigin(LabSession::SceneOrigin::Preset);
    m_notice.clear();
    forgetMisses();
    m_world.setConfig(LabSession::presetConfig(m_world.config(), scenario));
    if (scenario) {
        makeScenarioScene(std::min(count, scenario->maxCount));
    } else {
        m_session.setSizeRange(defaultSizeRange(std::max(count, kSparseCount), m_world.config().bounds));
        m_session.resizeMix(m_world, 0);
        m_session.resizeMix(m_world, count);
    }
    populationChanged();
}

void Lab::makeScenarioScene(std::uint32_t count) {
    m_session.setSceneOrigin(LabSession::SceneOrigin::Preset);
    m_session.setSizeRange(LabSession::kScenarioSizes);
    resetMeasurements();  // the figures describe the scene on screen
    forgetMisses();
    m_session.makeScenarioScene(m_world, count);
}

void Lab::beforeTick(World& world) {
    collectMisses();  // the tick about to run clears the last one's
    m_session.rain(world);
    if (m_tickListener) m_tickListener(world);
}

void Lab::setLayers(std::uint32_t layers) {
    m_session.setLayers(layers);
    if (m_session.scenario() && m_session.scenario()->kind == ScenarioKind::Layers) {
        makeScenarioScene(m_world.size());
        populationChanged();
    }
}

void Lab::setMovingFraction(float fraction) {
    m_session.setMovingFraction(fraction);
    if (m_session.scenario() && m_session.scenario()->kind == ScenarioKind::Static) {
        makeScenarioScene(m_world.size());
        populationChanged();
    }
}

void Lab::setEntityCount(std::uint32_t count) {
    m_session.endTrace();
    m_session.setSceneOrigin(LabSession::SceneOrigin::Preset);
    if (m_session.scenario()) {
        makeScenarioScene(std::min(count, m_session.scenario()->maxCount));
        populationChanged();
        return;
    }
    // Mean area of an entity of the current sizes (a box's sides average 2 x the mean half).
    const double meanSide = static_cast<double>(m_session.sizeRange().minHalf) + static_cast<double>(m_session.sizeRange().maxHalf);
    const double coverage = static_cast<double>(count) * meanSide * meanSide /
                            (static_cast<double>(m_world.config().bounds.width()) * m_world.config().bounds.height());
    m_notice.clear();
    if (coverage > kMaxCoverage || coverage < kMinCoverage) {
        m_notice = coverage > kMaxCoverage
                       ? fmt::format("sizes fitted to {} entities: the old ones would cover the world {:.1f} times", count,
                                     coverage)
                       : fmt::format("sizes fitted to {} entities: the old ones would cover {:.2g}% of the world", count,
                                     100.0 * coverage);
        ++m_noticesGiven;
        m_session.setSizeRange(defaultSizeRange(std::max(count, kSparseCount), m_world.config().bounds));
        m_session.resizeMix(m_world, 0);
    }
    m_session.resizeMix(m_world, count);
    resetMeasurements();  // medians of 100 entities' ticks do not describe a million's
    forgetMisses();
    populationChanged();
}

void Lab::setSizeRange(const SizeRange& sizes) {
    m_session.setSizeRange(sizes);
}

void Lab::fitSizesToCount() {
    m_session.endTrace();
    m_session.setSizeRange(defaultSizeRange(std::max(m_world.size(), kSparseCount), m_world.config().bounds));
    respawnPopulation();
}

void Lab::respawn() {
    m_session.endTrace();
    respawnPopulation();
}

void Lab::respawnPopulation() {
    const std::uint32_t count = m_world.size();
    m_session.setSceneOrigin(LabSession::SceneOrigin::Preset);
    forgetMisses();
    if (m_session.scenario()) {
        m_session.nextSeed();
        makeScenarioScene(count);
        populationChanged();
        return;
    }
    m_session.resizeMix(m_world, 0);
    m_session.resizeMix(m_world, count);
    populationChanged();
}

void Lab::spawnAt(Vec2 p) {
    const Aabb& bounds = m_world.config().bounds;
    EntityDesc desc = m_session.randomEntity(bounds);
    // Keep the whole entity inside the walls, so a click at the edge still lands where it was made.
    desc.position.x = std::clamp(p.x, bounds.minX + desc.halfExtents.x, bounds.maxX - desc.halfExtents.x);
    desc.position.y = std::clamp(p.y, bounds.minY + desc.halfExtents.y, bounds.maxY - desc.halfExtents.y);
    const Aabb box{desc.position.x - desc.halfExtents.x, desc.position.y - desc.halfExtents.y,
                   desc.position.x + desc.halfExtents.x, desc.position.y + desc.halfExtents.y};
    const std::uint64_t added = overlapsWith(m_world.boxes(), box);
    if (m_world.lastStats().overlaps + m_addedOverlaps + added > kMostOverlappingPairs) {
        m_notice = fmt::format("not added: the scene would hold more than {} overlapping pairs", kMostOverlappingPairs);
        ++m_noticesGiven;
        return;
    }
    m_world.add(desc);
    m_addedOverlaps += added;
    m_session.setSceneOrigin(LabSession::SceneOrigin::Edited);
    populationChanged();
}

bool Lab::removeAt(Vec2 p) {
    const auto id = m_world.entityAt(p);
    if (!id) return false;
    m_world.remove(*id);
    m_session.setSceneOrigin(LabSession::SceneOrigin::Edited);
    populationChanged();
    return true;
}

void Lab::populationChanged() {
    m_lastStepAllocations = 0;
    m_clock.forgetPace();
    if (m_paused) m_refreshTimes = World::RefreshTimes::Measure;  // the last tick's scene is gone
    // A preset brings its own walls: the technique's region follows them, or a grid sized for
    // the old ones would clamp every box beyond them into its edge cells.
    if (m_world.broadPhaseSettings().bounds != m_world.config().bounds) {
        Settings settings = m_world.broadPhaseSettings();
        settings.bounds = m_world.config().bounds;
        applySettings(settings);
    }
    if (m_session.autoCellSize()) fitCellSizeToPopulation();
    refitUnfitCellSize();
    refitUnfitBucketCount();
    refreshIfPaused();
}

void Lab::update(double realSeconds, bool virtualClock) {
    const double dt = 1.0 / m_world.config().tickHz;
    const double uiSeconds = m_clock.beginFrame(realSeconds);
    refreshIfChanged();
    if (m_paused && !m_stepRequested) return;
    const std::uint64_t before = heapAllocationCount();
    const double start = m_clock.now();
    int ticks = 1;
    if (m_session.trace()) {
        try {
            ticks = playTrace(m_paused);
        } catch (const TraceError& error) {  // the file changed on disk since it was checked
            m_notice = fmt::format("trace stopped: {}", error.what());
            ++m_noticesGiven;
            endTrace();
            ticks = 0;
        }
    } else if (m_recorder.replay() && !m_recorder.replay()->finished) {
        // A replay runs tick by tick: the recorded inputs go in before the tick they came at.
        m_world.tick();
        applyDueInputs();
    } else if (m_paused || virtualClock) {
        m_world.tick();
    } else if (m_clock.uiTurn()) {
        // The UI's turn after a slow tick: this frame's time is dropped.
        m_clock.takeUiTurn(uiSeconds);
        ticks = 0;
    } else {
        ticks = m_world.advance(realSeconds, kTickBudgetSeconds);
    }
    m_stepRequested = false;
    collectMisses();
    if (ticks > 0) {
        m_addedOverlaps = 0;  // the ticks listed them
        m_clock.ticksRan(m_clock.now() - start);
        m_lastStepAllocations = heapAllocationCount() - before;
    }
    // A single step while paused: the pairs of the positions it left, as when pausing.
    if (m_paused && ticks > 0) m_world.refreshPairs(World::RefreshTimes::KeepTheTicks);
    // Entities that crowd together while running (gravity with no response piles them on the
    // floor) would make each step list more pairs until memory runs out: stop at the limit.
    if (!m_paused && ticks > 0 && m_world.lastStats().overlaps > kMostOverlappingPairs) {
        togglePause();
        m_notice = fmt::format("paused: {} pairs overlap, more than the {} a scene may hold",
                               m_world.lastStats().overlaps, kMostOverlappingPairs);
        ++m_noticesGiven;
    }
    if (!m_paused && !virtualClock) {
        m_clock.addPace(realSeconds * m_world.config().speed, ticks * dt);
    }
    noteEvents();  // the rain's count, a trace that ended, a notice
}

}  // namespace ro::app

#include "app/lab_session.h"

#include "world/load_scene.h"

namespace ro::app {

LabSession::LabSession(const TechniqueInfo& technique, const ScenarioInfo* scenario, std::uint64_t seed,
                       const SizeRange& sizes)
    : m_rng(seed),
      m_sizes(sizes),
      m_scenario(scenario),
      m_sceneSeed(seed),
      m_technique(static_cast<std::size_t>(&technique - techniques().data())) {}

const TechniqueInfo& LabSession::technique() const { return techniques()[m_technique]; }

void LabSession::setTechnique(std::size_t index) { m_technique = index % techniques().size(); }

double LabSession::fittedCellSize(const World& world) { return ro::autoCellSize(world.boxes()); }

double LabSession::predictedOperations(const World& world, const TechniqueInfo& t, std::uint32_t count, double cell) {
    const double n = count;
    if (t.id == "brute") return n * (n - 1.0) / 2.0;
    if (!findParameter(t.parameters, kCellSizeParameter.key) || cell <= 0.0 || world.size() == 0) return 0.0;
    double sides = 0.0;
    for (std::uint32_t i = 0; i < world.size(); ++i) sides += world.halfW()[i] + world.halfH()[i];
    const double side = sides / world.size();  // mean of 2 x half over both axes
    const Aabb& walls = world.config().bounds;
    const double density = n / (static_cast<double>(walls.width()) * walls.height());
    const double cellsPerBox = (side / cell + 1.0) * (side / cell + 1.0);
    const double boxesPerCell = density * (side + cell) * (side + cell);
    return n * cellsPerBox * (1.0 + boxesPerCell / 2.0);
}

void LabSession::remember(UndoSettings before, const std::string& changed) {
    if (!changed.empty() && changed == m_lastSettingChanged && !m_undo.empty()) return;
    m_lastSettingChanged = changed;
    if (m_undo.size() == kUndoDepth) m_undo.erase(m_undo.begin());
    m_undo.push_back(std::move(before));
}

std::optional<LabSession::UndoSettings> LabSession::takeUndo() {
    if (m_undo.empty()) return std::nullopt;
    UndoSettings was = std::move(m_undo.back());
    m_undo.pop_back();
    m_lastSettingChanged.clear();
    return was;
}

std::string_view LabSession::sceneName() const {
    if (m_trace) return "trace";  // one word: the counters line is words; the HUD names the file
    return m_scenario ? m_scenario->name : std::string_view("random");
}

WorldConfig LabSession::presetConfig(WorldConfig config, const ScenarioInfo* scenario) {
    config.gravity = false;
    config.response = scenario ? ContactResponse::None : WorldConfig{}.response;
    // Bullets come with the missed-collision count on, and the cures off: the misses show first.
    const bool bullets = scenario && scenario->kind == ScenarioKind::Bullets;
    config.countMissed = bullets;
    config.sweptBoxes = false;
    config.timeOfImpact = false;
    if (!scenario) config.bounds = WorldConfig{}.bounds;
    return config;
}

void LabSession::makeScenarioScene(World& world, std::uint32_t count) {
    Scene scene(m_scenario->kind, count, Motion::Steady, m_sceneSeed);
    scene.setMovingFraction(m_movingFraction);
    if (m_scenario->kind == ScenarioKind::Layers) scene.setLayers(m_layers);
    loadScene(world, scene);
}

void LabSession::resizeMix(World& world, std::uint32_t count) { resizePopulation(world, m_rng, count, m_sizes); }

EntityDesc LabSession::randomEntity(const Aabb& bounds) { return ro::randomEntity(m_rng, bounds, m_sizes); }

void LabSession::rain(World& world) {
    if (!m_scenario || m_scenario->kind != ScenarioKind::Rain) return;
    // As ro_bench's rain: a drop the bottom wall turned back (moving up) goes, and as many
    // new ones fall from the top, in one batch each way.
    m_rainGone.clear();
    for (std::uint32_t i = 0; i < world.size(); ++i)
        if (world.posY()[i] - world.prevY()[i] < 0.0f && !world.isStatic()[i]) m_rainGone.push_back(world.ids()[i]);
    world.removeBatch(m_rainGone);
    const Aabb& bounds = world.config().bounds;
    const float fall = 0.01f * bounds.height();
    m_rainNew.clear();
    for (std::size_t k = 0; k < m_rainGone.size(); ++k) {
        const float half = m_rng.range(kScenarioSizes.minHalf, kScenarioSizes.maxHalf);  // side 0.8-1.2
        EntityDesc d;
        d.halfExtents = {half, half};
        d.position = {m_rng.range(bounds.minX + half, bounds.maxX - half), bounds.minY + half};
        d.velocity = {fall * m_rng.range(-0.05f, 0.05f), fall * m_rng.range(0.8f, 1.2f)};
        m_rainNew.push_back(d);
    }
    world.addBatch(m_rainNew);
}

void LabSession::capture(LabState& state) const {
    state.technique = std::string(technique().id);
    state.autoCellSize = m_autoCellSize;
    state.preset = m_trace ? "random" : std::string(sceneName());  // a trace's frame is saved as plain entities
    state.sceneSeed = m_sceneSeed;
    state.movingFraction = m_movingFraction;
    state.layers = m_layers;
    state.rngState = m_rng.state();
    state.sizes = m_sizes;
}

void LabSession::restore(const LabState& state, const TechniqueInfo& technique, const ScenarioInfo* scenario) {
    m_technique = static_cast<std::size_t>(&technique - techniques().data());
    m_autoCellSize = state.autoCellSize;
    m_scenario = scenario;
    m_origin = SceneOrigin::Loaded;
    m_sceneSeed = state.sceneSeed;
    m_movingFraction = state.movingFraction;
    m_layers = state.layers;
    m_rng = Rng(state.rngState);
    m_sizes = state.sizes;
    m_trace.reset();
    m_undo.clear();  // the settings undone to would be another scene's
}

}  // namespace ro::app

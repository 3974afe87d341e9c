#include "app/lab.h"

#include <algorithm>

#include "core/alloc_counter.h"

namespace ro::app {
namespace {

std::size_t indexOf(const TechniqueInfo& technique) {
    return static_cast<std::size_t>(&technique - techniques().data());
}

constexpr std::uint32_t kSparseCount = 100;

}  // namespace

Lab::Lab(const TechniqueInfo& technique, std::uint32_t entities, std::uint64_t seed, std::optional<float> cellSize,
         std::optional<SizeRange> sizes)
    : m_rng(seed),
      // An empty world gets the sizes of a sparse one, so clicked entities look sensible.
      m_sizes(sizes.value_or(defaultSizeRange(std::max(entities, kSparseCount), m_world.config().bounds))),
      m_technique(indexOf(technique)) {
    m_world.setBroadPhase(technique.create());
    resizePopulation(m_world, m_rng, entities, m_sizes);
    if (cellSize) setCellSize(*cellSize);
    else useAutoCellSize();
    m_world.refreshPairs();  // a lab started paused shows its pairs before the first tick
}

const TechniqueInfo& Lab::technique() const { return techniques()[m_technique]; }

void Lab::setTechnique(std::size_t index) {
    m_technique = index % techniques().size();
    m_world.setBroadPhase(technique().create());
    // The HUD's pairs become the new technique's at once, even while paused.
    m_world.refreshPairs();
}

void Lab::nextTechnique() { setTechnique(m_technique + 1); }

void Lab::setCellSize(float cellSize) {
    m_autoCellSize = false;
    Settings settings = m_world.broadPhaseSettings();
    settings.cellSize = cellSize;
    applySettings(settings);
}

void Lab::useAutoCellSize() {
    m_autoCellSize = true;
    Settings settings = m_world.broadPhaseSettings();
    // One cell per largest entity: every box then spans at most 2 x 2 cells.
    settings.cellSize = std::max(2.0f * m_world.largestHalfExtent(), kMinAutoCellSize);
    applySettings(settings);
}

void Lab::setHashTableSize(std::uint32_t buckets) {
    Settings settings = m_world.broadPhaseSettings();
    settings.hashTableSize = buckets;
    applySettings(settings);
}

void Lab::setSettings(const Settings& settings) {
    Settings next = settings;
    if (m_autoCellSize) next.cellSize = m_world.broadPhaseSettings().cellSize;
    applySettings(next);
}

void Lab::applySettings(Settings settings) {
    // Reconfiguring rebuilds the technique's tables: skip it when nothing changed (auto mode
    // calls this on every spawned entity).
    if (settings == m_world.broadPhaseSettings()) return;
    m_world.setBroadPhaseSettings(settings);
}

void Lab::setEntityCount(std::uint32_t count) {
    resizePopulation(m_world, m_rng, count, m_sizes);
    populationChanged();
}

void Lab::fitSizesToCount() {
    m_sizes = defaultSizeRange(std::max(m_world.size(), kSparseCount), m_world.config().bounds);
    respawn();
}

void Lab::respawn() {
    const std::uint32_t count = m_world.size();
    resizePopulation(m_world, m_rng, 0, m_sizes);
    resizePopulation(m_world, m_rng, count, m_sizes);
    populationChanged();
}

void Lab::spawnAt(Vec2 p) {
    const Aabb& bounds = m_world.config().bounds;
    EntityDesc desc = randomEntity(m_rng, bounds, m_sizes);
    // Keep the whole entity inside the walls, so a click at the edge still lands where it was made.
    desc.position.x = std::clamp(p.x, bounds.minX + desc.halfExtents.x, bounds.maxX - desc.halfExtents.x);
    desc.position.y = std::clamp(p.y, bounds.minY + desc.halfExtents.y, bounds.maxY - desc.halfExtents.y);
    m_world.add(desc);
    populationChanged();
}

bool Lab::removeAt(Vec2 p) {
    const auto id = m_world.entityAt(p);
    if (!id) return false;
    m_world.remove(*id);
    populationChanged();
    return true;
}

void Lab::populationChanged() {
    if (m_autoCellSize) useAutoCellSize();
}

void Lab::update(double realSeconds, bool virtualClock) {
    if (m_paused && !m_stepRequested) return;
    const std::uint64_t before = heapAllocationCount();
    int ticks = 1;
    if (m_paused || virtualClock) m_world.tick();
    else ticks = m_world.advance(realSeconds);
    m_stepRequested = false;
    if (ticks > 0) m_lastStepAllocations = heapAllocationCount() - before;
}

}  // namespace ro::app

#include "app/sweeps.h"

#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <new>

#include "scenario/snapshot_scene.h"

namespace ro::app {
namespace {

/// A parameter is swept at the world's count up to this many entities: the ends of a range
/// (a cell the size of the world, a quadtree of depth 1) make nearly every pair a test, and
/// 20,000 entities keep even that near a second a frame (a million would take hours).
constexpr std::uint32_t kMaxParameterSweepCount = 20'000;
/// A point whose frame took longer is measured on the frames so far: a sweep to a million
/// entities then takes a minute, not five.
constexpr double kSlowFrameSeconds = 0.1;

/// A technique with a limit (brute force) is swept to half of it: a point near the limit
/// takes half a second a frame.
bool tooManyToSweep(const TechniqueInfo& t, std::uint32_t n) { return t.maxEntities != 0 && n > t.maxEntities / 2; }

std::atomic<int> g_workersRunning{0};

/// The world's entities as they stand, for a worker to tile: it never reads the live world.
std::shared_ptr<const Snapshot> snapshotOf(const World& world) {
    auto snapshot = std::make_shared<Snapshot>();
    snapshot->boxes.reserve(world.size());
    Aabb walls = world.config().bounds;  // the boxes bounce off them; a box past them widens them
    for (std::uint32_t i = 0; i < world.size(); ++i) {
        Snapshot::Box b;
        b.centreX = world.posX()[i], b.centreY = world.posY()[i];
        b.halfW = world.halfW()[i], b.halfH = world.halfH()[i];
        b.isStatic = world.isStatic()[i] != 0;
        if (!b.isStatic) b.velocityX = world.posX()[i] - world.prevX()[i], b.velocityY = world.posY()[i] - world.prevY()[i];
        b.category = world.category()[i], b.mask = world.mask()[i];
        walls = {std::min(walls.minX, b.centreX - b.halfW), std::min(walls.minY, b.centreY - b.halfH),
                 std::max(walls.maxX, b.centreX + b.halfW), std::max(walls.maxY, b.centreY + b.halfH)};
        snapshot->boxes.push_back(b);
    }
    snapshot->walls = walls;
    snapshot->cellSize = autoCellSize(world.boxes());  // as Auto fits the lab's cell
    return snapshot;
}

/// A name fit for a CSV field: a file's name may hold a comma.
std::string csvField(std::string_view name) {
    std::string field(name);
    for (char& c : field)
        if (c == ',' || c == '"' || c == '\n' || c == '\r') c = '_';
    return field;
}

}  // namespace

struct SweepJob::Shared {
    std::vector<Planned> plan;  ///< the worker's own copy
    const ScenarioInfo* scenario = nullptr;  ///< a preset's scene, when makeScene is empty
    std::uint64_t seed = 1;
    SweepSceneMaker makeScene;  ///< a trace's or a snapshot's scenes: the worker's own
    std::string sceneName;      ///< what the worker's points name (poll names them after the job's)
    std::atomic<bool> cancel{false};
    std::mutex mutex;  ///< guards what follows
    std::vector<SweepPoint> measured;
    const char* failure = nullptr;  ///< why the worker stopped early, if it did
    bool finished = false;
};

namespace {

/// The worker: each planned point in turn, until the end or a cancel. It touches nothing but
/// its shared state and the registry's and the scenarios' static tables.
void measure(const std::shared_ptr<SweepJob::Shared>& shared) {
    SweepJob::Shared& s = *shared;
    const char* failure = nullptr;  // set without allocating: the failure may be the lack of memory
    try {
        for (const SweepJob::Planned& p : s.plan) {
            if (s.cancel) break;
            PointRun run = s.makeScene ? PointRun(*p.technique, p.settings, p.fitCell, s.sceneName, s.makeScene, p.n,
                                                  p.parameter, p.value, kSlowFrameSeconds)
                                         : PointRun(*p.technique, p.settings, p.fitCell, *s.scenario, p.n, s.seed,
                                                    p.parameter, p.value, kSlowFrameSeconds);
            while (!s.cancel && !run.step()) {
            }
            if (s.cancel) break;
            const std::lock_guard lock(s.mutex);
            s.measured.push_back(run.result());
        }
    } catch (const std::bad_alloc&) {  // a million boxes where memory is short
        failure = "out of memory";
    } catch (...) {  // nothing may leave an enqueued task: oneTBB would end the process
        failure = "a point failed";
    }
    const std::lock_guard lock(s.mutex);
    if (failure) s.failure = failure;
    s.finished = true;
    g_workersRunning.fetch_sub(1);
}

}  // namespace

SweepJob::~SweepJob() { cancel(); }

int SweepJob::workersRunning() { return g_workersRunning.load(); }

std::vector<std::uint32_t> SweepJob::scalingCounts(std::uint32_t top) {
    return logSpacedCounts(kMinScalingCount, std::clamp(top, kMinScalingCount, kMaxScalingCount), 10);
}

SweepJob::Source SweepJob::sourceOf(const Lab& lab) {
    if (const TracePlayback* trace = lab.session().trace()) return {Source::Kind::Trace, trace->name(), trace->mostBoxes()};
    if (lab.session().sceneOrigin() != LabSession::SceneOrigin::Preset && lab.world().size() > 0)
        return {Source::Kind::Snapshot, lab.session().sceneOrigin() == LabSession::SceneOrigin::Loaded ? "loaded-scene" : "edited-scene",
                lab.world().size()};
    return {Source::Kind::Preset, lab.session().scenario() ? lab.session().scenario()->name : std::string_view("uniform"), 0};
}

void SweepJob::begin(Kind kind, const Lab& lab) {
    m_kind = kind;
    const Source source = sourceOf(lab);
    m_sourceKind = source.kind;
    m_sceneName = csvField(source.name);
    m_perCopy = source.perCopy;
    m_scenario = nullptr;
    m_makeScene = nullptr;
    m_mostCopies = 1;
    // Taken here, on the window's thread: the worker gets its own copies.
    if (source.kind == Source::Kind::Preset) {
        m_scenario = lab.session().scenario() ? lab.session().scenario() : findScenario("uniform");
    } else if (source.kind == Source::Kind::Trace) {
        const TraceExtent& extent = lab.session().trace()->tiling();
        m_makeScene = tiledTraceScenes(lab.session().trace()->path(), extent);
        m_fittedCell = extent.cellSize;
        m_mostCopies = mostTileCopies(extent);
    } else {
        std::shared_ptr<const Snapshot> snapshot = snapshotOf(lab.world());
        m_fittedCell = snapshot->cellSize;
        m_mostCopies = mostSnapshotCopies(m_perCopy);
        m_makeScene = snapshotScenes(std::move(snapshot));
    }
    m_seed = 1;
    m_parameter = nullptr;
    m_technique = nullptr;
    m_count = 0;
    m_autoValue.reset();
    m_plan.clear();
    m_points.clear();
    m_error.clear();
}

bool SweepJob::startScaling(const Lab& lab, std::uint32_t top) {
    if (m_running) return false;
    begin(Kind::Scaling, lab);
    std::vector<std::uint32_t> counts;
    if (m_perCopy == 0) {
        for (const std::uint32_t n : scalingCounts(top))
            if (n <= m_scenario->maxCount) counts.push_back(n);
    } else {
        // Whole copies, from one up to the top count: the log steps rounded to copies, once each.
        const std::uint32_t most = std::clamp(scalingCounts(top).back() / m_perCopy, 1u, m_mostCopies);
        counts.push_back(m_perCopy);
        for (const std::uint32_t n : scalingCounts(top)) {
            const auto copies = static_cast<std::uint32_t>(
                std::clamp(std::round(static_cast<double>(n) / m_perCopy), 1.0, static_cast<double>(most)));
            if (copies * m_perCopy > counts.back()) counts.push_back(copies * m_perCopy);
        }
    }
    m_count = counts.empty() ? 0 : counts.back();
    std::vector<const TechniqueInfo*> swept;
    for (const Compare::Row& row : lab.compare().rows()) swept.push_back(row.technique);
    if (swept.empty()) swept.push_back(&lab.session().technique());
    for (const TechniqueInfo* t : swept)
        for (const std::uint32_t n : counts)
            if (!tooManyToSweep(*t, n))
                m_plan.push_back({t, lab.world().broadPhaseSettings(), lab.session().autoCellSize(), n, "n", static_cast<double>(n)});
    launch();
    return true;
}

bool SweepJob::startParameter(const Lab& lab, const ParameterSpec& spec, int steps) {
    if (m_running) return false;
    begin(Kind::Parameter, lab);
    m_parameter = &spec;
    m_technique = &lab.session().technique();
    // A trace or snapshot is swept as it is: one copy.
    const std::uint32_t n =
        m_scenario ? std::min({std::max<std::uint32_t>(lab.world().size(), 100), m_scenario->maxCount, kMaxParameterSweepCount})
                   : m_perCopy;
    m_count = n;
    const bool cell = spec.key == kCellSizeParameter.key;
    if (cell) m_autoValue = m_scenario ? Scene(m_scenario->kind, n, Motion::Steady, m_seed).fittedCellSize() : m_fittedCell;
    for (const double v : sweepValues(spec, spec.offeredMin, spec.offeredMax, steps)) {
        Settings settings = lab.world().broadPhaseSettings();
        settings.set(spec.key, v);
        m_plan.push_back({&lab.session().technique(), settings, lab.session().autoCellSize() && !cell, n, spec.key, v});
    }
    launch();
    return true;
}

void SweepJob::launch() {
    m_shared = std::make_shared<Shared>();
    m_shared->plan = m_plan;
    m_shared->scenario = m_scenario;
    m_shared->seed = m_seed;
    m_shared->makeScene = std::move(m_makeScene);  // the worker owns it (and a snapshot in it) from here
    m_makeScene = nullptr;
    m_shared->sceneName = m_sceneName;
    m_running = true;
    g_workersRunning.fetch_add(1);
    // One arena for every sweep; enqueue runs the work on a oneTBB worker thread (oneTBB
    // makes one even on a single core) and never on the window's.
    static oneapi::tbb::task_arena arena;
    arena.enqueue([shared = m_shared] { measure(shared); });
}

void SweepJob::cancel() {
    if (m_shared) m_shared->cancel = true;
}

bool SweepJob::cancelling() const { return m_shared && m_shared->cancel; }

bool SweepJob::poll() {
    if (!m_shared) return false;
    // The mutex lives in the shared state: this reference keeps it alive past the reset below,
    // so the lock is released before the worker's last reference can free it.
    const std::shared_ptr<Shared> shared = m_shared;
    const std::lock_guard lock(shared->mutex);
    const std::vector<SweepPoint>& measured = shared->measured;
    const std::size_t taken = m_points.size();
    m_points.insert(m_points.end(), measured.begin() + static_cast<std::ptrdiff_t>(taken), measured.end());
    // Named after the job's own name: the worker's goes with it.
    for (std::size_t i = taken; i < m_points.size(); ++i) m_points[i].scenario = m_sceneName;
    if (!shared->finished) return true;
    if (shared->failure) m_error = shared->failure;
    m_running = false;
    // The plan shrinks to what was measured when the sweep was cancelled: progress ends full.
    if (shared->cancel) m_plan.erase(m_plan.begin() + static_cast<std::ptrdiff_t>(m_points.size()), m_plan.end());
    m_shared.reset();
    return false;
}

const SweepPoint* SweepJob::best() const {
    const auto it = std::min_element(m_points.begin(), m_points.end(),
                                     [](const SweepPoint& a, const SweepPoint& b) { return a.msMedian < b.msMedian; });
    return it == m_points.end() ? nullptr : &*it;
}

bool SweepJob::writeCsv(const std::string& path) const {
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (!file) return false;
    bool ok = std::fprintf(file, "%s\n", sweepCsvHeader().c_str()) >= 0;
    for (const SweepPoint& p : m_points) ok = ok && std::fprintf(file, "%s\n", sweepCsvRow(p).c_str()) >= 0;
    return std::fclose(file) == 0 && ok;
}

}  // namespace ro::app

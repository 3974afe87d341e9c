#include "app/sweeps.h"

#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <new>
#include <mutex>

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

}  // namespace

struct SweepJob::Shared {
    std::vector<Planned> plan;  ///< the worker's own copy
    const ScenarioInfo* scenario = nullptr;
    std::uint64_t seed = 1;
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
            PointRun run(*p.technique, p.settings, p.fitCell, *s.scenario, p.n, s.seed, p.parameter, p.value,
                         kSlowFrameSeconds);
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

void SweepJob::begin(Kind kind, const Lab& lab) {
    m_kind = kind;
    m_scenario = lab.scenario() ? lab.scenario() : findScenario("uniform");
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
    m_count = scalingCounts(top).back();
    std::vector<const TechniqueInfo*> swept;
    for (const Compare::Row& row : lab.compare().rows()) swept.push_back(row.technique);
    if (swept.empty()) swept.push_back(&lab.technique());
    for (const TechniqueInfo* t : swept)
        for (const std::uint32_t n : scalingCounts(top))
            if (!tooManyToSweep(*t, n) && n <= m_scenario->maxCount)
                m_plan.push_back({t, lab.world().broadPhaseSettings(), lab.autoCellSize(), n, "n", static_cast<double>(n)});
    launch();
    return true;
}

bool SweepJob::startParameter(const Lab& lab, const ParameterSpec& spec, int steps) {
    if (m_running) return false;
    begin(Kind::Parameter, lab);
    m_parameter = &spec;
    m_technique = &lab.technique();
    const std::uint32_t n =
        std::min({std::max<std::uint32_t>(lab.world().size(), 100), m_scenario->maxCount, kMaxParameterSweepCount});
    m_count = n;
    const bool cell = spec.key == kCellSizeParameter.key;
    if (cell) m_autoValue = Scene(m_scenario->kind, n, Motion::Steady, m_seed).fittedCellSize();
    for (const double v : sweepValues(spec, spec.offeredMin, spec.offeredMax, steps)) {
        Settings settings = lab.world().broadPhaseSettings();
        settings.set(spec.key, v);
        m_plan.push_back({&lab.technique(), settings, lab.autoCellSize() && !cell, n, spec.key, v});
    }
    launch();
    return true;
}

void SweepJob::launch() {
    m_shared = std::make_shared<Shared>();
    m_shared->plan = m_plan;
    m_shared->scenario = m_scenario;
    m_shared->seed = m_seed;
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
    m_points.insert(m_points.end(), measured.begin() + static_cast<std::ptrdiff_t>(m_points.size()), measured.end());
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

#include "app/sweeps.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace ro::app {
namespace {

/// A parameter is swept at the world's count up to this many entities: the ends of a range
/// (a cell the size of the world, a quadtree of depth 1) make nearly every pair a test, and
/// 20,000 entities keep even that under a second a frame.
constexpr std::uint32_t kMaxParameterSweepCount = 20'000;
/// A point whose frame took longer is measured on that one frame: the window waits once.
constexpr double kSlowFrameSeconds = 0.1;

/// A technique with a limit (brute force) is swept to half of it: a step near the limit would
/// hold the window for half a second.
bool tooManyToSweep(const TechniqueInfo& t, std::uint32_t n) { return t.maxEntities != 0 && n > t.maxEntities / 2; }

}  // namespace

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
    m_next = 0;
    m_run.reset();
    m_points.clear();
}

void SweepJob::startScaling(const Lab& lab, std::uint32_t top) {
    begin(Kind::Scaling, lab);
    m_count = scalingCounts(top).back();
    std::vector<const TechniqueInfo*> swept;
    for (const Compare::Row& row : lab.compare().rows()) swept.push_back(row.technique);
    if (swept.empty()) swept.push_back(&lab.technique());
    for (const TechniqueInfo* t : swept)
        for (const std::uint32_t n : scalingCounts(top))
            if (!tooManyToSweep(*t, n) && n <= m_scenario->maxCount)
                m_plan.push_back({t, lab.world().broadPhaseSettings(), lab.autoCellSize(), n, "n", static_cast<double>(n)});
}

void SweepJob::startParameter(const Lab& lab, const ParameterSpec& spec, int steps) {
    begin(Kind::Parameter, lab);
    m_parameter = &spec;
    m_technique = &lab.technique();
    const std::uint32_t n =
        std::min({std::max<std::uint32_t>(lab.world().size(), 100), m_scenario->maxCount, kMaxParameterSweepCount});
    m_count = n;
    const bool cell = spec.key == kCellSizeParameter.key;
    if (cell) m_autoValue = Scene(m_scenario->kind, std::min(n, m_scenario->maxCount), Motion::Steady, m_seed).fittedCellSize();
    for (const double v : sweepValues(spec, spec.offeredMin, spec.offeredMax, steps)) {
        Settings settings = lab.world().broadPhaseSettings();
        settings.set(spec.key, v);
        m_plan.push_back({&lab.technique(), settings, lab.autoCellSize() && !cell, n, spec.key, v});
    }
}

bool SweepJob::step(double budgetSeconds) {
    if (!running()) return false;
    const auto start = std::chrono::steady_clock::now();
    do {
        if (!m_run) {
            const Planned& p = m_plan[m_next++];
            m_run.emplace(*p.technique, p.settings, p.fitCell, *m_scenario, p.n, m_seed, p.parameter, p.value,
                          kSlowFrameSeconds);
        }
        if (m_run->step()) {
            m_points.push_back(m_run->result());
            m_run.reset();
        }
    } while (running() && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < budgetSeconds);
    return true;
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

#include "scenario/sweeps.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace ro {

namespace {

/// A scenario's scene, moving steadily.
class ScenarioScene final : public SweepScene {
public:
    ScenarioScene(ScenarioKind kind, std::uint32_t n, std::uint64_t seed) : m_scene(kind, n, Motion::Steady, seed) {}
    void advance() override { m_scene.advance(); }
    [[nodiscard]] BoxView boxes() const override { return m_scene.boxes(); }
    [[nodiscard]] Aabb bounds() const override { return m_scene.bounds(); }
    [[nodiscard]] float fittedCellSize() const override { return m_scene.fittedCellSize(); }

private:
    Scene m_scene;
};

}  // namespace

PointRun::PointRun(const TechniqueInfo& technique, Settings settings, bool fitCell, const ScenarioInfo& scenario,
                   std::uint32_t n, std::uint64_t seed, std::string_view parameter, double value,
                   double slowFrameSeconds)
    : PointRun(technique, std::move(settings), fitCell, scenario.name,
               [kind = scenario.kind, seed](std::uint32_t count) { return std::make_unique<ScenarioScene>(kind, count, seed); },
               std::min(n, scenario.maxCount), parameter, value, slowFrameSeconds) {}

PointRun::PointRun(const TechniqueInfo& technique, Settings settings, bool fitCell, std::string_view sceneName,
                   SweepSceneMaker makeScene, std::uint32_t n, std::string_view parameter, double value,
                   double slowFrameSeconds)
    : m_technique(technique),
      m_settings(std::move(settings)),
      m_fitCell(fitCell),
      m_makeScene(std::move(makeScene)),
      m_n(n),
      m_slowFrameSeconds(slowFrameSeconds) {
    m_point.scenario = sceneName;
    m_point.technique = technique.id;
    m_point.parameter = parameter;
    m_point.value = value;
    m_point.n = m_n;
    m_times.reserve(kSweepFrames);
}

bool PointRun::step() {
    if (done()) return true;
    using Clock = std::chrono::steady_clock;
    if (!m_scene) {
        // The first step builds: the scene, the technique and its structure (not timed).
        m_scene = m_makeScene(m_n);
        // The scene's own region: a bounded technique (the grid) clamps what lies outside the
        // region it is given to its edge, and a scene grows with its count.
        m_settings.bounds = m_scene->bounds();
        if (m_fitCell) m_settings.set(kCellSizeParameter.key, std::max(0.05f, m_scene->fittedCellSize()));
        m_instance = m_technique.create();
        m_instance->configure(m_settings);
        m_instance->update(m_scene->boxes());
        m_instance->findPairs(m_pairs);
        return false;
    }
    m_scene->advance();
    const auto start = Clock::now();
    m_instance->update(m_scene->boxes());
    m_instance->findPairs(m_pairs);
    m_times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (!done()) return false;
    std::vector<double> sorted = m_times;
    std::sort(sorted.begin(), sorted.end());
    m_point.msMedian = sorted[sorted.size() / 2];
    const Counters c = m_instance->counters();
    m_point.candidates = c.candidatePairs;
    m_point.pairTests = c.pairTests;
    m_point.bytes = c.bytesHeld;
    // The scene and the structure can be large (a million boxes): free them now.
    m_scene.reset();
    m_instance.reset();
    m_pairs = {};
    return true;
}

SweepPoint PointRun::result() const { return m_point; }

std::vector<std::uint32_t> logSpacedCounts(std::uint32_t lo, std::uint32_t hi, int steps) {
    std::vector<std::uint32_t> counts;
    if (steps < 2 || hi <= lo) return {lo};
    const double ratio = std::log(static_cast<double>(hi) / lo) / (steps - 1);
    for (int i = 0; i < steps; ++i) {
        const auto n = static_cast<std::uint32_t>(std::lround(lo * std::exp(ratio * i)));
        if (counts.empty() || n > counts.back()) counts.push_back(n);
    }
    counts.back() = hi;
    return counts;
}

std::vector<double> sweepValues(const ParameterSpec& spec, double lo, double hi, int steps) {
    std::vector<double> values;
    const bool logarithmic = spec.logarithmic && lo > 0.0;
    for (int i = 0; i < steps; ++i) {
        const double t = steps > 1 ? static_cast<double>(i) / (steps - 1) : 0.0;
        double v = logarithmic ? lo * std::pow(hi / lo, t) : lo + (hi - lo) * t;
        if (spec.kind != ParameterKind::Real) v = std::round(v);
        if (values.empty() || v > values.back()) values.push_back(v);
    }
    return values;
}

std::string sweepCsvHeader() { return "scenario,technique,parameter,value,n,ms_median,candidates,pair_tests,bytes"; }

std::string sweepCsvRow(const SweepPoint& p) {
    char line[256];
    std::snprintf(line, sizeof line, "%.*s,%.*s,%.*s,%.9g,%u,%.6f,%llu,%llu,%llu", static_cast<int>(p.scenario.size()),
                  p.scenario.data(), static_cast<int>(p.technique.size()), p.technique.data(),
                  static_cast<int>(p.parameter.size()), p.parameter.data(), p.value, p.n, p.msMedian,
                  static_cast<unsigned long long>(p.candidates), static_cast<unsigned long long>(p.pairTests),
                  static_cast<unsigned long long>(p.bytes));
    return line;
}

}  // namespace ro

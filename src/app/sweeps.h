#pragma once
/// The app's sweeps (scaling over n, or one parameter over its range), run a frame of work at
/// a time between the window's frames, so the UI stays live; no SDL or ImGui here.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app/lab.h"
#include "scenario/sweep.h"

namespace ro::app {

class SweepJob {
public:
    enum class Kind { Scaling, Parameter };

    /// The largest count a scaling sweep offers: the panel's limit.
    static constexpr std::uint32_t kMaxScalingCount = 1'000'000;
    static constexpr std::uint32_t kMinScalingCount = 100;
    /// Entity counts of a scaling sweep: 100 up to `top`, 10 steps, log-spaced.
    static std::vector<std::uint32_t> scalingCounts(std::uint32_t top = kMaxScalingCount);

    /// A scaling sweep up to `top` entities of the lab's scenario (the random mix is swept as
    /// "uniform", its nearest library scenario) for every compared technique, or the lab's own
    /// when none is compared.
    void startScaling(const Lab& lab, std::uint32_t top = kMaxScalingCount);
    /// A sweep of one of the lab's technique's numeric parameters over the range it offers, at
    /// the lab's count.
    void startParameter(const Lab& lab, const ParameterSpec& spec, int steps = 12);
    /// Runs steps until `budgetSeconds` of wall time went into them (at least one); false when
    /// there is nothing to run.
    bool step(double budgetSeconds);
    void cancel() {
        m_plan.erase(m_plan.begin() + static_cast<std::ptrdiff_t>(m_points.size()), m_plan.end());
        m_next = m_plan.size();
        m_run.reset();
    }

    [[nodiscard]] bool running() const { return m_run.has_value() || m_next < m_plan.size(); }
    [[nodiscard]] Kind kind() const { return m_kind; }
    /// Points measured over points planned.
    [[nodiscard]] double progress() const {
        return m_plan.empty() ? 1.0 : static_cast<double>(m_points.size()) / static_cast<double>(m_plan.size());
    }
    [[nodiscard]] std::span<const SweepPoint> points() const { return m_points; }
    [[nodiscard]] std::size_t planned() const { return m_plan.size(); }
    [[nodiscard]] const ScenarioInfo* scenario() const { return m_scenario; }
    /// The parameter swept (Parameter sweeps), and the value Auto would pick, if it has one.
    [[nodiscard]] const ParameterSpec* parameter() const { return m_parameter; }
    /// The technique whose parameter is swept (Parameter sweeps).
    [[nodiscard]] const TechniqueInfo* technique() const { return m_technique; }
    /// The count a parameter sweep runs at, or the largest of a scaling sweep.
    [[nodiscard]] std::uint32_t count() const { return m_count; }
    [[nodiscard]] std::optional<double> autoValue() const { return m_autoValue; }
    /// The measured point with the least median ms, if any.
    [[nodiscard]] const SweepPoint* best() const;
    /// Writes the points as CSV (ro_bench's sweep columns); false when the file cannot be written.
    bool writeCsv(const std::string& path) const;

private:
    struct Planned {
        const TechniqueInfo* technique;
        Settings settings;
        bool fitCell;
        std::uint32_t n;
        std::string_view parameter;
        double value;
    };
    void begin(Kind kind, const Lab& lab);

    Kind m_kind = Kind::Scaling;
    const ScenarioInfo* m_scenario = nullptr;
    std::uint64_t m_seed = 1;
    const ParameterSpec* m_parameter = nullptr;
    const TechniqueInfo* m_technique = nullptr;
    std::uint32_t m_count = 0;
    std::optional<double> m_autoValue;
    std::vector<Planned> m_plan;
    std::size_t m_next = 0;
    std::optional<PointRun> m_run;
    std::vector<SweepPoint> m_points;
};

}  // namespace ro::app

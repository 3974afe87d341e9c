#pragma once
/// Sweeps: one technique measured on a scenario's scene, point by point, over entity counts
/// (scaling) or over one of its parameters. The app draws them and ro_bench prints them, with
/// the same CSV columns, so a plot in the app and a line of the README agree.
///
/// A point is measured a frame at a time (PointRun::step), so a window can run one frame of
/// work between two of its own frames and stay responsive.

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ro/registry.h"
#include "scenario/scenario.h"

namespace ro {

/// One measured point: the median over its frames of update + findPairs, and the counters of
/// the last frame.
struct SweepPoint {
    std::string_view scenario;
    std::string_view technique;
    std::string_view parameter;  ///< the parameter swept ("n" for a scaling sweep)
    double value = 0.0;          ///< its value at this point (n for a scaling sweep)
    std::uint32_t n = 0;
    double msMedian = 0.0;
    std::uint64_t candidates = 0;
    std::uint64_t pairTests = 0;
    std::uint64_t bytes = 0;
};

/// Frames measured per point, after one that builds the structure.
inline constexpr int kSweepFrames = 5;

/// What a point is measured on: a scene that moves a frame at a time (a scenario's, or a
/// recorded trace tiled to a count).
class SweepScene {
public:
    virtual ~SweepScene() = default;
    virtual void advance() = 0;
    [[nodiscard]] virtual BoxView boxes() const = 0;
    /// The region a bounded technique (the grid) is given.
    [[nodiscard]] virtual Aabb bounds() const = 0;
    /// The cell size the grid and the hash are fitted to (as ro_bench picks it).
    [[nodiscard]] virtual float fittedCellSize() const = 0;
};
/// Makes the scene of a point of `n` entities, at the point's first step: a point holds its
/// scene only while it is measured.
using SweepSceneMaker = std::function<std::unique_ptr<SweepScene>(std::uint32_t n)>;

/// One technique on one scene: the first step builds the scene and the structure, each next
/// one runs a frame (the scene moves, Motion::Steady), until kSweepFrames are measured.
class PointRun {
public:
    /// `settings` apply as given, except that with `fitCell` the cell size is the scene's
    /// (Scene::fittedCellSize, as ro_bench picks it). A frame slower than `slowFrameSeconds`
    /// ends the point there (its median is of the frames measured so far): the app's sweeps
    /// to a million entities then take a minute, not five. ro_bench keeps every frame.
    PointRun(const TechniqueInfo& technique, Settings settings, bool fitCell, const ScenarioInfo& scenario,
             std::uint32_t n, std::uint64_t seed, std::string_view parameter, double value,
             double slowFrameSeconds = std::numeric_limits<double>::infinity());
    /// The same on the scenes `makeScene` makes; `sceneName` (the CSV's scenario column) must
    /// outlive the point.
    PointRun(const TechniqueInfo& technique, Settings settings, bool fitCell, std::string_view sceneName,
             SweepSceneMaker makeScene, std::uint32_t n, std::string_view parameter, double value,
             double slowFrameSeconds = std::numeric_limits<double>::infinity());
    /// Runs one frame of work; true once the point is measured.
    bool step();
    [[nodiscard]] bool done() const {
        return m_times.size() >= static_cast<std::size_t>(kSweepFrames) ||
               (!m_times.empty() && m_times.back() > 1000.0 * m_slowFrameSeconds);
    }
    /// The measured point (valid once done()).
    [[nodiscard]] SweepPoint result() const;

private:
    const TechniqueInfo& m_technique;
    Settings m_settings;
    bool m_fitCell;
    SweepSceneMaker m_makeScene;
    std::uint32_t m_n;
    double m_slowFrameSeconds;
    SweepPoint m_point;
    std::unique_ptr<SweepScene> m_scene;
    std::unique_ptr<BroadPhase> m_instance;
    std::vector<Pair> m_pairs;
    std::vector<double> m_times;
};

/// `steps` counts from `lo` to `hi`, evenly spaced on a log scale (both ends included).
[[nodiscard]] std::vector<std::uint32_t> logSpacedCounts(std::uint32_t lo, std::uint32_t hi, int steps);
/// `steps` values from `lo` to `hi`, on a log scale when `logarithmic`, whole numbers for an
/// integer parameter.
[[nodiscard]] std::vector<double> sweepValues(const ParameterSpec& spec, double lo, double hi, int steps);

/// The CSV columns of every sweep, app and ro_bench alike.
[[nodiscard]] std::string sweepCsvHeader();
[[nodiscard]] std::string sweepCsvRow(const SweepPoint& point);

}  // namespace ro

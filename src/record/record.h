#pragma once
/// ro_record: physics engines' worlds stepped and each step's boxes written as a trace
/// (docs/trace-format.md), so that ro_bench --trace measures the broad phases on the frames a
/// real engine makes. Engines come from Debian's packages; a build has the scenes of the
/// engines it found. The ro library itself stays free of any engine.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ro/broadphase.h"
#include "ro/trace.h"

namespace ro::record {

/// How a scene is recorded.
struct RecordOptions {
    int frames = 60;     ///< steps written, after the scene's warm-up
    double scale = 1.0;  ///< body counts times this (kMinScale to kMaxScale)
};

inline constexpr double kMinScale = 0.01;
inline constexpr double kMaxScale = 4.0;

/// One recordable scene of one engine.
struct SceneInfo {
    std::string_view engine;       ///< "box2d", "bullet", "chipmunk"
    std::string_view name;         ///< e.g. "large_pyramid"
    std::string_view description;  ///< what it is, and its bodies at scale 1
    int warmupSteps = 0;           ///< steps run (and not written) before the first frame
    /// Steps the world warmupSteps, then options.frames steps, each written to `out`.
    void (*record)(const RecordOptions& options, TraceWriter& out) = nullptr;
};

/// Every scene of the engines built in, engine by engine.
[[nodiscard]] std::span<const SceneInfo> scenes();
/// The engines built in (their names), and the Debian packages of those missing.
[[nodiscard]] std::vector<std::string_view> enginesBuilt();
[[nodiscard]] std::vector<std::string_view> missingEnginePackages();
/// The scene `name` of `engine`, or null.
[[nodiscard]] const SceneInfo* findScene(std::string_view engine, std::string_view name);

/// Records `scene` into the trace file `path` (written to a temporary name beside it, PATH.partial.PID, and
/// renamed when complete, so that an interrupted run leaves no truncated file at `path`).
/// Throws TraceError when the file cannot be written.
void recordToFile(const SceneInfo& scene, const RecordOptions& options, const std::string& path);

/// A step's boxes, gathered body by body and handed to TraceWriter as one BoxView. The
/// arrays are kept between steps.
class FrameBoxes {
public:
    void clear();
    void add(std::uint32_t id, float minX, float minY, float maxX, float maxY, bool isStatic);
    [[nodiscard]] BoxView view() const;
    [[nodiscard]] std::uint32_t count() const { return static_cast<std::uint32_t>(m_ids.size()); }

private:
    std::vector<float> m_minX, m_minY, m_maxX, m_maxY;
    std::vector<std::uint32_t> m_ids;
    std::vector<std::uint8_t> m_static;
};

/// A count of bodies at `scale`, at least `least`.
[[nodiscard]] int scaled(int count, double scale, int least = 1);

// Each engine's scenes, defined in its own file (only when its package was found).
std::span<const SceneInfo> box2dScenes();
std::span<const SceneInfo> bulletScenes();
std::span<const SceneInfo> chipmunkScenes();

}  // namespace ro::record

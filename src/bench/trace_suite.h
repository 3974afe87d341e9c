#pragma once
/// ro_bench --trace-suite: the Box2D scenes of ro_record (src/record), recorded at run time
/// into a cache folder and run as --trace runs its files. Nothing recorded is committed: a
/// cached trace is reused when one exists for the same scene, frame count and suite version.

#include <optional>
#include <string>

namespace ro::bench {

/// The suite's version, in its cache files' folder: raised whenever a scene changes, so that
/// an older recording is never taken for the new one.
inline constexpr int kTraceSuiteVersion = 1;
/// Frames recorded per scene when neither --suite-frames nor --frames says.
inline constexpr int kTraceSuiteDefaultFrames = 60;

/// What the command line asked of the suite.
struct TraceSuiteRequest {
    std::string scenes;             ///< --trace-suite's value: a comma list, or empty for every scene
    std::string frames;             ///< --suite-frames, or empty
    std::string cacheDir;           ///< --trace-cache, or empty for traces/ beside the program
    std::optional<int> benchFrames; ///< --frames: then 1 built + warmup + these are recorded
    int warmup = 5;                 ///< --warmup (or its default)
};

/// Every scene's trace, recorded now or found in the cache, as a comma list of paths for
/// --trace. Says on stderr what it records and what it reuses. Throws std::invalid_argument
/// for a bad request (an unknown scene, a bad count, no Box2D in this build) and
/// std::runtime_error when the cache cannot be written.
[[nodiscard]] std::string traceSuitePaths(const TraceSuiteRequest& request);

/// The suite's scene names, for --help.
[[nodiscard]] std::string traceSuiteSceneNames();

}  // namespace ro::bench

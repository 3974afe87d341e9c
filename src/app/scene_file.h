#pragma once
/// Scene and replay files. A scene file is the whole lab (entities, technique and its parameters, preset, world settings,
/// camera) as JSON with a format version. Saving, loading and saving again gives the same
/// file; loading restores the state bit for bit (floats are written with enough digits to
/// read back the same value).

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "app/camera.h"
#include "app/lab.h"
#include "app/lab_state.h"

namespace ro::app {

inline constexpr const char* kSceneFormat = "ro-broadphase-lab scene";
inline constexpr int kSceneVersion = 1;
/// The most entities a scene file may hold: the command line's limit.
inline constexpr std::uint32_t kMaxSceneEntities = 2'000'000;

/// The limits every scene and replay file is read with, checked before or while it is parsed:
/// a regular file (no FIFO, device or directory) of at most kMaxInputFileBytes (a scene of the
/// most entities takes about half), nested at most kMaxJsonDepth deep (ours nest 5), no array
/// longer than kMaxJsonArrayItems (an entity column), at most kMaxJsonValues values in all (every
/// column of the most entities, and a long recording), and no key twice in one object.
inline constexpr std::uint64_t kMaxInputFileBytes = 512ull << 20;
inline constexpr int kMaxJsonDepth = 16;
inline constexpr std::uint64_t kMaxJsonArrayItems = kMaxSceneEntities;
inline constexpr std::uint64_t kMaxJsonValues = 30'000'000;

/// A file that cannot be read or is not a scene this version understands; what() is one line
/// that says which and where.
struct SceneFileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Asked now and then while a file is parsed: true ends the parse with LoadStopped.
using StopCheck = std::function<bool()>;
/// A load ended by a stop request (SIGINT, SIGTERM): not a fault of the file.
struct LoadStopped : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct SceneFile {
    LabState lab;
    Camera camera;
};

[[nodiscard]] std::string sceneToJson(const SceneFile& scene);
/// Throws SceneFileError for text that is not a valid scene: not JSON, another format or
/// version, a missing or mistyped field, a non-finite number, a size or count out of range.
/// (Whether the lab accepts it, Lab::restore decides: a technique's limit, the world's ranges.)
[[nodiscard]] SceneFile sceneFromJson(const std::string& text, const StopCheck& stop = {});

/// Writes the file as files::writeOutputFile does (a regular file whole or not at all, a
/// character device through); throws SceneFileError when it cannot.
void saveSceneFile(const std::string& path, const SceneFile& scene);
/// Reads and parses the file; throws SceneFileError naming the path.
[[nodiscard]] SceneFile loadSceneFile(const std::string& path, const StopCheck& stop = {});

inline constexpr const char* kReplayFormat = "ro-broadphase-lab replay";
/// 2: a count change fits the sizes at other coverages (once over, 1%), so a recording of
/// version 1 would replay its count changes differently and end elsewhere. 3: onecell's world
/// has its 2 x 2 square as walls, so a version 2 recording through onecell would end elsewhere.
inline constexpr int kReplayVersion = 3;

/// A replay file: the start as a scene, the inputs with their ticks, the end tick and the end
/// state's fingerprint.
[[nodiscard]] std::string replayToJson(const Recording& recording);
/// Every input is checked against the command line's limits (counts, a technique's entity
/// limit over the whole replay, parameter ranges, world settings, sizes, names).
[[nodiscard]] Recording replayFromJson(const std::string& text, const StopCheck& stop = {});
/// Throws SceneFileError naming the input after which the replay would hold more entities than
/// --entities allows, than its preset holds, or than the technique then chosen steps in
/// reasonable time (a count raised before a switch to brute force); with `technique`, under
/// that technique throughout (the replay's switches ignored, as --technique does).
void checkReplayCounts(const Recording& recording, const TechniqueInfo* technique = nullptr);
void saveReplayFile(const std::string& path, const Recording& recording);
[[nodiscard]] Recording loadReplayFile(const std::string& path, const StopCheck& stop = {});

/// Loads the file into the lab and the camera: on any error the lab is left as it was and the
/// message is returned (empty on success).
[[nodiscard]] std::string loadInto(const std::string& path, Lab& lab, Camera& camera);

}  // namespace ro::app

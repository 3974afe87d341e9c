// libFuzzer target over the scene and replay readers: any text is read as a scene and as a
// replay, and must either be refused with a SceneFileError or come back as what a lab takes
// (a scene that parses is restored into a lab, which may refuse it with std::invalid_argument).
// A crash, a hang, a sanitizer report or another exception is a finding. Seeds: json_seeds/.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "app/lab.h"
#include "app/scene_file.h"
#include "ro/registry.h"

namespace {

/// Restoring builds every entity: beyond this many the fuzzer would measure the world, not the reader.
constexpr std::size_t kMaxRestored = 2000;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    static ro::app::Lab lab(*ro::findTechnique("grid"), 0, 1, {});
    try {
        const ro::app::SceneFile scene = ro::app::sceneFromJson(text);
        if (scene.lab.entities.size() <= kMaxRestored) lab.restore(scene.lab);
    } catch (const ro::app::SceneFileError&) {
    } catch (const std::invalid_argument&) {
    }
    try {
        const ro::app::Recording recording = ro::app::replayFromJson(text);
        if (recording.start.entities.size() <= kMaxRestored) lab.restore(recording.start);
    } catch (const ro::app::SceneFileError&) {
    } catch (const std::invalid_argument&) {
    }
    return 0;
}

#include "bench/trace_suite.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <vector>

#include "record/record.h"

namespace ro::bench {
namespace {

constexpr std::string_view kEngine = "box2d";

std::vector<const record::SceneInfo*> suiteScenes() {
    std::vector<const record::SceneInfo*> list;
    for (const record::SceneInfo& s : record::scenes())
        if (s.engine == kEngine) list.push_back(&s);
    return list;
}

std::filesystem::path defaultCacheDir() {
    std::error_code error;
    const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
    return (error ? std::filesystem::current_path() : program.parent_path()) / "traces";
}

int parseFrames(std::string_view text) {
    int value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size() || value < 2 || value > 100'000)
        throw std::invalid_argument(
            fmt::format("--suite-frames expects a whole number from 2 to 100000, got '{}'", text));
    return value;
}

}  // namespace

std::string traceSuiteSceneNames() {
    std::string names;
    for (const record::SceneInfo* s : suiteScenes()) names += fmt::format("{}{}", names.empty() ? "" : ", ", s->name);
    return names.empty() ? "none: built without Box2D" : names;
}

std::string traceSuitePaths(const TraceSuiteRequest& request) {
    const std::vector<const record::SceneInfo*> all = suiteScenes();
    if (all.empty())
        throw std::invalid_argument("--trace-suite records Box2D scenes, and this ro_bench was built without Box2D "
                                    "(install libbox2d-dev and rebuild)");
    std::vector<const record::SceneInfo*> chosen;
    if (request.scenes.empty() || request.scenes == "all") {
        chosen = all;
    } else {
        std::string_view list = request.scenes;
        while (true) {
            const std::size_t comma = list.find(',');
            const std::string_view name = list.substr(0, comma);
            const auto found = std::find_if(all.begin(), all.end(), [&](const auto* s) { return s->name == name; });
            if (found == all.end())
                throw std::invalid_argument(fmt::format("--trace-suite: unknown scene '{}' (valid: {}, all)", name,
                                                        traceSuiteSceneNames()));
            if (std::find(chosen.begin(), chosen.end(), *found) != chosen.end())
                throw std::invalid_argument(fmt::format("--trace-suite lists '{}' twice", name));
            chosen.push_back(*found);
            if (comma == std::string_view::npos) break;
            list.remove_prefix(comma + 1);
        }
    }
    // Enough frames for the run --frames asks for: one built, the warm-up, then those.
    const int frames = !request.frames.empty() ? parseFrames(request.frames)
                       : request.benchFrames   ? 1 + request.warmup + *request.benchFrames
                                               : kTraceSuiteDefaultFrames;
    const std::filesystem::path cache = request.cacheDir.empty() ? defaultCacheDir() : std::filesystem::path(request.cacheDir);
    if (cache.string().find(',') != std::string::npos)  // the paths go on as a comma list
        throw std::invalid_argument(fmt::format("--trace-cache: a folder without a comma, please: '{}'", cache.string()));
    // The folder names the version and the frame count; the file, the scene (the rows' name).
    const std::filesystem::path folder = cache / fmt::format("{}-v{}-{}f", kEngine, kTraceSuiteVersion, frames);
    std::error_code error;
    std::filesystem::create_directories(folder, error);
    if (error)
        throw std::runtime_error(fmt::format("--trace-cache: cannot make '{}': {}", folder.string(), error.message()));

    std::string paths;
    for (const record::SceneInfo* scene : chosen) {
        const std::filesystem::path file = folder / fmt::format("{}.trace", scene->name);
        if (std::filesystem::is_regular_file(file)) {
            fmt::print(stderr, "ro_bench: trace suite: reusing {}\n", file.string());
        } else {
            fmt::print(stderr, "ro_bench: trace suite: recording {} {} ({} frames after {} warm-up steps) into {}\n",
                       kEngine, scene->name, frames, scene->warmupSteps, file.string());
            std::fflush(stderr);
            record::RecordOptions options;
            options.frames = frames;
            record::recordToFile(*scene, options, file.string());
        }
        paths += fmt::format("{}{}", paths.empty() ? "" : ",", file.string());
    }
    return paths;
}

}  // namespace ro::bench

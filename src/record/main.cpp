// ro_record: steps a physics engine's world and writes each step's boxes as a trace, for
// ro_bench --trace. Run with --help or --list.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "record/record.h"

namespace {

struct BadValue : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void printList() {
    std::string_view engine;
    for (const ro::record::SceneInfo& s : ro::record::scenes()) {
        if (s.engine != engine) fmt::print("{}:\n", engine = s.engine);
        fmt::print("  {:<14} {} (warm-up {} steps)\n", s.name, s.description, s.warmupSteps);
    }
    for (std::string_view package : ro::record::missingEnginePackages())
        fmt::print("  (not built: install {})\n", package);
}

std::string engineNames() {
    std::string names;
    for (std::string_view e : ro::record::enginesBuilt()) names += fmt::format("{}{}", names.empty() ? "" : ", ", e);
    return names.empty() ? "none built" : names;
}

std::string sceneNames(std::string_view engine) {
    std::string names;
    for (const ro::record::SceneInfo& s : ro::record::scenes())
        if (s.engine == engine) names += fmt::format("{}{}", names.empty() ? "" : ", ", s.name);
    return names;
}

}  // namespace

int main(int argc, char** argv) {
    bool list = false;
    std::string engine, scene, frames, scale, out;
    CLI::App cli{"ro_record: step a physics engine's scene and write each step's boxes as a trace for "
                 "ro_bench --trace (docs/real-physics.md).",
                 "ro_record"};
    cli.add_flag("--list", list, "print the engines and scenes built in, and exit");
    cli.add_option("--engine", engine, "box2d, bullet or chipmunk")->type_name("ENGINE");
    cli.add_option("--scene", scene, "a scene of the engine (--list)")->type_name("NAME");
    cli.add_option("--frames", frames, "steps written after the scene's warm-up (default 60)")->type_name("N");
    cli.add_option("--scale", scale, "body counts times X, from 0.01 to 4 (default 1)")->type_name("X");
    cli.add_option("--out", out, "the trace file to write (.csv writes CSV, anything else binary)")->type_name("FILE");
    cli.footer("Exit codes: 0 success, 1 the file could not be written, 2 bad command line.");

    const ro::record::SceneInfo* info = nullptr;
    ro::record::RecordOptions options;
    try {
        for (int i = 1; i < argc; ++i)
            if (const std::string_view arg = argv[i]; arg.starts_with("--") && arg.ends_with("="))
                throw BadValue(fmt::format("{} has no value after the '='", arg));
        cli.parse(argc, argv);
        if (list) {
            printList();
            return 0;
        }
        for (const char* flag : {"--engine", "--scene", "--frames", "--scale", "--out"})
            if (cli.count(flag) > 0 && cli.get_option(flag)->as<std::string>().empty())
                throw BadValue(fmt::format("{} was given an empty value", flag));
        if (engine.empty()) throw BadValue(fmt::format("--engine is required ({})", engineNames()));
        if (scene.empty()) throw BadValue("--scene is required (--list names them)");
        if (out.empty()) throw BadValue("--out is required");
        const std::vector<std::string_view> built = ro::record::enginesBuilt();
        if (std::find(built.begin(), built.end(), engine) == built.end()) {
            if (engine == "box2d" || engine == "bullet" || engine == "chipmunk")
                throw BadValue(fmt::format("--engine {}: not built in (install lib{}-dev and rebuild)", engine, engine));
            throw BadValue(fmt::format("--engine: unknown '{}' (valid: {})", engine, engineNames()));
        }
        info = ro::record::findScene(engine, scene);
        if (!info)
            throw BadValue(fmt::format("--scene: {} has no scene '{}' (valid: {})", engine, scene, sceneNames(engine)));
        if (!frames.empty()) {
            int value = 0;
            const auto [ptr, ec] = std::from_chars(frames.data(), frames.data() + frames.size(), value);
            if (ec != std::errc{} || ptr != frames.data() + frames.size() || value < 1 || value > 100'000)
                throw BadValue(fmt::format("--frames expects a whole number from 1 to 100000, got '{}'", frames));
            options.frames = value;
        }
        if (!scale.empty()) {
            double value = 0;
            const auto [ptr, ec] = std::from_chars(scale.data(), scale.data() + scale.size(), value);
            if (ec != std::errc{} || ptr != scale.data() + scale.size() || !(value >= ro::record::kMinScale) ||
                !(value <= ro::record::kMaxScale))
                throw BadValue(fmt::format("--scale expects a number from {} to {}, got '{}'", ro::record::kMinScale,
                                           ro::record::kMaxScale, scale));
            options.scale = value;
        }
    } catch (const CLI::CallForHelp&) {
        fmt::print("{}", cli.help());
        return 0;
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "ro_record: {} (see --help)\n", e.what());
        return 2;
    } catch (const BadValue& e) {
        fmt::print(stderr, "ro_record: {}\n", e.what());
        return 2;
    }
    try {
        ro::record::recordToFile(*info, options, out);
    } catch (const std::exception& e) {
        fmt::print(stderr, "ro_record: {}\n", e.what());
        return 1;
    }
    fmt::print("{} {}: {} frames written to {}\n", info->engine, info->name, options.frames, out);
    return 0;
}

#include "app/options.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <vector>
#include <algorithm>

#include "app/lab.h"
#include "files/safe_file.h"
#include "ro/registry.h"
#include "scenario/scenario.h"

namespace ro::app {
namespace {

constexpr std::uint64_t kMaxEntities = 2'000'000;
constexpr std::uint64_t kMaxWindowSide = 8192;
constexpr std::uint64_t kMinWindowSide = 320;

constexpr std::string_view kFooter = R"(Clock:
  Without --frames the world advances by real elapsed time (fixed 60 Hz ticks inside).
  With --frames N the clock is virtual: every frame runs exactly one tick (none while
  paused), so headless runs are deterministic; after N frames the counters are printed
  as one key=value line on stdout and the program exits 0.

Mouse:
  left click        add one entity at the cursor (hold and drag to spray more)
  right click       remove the entity under the cursor
  right/middle drag pan the view
  wheel             zoom around the cursor
  hover             point query: the entities under the cursor are outlined
  shift + drag      box query from the press point to the cursor
  ctrl + drag       ray query from the press point to the cursor (first hit outlined thicker)

Keys (wherever the focus is, except while typing in a text field):
  Esc               pause / resume
  Space or N        single step while paused
  G / P / B         toggle grid cells / candidate pairs / AABB overlays
  Tab / Shift+Tab   next / previous technique
  Ctrl+Z            undo the last change of technique, parameter, Auto or count
  F or Home         fit the world in the window
  H                 hide or show the panel and the HUD
  C                 clear the box or ray query
  F12               screenshot to ro_lab_YYYYMMDD_HHMMSS.png in the working directory
  Q                 quit (closing the window quits too)

Exit codes: 0 success, 1 runtime failure (SDL, screenshot), 2 bad command line.
Headless: SDL_VIDEODRIVER=offscreen (or dummy) needs no display; SDL_RENDER_VSYNC=0 unthrottles.)";

/// A bad value, reported as one line and exit code 2.
struct BadValue : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A whole number in [lo, hi] (a sign, a fraction or trailing text is an error).
template <typename T>
T parseWhole(const std::string& text, std::string_view flag, std::uint64_t lo, std::uint64_t hi) {
    std::uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc{} || ptr != end || value < lo || value > hi)
        throw BadValue(fmt::format("{} expects a whole number from {} to {}, got '{}'", flag, lo, hi, text));
    return static_cast<T>(value);
}

/// Comma-separated finite numbers, exactly `count` of them.
std::vector<float> parseNumbers(const std::string& text, std::string_view flag, std::size_t count) {
    std::vector<float> values;
    std::string_view rest = text;
    while (true) {
        const std::size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        float value = 0.0f;
        const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
        if (item.empty() || ec != std::errc{} || ptr != item.data() + item.size() || !std::isfinite(value))
            throw BadValue(fmt::format("{} expects {} finite numbers separated by commas, got '{}'", flag, count, text));
        values.push_back(value);
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    if (values.size() != count)
        throw BadValue(fmt::format("{} expects {} finite numbers separated by commas, got '{}'", flag, count, text));
    return values;
}

/// A finite number in [lo, hi], with the range in the message for any other text.
float parseInRange(const std::string& text, std::string_view flag, float lo, float hi) {
    float value = 0.0f;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc{} || ptr != end || !(value >= lo && value <= hi))
        throw BadValue(fmt::format("{} expects a number from {} to {}, got '{}'", flag, lo, hi, text));
    return value;
}

std::string techniqueIds() {
    std::string ids;
    for (const TechniqueInfo& t : techniques()) ids += fmt::format("{}{}", ids.empty() ? "" : ", ", t.id);
    return ids;
}

std::string scenarioNames() {
    std::string names;
    for (const ScenarioInfo& s : scenarios()) names += fmt::format("{}{}", names.empty() ? "" : ", ", s.name);
    return names;
}

/// Every item of the comma list must name an overlay: "", "grid," and "grid,,pairs" are errors.
OverlayFlags parseOverlays(const std::string& list) {
    OverlayFlags flags;
    std::string_view rest = list;
    while (true) {
        const std::size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        if (item == "grid") flags.grid = true;
        else if (item == "pairs") flags.pairs = true;
        else if (item == "bounds") flags.bounds = true;
        else throw BadValue(fmt::format("--overlays expects a comma list of grid, pairs, bounds; '{}' has {} in it",
                                        list, item.empty() ? "an empty item" : fmt::format("'{}'", item)));
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    return flags;
}

}  // namespace

ParseResult parseOptions(int argc, char** argv) {
    ParseResult result;
    Options& o = result.options;
    // Numbers are taken as text and checked here, so every bad value gets the same clear message.
    std::string compare, plots;
    std::string entities, seed, cellSize, frames, overlays, reportEvery, width, height, queryPoint, queryBox, queryRay,
        halfExtents, drawPath, zoom, sweepMax;

    CLI::App cli{"Ro Broadphase Lab: watch broad-phase techniques find candidate pairs, live.", "ro_demo"};
    cli.footer(std::string(kFooter));
    cli.add_option("--technique", o.technique, "broad-phase technique: " + techniqueIds() + " (default: " + o.technique + ")")
        ->type_name("ID");
    cli.add_option("--scenario", o.scenario, "start with a preset scene, ro_bench's for the same --seed and count: " +
                   scenarioNames() + " (default: the lab's random mix of boxes and circles)")
        ->type_name("NAME");
    cli.add_option("--compare", compare,
                   "run these techniques beside the world's on the same boxes every tick and check their pairs "
                   "against a reference: a comma list of ids, or all; with --frames, one key=value line each "
                   "at the end, and exit 1 on any mismatch")
        ->type_name("LIST");
    cli.add_option("--plots", plots,
                   "open the Plots window at start: history, scaling (runs the scaling sweep) or parameter=KEY "
                   "(sweeps that parameter of --technique); with --frames, the run lasts until the sweep is done")
        ->type_name("TAB");
    cli.add_option("--sweep-max", sweepMax, "the scaling sweep's largest entity count, 1000 to 1000000 (default 1000000)")
        ->type_name("N");
    cli.add_option("--entities", entities, "entities at start (default 2000, at most 2000000)")->type_name("N");
    cli.add_option("--seed", seed, "random seed of the scene (default 1)")->type_name("S");
    cli.add_option("--cell-size", cellSize, "grid/hash cell side in world units (default: fit the largest entity); "
                   "the same as --param cell_size=X")
        ->type_name("X");
    std::vector<std::string> params;
    cli.add_option("--param", params, "set a parameter of the technique, repeatable (see --list-parameters)")
        ->type_name("KEY=VALUE")
        ->allow_extra_args(false);
    cli.add_flag("--list-parameters", o.listParameters, "print every technique's parameters (key, range, default) and exit");
    cli.add_option("--frames", frames, "run N frames on a virtual clock, print the counters, exit")->type_name("N");
    cli.add_option("--screenshot", o.screenshot, "write the last frame (with the UI) to this .png before exiting")
        ->type_name("FILE.png");
    cli.add_option("--plots-screenshot", o.plotsScreenshot,
                   "write the last frame's Plots window alone (see --plots) to this .png before exiting, as its "
                   "Save PNG button does")
        ->type_name("FILE.png");
    cli.add_option("--load", o.load, "start from this scene file (JSON, as saved by --save or the panel)")
        ->type_name("FILE.json");
    cli.add_option("--save", o.save, "write the scene (entities, technique, settings, camera) to this file on exit")
        ->type_name("FILE.json");
    cli.add_option("--record", o.record, "record every input that changes the world, with its tick; written to this "
                   "file on exit")
        ->type_name("FILE.json");
    cli.add_option("--replay", o.replay, "replay a recorded session from its start, one tick per frame (with "
                   "--technique: under that technique); with --frames, a replay= line at the end, exit 1 if it "
                   "ended in another state than the recorded one")
        ->type_name("FILE.json");
    cli.add_option("--trace", o.trace, "play this trace's frames (binary, or .csv; docs/trace-format.md) in place of "
                   "the scene, one frame per tick; a trace that cannot be played exits 2 with its message")
        ->type_name("FILE");
    cli.add_option("--record-trace", o.recordTrace, "write the world's boxes as each tick begins, and at exit, as a "
                   "trace (binary, or .csv; docs/trace-format.md) for ro_bench --trace or --trace")
        ->type_name("FILE");
    cli.add_option("--overlays", overlays, "overlays shown at start, comma list of grid,pairs,bounds (default: grid,pairs in a window, none with --frames)")
        ->type_name("LIST");
    cli.add_option("--report-every", reportEvery, "print the counters line every K frames")->type_name("K");
    cli.add_option("--width", width, "window width in pixels (default 1280)")->type_name("W");
    cli.add_option("--height", height, "window height in pixels (default 800)")->type_name("H");
    cli.add_flag("--list-techniques", o.listTechniques, "print the technique ids, one per line, and exit");
    cli.add_flag("--list-scenarios", o.listScenarios, "print the scenario names (--scenario), one per line, and exit");
    cli.add_option("--half-extents", halfExtents, "entities' half-extent range MIN,MAX in world units (0 < MIN <= MAX <= 100)")
        ->type_name("MIN,MAX");
    cli.add_option("--query-point", queryPoint, "point query fixed at world X,Y (hovering no longer moves it)")->type_name("X,Y");
    cli.add_option("--query-box", queryBox, "box query over world X0,Y0,X1,Y1, as if shift-dragged")
        ->type_name("X0,Y0,X1,Y1");
    auto* boxFlag = cli.get_option("--query-box");
    cli.add_option("--query-ray", queryRay, "ray query from world X0,Y0 to X1,Y1, as if ctrl-dragged")
        ->type_name("X0,Y0,X1,Y1")
        ->excludes(boxFlag);
    cli.add_flag("--paused", o.paused, "start paused (Esc resumes)");
    cli.add_flag("--swept-boxes", o.sweptBoxes, "the broad phase gets swept boxes (the panel's Swept boxes)");
    cli.add_flag("--time-of-impact", o.timeOfImpact, "pairs that meet within a tick move to their first contact (Time of impact)");
    cli.add_flag("--count-misses", o.countMisses,
                 "count the collisions the broad phase missed (Count misses; the bullets preset turns it on)");
    cli.add_option("--zoom", zoom, "camera zoom at start around the world's centre, 0.25 to 10000 (default 1: the whole world)")
        ->type_name("Z");
    cli.add_option("--draw-path", drawPath,
                   "how entities are drawn: auto (small ones rasterized, large ones as geometry), raster or geometry")
        ->type_name("PATH");

    // "Given" is decided by CLI11's count, never by an empty string: `--frames ""` is a bad
    // value, not a missing one (the parsers below reject empty text).
    auto given = [&cli](const char* flag) { return cli.count(flag) > 0; };
    try {
        // CLI11 reads `--flag=` as `--flag` and takes the next argument for its value.
        for (int i = 1; i < argc; ++i)
            if (const std::string_view arg = argv[i]; arg.starts_with("--") && arg.ends_with("="))
                throw BadValue(fmt::format("{} has no value after the '='", arg));
        cli.parse(argc, argv);
        o.techniqueGiven = given("--technique");
        const TechniqueInfo* technique = findTechnique(o.technique);
        if (!technique)
            throw BadValue(fmt::format("--technique: unknown '{}' (valid: {})", o.technique, techniqueIds()));
        constexpr std::uint64_t kIntMax = std::numeric_limits<int>::max();
        if (given("--entities")) o.entities = parseWhole<std::uint32_t>(entities, "--entities", 0, kMaxEntities);
        // Refused now, not after a first step of hours.
        if (technique->maxEntities != 0 && o.entities > technique->maxEntities)
            throw BadValue(fmt::format("--entities {} is too many for '{}' ({}: at most {} entities step in "
                                       "reasonable time); pick --technique hshg or grid for that many",
                                       o.entities, technique->id, technique->guide.complexity, technique->maxEntities));
        if (given("--scenario")) {
            const ScenarioInfo* scenario = findScenario(o.scenario);
            if (!scenario) throw BadValue(fmt::format("--scenario: unknown '{}' (valid: {})", o.scenario, scenarioNames()));
            if (o.entities > scenario->maxCount)
                throw BadValue(fmt::format("--entities {} is too many for the scenario '{}' (at most {})", o.entities,
                                           scenario->name, scenario->maxCount));
            if (given("--half-extents"))
                throw BadValue(fmt::format("--half-extents does not apply to --scenario {}: its sizes are its own ({})",
                                           scenario->name, scenario->sizes));
        }
        if (given("--compare")) {
            std::string_view rest = compare;
            while (true) {
                const std::size_t comma = rest.find(',');
                const std::string_view item = rest.substr(0, comma);
                if (item == "all" && compare == "all") {
                    // Every technique the population allows (brute force has a limit).
                    for (const TechniqueInfo& t : techniques())
                        if (t.maxEntities == 0 || o.entities <= t.maxEntities) o.compare.emplace_back(t.id);
                    break;
                }
                const TechniqueInfo* t = findTechnique(item);
                if (!t)
                    throw BadValue(fmt::format("--compare expects a comma list of ids ({}) or all; '{}' has {} in it",
                                               techniqueIds(), compare,
                                               item.empty() ? "an empty item" : fmt::format("'{}'", item)));
                if (std::find(o.compare.begin(), o.compare.end(), item) != o.compare.end())
                    throw BadValue(fmt::format("--compare lists '{}' twice", item));
                if (t->maxEntities != 0 && o.entities > t->maxEntities)
                    throw BadValue(fmt::format("--compare: {} entities are too many for '{}' (at most {})", o.entities,
                                               t->id, t->maxEntities));
                o.compare.emplace_back(item);
                if (comma == std::string_view::npos) break;
                rest = rest.substr(comma + 1);
            }
        }
        if (given("--seed")) o.seed = parseWhole<std::uint64_t>(seed, "--seed", 0, std::numeric_limits<std::uint64_t>::max());
        if (given("--cell-size")) {
            const ParameterSpec& cell = kCellSizeParameter;
            o.parameters.set(cell.key, parseInRange(cellSize, "--cell-size", static_cast<float>(cell.offeredMin),
                                                    static_cast<float>(cell.offeredMax)));
        }
        for (const std::string& text : params)
            if (const std::string why = setFromText(technique->parameters, text, o.parameters); !why.empty())
                throw BadValue(fmt::format("--param {}: {} ({})", text, why, technique->id));
        if (given("--frames")) o.frames = parseWhole<int>(frames, "--frames", 1, kIntMax);
        if (given("--report-every")) o.reportEvery = parseWhole<int>(reportEvery, "--report-every", 1, kIntMax);
        if (given("--width")) o.width = parseWhole<int>(width, "--width", kMinWindowSide, kMaxWindowSide);
        if (given("--height")) o.height = parseWhole<int>(height, "--height", kMinWindowSide, kMaxWindowSide);
        if (given("--overlays")) o.overlays = parseOverlays(overlays);
        // A person opening the window sees what the technique builds and what it finds at once:
        // its structure and its pairs. A scripted run (--frames) draws what it asks for.
        if (!given("--overlays") && !o.frames) o.overlays.grid = o.overlays.pairs = true;
        if (given("--zoom")) {
            o.zoom = parseInRange(zoom, "--zoom", 0.25f, 10000.0f);
        }
        if (given("--draw-path")) {
            if (drawPath == "auto") o.drawPath = DrawPath::Auto;
            else if (drawPath == "raster") o.drawPath = DrawPath::Raster;
            else if (drawPath == "geometry") o.drawPath = DrawPath::Geometry;
            else throw BadValue(fmt::format("--draw-path expects auto, raster or geometry, got '{}'", drawPath));
        }
        if (given("--half-extents")) {
            const auto v = parseNumbers(halfExtents, "--half-extents", 2);
            // The world refuses sizes below its limit (the push's masses would underflow).
            if (!(v[0] >= WorldLimits::kMinHalfExtent))
                throw BadValue(fmt::format("--half-extents: MIN must be at least {} (the world's smallest size), got '{}'",
                                           WorldLimits::kMinHalfExtent, halfExtents));
            if (!(v[0] > 0.0f && v[0] <= v[1] && v[1] <= 100.0f))
                throw BadValue(fmt::format("--half-extents expects 0 < MIN <= MAX <= 100, got '{}'", halfExtents));
            o.sizes = SizeRange{v[0], v[1]};
        }
        if (given("--query-point")) {
            const auto v = parseNumbers(queryPoint, "--query-point", 2);
            o.queryPoint = Vec2{v[0], v[1]};
        }
        if (given("--query-box")) {
            const auto v = parseNumbers(queryBox, "--query-box", 4);
            o.queryBox = Aabb{std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
        }
        if (given("--query-ray")) {
            const auto v = parseNumbers(queryRay, "--query-ray", 4);
            if (!std::isfinite(v[2] - v[0]) || !std::isfinite(v[3] - v[1]))
                throw BadValue(fmt::format("--query-ray: the segment's extent overflows a float, got '{}'", queryRay));
            o.queryRay = Segment{{v[0], v[1]}, {v[2], v[3]}};
        }
        if (given("--sweep-max")) o.sweepMax = parseWhole<std::uint32_t>(sweepMax, "--sweep-max", 1000, 1'000'000);
        if (given("--plots")) {
            const std::string_view tab = plots;
            if (tab == "history" || tab == "scaling") {
                o.plots = tab;
            } else if (tab.starts_with("parameter=")) {
                o.plots = "parameter";
                o.plotParameter = tab.substr(10);
                const bool numeric = std::any_of(technique->parameters.begin(), technique->parameters.end(),
                                                 [&](const ParameterSpec& p) {
                                                     return p.key == o.plotParameter && p.kind != ParameterKind::Choice &&
                                                            labOffers(*technique, p);
                                                 });
                // A file's technique is known only once it is read: main checks the key then.
                const bool techniqueFromFile = (given("--load") || given("--replay")) && !given("--technique");
                if (!numeric && !techniqueFromFile) {
                    std::string keys;
                    for (const ParameterSpec& p : technique->parameters)
                        if (p.kind != ParameterKind::Choice && labOffers(*technique, p))
                            keys += fmt::format("{}{}", keys.empty() ? "" : ", ", p.key);
                    throw BadValue(fmt::format("--plots parameter={}: '{}' has no such numeric parameter (it has: {})",
                                               o.plotParameter, technique->id, keys.empty() ? "none" : keys));
                }
            } else {
                throw BadValue(fmt::format("--plots expects history, scaling or parameter=KEY, got '{}'", plots));
            }
        }
        if (given("--load") && o.load.empty()) throw BadValue("--load expects a file name, got ''");
        if (given("--load") && (given("--scenario") || given("--entities") || given("--half-extents")))
            throw BadValue("--load sets the scene: it cannot be combined with --scenario, --entities or --half-extents");
        if (given("--replay") && o.replay.empty()) throw BadValue("--replay expects a file name, got ''");
        if (given("--replay") &&
            (given("--load") || given("--scenario") || given("--entities") || given("--half-extents") || given("--record")))
            throw BadValue("--replay starts from the recorded scene: it cannot be combined with --load, --scenario, "
                           "--entities, --half-extents or --record");
        if (given("--trace") && o.trace.empty()) throw BadValue("--trace expects a file name, got ''");
        if (given("--trace") && (given("--load") || given("--replay") || given("--record") || given("--scenario") ||
                                 given("--entities") || given("--half-extents")))
            throw BadValue("--trace sets the scene: it cannot be combined with --load, --replay, --record, --scenario, "
                           "--entities or --half-extents");
        if (given("--record-trace")) {
            if (o.recordTrace.empty()) throw BadValue("--record-trace expects a file name, got ''");
            if (given("--trace")) throw BadValue("--trace plays a trace's boxes: --record-trace would write them again");
            if (const std::string why = files::whyNotWritable(o.recordTrace); !why.empty())
                throw BadValue(fmt::format("--record-trace: cannot write '{}': {}", o.recordTrace, why));
        }
        if (given("--record")) {
            if (o.record.empty()) throw BadValue("--record expects a file name, got ''");
            if (const std::string why = files::whyNotWritable(o.record); !why.empty())
                throw BadValue(fmt::format("--record: cannot write '{}': {}", o.record, why));
        }
        if (given("--save")) {
            if (o.save.empty()) throw BadValue("--save expects a file name, got ''");
            if (const std::string why = files::whyNotWritable(o.save); !why.empty())
                throw BadValue(fmt::format("--save: cannot write '{}': {}", o.save, why));
        }
        for (const auto& [flag, path] : {std::pair{"--screenshot", &o.screenshot}, {"--plots-screenshot", &o.plotsScreenshot}}) {
            if (!given(flag)) continue;
            const std::string_view shot = *path;
            if (shot.size() <= 4 || !shot.ends_with(".png"))
                throw BadValue(fmt::format("{} expects a file name ending in .png, got '{}'", flag, shot));
            // Found now, not after every frame has run.
            if (const std::string why = files::whyNotWritable(*path); !why.empty())
                throw BadValue(fmt::format("{}: cannot write '{}': {}", flag, shot, why));
        }
        if (given("--plots-screenshot") && !given("--plots"))
            throw BadValue("--plots-screenshot needs --plots: the Plots window is closed without it");
    } catch (const CLI::CallForHelp&) {
        fmt::print("{}", cli.help());
        result.exitCode = 0;
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "ro_demo: {} (see --help)\n", e.what());
        result.exitCode = 2;
    } catch (const BadValue& e) {
        fmt::print(stderr, "ro_demo: {}\n", e.what());
        result.exitCode = 2;
    }
    if (!result.exitCode && o.listParameters) {
        for (const TechniqueInfo& t : techniques()) {
            fmt::print("{}{}\n", t.id, t.parameters.empty() ? ": no parameters" : "");
            for (const ParameterSpec& p : t.parameters)
                fmt::print("  {}={}  {}: {}{}{}; {}\n", p.key, formatValue(p, p.defaultValue), p.label, describeRange(p, true),
                           p.unit.empty() ? "" : " ", p.unit, p.help);
        }
        result.exitCode = 0;
    }
    if (!result.exitCode && o.listScenarios) {
        for (const ScenarioInfo& s : scenarios()) fmt::print("{}\n", s.name);
        result.exitCode = 0;
    }
    if (!result.exitCode && o.listTechniques) {
        for (const TechniqueInfo& t : techniques()) fmt::print("{}\n", t.id);
        result.exitCode = 0;
    }
    return result;
}

}  // namespace ro::app

// ro_bench: runs scenarios across techniques and entity counts, checks every answer against a
// reference, and compares with the broad phases of Box2D, Bullet and Chipmunk on the same
// frames, all of a scene's contestants interleaved frame by frame so that the bursts of a
// shared machine's load fall on each alike. Headless: it links ro and the peers' libraries,
// no SDL or ImGui. Run with --help.

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/output.h"
#include "bench/peers.h"
#include "bench/runner.h"
#include "bench/trace_frames.h"
#include "bench/trace_suite.h"
#include "bench/verdict_output.h"
#include "files/safe_file.h"
#include "scenario/scenario.h"
#include "scenario/sweeps.h"

namespace ro::bench {
namespace {

constexpr std::uint64_t kMaxCount = 10'000'000;
constexpr float kMinCellSize = static_cast<float>(kCellSizeParameter.offeredMin);
constexpr float kMaxCellSize = static_cast<float>(kCellSizeParameter.offeredMax);

struct BadValue : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Options {
    std::vector<const TechniqueInfo*> techniques;
    bool allTechniques = true;
    std::vector<const ScenarioInfo*> scenarios;
    std::vector<std::uint32_t> counts{1000, 10000, 100000};
    Motion motion = Motion::Steady;
    int frames = 60;
    int warmup = 5;
    int passes = 1;
    std::uint64_t seed = 1;
    std::optional<float> cellSize;
    Settings parameters;  ///< --param values: each technique takes the keys it declares
    std::string csv, json, plot;
    bool check = false;
    bool peers = false;
    bool verdictOnly = false;  ///< --verdict: each scene's verdict and its JSON, no table
    std::vector<std::string_view> onlyPeers;  ///< --peer: these peers alone (empty: every one)
    bool slowPeers = false;
    bool list = false;
    bool sweepN = false;                 ///< --sweep-n: a scaling sweep over the counts
    const ParameterSpec* sweepParameter = nullptr;  ///< --sweep-param: this parameter...
    double sweepLo = 0.0, sweepHi = 0.0;            ///< ...from lo to hi...
    int sweepSteps = 0;                             ///< ...in this many values
    std::optional<MixedShape> mixed;                ///< --mixed: a point of the mixed family
    std::uint32_t layers = 0;                       ///< --layers: collision layers, 0 for none
    bool swept = false;                             ///< --swept: contestants get swept boxes
    std::vector<TraceFacts> traces;                 ///< --trace: recorded frames instead of scenarios
    std::vector<std::uint32_t> threads;             ///< --threads: a row per count for techniques with threads
    bool framesGiven = false, warmupGiven = false;  ///< --frames, --warmup said (a trace's own count otherwise)
};

std::vector<std::string_view> splitList(std::string_view text, char separator = ',') {
    std::vector<std::string_view> items;
    while (true) {
        const std::size_t at = text.find(separator);
        items.push_back(text.substr(0, at));
        if (at == std::string_view::npos) break;
        text.remove_prefix(at + 1);
    }
    return items;
}

std::uint64_t parseWhole(std::string_view text, std::string_view flag, std::uint64_t lo, std::uint64_t hi) {
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size() || value < lo || value > hi)
        throw BadValue(fmt::format("{} expects a whole number from {} to {}, got '{}'", flag, lo, hi, text));
    return value;
}

std::string joinIds(auto&& rows) {
    std::string ids;
    for (const auto& row : rows) ids += fmt::format("{}{}", ids.empty() ? "" : ", ", row.id);
    return ids;
}

std::string scenarioNames() {
    std::string names;
    for (const ScenarioInfo& s : scenarios()) names += fmt::format("{}{}", names.empty() ? "" : ", ", s.name);
    return names;
}

/// Above a technique's registry limit (maxEntities) a run would take hours: it is left out of
/// "all", and refused when named.
bool overLimit(const TechniqueInfo& technique, std::uint32_t n) {
    return technique.maxEntities != 0 && n > technique.maxEntities;
}

/// Brute force is the reference of --check up to its limit (n^2 / 2 tests a frame); above,
/// the grid is, cross-checked by the hash.
bool bruteIsReference(std::uint32_t n) { return !overLimit(*findTechnique("brute"), n); }

bool onPath(const char* program) {
    const char* path = std::getenv("PATH");
    for (std::string_view dir : splitList(path ? path : "", ':'))
        if (!dir.empty() && access(fmt::format("{}/{}", dir, program).c_str(), X_OK) == 0) return true;
    return false;
}

void printList() {
    fmt::print("techniques (--technique):\n");
    for (const TechniqueInfo& t : techniques()) fmt::print("  {:<16} {} [{}]\n", t.id, t.label, t.guide.complexity);
    fmt::print("peers (--peers):\n");
    for (const PeerInfo& p : peers()) fmt::print("  {:<16} {}: {}\n", p.id, p.library, p.what);
    for (std::string_view package : missingPeerPackages()) fmt::print("  (not built: install {})\n", package);
    fmt::print("scenarios (--scenario):\n");
    for (const ScenarioInfo& s : scenarios()) fmt::print("  {:<16} {}\n", s.name, s.description);
}

/// The flags that make a scene of their own, refused beside a trace; a sweep on --trace takes
/// --n (it tiles the trace to those counts).
void refuseSceneFlags(const CLI::App& cli, std::string_view traceFlag, bool sweeping) {
    for (const char* flag : {"--scenario", "--n", "--motion", "--mixed", "--layers", "--swept", "--sweep-n",
                             "--sweep-param", "--seed"}) {
        const std::string_view name(flag);
        const bool sweepFlag = name == "--n" || name == "--sweep-n" || name == "--sweep-param";
        if (cli.count(flag) == 0 || (sweepFlag && traceFlag == "--trace" && sweeping)) continue;
        throw BadValue(fmt::format("{} makes a scene of its own: it does not apply to {}{}", flag, traceFlag,
                                   name == "--n" && traceFlag == "--trace" ? " (but to a sweep on it: it tiles the trace)" : ""));
    }
}

/// --trace: the other ways to make a scene do not apply; each trace is read in full now, so
/// that a bad one is refused (exit 2) before any run, and its frames fit --frames and --warmup.
/// A sweep takes one trace, tiled to the counts of --n (Broadmark's splitter).
void parseTraces(const CLI::App& cli, std::string_view list, bool sweeping, std::string_view traceFlag, Options& o) {
    refuseSceneFlags(cli, traceFlag, sweeping);
    o.scenarios.clear();
    for (std::string_view path : splitList(list)) {
        if (path.empty()) throw BadValue("--trace lists an empty file name");
        for (const TraceFacts& t : o.traces)
            if (t.path == path) throw BadValue(fmt::format("--trace lists '{}' twice", path));
        try {
            o.traces.push_back(scanTrace(std::string(path)));
        } catch (const TraceError& e) {
            throw BadValue(e.what());
        }
        const TraceFacts& t = o.traces.back();
        if (t.frames < 2)
            throw BadValue(fmt::format("trace '{}': {} frame{}; a run needs 2 at least (one built, one measured)",
                                       t.path, t.frames, t.frames == 1 ? "" : "s"));
        const std::uint64_t warmup = o.warmupGiven ? static_cast<std::uint64_t>(o.warmup) : 0;
        if (o.warmupGiven && 2 + warmup > t.frames)
            throw BadValue(fmt::format("trace '{}' has {} frames: --warmup {} leaves none to measure", t.path,
                                       t.frames, warmup));
        if (o.framesGiven && 1 + warmup + static_cast<std::uint64_t>(o.frames) > t.frames)
            throw BadValue(fmt::format("trace '{}' has {} frames: fewer than 1 built + --warmup {} + --frames {}",
                                       t.path, t.frames, warmup, o.frames));
        if (!o.allTechniques)
            for (const TechniqueInfo* technique : o.techniques)
                if (overLimit(*technique, t.maxCount))
                    throw BadValue(fmt::format("--technique {} runs at most {} entities, and trace '{}' has {} in a "
                                               "frame; leave it out",
                                               technique->id, technique->maxEntities, t.path, t.maxCount));
    }
}

/// The frames of a trace's run: all of them, the first built, then the warm-up (at most what
/// leaves one frame to measure), then --frames of the rest or all of it.
RunSpec traceSpec(const Options& o, const TraceFacts& t) {
    RunSpec spec;
    spec.trace = t.path;
    spec.traceName = t.name;
    spec.count = t.maxCount;
    const auto available = static_cast<int>(std::min<std::uint64_t>(t.frames - 1, 1'000'000'000));
    spec.warmup = std::min(o.warmup, available - 1);
    spec.frames = o.framesGiven ? o.frames : available - spec.warmup;
    return spec;
}

/// Parses argv into `o`; returns an exit code when the program should stop now.
std::optional<int> parse(int argc, char** argv, Options& o) {
    std::string technique = "all", scenario = "uniform", counts, motion, frames, warmup, passes, seed, cellSize,
                threadList;
    std::vector<std::string> params;
    CLI::App cli{"ro_bench: time ro's broad-phase techniques (and Box2D, Bullet, Chipmunk with --peers) on the "
                 "same frames, checking every answer.",
                 "ro_bench"};
    cli.add_flag("--list", o.list, "print techniques, peers and scenarios, and exit");
    cli.add_option("--technique", technique, "comma list of technique ids, or all (default)")->type_name("A,B|all");
    cli.add_option("--scenario", scenario, "comma list of scenarios, or all (default uniform)")->type_name("NAME");
    cli.add_option("--n", counts, "comma list of entity counts (default 1000,10000,100000)")->type_name("N,N");
    cli.add_option("--motion", motion, "steady (default), varied (a tenth of the boxes turn every frame), teleport (every box jumps anywhere every frame), churn (steady, and 1% of the boxes destroyed and as many created every frame) or bullets (steady, and 1% of the boxes, up to 500, 20-100x faster; the table counts the collisions each contestant missed)")
        ->type_name("KIND");
    cli.add_option("--frames", frames, "measured frames per run (default 60)")->type_name("F");
    cli.add_option("--warmup", warmup, "frames run before measuring (default 5)")->type_name("W");
    cli.add_option("--passes", passes,
                   "run each scene K times over the same frames; each frame's time is the median of its passes' "
                   "(the lower middle one of an even K; default 1)")
        ->type_name("K");
    cli.add_option("--seed", seed, "seed of the scene (default 1)")->type_name("S");
    cli.add_option("--threads", threadList,
                   "comma list of thread counts: each technique with a threads parameter runs once per count, "
                   "in rows named ID@Nt (0: the hardware's concurrency)")
        ->type_name("T,T");
    cli.add_option("--cell-size", cellSize, "cell side for the grid, the hash and Chipmunk's hash (default: fit "
                                            "the boxes)")
        ->type_name("X");
    cli.add_option("--param", params, "set a parameter of the techniques that have it, repeatable "
                                      "(ro_demo --list-parameters lists them)")
        ->type_name("KEY=VALUE")
        ->allow_extra_args(false);
    cli.add_option("--csv", o.csv, "write every row to this CSV file")->type_name("FILE");
    cli.add_option("--json", o.json, "write every row to this JSON file")->type_name("FILE");
    cli.add_option("--plot", o.plot, "draw median ms per frame against n (log-log) with gnuplot")->type_name("FILE.png");
    cli.add_flag("--sweep-n", o.sweepN,
                 "print a scaling sweep as CSV: each technique's median ms, candidates and pair tests at each --n "
                 "(default 10 counts from 100 to 1000000, log-spaced), one scenario, or one --trace tiled to each "
                 "count in whole copies; the app's scaling plot has the same columns");
    std::string sweepParam;
    cli.add_option("--sweep-param", sweepParam,
                   "print a parameter sweep as CSV: the techniques that have NAME, at STEPS values from LO to HI, "
                   "at one --n (default 100000; a --trace's own count)")
        ->type_name("NAME=LO:HI:STEPS");
    std::string mixed;
    cli.add_option("--mixed", mixed,
                   "a point of the mixed family, with --scenario mixed: the share of big boxes (0 to 0.5), their "
                   "sides MIN to MAX (1 to 100; the others have side 0.8-1.2) and the spacing, in mean box sides "
                   "(1.5 to 8); default: every tenth box of side 10-40, spacing 4 small boxes")
        ->type_name("F:MIN:MAX:SPACING");
    cli.add_flag("--swept", o.swept,
                 "hand every contestant swept boxes (each box joined with its box one frame on): no pair whose paths "
                 "meet is missed, at the cost of more candidates");
    std::string layers;
    cli.add_option("--layers", layers,
                   "put box i in layer i % K (1 to 32): layer 0 collides with every layer, the others with layer 0 "
                   "and themselves; pairs the filters exclude are not reported")
        ->type_name("K");
    std::string traceList;
    cli.add_option("--trace", traceList,
                   "comma list of trace files (docs/trace-format.md; .csv is CSV, else binary) to run instead of "
                   "scenarios: every frame of each, the first built from scratch, --warmup more (default 5), "
                   "the rest measured (or --frames of them)")
        ->type_name("FILE,FILE");
    TraceSuiteRequest suite;
    cli.add_option("--trace-suite", suite.scenes,
                   fmt::format("record the Box2D scenes NAME,NAME (none or all: every one; {}) into the trace cache, "
                               "or reuse them from it, and run them as --trace runs its files",
                               traceSuiteSceneNames()))
        ->expected(0, 1)
        ->type_name("[NAME,NAME]");
    cli.add_option("--suite-frames", suite.frames,
                   fmt::format("frames recorded per suite scene (default 1 + --warmup + --frames when --frames is "
                               "given, else {})", kTraceSuiteDefaultFrames))
        ->type_name("N");
    cli.add_option("--trace-cache", suite.cacheDir, "the suite's trace cache (default: traces/ beside ro_bench)")
        ->type_name("DIR");
    cli.add_flag("--check", o.check, "compare every frame's overlap pairs with the reference; exit 1 on a mismatch");
    cli.add_flag("--peers", o.peers, "also run the peers on the same frames");
    cli.add_flag("--verdict", o.verdictOnly,
                 "print only each scene's verdict (which technique to pick, and why) and its JSON form");
    std::string peerList;
    cli.add_option("--peer", peerList,
                   "comma list of peer ids to run (implies --peers; --list names them): a dense mix can take "
                   "one peer seconds a frame");
    cli.add_flag("--slow-peers", o.slowPeers,
                 "with --peers, keep peers whose build is too slow for large n (bullet-sap above 20000)");
    cli.footer(fmt::format("Techniques: {}\nScenarios: {}\nExit codes: 0 success, 1 a check failed or a file could "
                           "not be written, 2 bad command line.",
                           joinIds(techniques()), scenarioNames()));
    try {
        // CLI11 reads `--flag=` as `--flag` and takes the next argument for its value.
        for (int i = 1; i < argc; ++i)
            if (const std::string_view arg = argv[i]; arg.starts_with("--") && arg.ends_with("="))
                throw BadValue(fmt::format("{} has no value after the '='", arg));
        cli.parse(argc, argv);
        if (o.list) return 0;
        for (const char* flag : {"--technique", "--scenario", "--n", "--motion", "--frames", "--warmup", "--passes",
                                 "--seed", "--cell-size", "--csv", "--json", "--plot", "--peer", "--trace", "--layers",
                                 "--sweep-param"})
            if (cli.count(flag) > 0 && cli[flag]->as<std::string>().empty())
                throw BadValue(fmt::format("{} was given an empty value", flag));
        if (technique != "all") {
            o.allTechniques = false;
            for (std::string_view id : splitList(technique)) {
                const TechniqueInfo* t = findTechnique(id);
                if (!t) throw BadValue(fmt::format("--technique: unknown '{}' (valid: {}, all)", id, joinIds(techniques())));
                if (std::find(o.techniques.begin(), o.techniques.end(), t) != o.techniques.end())
                    throw BadValue(fmt::format("--technique lists '{}' twice", id));
                o.techniques.push_back(t);
            }
        } else {
            for (const TechniqueInfo& t : techniques()) o.techniques.push_back(&t);
        }
        if (cli.count("--peer") > 0) {
            o.peers = true;
            const auto known = peers();
            for (std::string_view id : splitList(peerList)) {
                const auto found = std::find_if(known.begin(), known.end(), [&](const PeerInfo& p) { return p.id == id; });
                if (found == known.end()) {
                    std::string valid;
                    for (const PeerInfo& p : known) valid += fmt::format("{}{}", valid.empty() ? "" : ", ", p.id);
                    throw BadValue(fmt::format("--peer: unknown '{}' (valid: {})", id, valid.empty() ? "none built" : valid));
                }
                o.onlyPeers.push_back(found->id);
            }
            if (o.onlyPeers.empty()) throw BadValue("--peer was given an empty value");
        }
        if (scenario == "all") {
            for (const ScenarioInfo& s : scenarios()) o.scenarios.push_back(&s);
        } else {
            for (std::string_view name : splitList(scenario)) {
                const ScenarioInfo* s = findScenario(name);
                if (!s) throw BadValue(fmt::format("--scenario: unknown '{}' (valid: {}, all)", name, scenarioNames()));
                if (std::find(o.scenarios.begin(), o.scenarios.end(), s) != o.scenarios.end())
                    throw BadValue(fmt::format("--scenario lists '{}' twice", name));
                o.scenarios.push_back(s);
            }
        }
        if (!counts.empty()) {
            o.counts.clear();
            for (std::string_view text : splitList(counts)) {
                const auto n = static_cast<std::uint32_t>(parseWhole(text, "--n", 1, kMaxCount));
                if (std::find(o.counts.begin(), o.counts.end(), n) != o.counts.end())
                    throw BadValue(fmt::format("--n lists {} twice", n));
                o.counts.push_back(n);
            }
        }
        if (!o.allTechniques)
            for (const TechniqueInfo* t : o.techniques)
                for (const std::uint32_t n : o.counts)
                    if (overLimit(*t, n))
                        throw BadValue(fmt::format("--technique {} runs at most {} entities ({}: at --n {}, "
                                                   "{} tests a frame); leave it out or lower --n",
                                                   t->id, t->maxEntities, t->guide.complexity, n,
                                                   static_cast<std::uint64_t>(n) * (n - 1) / 2));
        for (const ScenarioInfo* s : o.scenarios)
            for (const std::uint32_t n : o.counts)
                if (n > s->maxCount)
                    throw BadValue(fmt::format("--n {} is too many for '{}' (at most {}: {})", n, s->name,
                                               s->maxCount, s->description));
        if (!motion.empty()) {
            const auto m = findMotion(motion);
            if (!m)
                throw BadValue(fmt::format("--motion: unknown '{}' (valid: steady, varied, teleport, churn, bullets)", motion));
            o.motion = *m;
            for (const ScenarioInfo* s : o.scenarios)
                if (!motionApplies(o.motion, s->kind))
                    throw BadValue(fmt::format("--motion {} does not apply to '{}': its boxes keep to their {}", motion,
                                               s->name, s->kind == ScenarioKind::Orbit ? "rings" : "square"));
        }
        o.framesGiven = !frames.empty(), o.warmupGiven = !warmup.empty();
        if (!threadList.empty()) {
            for (std::string_view text : splitList(threadList)) {
                const auto t = static_cast<std::uint32_t>(
                    parseWhole(text, "--threads", 0, static_cast<std::uint64_t>(kThreadsParameter.offeredMax)));
                if (std::find(o.threads.begin(), o.threads.end(), t) != o.threads.end())
                    throw BadValue(fmt::format("--threads lists {} twice", t));
                o.threads.push_back(t);
            }
            if (o.threads.empty()) throw BadValue("--threads was given an empty value");
        }
        if (!frames.empty()) o.frames = static_cast<int>(parseWhole(frames, "--frames", 1, 100'000));
        if (!warmup.empty()) o.warmup = static_cast<int>(parseWhole(warmup, "--warmup", 0, 100'000));
        if (!passes.empty()) o.passes = static_cast<int>(parseWhole(passes, "--passes", 1, 20));
        if (!seed.empty()) o.seed = parseWhole(seed, "--seed", 0, std::numeric_limits<std::uint64_t>::max());
        if (!cellSize.empty()) {
            float value = 0.0f;
            const auto [ptr, ec] = std::from_chars(cellSize.data(), cellSize.data() + cellSize.size(), value);
            // Boxes have sides near 1 (up to 40): a cell below 0.05 would put hundreds of cells
            // under every box (Chipmunk's hash visits each), one above 10^4 every box in one.
            if (ec != std::errc{} || ptr != cellSize.data() + cellSize.size() || !(value >= kMinCellSize) ||
                !(value <= kMaxCellSize))
                throw BadValue(fmt::format("--cell-size expects a number from {} to {}, got '{}'", kMinCellSize,
                                           kMaxCellSize, cellSize));
            o.cellSize = value;
        }
        for (const std::string& text : params) {
            // The key must belong to a technique that runs; each technique checks its own.
            std::string why = "no technique in this run has that parameter";
            for (const TechniqueInfo* t : o.techniques)
                if (findParameter(t->parameters, text.substr(0, text.find('='))))
                    why = setFromText(t->parameters, text, o.parameters);
            if (!why.empty()) throw BadValue(fmt::format("--param {}: {}", text, why));
        }
        if (cli.count("--mixed") > 0) {
            if (o.scenarios.size() != 1 || o.scenarios.front()->kind != ScenarioKind::Mixed)
                throw BadValue("--mixed shapes the mixed scenario: use it with --scenario mixed alone");
            try {
                o.mixed = MixedShape::parse(mixed);
            } catch (const std::invalid_argument& e) {
                throw BadValue(fmt::format("--mixed {}", e.what()));
            }
        }
        if (!layers.empty()) o.layers = static_cast<std::uint32_t>(parseWhole(layers, "--layers", 1, 32));
        const bool sweeping = o.sweepN || !sweepParam.empty();
        if (cli.count("--trace") > 0) parseTraces(cli, traceList, sweeping, "--trace", o);
        if (sweeping && o.layers > 0) throw BadValue("--layers is for the table, not for a sweep");
        if (sweeping && !o.threads.empty())
            throw BadValue("--threads is for the table: a sweep takes --param threads=T or --sweep-param threads=...");
        if (!o.threads.empty() && o.parameters.find(kThreadsParameter.key))
            throw BadValue("--threads and --param threads=... both set the threads: pick one");
        if (o.sweepN && !sweepParam.empty()) throw BadValue("--sweep-n and --sweep-param are one sweep each: pick one");
        if (sweeping && (o.traces.empty() ? o.scenarios.size() : o.traces.size()) != 1)
            throw BadValue(o.traces.empty() ? "a sweep runs on one scenario: give --scenario one name"
                                            : "a sweep runs on one trace: give --trace one file");
        if ((o.sweepN || !sweepParam.empty()) && (!o.json.empty() || !o.plot.empty() || o.peers || o.check))
            throw BadValue("a sweep prints CSV (and --csv writes it): --json, --plot, --peers and --check do not apply");
        if ((o.sweepN || !sweepParam.empty()) && o.mixed) throw BadValue("--mixed is for the table, not for a sweep");
        if (o.sweepN && counts.empty()) o.counts = logSpacedCounts(100, 1'000'000, 10);
        if (!sweepParam.empty()) {
            if (counts.empty()) o.counts = {o.traces.empty() ? 100'000 : o.traces.front().maxCount};
            if (o.counts.size() != 1) throw BadValue("--sweep-param runs at one count: give --n one value");
            const std::size_t eq = sweepParam.find('=');
            const std::vector<std::string_view> range =
                eq == std::string::npos ? std::vector<std::string_view>{} : splitList(std::string_view(sweepParam).substr(eq + 1), ':');
            if (range.size() != 3)
                throw BadValue(fmt::format("--sweep-param expects NAME=LO:HI:STEPS, got '{}'", sweepParam));
            const std::string name = sweepParam.substr(0, eq);
            for (const TechniqueInfo* t : o.techniques)
                if (const ParameterSpec* spec = findParameter(t->parameters, name); spec && spec->kind != ParameterKind::Choice)
                    o.sweepParameter = spec;
            if (!o.sweepParameter)
                throw BadValue(fmt::format("--sweep-param: no technique in this run has a numeric parameter '{}' "
                                           "(ro_demo --list-parameters lists them)", name));
            auto bound = [&](std::string_view text, const char* which) {
                double value = 0.0;
                const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
                const ParameterSpec& p = *o.sweepParameter;
                if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size() || !(value >= p.min) ||
                    !(value <= p.max))
                    throw BadValue(fmt::format("--sweep-param {}: {} must be a number from {} to {}, got '{}'", name,
                                               which, p.min, p.max, text));
                return value;
            };
            o.sweepLo = bound(range[0], "LO");
            o.sweepHi = bound(range[1], "HI");
            o.sweepSteps = static_cast<int>(parseWhole(range[2], "--sweep-param STEPS", 2, 100));
            if (!(o.sweepLo < o.sweepHi))
                throw BadValue(fmt::format("--sweep-param {}: LO must be below HI, got '{}'", name, sweepParam));
        }
        if (!o.plot.empty() && !o.plot.ends_with(".png"))
            throw BadValue(fmt::format("--plot expects a file name ending in .png, got '{}'", o.plot));
        if (!o.plot.empty() && !onPath("gnuplot"))
            throw BadValue("--plot needs gnuplot on the PATH (Debian: apt-get install gnuplot-nox)");
        // Found now, not after a sweep of many minutes.
        for (const auto& [flag, path] : {std::pair{"--csv", &o.csv}, {"--json", &o.json}, {"--plot", &o.plot}})
            if (const std::string why = path->empty() ? "" : files::whyNotWritable(*path); !why.empty())
                throw BadValue(fmt::format("{}: cannot write '{}': {}", flag, *path, why));
        if (cli.count("--trace-suite") > 0) {
            refuseSceneFlags(cli, "--trace-suite", sweeping);  // the suite records last: after every other check
            if (o.framesGiven) suite.benchFrames = o.frames;
            suite.warmup = o.warmup;
            std::string paths;
            try {
                paths = traceSuitePaths(suite);
            } catch (const std::exception& e) {
                throw BadValue(e.what());
            }
            parseTraces(cli, paths, sweeping, "--trace-suite", o);
        } else if (cli.count("--suite-frames") + cli.count("--trace-cache") > 0) {
            throw BadValue("--suite-frames and --trace-cache are for --trace-suite");
        }
    } catch (const CLI::CallForHelp&) {
        fmt::print("{}", cli.help());
        return 0;
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "ro_bench: {} (see --help)\n", e.what());
        return 2;
    } catch (const BadValue& e) {
        fmt::print(stderr, "ro_bench: {}\n", e.what());
        return 2;
    }
    return std::nullopt;
}

bool selected(const Options& o, const TechniqueInfo& technique) {
    return std::find(o.techniques.begin(), o.techniques.end(), &technique) != o.techniques.end();
}

void showProgress(const RunSpec& spec, int done, int total, std::size_t contestants) {
    fmt::print(stderr, "\r  {} n={} [{:<20}] {}/{} ({} contestants)", sceneName(spec), spec.count,
               std::string(static_cast<std::size_t>(20 * done / total), '#'), done, total, contestants);
    if (done == total) fmt::print(stderr, "\r{:80}\r", "");
}

/// --sweep-n or --sweep-param: one point at a time, CSV on stdout (and in --csv), the same
/// columns as the app's plots export. On a trace, a count is the trace tiled to about it: its
/// most boxes in a frame times a whole number of copies.
int runSweep(const Options& o) {
    const TraceFacts* trace = o.traces.empty() ? nullptr : &o.traces.front();
    std::vector<std::string> lines{sweepCsvHeader()};
    auto run = [&](const TechniqueInfo& t, std::uint32_t n, std::string_view parameter, double value) {
        Settings settings = o.parameters;
        if (o.cellSize) settings.set(kCellSizeParameter.key, *o.cellSize);
        const bool fitCell = !settings.find(kCellSizeParameter.key) &&
                             !(o.sweepParameter && o.sweepParameter->key == kCellSizeParameter.key);
        if (o.sweepParameter) settings.set(o.sweepParameter->key, value);
        PointRun point = trace ? PointRun(t, settings, fitCell, trace->name, tiledTraceScenes(trace->path, trace->extent()),
                                          n, parameter, value)
                               : PointRun(t, settings, fitCell, *o.scenarios.front(), n, o.seed, parameter, value);
        while (!point.step()) {
        }
        lines.push_back(sweepCsvRow(point.result()));
        fmt::print("{}\n", lines.back());
        std::fflush(stdout);
    };
    // The counts run: on a trace, each rounded to whole copies, once.
    std::vector<std::uint32_t> counts;
    for (const std::uint32_t n : o.counts) {
        const std::uint32_t count = trace ? tileCopies(n, trace->extent()) * trace->maxCount : n;
        if (std::find(counts.begin(), counts.end(), count) == counts.end()) counts.push_back(count);
    }
    fmt::print("{}\n", lines.front());
    for (const TechniqueInfo* t : o.techniques) {
        if (o.sweepParameter) {
            if (!findParameter(t->parameters, o.sweepParameter->key)) continue;
            for (const double v : sweepValues(*o.sweepParameter, o.sweepLo, o.sweepHi, o.sweepSteps))
                run(*t, counts.front(), o.sweepParameter->key, v);
        } else {
            for (const std::uint32_t n : counts)
                if (!overLimit(*t, n)) run(*t, n, "n", n);
        }
    }
    if (!o.csv.empty()) {
        std::string text;
        for (const std::string& line : lines) text += line + '\n';
        try {
            files::writeOutputFile(o.csv, text);
        } catch (const files::FileError& e) {
            fmt::print(stderr, "ro_bench: {}\n", e.what());
            return 1;
        }
    }
    return 0;
}

/// What the contestants of a scene are set up from: its bounds, the cell size fitted to its
/// boxes, and its count (for a trace, the most boxes in a frame).
struct SceneSetup {
    Aabb bounds;
    float fittedCellSize = 1.0f;
    std::uint32_t n = 0;
};

/// Runs every contestant on the frames of `spec` side by side (with --passes, again), prints
/// the scene's table and adds its rows to `all`, and a check's mismatches to `failures`.
void runScene(const Options& o, const RunSpec& spec, const SceneSetup& setup, ProgressFn progress,
              std::vector<Row>& all, std::vector<std::string>& failures) {
    const std::uint32_t n = setup.n;
    const std::string motion = spec.trace.empty() ? std::string(motionName(o.motion)) : "trace";
    Settings settings = o.parameters;
    settings.bounds = setup.bounds;
    if (o.cellSize || !settings.find(kCellSizeParameter.key))  // --cell-size, --param, or fitted
        settings.set(kCellSizeParameter.key, o.cellSize.value_or(setup.fittedCellSize));

    // The reference: brute force where n allows, else the grid cross-checked on every
    // frame by the hash, an independent technique (the conformance suite holds both to
    // brute force's answers).
    const bool bruteReference = bruteIsReference(n);
    const TechniqueInfo& referenceTechnique = *findTechnique(bruteReference ? "brute" : "grid");
    const TechniqueInfo& crossCheck = *findTechnique("hash");
    ReferenceAt referenceAt;  // left empty without --check: the run is then unchecked
    if (o.check)
        referenceAt = [&](int frame) {
            auto fresh = makeTechniqueContestant(referenceTechnique, settings);
            return pairsAtFrame(*fresh, spec, frame);
        };

    // Every contestant of this scene runs side by side, frame by frame, in lanes in the
    // order of the rows: the machine is shared and its load comes in bursts, which then
    // fall on all of them alike (see runner.h). With --passes, fresh contestants run the
    // same frames again, and each frame keeps the median of its passes' times.
    std::vector<std::string> names;
    std::vector<bool> shown;  // under --check the reference and the cross-check run even unselected
    std::vector<std::vector<LaneResult>> passes;
    for (int pass = 0; pass < o.passes; ++pass) {
        const bool first = pass == 0;
        std::vector<std::unique_ptr<Contestant>> contestants;
        std::vector<Lane> lanes;
        auto addLane = [&](std::unique_ptr<Contestant> contestant, std::string_view name, bool peer,
                           bool show) {
            // Said before any frame, and flushed: a long run is never silent, even
            // where stderr's progress bar is not shown.
            if (!o.verdictOnly) {
                fmt::print("starting {} ({}) n={} pass {}/{}: {}, {} frames\n", sceneName(spec), motion, n,
                           pass + 1, o.passes, name, 1 + spec.warmup + spec.frames);
                std::fflush(stdout);
            }
            lanes.push_back({contestant.get(), std::string(name), peer});
            contestants.push_back(std::move(contestant));
            if (first) {
                names.emplace_back(name);
                shown.push_back(show);
            }
        };
        // With --threads, a technique that has threads runs once per count, in rows ID@Nt.
        const auto perThreadCount = [&](const TechniqueInfo& t) {
            return !o.threads.empty() && findParameter(t.parameters, kThreadsParameter.key) != nullptr;
        };
        if (o.check) {
            addLane(makeTechniqueContestant(referenceTechnique, settings), referenceTechnique.id, false,
                    selected(o, referenceTechnique) && !perThreadCount(referenceTechnique));
            if (!bruteReference)
                addLane(makeTechniqueContestant(crossCheck, settings), crossCheck.id, false,
                        selected(o, crossCheck));
        }
        for (const TechniqueInfo* t : o.techniques) {
            // The reference (and the cross-check) have their lanes already.
            if (o.check && !perThreadCount(*t) && (t == &referenceTechnique || (!bruteReference && t == &crossCheck)))
                continue;
            if (overLimit(*t, n)) {  // only in "all": named, it was refused up front
                if (first)
                    fmt::print(stderr, "ro_bench: {} left out at n={} (at most {}: {})\n", t->id, n,
                               t->maxEntities, t->guide.complexity);
                continue;
            }
            if (!perThreadCount(*t)) {
                addLane(makeTechniqueContestant(*t, settings), t->id, false, true);
                continue;
            }
            for (const std::uint32_t threads : o.threads) {
                Settings withThreads = settings;
                withThreads.set(kThreadsParameter.key, threads);
                addLane(makeTechniqueContestant(*t, withThreads), fmt::format("{}@{}t", t->id, threads), false, true);
            }
        }
        if (o.peers) {
            const PeerSetup peerSetup{setup.bounds, settings.real(kCellSizeParameter), n};
            for (const PeerInfo& p : peers()) {
                if (!o.onlyPeers.empty() &&
                    std::find(o.onlyPeers.begin(), o.onlyPeers.end(), p.id) == o.onlyPeers.end())
                    continue;
                if (p.maxCount != 0 && n > p.maxCount && !o.slowPeers) {
                    if (first)
                        fmt::print(stderr,
                                   "ro_bench: {} left out at n={} (at most {} without --slow-peers: {})\n",
                                   p.id, n, p.maxCount, p.whyLimited);
                    continue;
                }
                addLane(p.create(peerSetup), p.id, true, true);
            }
        }
        passes.push_back(runSideBySide(lanes, spec, referenceAt, progress));
    }

    std::vector<LaneResult> results = combinePasses(passes);
    // Above the brute-force limit the reference is only as sound as its cross-check.
    if (o.check && !bruteReference) results[0].row.check = results[1].row.check;
    std::vector<Row> rows;
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (!results[i].mismatch.empty())
            failures.push_back(fmt::format("{} n={} {}: {} (reference: {})", sceneName(spec), n,
                                           names[i], results[i].mismatch, referenceTechnique.id));
        if (shown[i]) rows.push_back(results[i].row);
    }
    // Every row's ratio to the best peer of this scene; a row that failed its check
    // ran only part of the frames and takes no part.
    double bestPeer = std::numeric_limits<double>::infinity();
    for (const Row& r : rows)
        if (r.peer && r.check != "failed") bestPeer = std::min(bestPeer, r.meanMs);
    if (std::isfinite(bestPeer) && bestPeer > 0)
        for (Row& r : rows)
            if (r.check != "failed") r.ratioToBestPeer = r.meanMs / bestPeer;
    // The verdict ranks what ran all its frames and passed its check.
    std::vector<Measured> measured;
    for (std::size_t i = 0; i < results.size(); ++i) {
        const Row& row = results[i].row;
        if (!shown[i] || row.check == "failed") continue;
        measured.push_back({names[i], row.peer, results[i].frameMs, row.maxMs,
                            row.bytes ? static_cast<double>(*row.bytes) / (1024.0 * 1024.0) : 0.0});
    }
    const std::vector<Ranked> ranking = rank(measured);
    if (o.verdictOnly) {
        printVerdictOnly(sceneName(spec), n, ranking, profileScene(spec));
    } else {
        printTable(rows);
        printRanking(ranking, profileScene(spec));
    }
    all.insert(all.end(), rows.begin(), rows.end());
}

int runAll(const Options& o) {
    if (o.sweepN || o.sweepParameter) return runSweep(o);
    std::vector<Row> all;
    std::vector<std::string> failures;
    const bool progressBar = isatty(STDERR_FILENO) != 0;
    const ProgressFn progress = progressBar ? &showProgress : nullptr;

    for (const ScenarioInfo* scenario : o.scenarios) {
        for (const std::uint32_t n : o.counts) {
            const RunSpec spec{scenario, n, o.motion, o.seed, o.frames, o.warmup, o.mixed, o.layers, o.swept};
            const Scene probe(scenario->kind, n, o.motion, o.seed, o.mixed);
            runScene(o, spec, {probe.bounds(), probe.fittedCellSize(), n}, progress, all, failures);
        }
    }
    for (const TraceFacts& trace : o.traces)
        runScene(o, traceSpec(o, trace), {trace.bounds, trace.fittedCellSize(), trace.maxCount}, progress, all,
                 failures);

    std::string error;
    int exitCode = 0;
    if (!o.csv.empty() && !writeCsv(o.csv, all, error)) exitCode = 1;
    if (exitCode == 0 && !o.json.empty() && !writeJson(o.json, all, error)) exitCode = 1;
    if (exitCode == 0 && !o.plot.empty() && !writePlot(o.plot, all, error)) exitCode = 1;
    if (exitCode != 0) fmt::print(stderr, "ro_bench: {}\n", error);
    if (o.peers && peers().empty())
        fmt::print(stderr, "ro_bench: no peer was built in (install libbox2d-dev, libbullet-dev, libchipmunk-dev)\n");
    if (o.check) {
        for (const std::string& failure : failures) fmt::print(stderr, "ro_bench: MISMATCH {}\n", failure);
        if (!failures.empty()) return 1;
        fmt::print("\ncheck: every frame of every run matched the reference\n");
    }
    return exitCode;
}

}  // namespace
}  // namespace ro::bench

int main(int argc, char** argv) {
    ro::bench::Options options;
    if (const auto exitCode = ro::bench::parse(argc, argv, options)) {
        if (*exitCode == 0 && options.list) ro::bench::printList();
        return *exitCode;
    }
    try {
        return ro::bench::runAll(options);
    } catch (const std::exception& e) {
        fmt::print(stderr, "ro_bench: {}\n", e.what());
        return 1;
    }
}

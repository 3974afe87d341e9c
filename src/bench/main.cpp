// ro_bench: runs scenarios across techniques and entity counts, checks every answer against a
// reference, and compares with the broad phases of Box2D, Bullet and Chipmunk on the same
// frames. Headless: it links only the ro library. Run with --help.

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/output.h"
#include "bench/peers.h"
#include "bench/runner.h"
#include "bench/scenario.h"

namespace ro::bench {
namespace {

/// Above this many entities brute force is no reference (n^2 / 2 tests a frame) and is
/// left out of "all"; --check then takes the grid as the reference.
constexpr std::uint32_t kBruteLimit = 20'000;
constexpr std::uint64_t kMaxCount = 10'000'000;

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
    std::uint64_t seed = 1;
    std::optional<float> cellSize;
    std::string csv, json, plot;
    bool check = false;
    bool peers = false;
    bool list = false;
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

bool onPath(const char* program) {
    const char* path = std::getenv("PATH");
    for (std::string_view dir : splitList(path ? path : "", ':'))
        if (!dir.empty() && access(fmt::format("{}/{}", dir, program).c_str(), X_OK) == 0) return true;
    return false;
}

void printList() {
    fmt::print("techniques (--technique):\n");
    for (const TechniqueInfo& t : techniques()) fmt::print("  {:<16} {} [{}]\n", t.id, t.label, t.cost);
    fmt::print("peers (--peers):\n");
    for (const PeerInfo& p : peers()) fmt::print("  {:<16} {}: {}\n", p.id, p.library, p.what);
    for (std::string_view package : missingPeerPackages()) fmt::print("  (not built: install {})\n", package);
    fmt::print("scenarios (--scenario):\n");
    for (const ScenarioInfo& s : scenarios()) fmt::print("  {:<16} {}\n", s.name, s.description);
}

/// Parses argv into `o`; returns an exit code when the program should stop now.
std::optional<int> parse(int argc, char** argv, Options& o) {
    std::string technique = "all", scenario = "uniform", counts, motion, frames, warmup, seed, cellSize;
    CLI::App cli{"ro_bench: time ro's broad-phase techniques (and Box2D, Bullet, Chipmunk with --peers) on the "
                 "same frames, checking every answer.",
                 "ro_bench"};
    cli.add_flag("--list", o.list, "print techniques, peers and scenarios, and exit");
    cli.add_option("--technique", technique, "comma list of technique ids, or all (default)")->type_name("A,B|all");
    cli.add_option("--scenario", scenario, "comma list of scenarios, or all (default uniform)")->type_name("NAME");
    cli.add_option("--n", counts, "comma list of entity counts (default 1000,10000,100000)")->type_name("N,N");
    cli.add_option("--motion", motion, "steady (default) or varied: a tenth of the boxes turn every frame")
        ->type_name("KIND");
    cli.add_option("--frames", frames, "measured frames per run (default 60)")->type_name("F");
    cli.add_option("--warmup", warmup, "frames run before measuring (default 5)")->type_name("W");
    cli.add_option("--seed", seed, "seed of the scene (default 1)")->type_name("S");
    cli.add_option("--cell-size", cellSize, "cell side for the grid, the hash and Chipmunk's hash (default: fit "
                                            "the boxes)")
        ->type_name("X");
    cli.add_option("--csv", o.csv, "write every row to this CSV file")->type_name("FILE");
    cli.add_option("--json", o.json, "write every row to this JSON file")->type_name("FILE");
    cli.add_option("--plot", o.plot, "draw mean ms per frame against n (log-log) with gnuplot")->type_name("FILE.png");
    cli.add_flag("--check", o.check, "compare every frame's overlap pairs with the reference; exit 1 on a mismatch");
    cli.add_flag("--peers", o.peers, "also run the peers on the same frames");
    cli.footer(fmt::format("Techniques: {}\nScenarios: {}\nExit codes: 0 success, 1 a check failed or a file could "
                           "not be written, 2 bad command line.",
                           joinIds(techniques()), scenarioNames()));
    try {
        cli.parse(argc, argv);
        if (o.list) return 0;
        if (technique != "all") {
            o.allTechniques = false;
            for (std::string_view id : splitList(technique)) {
                const TechniqueInfo* t = findTechnique(id);
                if (!t) throw BadValue(fmt::format("--technique: unknown '{}' (valid: {}, all)", id, joinIds(techniques())));
                o.techniques.push_back(t);
            }
        } else {
            for (const TechniqueInfo& t : techniques()) o.techniques.push_back(&t);
        }
        if (scenario == "all") {
            for (const ScenarioInfo& s : scenarios()) o.scenarios.push_back(&s);
        } else {
            for (std::string_view name : splitList(scenario)) {
                const ScenarioInfo* s = findScenario(name);
                if (!s) throw BadValue(fmt::format("--scenario: unknown '{}' (valid: {}, all)", name, scenarioNames()));
                o.scenarios.push_back(s);
            }
        }
        if (!counts.empty()) {
            o.counts.clear();
            for (std::string_view n : splitList(counts))
                o.counts.push_back(static_cast<std::uint32_t>(parseWhole(n, "--n", 1, kMaxCount)));
        }
        for (const ScenarioInfo* s : o.scenarios)
            for (const std::uint32_t n : o.counts)
                if (n > s->maxCount)
                    throw BadValue(fmt::format("--n {} is too many for '{}' (at most {}: {})", n, s->name,
                                               s->maxCount, s->description));
        if (!motion.empty()) {
            const auto m = findMotion(motion);
            if (!m) throw BadValue(fmt::format("--motion: unknown '{}' (valid: steady, varied)", motion));
            o.motion = *m;
        }
        if (!frames.empty()) o.frames = static_cast<int>(parseWhole(frames, "--frames", 1, 100'000));
        if (!warmup.empty()) o.warmup = static_cast<int>(parseWhole(warmup, "--warmup", 0, 100'000));
        if (!seed.empty()) o.seed = parseWhole(seed, "--seed", 0, std::numeric_limits<std::uint64_t>::max());
        if (!cellSize.empty()) {
            float value = 0.0f;
            const auto [ptr, ec] = std::from_chars(cellSize.data(), cellSize.data() + cellSize.size(), value);
            if (ec != std::errc{} || ptr != cellSize.data() + cellSize.size() || !std::isfinite(value) || !(value > 0))
                throw BadValue(fmt::format("--cell-size expects a finite number greater than 0, got '{}'", cellSize));
            o.cellSize = value;
        }
        if (!o.plot.empty() && !o.plot.ends_with(".png"))
            throw BadValue(fmt::format("--plot expects a file name ending in .png, got '{}'", o.plot));
        if (!o.plot.empty() && !onPath("gnuplot"))
            throw BadValue("--plot needs gnuplot on the PATH (Debian: apt-get install gnuplot-nox)");
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

void showProgress(int done, int total, const Row& row) {
    fmt::print(stderr, "\r  {} n={} {:<16} [{:<20}] {}/{}", row.scenario, row.n, row.technique,
               std::string(static_cast<std::size_t>(20 * done / total), '#'), done, total);
    if (done == total) fmt::print(stderr, "\r{:80}\r", "");
}

/// The cell size for a scene: the largest box, unless a few boxes are far larger than the
/// rest (mixed sizes), where 4x the median box keeps the many small ones cheap and lets the
/// large ones span cells.
float autoCellSize(const Scene& scene) {
    return std::min(scene.largestSide(), 4.0f * scene.medianSide());
}

int runAll(const Options& o) {
    std::vector<Row> all;
    std::vector<std::string> failures;
    const bool progressBar = isatty(STDERR_FILENO) != 0;
    const ProgressFn progress = progressBar ? &showProgress : nullptr;

    for (const ScenarioInfo* scenario : o.scenarios) {
        for (const std::uint32_t n : o.counts) {
            const RunSpec spec{scenario, n, o.motion, o.seed, o.frames, o.warmup};
            const Scene probe(scenario->kind, n, o.motion, o.seed);
            const Settings settings{o.cellSize.value_or(autoCellSize(probe)), probe.bounds(), 0};
            std::vector<Row> rows;

            // The reference: brute force where n allows, else the grid, whose answers the
            // conformance suite and smaller --check runs hold to brute force's.
            Recording reference;
            const TechniqueInfo& referenceTechnique = *findTechnique(n <= kBruteLimit ? "brute" : "grid");
            if (o.check) {
                auto contestant = makeTechniqueContestant(referenceTechnique, settings);
                Row row = run(*contestant, std::string(referenceTechnique.id), false, spec, &reference, nullptr,
                              nullptr, progress);
                const bool selected = std::find(o.techniques.begin(), o.techniques.end(), &referenceTechnique) !=
                                      o.techniques.end();
                if (selected) rows.push_back(row);
            }
            auto runOne = [&](Contestant& contestant, const std::string& name, bool peer) {
                std::string mismatch;
                rows.push_back(run(contestant, name, peer, spec, nullptr, o.check ? &reference : nullptr, &mismatch,
                                   progress));
                if (!mismatch.empty())
                    failures.push_back(fmt::format("{} n={} {}: {} (reference: {})", scenario->name, n, name, mismatch,
                                                   referenceTechnique.id));
            };
            for (const TechniqueInfo* t : o.techniques) {
                if (o.check && t == &referenceTechnique) continue;  // its row came from the reference run
                if (t->id == "brute" && o.allTechniques && n > kBruteLimit) {
                    fmt::print(stderr, "ro_bench: brute force left out at n={} ({} tests a frame); name it in "
                                       "--technique to run it anyway\n", n, static_cast<std::uint64_t>(n) * (n - 1) / 2);
                    continue;
                }
                auto contestant = makeTechniqueContestant(*t, settings);
                runOne(*contestant, std::string(t->id), false);
            }
            if (o.peers) {
                const PeerSetup setup{probe.bounds(), settings.cellSize, n};
                for (const PeerInfo& p : peers()) {
                    if (p.maxCount != 0 && n > p.maxCount) {
                        fmt::print(stderr, "ro_bench: {} left out at n={} (at most {}: {})\n", p.id, n, p.maxCount,
                                   p.whyLimited);
                        continue;
                    }
                    auto contestant = p.create(setup);
                    runOne(*contestant, std::string(p.id), true);
                }
            }
            // Every row's ratio to the best peer of this scene.
            double bestPeer = std::numeric_limits<double>::infinity();
            for (const Row& r : rows)
                if (r.peer) bestPeer = std::min(bestPeer, r.meanMs);
            if (std::isfinite(bestPeer) && bestPeer > 0)
                for (Row& r : rows) r.ratioToBestPeer = r.meanMs / bestPeer;
            printTable(rows);
            all.insert(all.end(), rows.begin(), rows.end());
        }
    }

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

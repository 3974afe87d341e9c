#include "bench/output.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <vector>

namespace ro::bench {
namespace {

template <typename T>
std::string orDash(const std::optional<T>& value, const char* format = "{}") {
    return value ? fmt::format(fmt::runtime(format), *value) : std::string("-");
}

/// "0" only when no frame allocated at all; a rare allocation still shows (0.03).
std::string allocsText(const std::optional<double>& allocs) {
    if (!allocs) return "-";
    return *allocs == 0.0 ? std::string("0") : fmt::format("{:.2f}", *allocs);
}

std::string ratioText(const std::optional<double>& ratio) {
    return ratio ? fmt::format("{:.3f}x", *ratio) : std::string("-");
}

}  // namespace

void printTable(std::span<const Row> rows) {
    if (rows.empty()) return;
    const Row& first = rows.front();
    fmt::print("\n{} ({} motion), n = {}\n", first.scenario, first.motion, first.n);
    fmt::print("{:<16} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10} {:>11} {:>11} {:>7} {:>9} {:>6}\n", "technique",
               "build ms", "mean ms", "median", "p99", "max", "candidates", "overlaps", "tests", "bytes", "allocs",
               "vs peer", "check");
    for (const Row& r : rows) {
        fmt::print("{:<16} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>10} {:>10} {:>11} {:>11} {:>7} {:>9} {:>6}\n",
                   r.technique + (r.peer ? "*" : ""), r.buildMs, r.meanMs, r.medianMs, r.p99Ms, r.maxMs, r.candidates,
                   r.overlaps, orDash(r.tests), orDash(r.bytes), allocsText(r.allocsPerFrame),
                   ratioText(r.ratioToBestPeer), r.check == "unchecked" ? "-" : r.check);
    }
    fmt::print("(* a peer; vs peer: mean / the best peer's mean; a failed check leaves a row out of the ratios)\n");
    if (first.passes > 1)
        fmt::print("(each frame's time is the median of its {} passes; build ms the median of their builds)\n",
                   first.passes);
    std::fflush(stdout);
}

bool writeCsv(const std::string& path, std::span<const Row> rows, std::string& error) {
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (!file) {
        error = fmt::format("cannot write '{}'", path);
        return false;
    }
    fmt::print(file,
               "scenario,motion,n,technique,peer,build_ms,mean_ms,median_ms,p99_ms,max_ms,candidates,overlaps,tests,"
               "bytes,allocs_per_frame,ratio_to_best_peer,check,passes\n");
    auto cell = [](const auto& value) { return value ? fmt::format("{}", *value) : std::string(); };
    for (const Row& r : rows)
        fmt::print(file, "{},{},{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{},{},{},{},{},{},{},{}\n", r.scenario,
                   r.motion, r.n, r.technique, r.peer, r.buildMs, r.meanMs, r.medianMs, r.p99Ms, r.maxMs, r.candidates,
                   r.overlaps, cell(r.tests), cell(r.bytes), cell(r.allocsPerFrame), cell(r.ratioToBestPeer), r.check,
                   r.passes);
    const bool ok = std::fclose(file) == 0;
    if (!ok) error = fmt::format("cannot finish writing '{}'", path);
    return ok;
}

bool writeJson(const std::string& path, std::span<const Row> rows, std::string& error) {
    nlohmann::json out = nlohmann::json::array();
    auto value = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    for (const Row& r : rows) {
        out.push_back({{"scenario", r.scenario},
                       {"motion", r.motion},
                       {"n", r.n},
                       {"technique", r.technique},
                       {"peer", r.peer},
                       {"build_ms", r.buildMs},
                       {"mean_ms", r.meanMs},
                       {"median_ms", r.medianMs},
                       {"p99_ms", r.p99Ms},
                       {"max_ms", r.maxMs},
                       {"candidates", r.candidates},
                       {"overlaps", r.overlaps},
                       {"tests", value(r.tests)},
                       {"bytes", value(r.bytes)},
                       {"allocs_per_frame", value(r.allocsPerFrame)},
                       {"ratio_to_best_peer", value(r.ratioToBestPeer)},
                       {"check", r.check},
                       {"passes", r.passes}});
    }
    std::ofstream file(path);
    file << out.dump(2) << '\n';
    if (!file) {
        error = fmt::format("cannot write '{}'", path);
        return false;
    }
    return true;
}

bool writePlot(const std::string& path, std::span<const Row> rows, std::string& error) {
    // panel (scenario, motion) -> line (technique) -> points (n, mean ms)
    std::map<std::string, std::map<std::string, std::vector<std::pair<std::uint32_t, double>>>> panels;
    for (const Row& r : rows)
        panels[r.scenario + " (" + r.motion + ")"][r.technique + (r.peer ? " (peer)" : "")].push_back({r.n, r.meanMs});

    std::string script = fmt::format(
        "set terminal pngcairo size 900,{} font 'sans,10'\nset output '{}'\n"
        "set logscale xy\nset grid\nset key outside right\nset xlabel 'entities'\nset ylabel 'mean ms per frame'\n"
        "set multiplot layout {},1\n",
        420 * panels.size(), path, panels.size());
    for (const auto& [title, lines] : panels) {
        script += fmt::format("set title '{}'\nplot ", title);
        bool first = true;
        for (const auto& [name, points] : lines) {
            // Peers dashed, ro's techniques solid.
            const bool peer = name.ends_with("(peer)");
            script += fmt::format("{}'-' with linespoints lw 2 dt {} title '{}'", first ? "" : ", ", peer ? 2 : 1, name);
            first = false;
        }
        script += "\n";
        for (const auto& [name, points] : lines) {
            for (const auto& [n, ms] : points) script += fmt::format("{} {}\n", n, ms);
            script += "e\n";
        }
    }
    script += "unset multiplot\n";

    std::FILE* gnuplot = popen("gnuplot", "w");
    if (!gnuplot) {
        error = "cannot start gnuplot";
        return false;
    }
    std::fwrite(script.data(), 1, script.size(), gnuplot);
    if (pclose(gnuplot) != 0) {
        error = fmt::format("gnuplot failed to draw '{}'", path);
        return false;
    }
    return true;
}

}  // namespace ro::bench

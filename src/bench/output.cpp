#include "bench/output.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "files/safe_file.h"

extern char** environ;

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

/// The one place every output file is written (files/safe_file.h: every write and the close
/// checked, a FIFO refused, a symlink written through).
bool writeFile(const std::string& path, std::string_view bytes, std::string& error) {
    try {
        files::writeOutputFile(path, bytes);
        return true;
    } catch (const files::FileError& e) {
        error = e.what();
        return false;
    }
}

/// Runs gnuplot on `script` and returns the PNG it writes to its standard output. The script
/// goes in through an unnamed temporary file and the image comes out through a pipe, so no
/// path (the user's, or one of ours) is ever part of the script.
bool runGnuplot(const std::string& script, std::string& png, std::string& error) {
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> scriptFile(std::tmpfile(), &std::fclose);
    if (!scriptFile || std::fwrite(script.data(), 1, script.size(), scriptFile.get()) != script.size() ||
        std::fflush(scriptFile.get()) != 0 || std::fseek(scriptFile.get(), 0, SEEK_SET) != 0) {
        error = "cannot write gnuplot's script to a temporary file";
        return false;
    }
    int pipeFds[2];
    if (pipe2(pipeFds, O_CLOEXEC) != 0) {
        error = "cannot make a pipe for gnuplot";
        return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fileno(scriptFile.get()), STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDOUT_FILENO);
    char program[] = "gnuplot";
    char* argv[] = {program, nullptr};
    pid_t pid = 0;
    const int spawned = posix_spawnp(&pid, program, &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipeFds[1]);
    if (spawned != 0) {
        close(pipeFds[0]);
        error = fmt::format("cannot start gnuplot: {}", std::strerror(spawned));
        return false;
    }
    char buffer[1 << 16];
    for (;;) {
        const ssize_t got = read(pipeFds[0], buffer, sizeof buffer);
        if (got > 0) png.append(buffer, static_cast<std::size_t>(got));
        else if (got == 0 || errno != EINTR) break;
    }
    close(pipeFds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !png.starts_with("\x89PNG")) {
        error = "gnuplot failed to draw the plot";
        return false;
    }
    return true;
}

}  // namespace

void printTable(std::span<const Row> rows) {
    if (rows.empty()) return;
    const Row& first = rows.front();
    // The peer column and its footnote only when a peer ran: without one there is no ratio.
    const bool peers = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.peer; });
    // And the missed-collision column only on scenes with bullets.
    const bool bullets = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.missedPerFrame.has_value(); });
    // A trace's boxes move as recorded: "rain (trace), n = 3000" rather than "trace motion".
    const std::string how = first.motion == "trace" ? first.motion : first.motion + " motion";
    fmt::print("\n{} ({}), n = {}\n", first.scenario, how, first.n);
    fmt::print("{:<16} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10} {:>11} {:>11} {:>7}", "technique", "build ms",
               "mean ms", "median", "p99", "max", "candidates", "overlaps", "tests", "bytes", "allocs");
    if (peers) fmt::print(" {:>9}", "vs peer");
    if (bullets) fmt::print(" {:>8}", "missed");
    fmt::print(" {:>6}\n", "check");
    for (const Row& r : rows) {
        fmt::print("{:<16} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>10} {:>10} {:>11} {:>11} {:>7}",
                   r.technique + (r.peer ? "*" : ""), r.buildMs, r.meanMs, r.medianMs, r.p99Ms, r.maxMs, r.candidates,
                   r.overlaps, orDash(r.tests), orDash(r.bytes), allocsText(r.allocsPerFrame));
        if (peers) fmt::print(" {:>9}", ratioText(r.ratioToBestPeer));
        if (bullets) fmt::print(" {:>8}", r.missedPerFrame ? fmt::format("{:.2f}", *r.missedPerFrame) : "-");
        fmt::print(" {:>6}\n", r.check == "unchecked" ? "-" : r.check);
    }
    if (peers) fmt::print("(* a peer; vs peer: mean / the best peer's mean; a failed check leaves a row out of the ratios)\n");
    if (bullets)
        fmt::print("(missed: pairs a frame that passed through each other before the next frame, apart at both frames, "
                   "and were not reported; with --swept every contestant gets swept boxes)\n");
    if (first.passes > 1)
        fmt::print("(each frame's time is the median of its {} passes; build ms the median of their builds)\n",
                   first.passes);
    std::fflush(stdout);
}

bool writeCsv(const std::string& path, std::span<const Row> rows, std::string& error) {
    std::string text =
        "scenario,motion,n,technique,peer,build_ms,mean_ms,median_ms,p99_ms,max_ms,candidates,overlaps,tests,"
        "bytes,allocs_per_frame,ratio_to_best_peer,check,passes,missed_per_frame\n";
    auto cell = [](const auto& value) { return value ? fmt::format("{}", *value) : std::string(); };
    for (const Row& r : rows)
        fmt::format_to(std::back_inserter(text), "{},{},{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{},{},{},{},{},{},{},{},{}\n",
                       r.scenario, r.motion, r.n, r.technique, r.peer, r.buildMs, r.meanMs, r.medianMs, r.p99Ms,
                       r.maxMs, r.candidates, r.overlaps, cell(r.tests), cell(r.bytes), cell(r.allocsPerFrame),
                       cell(r.ratioToBestPeer), r.check, r.passes, cell(r.missedPerFrame));
    return writeFile(path, text, error);
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
                       {"passes", r.passes},
                       {"missed_per_frame", value(r.missedPerFrame)}});
    }
    return writeFile(path, out.dump(2) + '\n', error);
}

bool writePlot(const std::string& path, std::span<const Row> rows, std::string& error) {
    // panel (scenario, motion) -> line (technique) -> points (n, median ms): the median, as the
    // app's sweeps draw, so one noisy frame does not bend a curve.
    std::map<std::string, std::map<std::string, std::vector<std::pair<std::uint32_t, double>>>> panels;
    std::uint32_t fewest = ~0u, most = 0;
    for (const Row& r : rows) {
        panels[r.scenario + " (" + r.motion + ")"][r.technique + (r.peer ? " (peer)" : "")].push_back({r.n, r.medianMs});
        fewest = std::min(fewest, r.n);
        most = std::max(most, r.n);
    }
    // One count only: a range around it, or gnuplot warns of an empty x range.
    const std::string xRange = fewest == most ? fmt::format("set xrange [{}:{}]\n", fewest / 2.0, most * 2.0) : "";

    std::string script = fmt::format(
        // No `set output`: the PNG goes to gnuplot's standard output (see runGnuplot).
        "set terminal pngcairo size 900,{} font 'sans,10'\n"
        "set logscale xy\nset grid\nset key outside right\nset xlabel 'entities'\nset ylabel 'median ms per frame'\n"
        "{}set multiplot layout {},1\n",
        420 * panels.size(), xRange, panels.size());
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

    std::string png;
    if (!runGnuplot(script, png, error)) {
        error = fmt::format("cannot draw '{}': {}", path, error);
        return false;
    }
    return writeFile(path, png, error);
}

}  // namespace ro::bench

#include "bench/runner.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "core/alloc_counter.h"

namespace ro::bench {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// The first difference between two sorted pair lists, or empty when they are equal.
std::string firstDifference(const std::vector<Pair>& got, const std::vector<Pair>& expected) {
    for (std::size_t k = 1; k < got.size(); ++k)
        if (got[k] == got[k - 1]) return fmt::format("pair ({}, {}) reported twice", got[k].a, got[k].b);
    std::vector<Pair> missing, extra;
    std::set_difference(expected.begin(), expected.end(), got.begin(), got.end(), std::back_inserter(missing));
    std::set_difference(got.begin(), got.end(), expected.begin(), expected.end(), std::back_inserter(extra));
    if (!missing.empty())
        return fmt::format("pair ({}, {}) missing ({} missing, {} extra; {} expected)", missing[0].a, missing[0].b,
                           missing.size(), extra.size(), expected.size());
    if (!extra.empty())
        return fmt::format("pair ({}, {}) reported but does not overlap ({} extra)", extra[0].a, extra[0].b,
                           extra.size());
    return {};
}

}  // namespace

Row run(Contestant& contestant, const std::string& name, bool peer, const RunSpec& spec, Recording* record,
        const Recording* reference, std::string* mismatch, ProgressFn progress) {
    Row row;
    row.scenario = std::string(spec.scenario->name);
    row.motion = std::string(motionName(spec.motion));
    row.n = spec.count;
    row.technique = name;
    row.peer = peer;

    Scene scene(spec.scenario->kind, spec.count, spec.motion, spec.seed);
    const int total = 1 + spec.warmup + spec.frames;
    std::vector<Pair> overlaps;
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(spec.frames));
    std::uint64_t allocations = 0, candidates = 0, overlapCount = 0;
    if (record) record->clear();

    for (int frame = 0; frame < total; ++frame) {
        if (frame > 0) scene.advance();  // outside the timing: the scene is not the broad phase
        const BoxView boxes = scene.boxes();
        const std::uint64_t allocationsBefore = heapAllocationCount();
        const auto start = Clock::now();
        contestant.step(boxes, overlaps);
        const double ms = msSince(start);
        const std::uint64_t allocated = heapAllocationCount() - allocationsBefore;

        if (frame == 0) row.buildMs = ms;
        if (frame > spec.warmup) {
            times.push_back(ms);
            allocations += allocated;
            candidates += contestant.figures().candidates;
            overlapCount += overlaps.size();
        }
        if (record || reference) {
            std::sort(overlaps.begin(), overlaps.end());
            if (record) record->push_back(overlaps);
            if (reference && mismatch) {
                const std::string difference = firstDifference(overlaps, (*reference)[static_cast<std::size_t>(frame)]);
                if (!difference.empty()) {
                    *mismatch = fmt::format("frame {}: {}", frame, difference);
                    break;
                }
            }
        }
        if (progress) progress(frame + 1, total, row);
    }

    if (!times.empty()) {
        const auto frames = static_cast<double>(times.size());
        row.meanMs = std::accumulate(times.begin(), times.end(), 0.0) / frames;
        std::sort(times.begin(), times.end());
        row.medianMs = times[times.size() / 2];
        row.p99Ms = times[static_cast<std::size_t>(std::ceil(0.99 * frames)) - 1];
        row.maxMs = times.back();
        row.candidates = static_cast<std::uint64_t>(std::llround(static_cast<double>(candidates) / frames));
        row.overlaps = static_cast<std::uint64_t>(std::llround(static_cast<double>(overlapCount) / frames));
        if (!peer && heapAllocationCountingActive()) row.allocsPerFrame = static_cast<double>(allocations) / frames;
    }
    const FrameFigures figures = contestant.figures();
    row.tests = figures.tests;
    row.bytes = figures.bytes;
    return row;
}

}  // namespace ro::bench

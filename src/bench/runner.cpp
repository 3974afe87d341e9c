#include "bench/runner.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <numeric>

#include "core/alloc_counter.h"

namespace ro::bench {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// The q-quantile of sorted values, interpolated between neighbours (so p99 of 30 frames
/// is not simply the largest).
double quantile(const std::vector<double>& sorted, double q) {
    const double at = q * static_cast<double>(sorted.size() - 1);
    const auto below = static_cast<std::size_t>(at);
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

}  // namespace

Fingerprint fingerprintOf(const std::vector<Pair>& pairs) {
    Fingerprint f;
    f.count = pairs.size();
    for (const Pair& p : pairs) {
        // SplitMix64's finaliser: a wrong, missing or repeated pair changes the sum.
        std::uint64_t z = ((std::uint64_t{p.a} << 32) | p.b) + 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        f.sum += z ^ (z >> 31);
    }
    return f;
}

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

std::vector<Pair> pairsAtFrame(Contestant& contestant, const RunSpec& spec, int frame) {
    Scene scene(spec.scenario->kind, spec.count, spec.motion, spec.seed);
    std::vector<Pair> overlaps;
    for (int f = 0; f <= frame; ++f) {
        if (f > 0) scene.advance();
        contestant.step(scene.boxes(), overlaps);
    }
    std::sort(overlaps.begin(), overlaps.end());
    return overlaps;
}

Row run(Contestant& contestant, const std::string& name, bool peer, const RunSpec& spec, Recording* record,
        const Recording* reference, const ReferenceAt& referenceAt, std::string* mismatch, ProgressFn progress) {
    Row row;
    row.scenario = std::string(spec.scenario->name);
    row.motion = std::string(motionName(spec.motion));
    row.n = spec.count;
    row.technique = name;
    row.peer = peer;
    if (reference) row.check = "ok";

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
        if (record) record->push_back(fingerprintOf(overlaps));
        if (reference && fingerprintOf(overlaps) != (*reference)[static_cast<std::size_t>(frame)]) {
            row.check = "failed";
            if (mismatch) {
                std::sort(overlaps.begin(), overlaps.end());
                std::string difference = firstDifference(overlaps, referenceAt(frame));
                if (difference.empty()) difference = "the pairs differ from the reference's";
                *mismatch = fmt::format("frame {}: {}", frame, difference);
            }
            break;
        }
        if (progress) progress(frame + 1, total, row);
    }

    if (!times.empty()) {
        const auto frames = static_cast<double>(times.size());
        row.meanMs = std::accumulate(times.begin(), times.end(), 0.0) / frames;
        std::sort(times.begin(), times.end());
        row.medianMs = quantile(times, 0.5);
        row.p99Ms = quantile(times, 0.99);
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

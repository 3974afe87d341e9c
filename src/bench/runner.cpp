#include "bench/runner.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "bench/trace_frames.h"
#include "core/alloc_counter.h"
#include "ro/registry.h"

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

/// What one lane gathers over its frames.
struct Tally {
    std::vector<Pair> overlaps;  ///< the lane's own: a contestant may keep (or swap) its buffer between frames
    std::vector<double> times;   ///< of the measured frames
    std::uint64_t allocations = 0, candidates = 0, overlapCount = 0, missed = 0;
    std::optional<int> failedFrame;  ///< where its pairs first differed from the reference's; it stopped there
};

/// The row's mean, median, p99 and max from its measured frames' times (in any order).
void setFrameTimes(Row& row, std::vector<double> times) {
    if (times.empty()) return;
    row.meanMs = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
    std::sort(times.begin(), times.end());
    row.medianMs = quantile(times, 0.5);
    row.p99Ms = quantile(times, 0.99);
    row.maxMs = times.back();
}

/// The median; of an even count the lower middle value, so that of two passes a burst in one
/// drops out rather than being halved.
double lowerMedian(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[(values.size() - 1) / 2];
}

/// Fills in the row's figures from the measured frames, and those of the last frame stepped.
void summarise(const Tally& tally, const Contestant& contestant, Row& row) {
    const std::vector<double>& times = tally.times;
    if (!times.empty()) {
        const auto frames = static_cast<double>(times.size());
        setFrameTimes(row, times);
        row.candidates = static_cast<std::uint64_t>(std::llround(static_cast<double>(tally.candidates) / frames));
        row.overlaps = static_cast<std::uint64_t>(std::llround(static_cast<double>(tally.overlapCount) / frames));
        if (!row.peer && heapAllocationCountingActive())
            row.allocsPerFrame = static_cast<double>(tally.allocations) / frames;
        if (row.missedPerFrame) row.missedPerFrame = static_cast<double>(tally.missed) / frames;
    }
    const FrameFigures figures = contestant.figures();
    row.tests = figures.tests;
    row.bytes = figures.bytes;
}

/// The pairs of a frame that pass through each other before the next one (their paths meet,
/// their boxes are apart at both frames): an HSHG on the swept boxes, then the exact swept
/// test, sorted. The world's missed-collision count works the same way.
class PassingPairs {
public:
    const std::vector<Pair>& of(Scene& scene) {
        const BoxView swept = scene.sweptBoxes();
        m_finder->update(swept);
        m_finder->findPairs(m_candidates);
        m_passing.clear();
        for (const Pair& p : m_candidates)
            if (overlaps(swept.box(p.a), swept.box(p.b)) && scene.passBeforeNextFrame(p.a, p.b)) m_passing.push_back(p);
        std::sort(m_passing.begin(), m_passing.end());
        return m_passing;
    }
    /// How many of `passing` (sorted) are not among `reported` (any order).
    std::uint64_t missed(const std::vector<Pair>& passing, const std::vector<Pair>& reported) {
        m_sorted.assign(reported.begin(), reported.end());
        std::sort(m_sorted.begin(), m_sorted.end());
        std::uint64_t missed = 0;
        for (const Pair& p : passing) missed += std::binary_search(m_sorted.begin(), m_sorted.end(), p) ? 0 : 1;
        return missed;
    }

private:
    std::unique_ptr<BroadPhase> m_finder = findTechnique("hshg")->create();
    std::vector<Pair> m_candidates, m_passing, m_sorted;
};

bool hasBullets(const RunSpec& spec) {
    return spec.scenario != nullptr && (spec.motion == Motion::Bullets || spec.scenario->kind == ScenarioKind::Bullets);
}

/// The frames a run steps on: the scenario's generated scene, or a trace's recorded frames.
class Frames {
public:
    explicit Frames(const RunSpec& spec) : m_swept(spec.swept) {
        if (!spec.trace.empty()) {
            m_trace.emplace(spec.trace);
            return;
        }
        m_scene.emplace(spec.scenario->kind, spec.count, spec.motion, spec.seed, spec.mixed);
        if (spec.layers > 0) m_scene->setLayers(spec.layers);  // the layers scene has 4 of its own
    }
    void advance() { m_trace ? m_trace->advance() : m_scene->advance(); }
    [[nodiscard]] BoxView boxes() {
        if (m_trace) return m_trace->boxes();
        return m_swept ? m_scene->sweptBoxes() : m_scene->boxes();
    }
    [[nodiscard]] MovedList moved() const { return m_trace ? m_trace->moved() : m_scene->moved(); }
    /// The generated scene (bullets need its velocities); null for a trace.
    [[nodiscard]] Scene* scene() { return m_scene ? &*m_scene : nullptr; }

private:
    bool m_swept;
    std::optional<Scene> m_scene;
    std::optional<TraceFrames> m_trace;
};

}  // namespace

std::size_t laneToStep(std::size_t k, int frame, std::size_t lanes, std::size_t fixed) {
    if (k < fixed) return k;
    const std::size_t m = lanes - fixed;
    const std::size_t rows = m % 2 == 0 ? m : 2 * m;
    std::size_t row = static_cast<std::size_t>(frame) % rows, place = k - fixed;
    if (row >= m) row -= m, place = m - 1 - place;  // the reversed rows
    const std::size_t first = place == 0 ? 0 : place % 2 == 1 ? (place + 1) / 2 : m - place / 2;
    return fixed + (first + row) % m;
}

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

std::vector<LaneResult> combinePasses(const std::vector<std::vector<LaneResult>>& passes) {
    if (passes.empty()) return {};
    std::vector<LaneResult> combined = passes.front();
    for (std::size_t i = 0; i < combined.size(); ++i) {
        const auto failed = std::find_if(passes.begin(), passes.end(),
                                         [i](const auto& pass) { return pass.at(i).row.check == "failed"; });
        if (failed != passes.end()) {
            combined[i] = failed->at(i);
            combined[i].row.passes = 1;  // its figures are those of the pass that failed
            continue;
        }
        LaneResult& lane = combined[i];
        std::vector<double> builds, samples;
        for (const auto& pass : passes) {
            const LaneResult& other = pass.at(i);
            if (other.frameMs.size() != lane.frameMs.size())
                throw std::logic_error("passes of a lane measured different numbers of frames");
            builds.push_back(other.row.buildMs);
            if (other.row.allocsPerFrame)
                lane.row.allocsPerFrame = std::max(*other.row.allocsPerFrame, lane.row.allocsPerFrame.value_or(0.0));
        }
        for (std::size_t f = 0; f < lane.frameMs.size(); ++f) {
            samples.clear();
            for (const auto& pass : passes) samples.push_back(pass[i].frameMs[f]);
            lane.frameMs[f] = lowerMedian(samples);
        }
        lane.row.buildMs = lowerMedian(builds);
        setFrameTimes(lane.row, lane.frameMs);
        lane.row.passes = static_cast<int>(passes.size());
    }
    return combined;
}

std::string sceneName(const RunSpec& spec) {
    return spec.scenario != nullptr ? std::string(spec.scenario->name) : spec.traceName;
}

SceneProfile profileScene(const RunSpec& spec) {
    SceneProfiler profiler;
    Frames frames(spec);
    for (int frame = 0; frame < 1 + spec.warmup + spec.frames; ++frame) {
        if (frame > 0) frames.advance();
        profiler.addFrame(frames.boxes());
    }
    return profiler.profile();
}

std::vector<Pair> pairsAtFrame(Contestant& contestant, const RunSpec& spec, int frame) {
    Frames frames(spec);
    std::vector<Pair> overlaps;
    for (int f = 0; f <= frame; ++f) {
        if (f > 0) frames.advance();
        contestant.step(frames.boxes(), frames.moved(), overlaps);
    }
    std::sort(overlaps.begin(), overlaps.end());
    return overlaps;
}

std::vector<LaneResult> runSideBySide(std::span<const Lane> lanes, const RunSpec& spec,
                                      const ReferenceAt& referenceAt, ProgressFn progress) {
    const bool checked = static_cast<bool>(referenceAt);
    std::vector<LaneResult> results(lanes.size());
    std::vector<Tally> tallies(lanes.size());
    for (std::size_t i = 0; i < lanes.size(); ++i) {
        Row& row = results[i].row;
        row.scenario = sceneName(spec);
        if (spec.mixed) row.scenario.append(":").append(spec.mixed->text());
        if (spec.layers > 0) row.scenario.append("+").append(std::to_string(spec.layers)).append(" layers");
        if (spec.swept) row.scenario.append("+swept");
        if (hasBullets(spec)) row.missedPerFrame = 0.0;
        row.motion = spec.trace.empty() ? std::string(motionName(spec.motion)) : "trace";
        row.n = spec.count;
        row.technique = lanes[i].name;
        row.peer = lanes[i].peer;
        if (checked && i > 0) row.check = "ok";
        tallies[i].times.reserve(static_cast<std::size_t>(spec.frames));
    }

    Frames frames(spec);
    std::optional<PassingPairs> passings;
    if (hasBullets(spec)) passings.emplace();
    const int total = 1 + spec.warmup + spec.frames;
    // The reference steps first on every frame, so the others are compared with its pairs of
    // the same frame; the rest change order each frame, so that each steps after every other
    // equally often (and inherits what each left in the caches as often; see laneToStep).
    const std::size_t fixed = checked ? 1 : 0;
    Fingerprint referencePrint;
    for (int frame = 0; frame < total; ++frame) {
        if (frame > 0) frames.advance();  // outside the timing: the scene is not the broad phase
        const std::vector<Pair>* passing = passings && frame > spec.warmup ? &passings->of(*frames.scene()) : nullptr;
        const BoxView boxes = frames.boxes();
        const MovedList moved = frames.moved();
        for (std::size_t k = 0; k < lanes.size(); ++k) {
            const std::size_t i = laneToStep(k, frame, lanes.size(), fixed);
            Tally& tally = tallies[i];
            if (tally.failedFrame) continue;
            Contestant& contestant = *lanes[i].contestant;
            const std::uint64_t allocationsBefore = heapAllocationCount();
            const auto start = Clock::now();
            contestant.step(boxes, moved, tally.overlaps);
            const double ms = msSince(start);
            const std::uint64_t allocated = heapAllocationCount() - allocationsBefore;

            if (frame == 0) results[i].row.buildMs = ms;
            if (frame > spec.warmup) {
                tally.times.push_back(ms);
                tally.allocations += allocated;
                tally.candidates += contestant.figures().candidates;
                tally.overlapCount += tally.overlaps.size();
                if (passing) tally.missed += passings->missed(*passing, tally.overlaps);
            }
            if (!checked) continue;
            const Fingerprint print = fingerprintOf(tally.overlaps);
            if (i == 0) {
                referencePrint = print;
            } else if (print != referencePrint) {
                tally.failedFrame = frame;
                results[i].row.check = "failed";
            }
        }
        if (progress) progress(spec, frame + 1, total, lanes.size());
    }

    for (std::size_t i = 0; i < lanes.size(); ++i) {
        Tally& tally = tallies[i];
        summarise(tally, *lanes[i].contestant, results[i].row);
        results[i].frameMs = tally.times;
        // Named only now: replaying the reference mid-run would disturb the lanes still timed.
        if (tally.failedFrame) {
            std::sort(tally.overlaps.begin(), tally.overlaps.end());
            std::string difference = firstDifference(tally.overlaps, referenceAt(*tally.failedFrame));
            if (difference.empty()) difference = "the pairs differ from the reference's";
            results[i].mismatch = fmt::format("frame {}: {}", *tally.failedFrame, difference);
        }
    }
    return results;
}

}  // namespace ro::bench

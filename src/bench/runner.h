#pragma once
/// Runs contestants side by side over the frames of a scene and measures each; optionally
/// checks every contestant's overlap pairs against a reference's on every frame.
///
/// Side by side, frame by frame, because the machine is shared and noisy: a neighbour's load
/// comes in bursts of seconds to minutes. Run one after another, a fast contestant's 0.2 s of
/// frames could fall in a burst that a slow peer's 2 s missed, and the ratio of their means
/// swung by half between runs. Interleaved, every frame's burst falls on all of them alike.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/contestant.h"
#include "scenario/scenario.h"
#include "verdict/scene_profile.h"

namespace ro::bench {

/// Everything that defines the frames a contestant is run on.
struct RunSpec {
    const ScenarioInfo* scenario = nullptr;
    std::uint32_t count = 0;
    Motion motion = Motion::Steady;
    std::uint64_t seed = 1;
    int frames = 60;  ///< measured frames, after the build frame and the warm-up
    int warmup = 5;
    std::optional<MixedShape> mixed;  ///< a point of the mixed family (rows say "mixed:F:MIN:MAX:SPACING")
    std::uint32_t layers = 0;         ///< collision layers (Scene::setLayers; rows say "+K layers"), 0 for none
    bool swept = false;               ///< contestants get swept boxes (Scene::sweptBoxes; rows say "+swept")
    /// A trace file whose recorded frames replace the scenario's scene (`scenario` is then
    /// null, and the rows' scene is `traceName`); docs/trace-format.md.
    std::string trace{};
    std::string traceName{};
};

/// The name of the scene `spec` runs: the scenario's, or the trace's.
[[nodiscard]] std::string sceneName(const RunSpec& spec);

/// One line of the results: a contestant on one scene.
struct Row {
    std::string scenario;
    std::string motion;
    std::uint32_t n = 0;
    std::string technique;
    bool peer = false;
    double buildMs = 0;  ///< the first frame: structure built from scratch, pairs found
    double meanMs = 0, medianMs = 0, p99Ms = 0, maxMs = 0;  ///< per measured frame
    std::uint64_t candidates = 0, overlaps = 0;              ///< mean per measured frame
    std::optional<std::uint64_t> tests, bytes;  ///< of the last frame, where the contestant tells
    std::optional<double> allocsPerFrame;  ///< ro's techniques only: peers allocate with malloc
    /// Scenes with bullets: pairs a frame that passed through each other before the next frame
    /// (their paths met, exact swept test; their boxes apart at both frames) that the
    /// contestant did not report; 0 with swept boxes.
    std::optional<double> missedPerFrame;
    std::optional<double> ratioToBestPeer;  ///< left unset for a row whose check failed
    std::string check = "unchecked";        ///< "ok", "failed" or "unchecked"
    int passes = 1;  ///< runs over the same frames; each frame's time is the median of its passes'
};

/// What identifies a frame's set of overlap pairs, in 16 bytes whatever the count: lanes are
/// compared with the reference by fingerprint, with no sort (onecell at n=5000 has 12.5M pairs
/// a frame).
struct Fingerprint {
    std::uint64_t count = 0;
    std::uint64_t sum = 0;  ///< order-independent sum of a 64-bit mix of each pair
    friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
};
[[nodiscard]] Fingerprint fingerprintOf(const std::vector<Pair>& pairs);

/// The reference's sorted pairs of one frame, recomputed when a check fails to name the pair.
using ReferenceAt = std::function<std::vector<Pair>(int frame)>;

/// The first difference between a frame's pairs and the reference's (both sorted), or empty.
[[nodiscard]] std::string firstDifference(const std::vector<Pair>& got, const std::vector<Pair>& expected);

/// One contestant of a side-by-side run, and what its row is called.
struct Lane {
    Contestant* contestant = nullptr;
    std::string name;
    bool peer = false;
};

/// What a lane's run gave.
struct LaneResult {
    Row row;
    std::string mismatch;  ///< the first difference from the reference ("frame 12: pair (3, 17) missing"), or empty
    std::vector<double> frameMs;  ///< each measured frame's time, in frame order
};

/// The lane that steps k-th on `frame`: the first `fixed` lanes keep their places, the other m
/// step in the orders of a Williams design (as crossover trials balance carry-over effects):
/// row r is the first row 0, 1, m-1, 2, m-2, ... plus r (mod m), and for odd m the rows come
/// again reversed. Over its m rows (2m for odd m) each lane steps right after every other
/// lane equally often, so none inherits what one other left in the caches more than the rest
/// (a rotation by one put lane i+1 after lane i on almost every frame).
std::size_t laneToStep(std::size_t k, int frame, std::size_t lanes, std::size_t fixed);

/// Called after each frame with (frames done, frames in all, lanes), e.g. for a progress bar.
using ProgressFn = void (*)(const RunSpec& spec, int done, int total, std::size_t contestants);

/// Runs every lane on the frames of `spec`, side by side: each frame the scene moves once,
/// untimed, then every lane steps on the same boxes, each step timed on its own. The order
/// of the steps changes each frame, so that over a few frames each lane steps right after
/// every other equally often (checked, the reference steps first and the rest change order).
///
/// With a `referenceAt`, lanes[0] is the reference: it steps first on every frame, and a lane
/// whose pairs differ from the reference's of the same frame stops there, its row failed and
/// the difference named in `mismatch`, from the pairs `referenceAt` gives for that frame; the
/// other lanes go on. An empty `referenceAt` runs unchecked. Results follow the order of `lanes`.
[[nodiscard]] std::vector<LaneResult> runSideBySide(std::span<const Lane> lanes, const RunSpec& spec,
                                                    const ReferenceAt& referenceAt, ProgressFn progress = nullptr);

/// Combines passes of the same lanes over the same frames (each pass's results in the order of
/// the lanes): each frame's time is the median of its times in the passes (of an even count,
/// the lower middle one), the build time the median of the builds, the allocations the most
/// any pass made; the other figures are the first pass's (same frames, same answers). A burst
/// of the machine's load falls on one pass and drops out; a spike of a contestant's own (a
/// rebuild) comes back in every pass and stays. A lane that failed its check in a pass keeps
/// that pass's result, and says 1 pass.
[[nodiscard]] std::vector<LaneResult> combinePasses(const std::vector<std::vector<LaneResult>>& passes);

/// What the frames of `spec` are made of (every frame a run steps on, untimed).
[[nodiscard]] SceneProfile profileScene(const RunSpec& spec);

/// The sorted overlap pairs `contestant` (freshly made) gives on frame `frame` of `spec`.
[[nodiscard]] std::vector<Pair> pairsAtFrame(Contestant& contestant, const RunSpec& spec, int frame);

}  // namespace ro::bench

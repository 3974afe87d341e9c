#pragma once
/// Runs one contestant over the frames of a scene and measures it; optionally records its
/// overlap pairs (for the reference) or checks them against a recording.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/contestant.h"
#include "bench/scenario.h"

namespace ro::bench {

/// Everything that defines the frames a contestant is run on.
struct RunSpec {
    const ScenarioInfo* scenario = nullptr;
    std::uint32_t count = 0;
    Motion motion = Motion::Steady;
    std::uint64_t seed = 1;
    int frames = 60;  ///< measured frames, after the build frame and the warm-up
    int warmup = 5;
};

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
    std::optional<double> ratioToBestPeer;  ///< left unset for a row whose check failed
    std::string check = "unchecked";        ///< "ok", "failed" or "unchecked"
};

/// What identifies a frame's set of overlap pairs, in 16 bytes whatever the count: the
/// reference keeps one per frame, not the pairs (onecell at n=5000 has 12.5M a frame).
struct Fingerprint {
    std::uint64_t count = 0;
    std::uint64_t sum = 0;  ///< order-independent sum of a 64-bit mix of each pair
    friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
};
[[nodiscard]] Fingerprint fingerprintOf(const std::vector<Pair>& pairs);

/// The fingerprints of every frame (build frame first).
using Recording = std::vector<Fingerprint>;

/// The reference's sorted pairs of one frame, recomputed when a check fails to name the pair.
using ReferenceAt = std::function<std::vector<Pair>(int frame)>;

/// The first difference between a frame's pairs and the reference's (both sorted), or empty.
[[nodiscard]] std::string firstDifference(const std::vector<Pair>& got, const std::vector<Pair>& expected);

/// Called after each frame with (frames done, frames in all), e.g. for a progress bar.
using ProgressFn = void (*)(int done, int total, const Row& row);

/// Runs `contestant` on the frames of `spec`. With `record`, stores every frame's
/// fingerprint; with `reference`, compares with it, and at the first differing frame stops,
/// marks the row failed and describes the difference in `mismatch` ("frame 12: pair (3, 17)
/// missing"), asking `referenceAt` for that frame's expected pairs.
Row run(Contestant& contestant, const std::string& name, bool peer, const RunSpec& spec, Recording* record,
        const Recording* reference, const ReferenceAt& referenceAt, std::string* mismatch,
        ProgressFn progress = nullptr);

/// The sorted overlap pairs `contestant` (freshly made) gives on frame `frame` of `spec`.
[[nodiscard]] std::vector<Pair> pairsAtFrame(Contestant& contestant, const RunSpec& spec, int frame);

}  // namespace ro::bench

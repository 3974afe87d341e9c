#pragma once
/// Runs one contestant over the frames of a scene and measures it; optionally records its
/// overlap pairs (for the reference) or checks them against a recording.

#include <cstdint>
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
    std::optional<double> ratioToBestPeer;
};

/// The sorted overlap pairs of every frame (build frame first).
using Recording = std::vector<std::vector<Pair>>;

/// Called after each frame with (frames done, frames in all), e.g. for a progress bar.
using ProgressFn = void (*)(int done, int total, const Row& row);

/// Runs `contestant` on the frames of `spec`. With `record`, stores every frame's sorted
/// pairs; with `reference`, compares them and returns the first difference in `mismatch`
/// ("frame 12: pair (3, 17) missing"), stopping at it.
Row run(Contestant& contestant, const std::string& name, bool peer, const RunSpec& spec, Recording* record,
        const Recording* reference, std::string* mismatch, ProgressFn progress = nullptr);

}  // namespace ro::bench

#pragma once
/// From measured costs to an answer: the contestants ranked by their mean cost a frame, each
/// with its ratio to the fastest, ties within the measured noise called ties, and one
/// sentence that names the technique to pick for the scene and says why, from the scene's
/// measured properties and the technique's guide.

#include <string>
#include <string_view>
#include <vector>

#include "verdict/scene_profile.h"

namespace ro {

/// One contestant's measurement on the scene's frames.
struct Measured {
    std::string name;            ///< a technique's registry id, or a peer's name
    bool peer = false;           ///< another engine's broad phase: ranked, never picked
    std::vector<double> frameMs; ///< each measured frame's cost
    double worstMs = 0;
    double megabytes = 0;        ///< memory it held, 0 if it does not tell
};

struct Ranked {
    std::string name;
    bool peer = false;
    double meanMs = 0, worstMs = 0, megabytes = 0;
    double ratioToFastest = 1;  ///< this row's mean over the first row's
    bool tiedWithFastest = false;  ///< its mean differs from the fastest's by less than the noise
};

/// The contestants sorted by mean cost, fastest first. Two means tie when they differ by less
/// than twice the standard error of their difference, from the spread of their frames but the
/// highest and lowest tenth of each.
[[nodiscard]] std::vector<Ranked> rank(const std::vector<Measured>& contestants);

/// "For this scene pick hshg: 0.32 ms a frame, 1.6x faster than sweep (0.51); worst frame
/// 0.50 ms; 2.1 MB. Why: ..." for the fastest of ro's techniques in `ranking`; empty if it
/// has none. A tie names both.
[[nodiscard]] std::string verdictSentence(const std::vector<Ranked>& ranking, const SceneProfile& scene);

/// The scene's properties in words: "0 % static, sizes within 1.2x, boxes move 2 % of their
/// size a frame, ...".
[[nodiscard]] std::string describeScene(const SceneProfile& scene);

}  // namespace ro

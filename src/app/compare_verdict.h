#pragma once
/// Compare's rows turned into ro_verdict's ranking: the compared techniques sorted by their
/// measured cost a tick, ties within the noise called ties, and the sentence that names the
/// one to pick for the scene shown. No SDL or ImGui here.

#include <string>
#include <vector>

#include "app/compare.h"
#include "verdict/verdict.h"

namespace ro::app {

struct CompareVerdict {
    /// Fastest first: rows that ran at least one tick (skipped ones are not ranked).
    std::vector<Ranked> ranking;
    std::string scene;     ///< describeScene
    std::string sentence;  ///< verdictSentence; empty with nothing ranked
    const TechniqueInfo* winner = nullptr;  ///< the technique the sentence picks first
};

/// Ranks `compare`'s rows on their kept history (update + pair finding of the last
/// Compare::kHistory ticks at most), with `scene` as the verdict's "why".
[[nodiscard]] CompareVerdict compareVerdict(const Compare& compare, const SceneProfile& scene);

}  // namespace ro::app

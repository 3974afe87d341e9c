#pragma once
/// The end of a scene's output: the contestants ranked by mean cost with their ratios to the
/// fastest, and the verdict sentence; or, for scripts (--verdict), the verdict alone and its
/// JSON form.

#include <string>
#include <vector>

#include "verdict/verdict.h"

namespace ro::bench {

/// Prints the ranking table and the verdict of one scene.
void printRanking(const std::vector<Ranked>& ranking, const SceneProfile& scene);

/// Prints the verdict sentence, then one line `verdict-json: {...}` with the scene's name and
/// count, the pick, the ranking and the scene's measured properties.
void printVerdictOnly(const std::string& sceneName, std::uint32_t n, const std::vector<Ranked>& ranking,
                      const SceneProfile& scene);

}  // namespace ro::bench

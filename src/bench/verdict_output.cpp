#include "bench/verdict_output.h"

#include <algorithm>
#include <cstdio>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace ro::bench {

void printRanking(const std::vector<Ranked>& ranking, const SceneProfile& scene) {
    if (ranking.empty()) return;
    fmt::print("\nranked by mean ms a frame (x: over the fastest; = : a tie with it, within the measured noise)\n");
    std::size_t width = 0;
    for (const Ranked& r : ranking) width = std::max(width, r.name.size());
    for (std::size_t k = 0; k < ranking.size(); ++k) {
        const Ranked& r = ranking[k];
        fmt::print("{:>3}. {:<{}} {:>10.4f} ms {:>8.2f}x {} worst {:.4f} ms{}{}\n", k + 1, r.name, width, r.meanMs,
                   r.ratioToFastest, k > 0 && r.tiedWithFastest ? "=" : " ", r.worstMs,
                   r.megabytes > 0 ? fmt::format(", {:.1f} MB", r.megabytes) : "", r.peer ? " (peer)" : "");
    }
    if (const std::string sentence = verdictSentence(ranking, scene); !sentence.empty()) fmt::print("\n{}\n", sentence);
    std::fflush(stdout);
}

void printVerdictOnly(const std::string& sceneName, std::uint32_t n, const std::vector<Ranked>& ranking,
                      const SceneProfile& scene) {
    const std::string sentence = verdictSentence(ranking, scene);
    fmt::print("{}\n", sentence);
    nlohmann::ordered_json json;
    json["scene"] = sceneName;
    json["n"] = n;
    const auto pick = std::find_if(ranking.begin(), ranking.end(), [](const Ranked& r) { return !r.peer; });
    json["pick"] = pick == ranking.end() ? nlohmann::ordered_json() : nlohmann::ordered_json(pick->name);
    json["sentence"] = sentence;
    for (const Ranked& r : ranking)
        json["ranking"].push_back({{"name", r.name},
                                   {"peer", r.peer},
                                   {"mean_ms", r.meanMs},
                                   {"ratio_to_fastest", r.ratioToFastest},
                                   {"tied_with_fastest", r.tiedWithFastest},
                                   {"worst_ms", r.worstMs},
                                   {"megabytes", r.megabytes}});
    json["scene_profile"] = {{"frames", scene.frames},
                             {"mean_boxes", scene.meanBoxes},
                             {"static_share", scene.staticShare},
                             {"moved_share", scene.movedShare},
                             {"motion_per_size", scene.motionPerSize},
                             {"side_p50", scene.sideP50},
                             {"side_p99", scene.sideP99},
                             {"overlaps_per_box", scene.overlapsPerBox},
                             {"churn_per_frame", scene.churnPerFrame}};
    fmt::print("verdict-json: {}\n", json.dump());
    std::fflush(stdout);
}

}  // namespace ro::bench

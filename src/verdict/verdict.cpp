#include "verdict/verdict.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "ro/registry.h"

namespace ro {
namespace {

struct Moments {
    double mean = 0;
    double standardError = 0;  ///< of the mean, from the frames but their highest and lowest tenth
};

/// The mean of every frame (what a user pays), and the noise of a mean from the frames without
/// their highest and lowest tenth: a burst of the machine's load on a few frames then does not
/// make every difference look like noise.
Moments momentsOf(const std::vector<double>& values) {
    Moments m;
    if (values.empty()) return m;
    double sum = 0;
    for (const double v : values) sum += v;
    m.mean = sum / static_cast<double>(values.size());
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t cut = sorted.size() / 10;
    const auto first = sorted.begin() + static_cast<std::ptrdiff_t>(cut);
    const auto last = sorted.end() - static_cast<std::ptrdiff_t>(cut);
    const auto n = static_cast<double>(last - first);
    if (n < 2) return m;
    double trimmedSum = 0;
    for (auto it = first; it != last; ++it) trimmedSum += *it;
    const double trimmedMean = trimmedSum / n;
    double squares = 0;
    for (auto it = first; it != last; ++it) squares += (*it - trimmedMean) * (*it - trimmedMean);
    m.standardError = std::sqrt(squares / (n - 1) / n);
    return m;
}

/// A cost in ms with three significant digits, as the tables print it.
std::string ms(double value) { return fmt::format("{:.3g}", value); }

/// A share (0 to 1) as a whole percentage, or "under 1 %" rather than a misleading 0.
std::string percent(double share) {
    if (share > 0 && share < 0.005) return "under 1 %";
    return fmt::format("{:.0f} %", 100.0 * share);
}

}  // namespace

std::vector<Ranked> rank(const std::vector<Measured>& contestants) {
    std::vector<Ranked> ranking;
    std::vector<Moments> moments;
    for (const Measured& c : contestants) {
        moments.push_back(momentsOf(c.frameMs));
        ranking.push_back({c.name, c.peer, moments.back().mean, c.worstMs, c.megabytes});
    }
    std::vector<std::size_t> order(ranking.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return ranking[a].meanMs < ranking[b].meanMs; });
    std::vector<Ranked> sorted;
    for (const std::size_t i : order) sorted.push_back(ranking[i]);
    if (sorted.empty()) return sorted;
    const Moments& fastest = moments[order.front()];
    for (std::size_t k = 0; k < sorted.size(); ++k) {
        const Moments& m = moments[order[k]];
        sorted[k].ratioToFastest = fastest.mean > 0 ? m.mean / fastest.mean : 1.0;
        const double noise = 2.0 * std::hypot(m.standardError, fastest.standardError);
        sorted[k].tiedWithFastest = k == 0 || m.mean - fastest.mean < noise;
    }
    return sorted;
}

std::string describeScene(const SceneProfile& scene) {
    std::string text = fmt::format("{:.0f} boxes, {} static", scene.meanBoxes, percent(scene.staticShare));
    const double spread = scene.sideP50 > 0 ? scene.sideP99 / scene.sideP50 : 1.0;
    text += spread <= 2.0 ? fmt::format(", sizes within {:.1f}x", spread)
                          : fmt::format(", sizes spread {:.0f}x (the 99th percentile over the median)", spread);
    if (scene.movedShare == 0) {
        text += ", nothing moves";
    } else {
        text += fmt::format(", {} of the boxes move a frame, by {} of their size", percent(scene.movedShare),
                            percent(scene.motionPerSize));
    }
    text += fmt::format(", {:.2g} overlaps per box", scene.overlapsPerBox);
    if (scene.churnPerFrame > 0) text += fmt::format(", {:.0f} bodies created or destroyed a frame", scene.churnPerFrame);
    return text;
}

std::string verdictSentence(const std::vector<Ranked>& ranking, const SceneProfile& scene) {
    const auto ours = [](const Ranked& r) { return !r.peer; };
    const auto best = std::find_if(ranking.begin(), ranking.end(), ours);
    if (best == ranking.end()) return {};
    const auto next = std::find_if(best + 1, ranking.end(), ours);
    // A tie is between two of ours within the noise of each other; the fastest overall may be a peer.
    const bool tie = next != ranking.end() && next->tiedWithFastest && best->tiedWithFastest;
    std::string text = tie ? fmt::format("For this scene pick {} or {} (a tie within the measured noise): {} and {} ms a frame",
                                         best->name, next->name, ms(best->meanMs), ms(next->meanMs))
                           : fmt::format("For this scene pick {}: {} ms a frame", best->name, ms(best->meanMs));
    if (!tie && next != ranking.end())
        text += fmt::format(", {:.1f}x faster than {} ({})", next->meanMs / best->meanMs, next->name, ms(next->meanMs));
    text += fmt::format("; worst frame {} ms", ms(best->worstMs));
    if (best->megabytes > 0) text += fmt::format("; {:.1f} MB", best->megabytes);
    if (best != ranking.begin())
        text += fmt::format(" ({} was {:.1f}x faster)", ranking.front().name, best->meanMs / ranking.front().meanMs);
    text += ". Why: " + describeScene(scene) + ".";
    if (const TechniqueInfo* info = findTechnique(best->name); info && !info->guide.suits.empty())
        text += fmt::format(" The {} suits: {}", best->name, info->guide.suits);
    return text;
}

}  // namespace ro

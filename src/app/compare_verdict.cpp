#include "app/compare_verdict.h"

#include <algorithm>

namespace ro::app {

CompareVerdict compareVerdict(const Compare& compare, const SceneProfile& scene) {
    std::vector<Measured> measured;
    for (const Compare::Row& row : compare.rows()) {
        if (row.skipped || row.history.count == 0) continue;
        Measured m;
        m.name = std::string(row.technique->id);
        for (std::size_t i = 0; i < row.history.count; ++i) {
            const double ms = row.history.ms[row.history.at(i)];
            m.frameMs.push_back(ms);
            m.worstMs = std::max(m.worstMs, ms);
        }
        m.megabytes = static_cast<double>(row.counters.bytesHeld) / 1e6;
        measured.push_back(std::move(m));
    }
    CompareVerdict verdict;
    verdict.ranking = rank(measured);
    verdict.scene = describeScene(scene);
    verdict.sentence = verdictSentence(verdict.ranking, scene);
    if (!verdict.ranking.empty()) verdict.winner = findTechnique(verdict.ranking.front().name);
    return verdict;
}

}  // namespace ro::app

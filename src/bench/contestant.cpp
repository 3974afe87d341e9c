#include "bench/contestant.h"

#include <algorithm>

namespace ro::bench {
namespace {

class TechniqueContestant final : public Contestant {
public:
    TechniqueContestant(const TechniqueInfo& technique, const Settings& settings) : m_technique(technique.create()) {
        m_technique->configure(settings);
    }

    void step(const BoxView& boxes, MovedList moved, std::vector<Pair>& overlaps) override {
        if (moved && m_built)
            m_technique->updateMoved(boxes, *moved);
        else
            m_technique->update(boxes);
        m_technique->findPairs(m_candidates);
        // A technique that tests the boxes itself has nothing left for the exact test to drop.
        if (m_technique->pairsAreExact())
            overlaps.swap(m_candidates);
        else
            keepOverlapping(boxes, m_candidates, overlaps);
        if (!m_built) {
            // Room for the pair counts to wander above the first frame's without allocating.
            // (The two buffers trade places each frame when the pairs are exact.)
            const std::size_t room = 2 * std::max(m_candidates.size(), overlaps.size()) + 64;
            m_candidates.reserve(room);
            overlaps.reserve(room);
            m_built = true;
        }
    }

    FrameFigures figures() const override {
        const Counters& c = m_technique->counters();
        return {c.candidatePairs, c.pairTests, c.bytesHeld};
    }

private:
    std::unique_ptr<BroadPhase> m_technique;
    std::vector<Pair> m_candidates;
    bool m_built = false;
};

}  // namespace

void keepOverlapping(const BoxView& boxes, const std::vector<Pair>& candidates, std::vector<Pair>& out) {
    out.clear();
    const PairRule rule(boxes);
    for (const Pair& p : candidates)
        if (overlaps(boxes.box(p.a), boxes.box(p.b)) && (!rule.active() || rule.accepts(p))) out.push_back(p);
}

std::unique_ptr<Contestant> makeTechniqueContestant(const TechniqueInfo& technique, const Settings& settings) {
    return std::make_unique<TechniqueContestant>(technique, settings);
}

}  // namespace ro::bench

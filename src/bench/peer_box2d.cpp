// Box2D 2.4.1's broad phase (a dynamic AABB tree with fattened boxes), driven as b2World
// drives it: MoveProxy for every body that moved (b2World::SolveTOI / Synchronize skip static
// bodies), UpdatePairs for the proxies that left their fat box, and a persistent pair set that
// drops a pair once the fat boxes part (b2ContactManager). Like b2ContactManager::AddPair it
// refuses two static bodies and pairs that the filters (b2Filter's category and mask) exclude.
#include <box2d/b2_broad_phase.h>

#include <cstdint>
#include <unordered_set>

#include "bench/peers.h"

namespace ro::bench {
namespace {

class Box2dTree final : public Contestant {
public:
    void step(const BoxView& boxes, MovedList moved, std::vector<Pair>& overlaps) override {
        m_rule = PairRule(boxes);
        const auto move = [&](std::uint32_t i) {
            const b2AABB box = aabb(boxes, i);
            const b2AABB& before = m_last[i];
            const b2Vec2 displacement = 0.5f * (box.lowerBound + box.upperBound) -
                                        0.5f * (before.lowerBound + before.upperBound);
            m_broadPhase.MoveProxy(m_proxies[i], box, displacement);
            m_last[i] = box;
        };
        if (m_proxies.empty()) {
            m_proxies.resize(boxes.count);
            m_last.resize(boxes.count);
            for (std::uint32_t i = 0; i < boxes.count; ++i) {
                m_last[i] = aabb(boxes, i);
                m_proxies[i] = m_broadPhase.CreateProxy(m_last[i], userData(i));
            }
        } else if (moved) {
            for (const std::uint32_t i : *moved) move(i);
        } else {
            for (std::uint32_t i = 0; i < boxes.count; ++i) move(i);
        }
        m_broadPhase.UpdatePairs(this);
        // b2ContactManager::Collide: a contact lives until the fat boxes stop overlapping.
        for (std::size_t k = 0; k < m_pairs.size();) {
            const Pair p = m_pairs[k];
            if (m_broadPhase.TestOverlap(m_proxies[p.a], m_proxies[p.b])) {
                ++k;
                continue;
            }
            m_pairSet.erase(key(p));
            m_pairs[k] = m_pairs.back();
            m_pairs.pop_back();
        }
        keepOverlapping(boxes, m_pairs, overlaps);
    }

    FrameFigures figures() const override { return {m_pairs.size(), std::nullopt, std::nullopt}; }

    /// Called by UpdatePairs for each new pair of overlapping fat boxes.
    void AddPair(void* userDataA, void* userDataB) {
        const auto a = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(userDataA) - 1);
        const auto b = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(userDataB) - 1);
        if (a == b || (m_rule.active() && !m_rule.accepts(a, b))) return;
        const Pair p = makePair(a, b);
        if (m_pairSet.insert(key(p)).second) m_pairs.push_back(p);
    }

private:
    static b2AABB aabb(const BoxView& boxes, std::uint32_t i) {
        b2AABB box;
        box.lowerBound.Set(boxes.minX[i], boxes.minY[i]);
        box.upperBound.Set(boxes.maxX[i], boxes.maxY[i]);
        return box;
    }
    static void* userData(std::uint32_t i) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(i) + 1); }
    static std::uint64_t key(const Pair& p) { return (std::uint64_t{p.a} << 32) | p.b; }

    b2BroadPhase m_broadPhase;
    std::vector<std::int32_t> m_proxies;
    std::vector<b2AABB> m_last;
    std::vector<Pair> m_pairs;
    std::unordered_set<std::uint64_t> m_pairSet;
    PairRule m_rule;
};

}  // namespace

std::unique_ptr<Contestant> makeBox2dTree(const PeerSetup&) { return std::make_unique<Box2dTree>(); }

}  // namespace ro::bench

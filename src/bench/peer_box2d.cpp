// Box2D 2.4.1's broad phase (a dynamic AABB tree with fattened boxes), driven as b2World
// drives it: MoveProxy for every body that moved (b2World::SolveTOI / Synchronize skip static
// bodies), UpdatePairs for the proxies that left their fat box, and a persistent pair set that
// drops a pair once the fat boxes part (b2ContactManager). Like b2ContactManager::AddPair it
// refuses two static bodies and pairs that the filters (b2Filter's category and mask) exclude.
// Bodies come and go as in b2World: CreateProxy for a new id, DestroyProxy (and its contacts)
// for one gone.
#include <box2d/b2_broad_phase.h>

#include <cstdint>
#include <unordered_set>

#include "bench/peer_bodies.h"
#include "bench/peers.h"

namespace ro::bench {
namespace {

class Box2dTree final : public Contestant {
public:
    void step(const BoxView& boxes, MovedList moved, std::vector<Pair>& overlaps) override {
        m_rule = PairRule(boxes);
        m_bodies.update(boxes);
        // Proxies and persistent pairs are keyed by the bodies' slots (PeerBodies).
        const auto move = [&](std::uint32_t i) {
            const std::uint32_t slot = m_bodies.slotOf(i);
            const b2AABB box = aabb(boxes, i);
            const b2AABB& before = m_last[slot];
            const b2Vec2 displacement = 0.5f * (box.lowerBound + box.upperBound) -
                                        0.5f * (before.lowerBound + before.upperBound);
            m_broadPhase.MoveProxy(m_proxies[slot], box, displacement);
            m_last[slot] = box;
        };
        if (!m_bodies.destroyed().empty()) destroyBodies();
        m_proxies.resize(m_bodies.slotCount());
        m_last.resize(m_bodies.slotCount());
        for (const std::uint32_t i : m_bodies.created()) {
            const std::uint32_t slot = m_bodies.slotOf(i);
            m_last[slot] = aabb(boxes, i);
            m_proxies[slot] = m_broadPhase.CreateProxy(m_last[slot], userData(slot));
        }
        if (moved && m_bodies.sameBodies()) {
            for (const std::uint32_t i : *moved) move(i);
        } else {
            for (std::uint32_t i = 0; i < boxes.count; ++i)
                if (!m_bodies.isCreated(i)) move(i);
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
        if (m_bodies.slotsAreIndices()) {
            keepOverlapping(boxes, m_pairs, overlaps);
            return;
        }
        m_indexPairs.clear();
        for (const Pair& p : m_pairs) m_indexPairs.push_back(makePair(m_bodies.indexOf(p.a), m_bodies.indexOf(p.b)));
        keepOverlapping(boxes, m_indexPairs, overlaps);
    }

    FrameFigures figures() const override { return {m_pairs.size(), std::nullopt, std::nullopt}; }

    /// Called by UpdatePairs for each new pair of overlapping fat boxes.
    void AddPair(void* userDataA, void* userDataB) {
        const auto a = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(userDataA) - 1);
        const auto b = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(userDataB) - 1);
        if (a == b || (m_rule.active() && !m_rule.accepts(m_bodies.indexOf(a), m_bodies.indexOf(b)))) return;
        const Pair p = makePair(a, b);
        if (m_pairSet.insert(key(p)).second) m_pairs.push_back(p);
    }

private:
    /// b2World::DestroyBody: the proxies of the bodies gone, and their contacts.
    void destroyBodies() {
        m_gone.assign(m_proxies.size(), 0);
        for (const std::uint32_t slot : m_bodies.destroyed()) {
            m_broadPhase.DestroyProxy(m_proxies[slot]);
            m_gone[slot] = 1;
        }
        for (std::size_t k = 0; k < m_pairs.size();) {
            const Pair p = m_pairs[k];
            if (m_gone[p.a] == 0 && m_gone[p.b] == 0) {
                ++k;
                continue;
            }
            m_pairSet.erase(key(p));
            m_pairs[k] = m_pairs.back();
            m_pairs.pop_back();
        }
    }
    static b2AABB aabb(const BoxView& boxes, std::uint32_t i) {
        b2AABB box;
        box.lowerBound.Set(boxes.minX[i], boxes.minY[i]);
        box.upperBound.Set(boxes.maxX[i], boxes.maxY[i]);
        return box;
    }
    static void* userData(std::uint32_t i) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(i) + 1); }
    static std::uint64_t key(const Pair& p) { return (std::uint64_t{p.a} << 32) | p.b; }

    b2BroadPhase m_broadPhase;
    PeerBodies m_bodies;
    std::vector<std::int32_t> m_proxies;  ///< by slot
    std::vector<b2AABB> m_last;           ///< by slot
    std::vector<Pair> m_pairs;            ///< of slots
    std::vector<Pair> m_indexPairs;       ///< m_pairs as dense indices, when slots are not
    std::vector<std::uint8_t> m_gone;     ///< by slot: destroyed this frame
    std::unordered_set<std::uint64_t> m_pairSet;
    PairRule m_rule;
};

}  // namespace

std::unique_ptr<Contestant> makeBox2dTree(const PeerSetup&) { return std::make_unique<Box2dTree>(); }

}  // namespace ro::bench

// Bullet 3.24's broad phases, driven as btCollisionWorld drives them: setAabb for every
// object that moved (all of them unless the scene says which), calculateOverlappingPairs,
// then the persistent pair cache holds the candidates. Statics go in btBroadphaseProxy's
// StaticFilter group, whose mask leaves out statics (btCollisionWorld::addCollisionObject);
// filters become the proxies' group and mask, which Bullet's pair cache tests the same way.
// With both, the filters take the group and the exact test drops two statics.
// Bodies come and go as in btCollisionWorld: createProxy for a new id, destroyProxy (which
// drops its pairs from the cache) for one gone.
// Bullet is 3D: every box spans z in [-0.5, 0.5], so only x and y decide.
#include <btBulletCollisionCommon.h>

#include <cstdint>

#include "bench/peer_bodies.h"
#include "bench/peers.h"

namespace ro::bench {
namespace {

class BulletPeer final : public Contestant {
public:
    explicit BulletPeer(std::unique_ptr<btBroadphaseInterface> broadPhase) : m_broadPhase(std::move(broadPhase)) {}

    ~BulletPeer() override {
        for (std::uint32_t i = 0; i < m_liveCount; ++i)
            m_broadPhase->destroyProxy(m_proxies[m_bodies.slotOf(i)], &m_dispatcher);
    }

    void step(const BoxView& boxes, MovedList moved, std::vector<Pair>& overlaps) override {
        m_bodies.update(boxes);
        for (const std::uint32_t slot : m_bodies.destroyed()) m_broadPhase->destroyProxy(m_proxies[slot], &m_dispatcher);
        m_proxies.resize(m_bodies.slotCount());
        for (const std::uint32_t i : m_bodies.created()) {
            int group = btBroadphaseProxy::DefaultFilter;
            int mask = btBroadphaseProxy::AllFilter;
            if (boxes.category != nullptr) {
                group = static_cast<int>(boxes.category[i]);
                mask = static_cast<int>(boxes.mask[i]);
            } else if (boxes.isStatic != nullptr && boxes.isStatic[i] != 0) {
                group = btBroadphaseProxy::StaticFilter;
                mask = btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter;
            }
            const std::uint32_t slot = m_bodies.slotOf(i);
            m_proxies[slot] = m_broadPhase->createProxy(lower(boxes, i), upper(boxes, i), BOX_SHAPE_PROXYTYPE,
                                                        reinterpret_cast<void*>(static_cast<std::uintptr_t>(slot)),
                                                        group, mask, &m_dispatcher);
        }
        m_liveCount = boxes.count;
        const auto move = [&](std::uint32_t i) {
            m_broadPhase->setAabb(m_proxies[m_bodies.slotOf(i)], lower(boxes, i), upper(boxes, i), &m_dispatcher);
        };
        if (moved && m_bodies.sameBodies()) {
            for (const std::uint32_t i : *moved) move(i);
        } else {
            for (std::uint32_t i = 0; i < boxes.count; ++i)
                if (!m_bodies.isCreated(i)) move(i);
        }
        m_broadPhase->calculateOverlappingPairs(&m_dispatcher);
        const btBroadphasePairArray& pairs = m_broadPhase->getOverlappingPairCache()->getOverlappingPairArray();
        m_candidates.clear();
        for (int k = 0; k < pairs.size(); ++k) {
            const auto a = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(pairs[k].m_pProxy0->m_clientObject));
            const auto b = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(pairs[k].m_pProxy1->m_clientObject));
            m_candidates.push_back(makePair(m_bodies.indexOf(a), m_bodies.indexOf(b)));  // slots to this frame's indices
        }
        keepOverlapping(boxes, m_candidates, overlaps);
    }

    FrameFigures figures() const override { return {m_candidates.size(), std::nullopt, std::nullopt}; }

private:
    static btVector3 lower(const BoxView& b, std::uint32_t i) { return {b.minX[i], b.minY[i], -0.5f}; }
    static btVector3 upper(const BoxView& b, std::uint32_t i) { return {b.maxX[i], b.maxY[i], 0.5f}; }

    btDefaultCollisionConfiguration m_configuration;
    btCollisionDispatcher m_dispatcher{&m_configuration};
    std::unique_ptr<btBroadphaseInterface> m_broadPhase;
    PeerBodies m_bodies;
    std::vector<btBroadphaseProxy*> m_proxies;  ///< by slot
    std::uint32_t m_liveCount = 0;              ///< boxes of the last frame, whose proxies live
    std::vector<Pair> m_candidates;
};

}  // namespace

std::unique_ptr<Contestant> makeBulletDbvt(const PeerSetup&) {
    return std::make_unique<BulletPeer>(std::make_unique<btDbvtBroadphase>());
}

std::unique_ptr<Contestant> makeBulletSweep(const PeerSetup& setup) {
    // A margin keeps boxes that touch the walls inside the quantized world. The ray-cast
    // accelerator (a second, dynamic tree) is off: the bench casts no rays.
    const Aabb& w = setup.worldBounds;
    const btVector3 lo{w.minX - 1.0f, w.minY - 1.0f, -1.0f};
    const btVector3 hi{w.maxX + 1.0f, w.maxY + 1.0f, 1.0f};
    return std::make_unique<BulletPeer>(
        std::make_unique<bt32BitAxisSweep3>(lo, hi, setup.count + 2, nullptr, /*disableRaycastAccelerator=*/true));
}

}  // namespace ro::bench

// Chipmunk 7.0.3's spatial indexes, driven as cpSpace drives them: one
// cpSpatialIndexReindexQuery per frame re-reads every dynamic box through the bounding-box
// callback and reports the pairs that may collide. Statics live in a static index (a cpBBTree,
// as cpSpace's staticShapes) that the dynamic index is linked to: the reindex query then also
// collides every dynamic box with it (cpSpatialIndexCollideStatic), and statics never meet.
// Filters are applied as cpSpace's collision callback applies cpShapeFilter, pair by pair.
// Bodies come and go as in cpSpace: cpSpatialIndexInsert for a new id, cpSpatialIndexRemove
// for one gone; a static that moves is reindexed (cpSpaceReindexShape).
#include <chipmunk/chipmunk.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "bench/peer_bodies.h"
#include "bench/peers.h"

namespace ro::bench {
namespace {

// Chipmunk asks for boxes (and the tree for velocities) through plain function pointers with
// the object alone: this frame's data is reached through these (the bench is single-threaded).
// An object is its body's slot + 1 (PeerBodies), so that it stays the same object while the
// body lives, wherever its box is in the frame's arrays.
const BoxView* g_boxes = nullptr;
const PeerBodies* g_bodies = nullptr;
const cpVect* g_velocities = nullptr;  ///< by slot

std::uint32_t slotOf(void* object) {
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(object) - 1);
}

void* objectOf(std::uint32_t slot) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(slot) + 1); }

cpBB boxOf(void* object) {
    const std::uint32_t i = g_bodies->indexOf(slotOf(object));
    return cpBBNew(g_boxes->minX[i], g_boxes->minY[i], g_boxes->maxX[i], g_boxes->maxY[i]);
}

// cpSweep1D treats boxes that touch on its axis as apart (it stops at min < max, not <=);
// ro's rule is closed intervals. Grown by one ulp, touching boxes become candidates, and the
// exact test on the real boxes then keeps precisely the overlapping pairs.
// cpSpace gives its tree each body's velocity, so a leaf's box is fattened along the motion
// and stays put while the body moves inside it. Velocity per second at 60 frames a second.
cpVect velocityOf(void* object) { return g_velocities[slotOf(object)]; }

cpBB grownBoxOf(void* object) {
    const cpBB b = boxOf(object);
    constexpr double kDown = -HUGE_VAL, kUp = HUGE_VAL;
    return cpBBNew(std::nextafter(b.l, kDown), std::nextafter(b.b, kDown), std::nextafter(b.r, kUp),
                   std::nextafter(b.t, kUp));
}

class ChipmunkPeer final : public Contestant {
public:
    /// `index` was made with `statics` as its static index.
    ChipmunkPeer(cpSpatialIndex* statics, cpSpatialIndex* index, bool tracksVelocity)
        : m_statics(statics), m_index(index), m_tracksVelocity(tracksVelocity) {}
    ~ChipmunkPeer() override {
        cpSpatialIndexFree(m_index);
        cpSpatialIndexFree(m_statics);
    }
    ChipmunkPeer(const ChipmunkPeer&) = delete;
    ChipmunkPeer& operator=(const ChipmunkPeer&) = delete;

    void step(const BoxView& boxes, MovedList moved, std::vector<Pair>& overlaps) override {
        g_boxes = &boxes;
        g_bodies = &m_bodies;
        m_rule = PairRule(boxes);
        m_bodies.update(boxes);
        for (const std::uint32_t slot : m_bodies.destroyed())
            cpSpatialIndexRemove(m_isStatic[slot] != 0 ? m_statics : m_index, objectOf(slot), slot);
        m_isStatic.resize(m_bodies.slotCount());
        m_staticBoxes.resize(m_bodies.slotCount());
        if (m_tracksVelocity) trackVelocities(boxes, moved);  // before inserting: the tree asks at once
        for (const std::uint32_t i : m_bodies.created()) {
            const std::uint32_t slot = m_bodies.slotOf(i);
            m_isStatic[slot] = boxes.isStatic != nullptr && boxes.isStatic[i] != 0 ? 1 : 0;
            if (m_isStatic[slot] != 0) m_staticBoxes[slot] = boxes.box(i);
            cpSpatialIndexInsert(m_isStatic[slot] != 0 ? m_statics : m_index, objectOf(slot), slot);
        }
        reindexMovedStatics(boxes, moved);
        m_candidates.clear();
        cpSpatialIndexReindexQuery(m_index, &ChipmunkPeer::onPair, this);
        keepOverlapping(boxes, m_candidates, overlaps);
        g_boxes = nullptr;
        g_bodies = nullptr;
        g_velocities = nullptr;
    }

    FrameFigures figures() const override { return {m_candidates.size(), std::nullopt, std::nullopt}; }

private:
    /// Each body's velocity, from its last two centres; told what moved, only theirs (a
    /// static body's stays zero, as in cpSpace; a new body's starts at zero).
    void trackVelocities(const BoxView& boxes, MovedList moved) {
        constexpr cpFloat kFramesPerSecond = 60.0;
        m_velocities.resize(m_bodies.slotCount());
        m_lastCentres.resize(m_bodies.slotCount());
        const auto track = [&](std::uint32_t i) {
            const std::uint32_t slot = m_bodies.slotOf(i);
            const cpVect centre = cpv(0.5 * (boxes.minX[i] + boxes.maxX[i]), 0.5 * (boxes.minY[i] + boxes.maxY[i]));
            m_velocities[slot] = m_bodies.isCreated(i) ? cpvzero : cpvmult(cpvsub(centre, m_lastCentres[slot]), kFramesPerSecond);
            m_lastCentres[slot] = centre;
        };
        if (moved && m_bodies.sameBodies()) {
            for (const std::uint32_t i : *moved) track(i);
        } else {
            for (std::uint32_t i = 0; i < boxes.count; ++i) track(i);
        }
        g_velocities = m_velocities.data();
    }

    /// cpSpace never moves its statics itself: a static whose box changed is reindexed, as a
    /// game calls cpSpaceReindexShape after moving one.
    void reindexMovedStatics(const BoxView& boxes, MovedList moved) {
        if (boxes.isStatic == nullptr) return;
        const auto check = [&](std::uint32_t i) {
            const std::uint32_t slot = m_bodies.slotOf(i);
            if (m_isStatic[slot] == 0 || m_bodies.isCreated(i)) return;
            const Aabb box = boxes.box(i);
            const Aabb& was = m_staticBoxes[slot];
            if (box.minX == was.minX && box.minY == was.minY && box.maxX == was.maxX && box.maxY == was.maxY) return;
            m_staticBoxes[slot] = box;
            cpSpatialIndexReindexObject(m_statics, objectOf(slot), slot);
        };
        if (moved && m_bodies.sameBodies()) {
            for (const std::uint32_t i : *moved) check(i);
        } else {
            for (std::uint32_t i = 0; i < boxes.count; ++i) check(i);
        }
    }

    static cpCollisionID onPair(void* a, void* b, cpCollisionID id, void* self) {
        auto* peer = static_cast<ChipmunkPeer*>(self);
        const std::uint32_t i = peer->m_bodies.indexOf(slotOf(a));
        const std::uint32_t j = peer->m_bodies.indexOf(slotOf(b));
        if (i != j && (!peer->m_rule.active() || peer->m_rule.accepts(i, j))) peer->m_candidates.push_back(makePair(i, j));
        return id;
    }

    cpSpatialIndex* m_statics;
    cpSpatialIndex* m_index;
    bool m_tracksVelocity;
    PairRule m_rule;
    PeerBodies m_bodies;
    std::vector<cpVect> m_lastCentres, m_velocities;  ///< by slot
    std::vector<std::uint8_t> m_isStatic;             ///< by slot: in the static index
    std::vector<Aabb> m_staticBoxes;                  ///< by slot, for statics: the box indexed
    std::vector<Pair> m_candidates;
};

}  // namespace

std::unique_ptr<Contestant> makeChipmunkHash(const PeerSetup& setup) {
    // Chipmunk's advice and Lembcke and Korth's: cells the size of the objects, a table 10x the count.
    const int cells = static_cast<int>(std::min<std::uint64_t>(10ull * setup.count + 1, 1u << 26));
    cpSpatialIndex* statics = cpBBTreeNew(&boxOf, nullptr);
    return std::make_unique<ChipmunkPeer>(statics, cpSpaceHashNew(setup.cellSize, cells, &boxOf, statics), false);
}

std::unique_ptr<Contestant> makeChipmunkTree(const PeerSetup&) {
    cpSpatialIndex* statics = cpBBTreeNew(&boxOf, nullptr);
    cpSpatialIndex* tree = cpBBTreeNew(&boxOf, statics);
    cpBBTreeSetVelocityFunc(tree, &velocityOf);
    return std::make_unique<ChipmunkPeer>(statics, tree, true);
}

std::unique_ptr<Contestant> makeChipmunkSweep(const PeerSetup&) {
    cpSpatialIndex* statics = cpBBTreeNew(&grownBoxOf, nullptr);
    return std::make_unique<ChipmunkPeer>(statics, cpSweep1DNew(&grownBoxOf, statics), false);
}

}  // namespace ro::bench

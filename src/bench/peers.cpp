#include "bench/peers.h"

#include <vector>

namespace ro::bench {
namespace {


const std::vector<PeerInfo>& table() {
    static const std::vector<PeerInfo> rows{
#ifdef RO_HAVE_BOX2D
        {"box2d-tree", "Box2D 2.4.1", "b2BroadPhase: MoveProxy, UpdatePairs, persistent pairs as b2ContactManager",
         &makeBox2dTree, 0, {}},
#endif
#ifdef RO_HAVE_BULLET
        {"bullet-dbvt", "Bullet 3.24", "btDbvtBroadphase: setAabb, calculateOverlappingPairs, pair cache",
         &makeBulletDbvt, 0, {}},
        {"bullet-sap", "Bullet 3.24", "bt32BitAxisSweep3: setAabb, calculateOverlappingPairs, pair cache",
         &makeBulletSweep, 20'000, "each insertion sorts its handle into place: the build is O(n^2), 0.9 s at 10k"},
#endif
#ifdef RO_HAVE_CHIPMUNK
        {"chipmunk-hash", "Chipmunk 7.0.3", "cpSpaceHash (cell as ro's, 10x cells): cpSpatialIndexReindexQuery",
         &makeChipmunkHash, 0, {}},
        {"chipmunk-tree", "Chipmunk 7.0.3", "cpBBTree with cpSpace's velocity function: cpSpatialIndexReindexQuery", &makeChipmunkTree, 0, {}},
        {"chipmunk-sweep", "Chipmunk 7.0.3", "cpSweep1D (boxes grown 1 ulp: it reads touching as apart): cpSpatialIndexReindexQuery", &makeChipmunkSweep, 0, {}},
#endif
    };
    return rows;
}

const std::vector<std::string_view>& missing() {
    static const std::vector<std::string_view> packages{
#ifndef RO_HAVE_BOX2D
        "libbox2d-dev",
#endif
#ifndef RO_HAVE_BULLET
        "libbullet-dev",
#endif
#ifndef RO_HAVE_CHIPMUNK
        "libchipmunk-dev",
#endif
    };
    return packages;
}

}  // namespace

std::span<const PeerInfo> peers() { return table(); }
std::span<const std::string_view> missingPeerPackages() { return missing(); }

}  // namespace ro::bench

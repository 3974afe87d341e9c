#pragma once
/// The peers: broad phases of Box2D, Bullet and Chipmunk, from Debian's packages, driven the
/// way their own engines drive them and timed on the same frames as ro's techniques. A peer
/// is in the table only when its package was found at build time.

#include <memory>
#include <span>
#include <string_view>

#include "bench/contestant.h"

namespace ro::bench {

/// What a peer needs to set itself up as its engine would for this scene.
struct PeerSetup {
    Aabb worldBounds;
    float cellSize = 1.0f;     ///< for Chipmunk's spatial hash
    std::uint32_t count = 0;   ///< entities, for table sizes
};

/// One row of the peer table.
struct PeerInfo {
    std::string_view id;       ///< e.g. "box2d-tree"
    std::string_view library;  ///< e.g. "Box2D 2.4.1"
    std::string_view what;     ///< the structure and the calls the bench makes
    std::unique_ptr<Contestant> (*create)(const PeerSetup&);
    std::uint32_t maxCount = 0;  ///< left out above this many entities (0: never), with the reason
    std::string_view whyLimited;
};

/// Every peer compiled into this build (none when no package was found).
[[nodiscard]] std::span<const PeerInfo> peers();

/// The peers this build could not include, with the package that would bring each.
[[nodiscard]] std::span<const std::string_view> missingPeerPackages();

// Factories, one per peer file.
std::unique_ptr<Contestant> makeBox2dTree(const PeerSetup& setup);
std::unique_ptr<Contestant> makeBulletDbvt(const PeerSetup& setup);
std::unique_ptr<Contestant> makeBulletSweep(const PeerSetup& setup);
std::unique_ptr<Contestant> makeChipmunkHash(const PeerSetup& setup);
std::unique_ptr<Contestant> makeChipmunkTree(const PeerSetup& setup);
std::unique_ptr<Contestant> makeChipmunkSweep(const PeerSetup& setup);

}  // namespace ro::bench

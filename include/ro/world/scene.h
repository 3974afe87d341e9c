#pragma once
/// Random scenes for the app, the tests and the bench: fully defined by count, sizes and seed.

#include <cstdint>

#include "ro/core/rng.h"
#include "ro/scenario/scenario.h"
#include "ro/world/world.h"

namespace ro {

/// Half-extent range of spawned entities.
struct SizeRange {
    float minHalf = 2.0f;
    float maxHalf = 6.0f;
};

/// A size range that covers about 15% of the world's area with `count` entities.
[[nodiscard]] SizeRange defaultSizeRange(std::uint32_t count, const Aabb& bounds);

/// A random box or circle inside `bounds`, sized from `sizes`, moving up to half the
/// largest half-extent per tick on each axis.
[[nodiscard]] EntityDesc randomEntity(Rng& rng, const Aabb& bounds, const SizeRange& sizes);

/// Adds random entities until the world holds `count`, or removes from the end of the dense
/// arrays until it does.
void resizePopulation(World& world, Rng& rng, std::uint32_t count, const SizeRange& sizes);

/// Replaces the world's entities by the scene's boxes as they are now, in the scene's order
/// (dense index i is box i, with the same corners bit for bit), and its walls by the scene's
/// (Scene::walls: onecell's square); the boxes the scene declares static are static entities.
/// The other world settings stay.
void loadScene(World& world, const Scene& scene);

}  // namespace ro

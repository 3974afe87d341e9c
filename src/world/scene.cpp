#include "ro/world.h"
#include "world/load_scene.h"

#include <algorithm>
#include <cmath>

namespace ro {

SizeRange defaultSizeRange(std::uint32_t count, const Aabb& bounds) {
    const float area = bounds.width() * bounds.height();
    // Typical full size s with count * s^2 = 15% of the area; halves spread around s / 2.
    const float size = std::sqrt(0.15f * area / static_cast<float>(std::max<std::uint32_t>(count, 1)));
    const float cap = std::min(bounds.width(), bounds.height()) / 8.0f;
    const float maxHalf = std::clamp(0.7f * size, 0.1f, cap);
    return {0.4f * maxHalf, maxHalf};
}

EntityDesc randomEntity(Rng& rng, const Aabb& bounds, const SizeRange& sizes) {
    EntityDesc d;
    d.shape = rng.below(2) == 0 ? Shape::Box : Shape::Circle;
    d.halfExtents.x = rng.range(sizes.minHalf, sizes.maxHalf);
    d.halfExtents.y = d.shape == Shape::Box ? rng.range(sizes.minHalf, sizes.maxHalf) : d.halfExtents.x;
    const float hw = std::min(d.halfExtents.x, 0.5f * bounds.width());
    const float hh = std::min(d.halfExtents.y, 0.5f * bounds.height());
    d.position = {rng.range(bounds.minX + hw, bounds.maxX - hw), rng.range(bounds.minY + hh, bounds.maxY - hh)};
    const float maxSpeed = 0.25f * sizes.maxHalf;
    d.velocity = {rng.range(-maxSpeed, maxSpeed), rng.range(-maxSpeed, maxSpeed)};
    return d;
}

void resizePopulation(World& world, Rng& rng, std::uint32_t count, const SizeRange& sizes) {
    while (world.size() < count) world.add(randomEntity(rng, world.config().bounds, sizes));
    while (world.size() > count) world.remove(world.ids().back());
}

void loadScene(World& world, const Scene& scene) {
    WorldConfig config = world.config();
    config.bounds = scene.walls();  // onecell's boxes bounce in their square, as ro_bench's do
    world.setConfig(config);
    while (world.size() > 0) world.remove(world.ids().back());
    const BoxView view = scene.boxes();
    for (std::uint32_t i = 0; i < scene.size(); ++i) {
        const float half = scene.halfSide(i);
        world.add({.position = scene.centre(i), .velocity = scene.velocity(i), .acceleration = {}, .halfExtents = {half, half},
                   .shape = Shape::Box, .isStatic = scene.isStatic(i),
                   .category = view.category ? view.category[i] : 1u, .mask = view.mask ? view.mask[i] : ~0u});
    }
}

}  // namespace ro

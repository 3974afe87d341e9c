// Runs the Verlet world with a technique of your choice, follows one entity through its
// handle, and reads the overlap pairs and counters. Built against the installed package:
// find_package(ro CONFIG REQUIRED).
#include <ro/registry.h>
#include <ro/world.h>

#include <cstdio>

int main() {
    ro::World world;  // 1600 x 1000 world units, 60 Hz
    world.setBroadPhase(ro::createTechnique("hshg"));
    ro::Rng rng(1);
    ro::resizePopulation(world, rng, 5000, ro::defaultSizeRange(5000, world.config().bounds));

    // One entity of our own, read and steered through its handle (the arrays stay underneath).
    ro::EntityDesc ball;
    ball.position = {800, 500};
    ball.halfExtents = {6, 6};
    ball.shape = ro::Shape::Circle;
    const ro::EntityId ballId = world.add(ball);
    ro::Entity handle = world.entity(ballId);
    handle.setVelocity({3, 0});  // world units per tick
    for (int tick = 0; tick < 60; ++tick) world.tick();  // one simulated second
    const ro::Vec2 at = handle.position();
    std::printf("ball %u at (%.1f, %.1f), size %.0f x %.0f\n", ballId, at.x, at.y, handle.size().x, handle.size().y);

    const ro::StepStats& stats = world.lastStats();
    std::printf("%u entities, tick %llu: %llu candidates, %llu overlaps, %llu contacts\n", world.size(),
                static_cast<unsigned long long>(world.tickCount()), static_cast<unsigned long long>(stats.candidates),
                static_cast<unsigned long long>(stats.overlaps), static_cast<unsigned long long>(stats.contacts));
    for (const ro::Pair& p : world.overlapPairs()) {  // dense indices, a < b, canonical order
        std::printf("first overlap: entities %u and %u\n", p.a, p.b);
        break;
    }
    return world.tickCount() == 60 && stats.overlaps == world.overlapPairs().size() && handle.size().x == 12.0f ? 0 : 1;
}

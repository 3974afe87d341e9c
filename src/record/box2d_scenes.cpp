// Box2D 2.4 scenes, modelled on the benchmarks of Box2D v3 (shared/benchmarks.c) at the sizes
// it uses, built with 2.4's API. Each step writes every fixture's tight box (the shape's
// ComputeAABB at its body's transform, per child), not the broad phase's fattened one: the
// trace is what a broad phase is handed, and each technique then fattens as it likes.
#include <box2d/box2d.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numbers>
#include <random>
#include <vector>

#include "record/record.h"

namespace ro::record {
namespace {

constexpr float kTimeStep = 1.0f / 60.0f;

/// A world, the ids of its fixtures, and the writing of its boxes.
class Box2dWorld {
public:
    explicit Box2dWorld(b2Vec2 gravity = {0.0f, -10.0f}) : m_world(std::make_unique<b2World>(gravity)) {}

    b2World& world() { return *m_world; }

    b2Body* body(b2BodyType type, b2Vec2 at, float angle = 0.0f) {
        b2BodyDef def;
        def.type = type;
        def.position = at;
        def.angle = angle;
        return m_world->CreateBody(&def);
    }

    /// A fixture whose children take the next ids (one per child: an id per box written).
    b2Fixture* fixture(b2Body* body, const b2Shape& shape, float density = 1.0f, float friction = 0.6f) {
        b2FixtureDef def;
        def.shape = &shape;
        def.density = density;
        def.friction = friction;
        def.userData.pointer = m_nextId;
        m_nextId += static_cast<std::uintptr_t>(shape.GetChildCount());
        return body->CreateFixture(&def);
    }

    b2Body* box(b2BodyType type, b2Vec2 at, float halfWidth, float halfHeight, float density = 1.0f,
                float angle = 0.0f) {
        b2Body* b = body(type, at, angle);
        b2PolygonShape shape;
        shape.SetAsBox(halfWidth, halfHeight);
        fixture(b, shape, density);
        return b;
    }

    b2Body* circle(b2BodyType type, b2Vec2 at, float radius, float density = 1.0f) {
        b2Body* b = body(type, at);
        b2CircleShape shape;
        shape.m_radius = radius;
        fixture(b, shape, density);
        return b;
    }

    void step() { m_world->Step(kTimeStep, 8, 3); }

    /// Writes every fixture child's box; fixtures of static bodies are flagged static.
    void write(TraceWriter& out) {
        m_boxes.clear();
        for (b2Body* b = m_world->GetBodyList(); b; b = b->GetNext()) {
            const b2Transform& transform = b->GetTransform();
            const bool isStatic = b->GetType() == b2_staticBody;
            for (b2Fixture* f = b->GetFixtureList(); f; f = f->GetNext()) {
                const b2Shape& shape = *f->GetShape();
                for (int32 child = 0; child < shape.GetChildCount(); ++child) {
                    b2AABB box;
                    shape.ComputeAABB(&box, transform, child);
                    const auto id = static_cast<std::uint32_t>(f->GetUserData().pointer) + static_cast<std::uint32_t>(child);
                    m_boxes.add(id, box.lowerBound.x, box.lowerBound.y, box.upperBound.x, box.upperBound.y, isStatic);
                }
            }
        }
        out.frame(m_boxes.view());
    }

    /// The scene's warm-up, then its frames, each step written.
    void run(int warmupSteps, int frames, TraceWriter& out, auto&& eachStep) {
        for (int i = 0; i < warmupSteps; ++i) {
            eachStep();
            step();
        }
        for (int i = 0; i < frames; ++i) {
            eachStep();
            step();
            write(out);
        }
    }
    void run(int warmupSteps, int frames, TraceWriter& out) {
        run(warmupSteps, frames, out, [] {});
    }

private:
    std::unique_ptr<b2World> m_world;  // on the heap: b2World is large
    std::uintptr_t m_nextId = 0;
    FrameBoxes m_boxes;
};

/// A uniform number in [lo, hi) from a generator whose sequence is the same on every platform
/// (std's distributions are not).
float uniform(std::minstd_rand& rng, float lo, float hi) {
    const double unit = static_cast<double>(rng() - std::minstd_rand::min()) /
                        static_cast<double>(std::minstd_rand::max() - std::minstd_rand::min() + 1.0);
    return lo + static_cast<float>(unit) * (hi - lo);
}

/// A pyramid of `base` boxes at its foot, standing on y = `floor` centred on x.
void pyramid(Box2dWorld& w, int base, float x, float floor, float extent) {
    for (int row = 0; row < base; ++row) {
        const int count = base - row;
        for (int i = 0; i < count; ++i) {
            const float bx = x + (static_cast<float>(i) - 0.5f * static_cast<float>(count - 1)) * 2.0f * extent;
            const float by = floor + (2.0f * static_cast<float>(row) + 1.0f) * extent;
            w.box(b2_dynamicBody, {bx, by}, extent, extent);
        }
    }
}

constexpr int kPyramidWarmup = 120;  // placed touching: they settle, then sleep after half a second at rest

void largePyramid(const RecordOptions& o, TraceWriter& out) {
    Box2dWorld w;
    const int base = scaled(100, std::sqrt(o.scale), 2);  // 100: 5,050 boxes
    w.box(b2_staticBody, {0.0f, -1.0f}, static_cast<float>(base) + 10.0f, 1.0f);
    pyramid(w, base, 0.0f, 0.0f, 0.5f);
    w.run(kPyramidWarmup, o.frames, out);
}

void manyPyramids(const RecordOptions& o, TraceWriter& out) {
    Box2dWorld w;
    const int side = scaled(20, std::sqrt(o.scale), 1);  // 20 x 20 pyramids of 55 boxes: 22,000
    constexpr int kBase = 10;
    constexpr float kExtent = 0.5f, kSpacing = 2.0f * kExtent * kBase + 2.0f;
    for (int row = 0; row < side; ++row) {
        const float floor = static_cast<float>(row) * (kSpacing + 1.0f);
        const float width = static_cast<float>(side) * kSpacing;
        w.box(b2_staticBody, {0.5f * width, floor - 0.5f}, 0.5f * width + 1.0f, 0.5f);
        for (int column = 0; column < side; ++column)
            pyramid(w, kBase, (static_cast<float>(column) + 0.5f) * kSpacing, floor, kExtent);
    }
    w.run(kPyramidWarmup, o.frames, out);
}

void tumbler(const RecordOptions& o, TraceWriter& out) {
    Box2dWorld w;
    // The drum: a kinematic body turning at a set rate, four walls round a 20 x 20 hollow.
    b2Body* drum = w.body(b2_kinematicBody, {0.0f, 10.0f});
    for (const auto& [cx, cy, hx, hy] : {std::array{10.0f, 0.0f, 0.5f, 10.5f}, std::array{-10.0f, 0.0f, 0.5f, 10.5f},
                                        std::array{0.0f, 10.0f, 10.5f, 0.5f}, std::array{0.0f, -10.0f, 10.5f, 0.5f}}) {
        b2PolygonShape wall;
        wall.SetAsBox(hx, hy, {cx, cy}, 0.0f);
        w.fixture(drum, wall, 50.0f);
    }
    drum->SetAngularVelocity(0.25f * std::numbers::pi_v<float>);
    const int count = scaled(2000, o.scale, 1);
    const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count))));
    const float spacing = std::min(0.4f, 18.0f / static_cast<float>(side));
    for (int i = 0; i < count; ++i) {
        const float x = -9.0f + (static_cast<float>(i % side) + 0.5f) * spacing;
        const float y = 1.0f + (static_cast<float>(i / side) + 0.5f) * spacing;
        w.box(b2_dynamicBody, {x, y}, 0.4f * spacing, 0.4f * spacing);
    }
    w.run(60, o.frames, out);
}

void rain(const RecordOptions& o, TraceWriter& out) {
    Box2dWorld w;
    std::minstd_rand rng(44);
    // Pegs: staggered rows of static circles the drops fall through.
    for (int row = 0; row < 10; ++row)
        for (int i = 0; i < 20; ++i)
            w.circle(b2_staticBody, {-30.0f + 3.0f * static_cast<float>(i) + (row % 2 == 0 ? 0.0f : 1.5f),
                                     8.0f + 4.0f * static_cast<float>(row)},
                     0.6f);
    // Each step some drops are born at the top, and those that fell out below are destroyed:
    // about 1,600 alive at scale 1, and ids come and go every step.
    const int perStep = scaled(4, o.scale, 1);
    std::vector<b2Body*> drops;
    const auto eachStep = [&] {
        for (std::size_t i = 0; i < drops.size();) {
            if (drops[i]->GetPosition().y < -5.0f) {
                w.world().DestroyBody(drops[i]);
                drops[i] = drops.back();
                drops.pop_back();
            } else {
                ++i;
            }
        }
        for (int k = 0; k < perStep; ++k) {
            const b2Vec2 at{uniform(rng, -30.0f, 30.0f), uniform(rng, 50.0f, 54.0f)};
            const float size = uniform(rng, 0.2f, 0.5f);
            drops.push_back(k % 2 == 0 ? w.circle(b2_dynamicBody, at, size)
                                       : w.box(b2_dynamicBody, at, size, size, 1.0f, uniform(rng, 0.0f, 3.0f)));
        }
    };
    w.run(360, o.frames, out, eachStep);
}

void spinner(const RecordOptions& o, TraceWriter& out) {
    Box2dWorld w;
    // A round static container of 72 wall boxes, radius 40, and a blade driven by a motor.
    constexpr float kRadius = 40.0f;
    constexpr int kWalls = 72;
    b2Body* ground = w.body(b2_staticBody, {0.0f, 0.0f});
    for (int i = 0; i < kWalls; ++i) {
        const float angle = 2.0f * std::numbers::pi_v<float> * static_cast<float>(i) / kWalls;
        b2PolygonShape wall;
        wall.SetAsBox(0.5f, kRadius * std::numbers::pi_v<float> / kWalls + 0.2f,
                      {(kRadius + 0.5f) * std::cos(angle), (kRadius + 0.5f) * std::sin(angle)}, angle);
        w.fixture(ground, wall);
    }
    b2Body* blade = w.box(b2_dynamicBody, {0.0f, 0.0f}, 0.4f, kRadius - 2.0f, 1.0f);
    b2RevoluteJointDef motor;
    motor.Initialize(ground, blade, {0.0f, 0.0f});
    motor.enableMotor = true;
    motor.motorSpeed = 0.5f;  // the tip at 19 m/s: faster flings bodies through walls
    motor.maxMotorTorque = 1.0e6f;
    w.world().CreateJoint(&motor);
    // The bodies stirred: small circles and boxes on a grid inside the container.
    const int count = scaled(8000, o.scale, 1);
    constexpr float kSpacing = 0.6f;
    int made = 0;
    for (float y = -kRadius + 1.0f; y < kRadius - 1.0f && made < count; y += kSpacing)
        for (float x = -kRadius + 1.0f; x < kRadius - 1.0f && made < count; x += kSpacing) {
            if (x * x + y * y > (kRadius - 1.5f) * (kRadius - 1.5f) || std::abs(x) < 0.8f) continue;
            if (made % 2 == 0)
                w.circle(b2_dynamicBody, {x, y}, 0.25f);
            else
                w.box(b2_dynamicBody, {x, y}, 0.22f, 0.22f);
            ++made;
        }
    w.run(60, o.frames, out);
}

void smash(const RecordOptions& o, TraceWriter& out) {
    Box2dWorld w({0.0f, 0.0f});
    // A wall of small boxes at rest without gravity, and a heavy box flying into it: the
    // frames start before the impact, so no warm-up.
    const int columns = scaled(120, std::sqrt(o.scale), 1), rows = scaled(80, std::sqrt(o.scale), 1);
    constexpr float kExtent = 0.2f;
    for (int i = 0; i < columns; ++i)
        for (int j = 0; j < rows; ++j)
            w.box(b2_dynamicBody,
                  {2.0f * kExtent * static_cast<float>(i),
                   2.0f * kExtent * (static_cast<float>(j) - 0.5f * static_cast<float>(rows))},
                  kExtent, kExtent);
    b2Body* smasher = w.box(b2_dynamicBody, {-20.0f, 0.0f}, 4.0f, 4.0f, 8.0f);
    smasher->SetBullet(true);
    smasher->SetLinearVelocity({40.0f, 0.0f});
    w.run(0, o.frames, out);
}

void junkyard(const RecordOptions& o, TraceWriter& out) {
    Box2dWorld w;
    std::minstd_rand rng(7);
    // A yard: floor, walls and two static ramps; junk of every shape and size from 0.2 to 3
    // dropped in.
    w.box(b2_staticBody, {0.0f, -1.0f}, 52.0f, 1.0f);
    w.box(b2_staticBody, {-51.0f, 40.0f}, 1.0f, 40.0f);
    w.box(b2_staticBody, {51.0f, 40.0f}, 1.0f, 40.0f);
    w.box(b2_staticBody, {-25.0f, 12.0f}, 12.0f, 0.5f, 1.0f, -0.3f);
    w.box(b2_staticBody, {25.0f, 12.0f}, 12.0f, 0.5f, 1.0f, 0.3f);
    const int count = scaled(3000, o.scale, 1);
    const int side = 32;
    for (int i = 0; i < count; ++i) {
        const b2Vec2 at{-48.0f + 3.0f * static_cast<float>(i % side) + uniform(rng, 0.0f, 0.5f),
                        20.0f + 3.2f * static_cast<float>(i / side)};
        // Mostly small, a few large.
        const float size = i % 10 == 0 ? uniform(rng, 1.0f, 1.4f) : uniform(rng, 0.2f, 0.8f);
        switch (i % 4) {
        case 0: w.circle(b2_dynamicBody, at, size); break;
        case 1: w.box(b2_dynamicBody, at, size, 0.5f * size, 1.0f, uniform(rng, 0.0f, 3.0f)); break;
        case 2: {
            b2Body* b = w.body(b2_dynamicBody, at, uniform(rng, 0.0f, 3.0f));
            const b2Vec2 triangle[3] = {{-size, -size}, {size, -size}, {0.0f, size}};
            b2PolygonShape shape;
            shape.Set(triangle, 3);
            w.fixture(b, shape);
            break;
        }
        default: {
            // A long plank, up to 3 long.
            w.box(b2_dynamicBody, at, 2.0f * size + 0.5f, 0.15f, 1.0f, uniform(rng, 0.0f, 3.0f));
            break;
        }
        }
    }
    w.run(120, o.frames, out);
}

const SceneInfo kScenes[] = {
    {"box2d", "large_pyramid", "one pyramid of 5,050 boxes (base 100), settled (in 2.4 it still creeps a little)", kPyramidWarmup, &largePyramid},
    {"box2d", "many_pyramids", "400 pyramids of 55 boxes (22,000), settled, each row of them on its own ground",
     kPyramidWarmup, &manyPyramids},
    {"box2d", "tumbler", "2,000 boxes in a kinematic drum turning at 45 degrees a second", 60, &tumbler},
    {"box2d", "rain", "drops (circles and boxes) born at the top each step and destroyed below, through 200 "
                      "static pegs: about 1,600 alive, churn every step",
     360, &rain},
    {"box2d", "spinner", "8,000 circles and boxes stirred by a motor-driven blade in a round static container",
     60, &spinner},
    {"box2d", "smash", "a heavy fast box into a wall of 9,600 small boxes, no gravity, from before the impact", 0,
     &smash},
    {"box2d", "junkyard", "3,000 circles, boxes, triangles and planks of sides 0.2 to 3 dropped into a yard "
                          "with ramps",
     120, &junkyard},
};

}  // namespace

std::span<const SceneInfo> box2dScenes() { return kScenes; }

}  // namespace ro::record

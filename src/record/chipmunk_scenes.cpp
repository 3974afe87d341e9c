// Chipmunk 7 scenes: a cpSpace stepped, each step writing every shape's box (cpShapeGetBB,
// which the step updates); the shapes of the space's static body are static.
#include <chipmunk/chipmunk.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "record/record.h"

namespace ro::record {
namespace {

class ChipmunkSpace {
public:
    ChipmunkSpace() : m_space(cpSpaceNew()) { cpSpaceSetGravity(m_space, cpv(0, -10)); }
    ~ChipmunkSpace() {
        for (Body& b : m_bodies) free(b);
        for (cpShape* s : m_statics) {
            cpSpaceRemoveShape(m_space, s);
            cpShapeFree(s);
        }
        cpSpaceFree(m_space);
    }
    ChipmunkSpace(const ChipmunkSpace&) = delete;
    ChipmunkSpace& operator=(const ChipmunkSpace&) = delete;

    void staticBox(cpFloat x, cpFloat y, cpFloat hx, cpFloat hy) {
        cpShape* shape = cpBoxShapeNew2(cpSpaceGetStaticBody(m_space), cpBBNew(x - hx, y - hy, x + hx, y + hy), 0);
        cpShapeSetFriction(shape, 0.7);
        tag(shape);
        m_statics.push_back(cpSpaceAddShape(m_space, shape));
    }

    void box(cpFloat x, cpFloat y, cpFloat half) {
        cpBody* body = cpSpaceAddBody(m_space, cpBodyNew(1, cpMomentForBox(1, 2 * half, 2 * half)));
        cpBodySetPosition(body, cpv(x, y));
        cpShape* shape = cpSpaceAddShape(m_space, cpBoxShapeNew(body, 2 * half, 2 * half, 0));
        cpShapeSetFriction(shape, 0.7);
        tag(shape);
        m_bodies.push_back({body, shape});
    }

    void circle(cpFloat x, cpFloat y, cpFloat radius) {
        cpBody* body = cpSpaceAddBody(m_space, cpBodyNew(1, cpMomentForCircle(1, 0, radius, cpvzero)));
        cpBodySetPosition(body, cpv(x, y));
        cpShape* shape = cpSpaceAddShape(m_space, cpCircleShapeNew(body, radius, cpvzero));
        cpShapeSetFriction(shape, 0.7);
        tag(shape);
        m_bodies.push_back({body, shape});
    }

    /// Removes and frees the bodies below y.
    void removeBelow(cpFloat y) {
        for (std::size_t i = 0; i < m_bodies.size();) {
            if (cpBodyGetPosition(m_bodies[i].body).y < y) {
                free(m_bodies[i]);
                m_bodies[i] = m_bodies.back();
                m_bodies.pop_back();
            } else {
                ++i;
            }
        }
    }

    void write(TraceWriter& out) {
        m_boxes.clear();
        for (const cpShape* s : m_statics) add(s, true);
        for (const Body& b : m_bodies) add(b.shape, false);
        out.frame(m_boxes.view());
    }

    void run(int warmupSteps, int frames, TraceWriter& out, auto&& eachStep) {
        for (int i = 0; i < warmupSteps + frames; ++i) {
            eachStep();
            cpSpaceStep(m_space, 1.0 / 60.0);
            if (i >= warmupSteps) write(out);
        }
    }

private:
    struct Body {
        cpBody* body;
        cpShape* shape;
    };

    void tag(cpShape* shape) {
        cpShapeSetUserData(shape, reinterpret_cast<cpDataPointer>(static_cast<std::uintptr_t>(m_nextId++)));
    }

    void add(const cpShape* shape, bool isStatic) {
        const cpBB bb = cpShapeGetBB(shape);
        m_boxes.add(static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(cpShapeGetUserData(shape))),
                    static_cast<float>(bb.l), static_cast<float>(bb.b), static_cast<float>(bb.r),
                    static_cast<float>(bb.t), isStatic);
    }

    void free(const Body& b) {
        cpSpaceRemoveShape(m_space, b.shape);
        cpSpaceRemoveBody(m_space, b.body);
        cpShapeFree(b.shape);
        cpBodyFree(b.body);
    }

    cpSpace* m_space;
    std::vector<Body> m_bodies;
    std::vector<cpShape*> m_statics;
    std::uint32_t m_nextId = 0;
    FrameBoxes m_boxes;
};

void pyramid(const RecordOptions& o, TraceWriter& out) {
    ChipmunkSpace space;
    const int base = scaled(30, std::sqrt(o.scale), 2);  // 465 boxes
    space.staticBox(0, -1, base + 5, 1);
    for (int row = 0; row < base; ++row)
        for (int i = 0; i < base - row; ++i) space.box(i - 0.5 * (base - row - 1), 0.5 + row, 0.5);
    space.run(60, o.frames, out, [] {});
}

void rain(const RecordOptions& o, TraceWriter& out) {
    ChipmunkSpace space;
    std::minstd_rand rng(44);
    const auto uniform = [&](double lo, double hi) {
        return lo + (hi - lo) * static_cast<double>(rng() - 1) / static_cast<double>(std::minstd_rand::max());
    };
    for (int i = 0; i < 12; ++i) space.staticBox(-22.0 + 4.0 * i, 10.0 + (i % 3) * 6.0, 1.0, 0.3);
    const int perStep = scaled(2, o.scale, 1);
    int born = 0;
    const auto eachStep = [&] {
        space.removeBelow(-5);
        for (int k = 0; k < perStep; ++k, ++born) {
            const double x = uniform(-25, 25), y = uniform(30, 34), size = uniform(0.2, 0.5);
            if (born % 2 == 0)
                space.circle(x, y, size);
            else
                space.box(x, y, size);
        }
    };
    space.run(240, o.frames, out, eachStep);
}

const SceneInfo kScenes[] = {
    {"chipmunk", "pyramid", "a pyramid of 465 boxes (base 30) resting on a static floor", 60, &pyramid},
    {"chipmunk", "rain", "circles and boxes born at the top each step and removed below, through 12 static "
                         "ledges",
     240, &rain},
};

}  // namespace

std::span<const SceneInfo> chipmunkScenes() { return kScenes; }

}  // namespace ro::record

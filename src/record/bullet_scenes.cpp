// Bullet scenes: a btDiscreteDynamicsWorld over its default broad phase (btDbvtBroadphase),
// 3D boxes kept to the x-y plane (linear factor 0 on z, turning about z only), so that each
// collision object's box in x and y is a 2D scene's. Each step writes every collision
// object's box from its shape's getAabb at its world transform; mass 0 objects are static.
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "record/record.h"

namespace ro::record {
namespace {

class BulletWorld {
public:
    BulletWorld()
        : m_dispatcher(&m_configuration),
          m_world(&m_dispatcher, &m_broadphase, &m_solver, &m_configuration) {
        m_world.setGravity({0, -10, 0});
    }
    ~BulletWorld() {
        for (int i = m_world.getNumCollisionObjects() - 1; i >= 0; --i) remove(m_world.getCollisionObjectArray()[i]);
    }
    BulletWorld(const BulletWorld&) = delete;
    BulletWorld& operator=(const BulletWorld&) = delete;

    /// A box of half sides hx, hy (and 0.5 deep) at (x, y); mass 0 makes it static.
    btRigidBody* box(float x, float y, float hx, float hy, float mass) {
        auto* shape = new btBoxShape(btVector3(hx, hy, 0.5f));
        btVector3 inertia(0, 0, 0);
        if (mass > 0) shape->calculateLocalInertia(mass, inertia);
        btTransform at;
        at.setIdentity();
        at.setOrigin({x, y, 0});
        auto* state = new btDefaultMotionState(at);
        auto* body = new btRigidBody(btRigidBody::btRigidBodyConstructionInfo(mass, state, shape, inertia));
        if (mass > 0) {
            body->setLinearFactor({1, 1, 0});
            body->setAngularFactor({0, 0, 1});
        }
        body->setUserIndex(m_nextId++);
        m_world.addRigidBody(body);
        return body;
    }

    void remove(btCollisionObject* object) {
        auto* body = btRigidBody::upcast(object);
        if (body && body->getMotionState()) delete body->getMotionState();
        m_world.removeCollisionObject(object);
        delete object->getCollisionShape();
        delete object;
    }

    btDiscreteDynamicsWorld& world() { return m_world; }

    void write(TraceWriter& out) {
        m_boxes.clear();
        const btCollisionObjectArray& objects = m_world.getCollisionObjectArray();
        for (int i = 0; i < objects.size(); ++i) {
            const btCollisionObject* object = objects[i];
            btVector3 lo, hi;
            object->getCollisionShape()->getAabb(object->getWorldTransform(), lo, hi);
            m_boxes.add(static_cast<std::uint32_t>(object->getUserIndex()), static_cast<float>(lo.x()),
                        static_cast<float>(lo.y()), static_cast<float>(hi.x()), static_cast<float>(hi.y()),
                        object->isStaticObject());
        }
        out.frame(m_boxes.view());
    }

    void run(int warmupSteps, int frames, TraceWriter& out, auto&& eachStep) {
        for (int i = 0; i < warmupSteps + frames; ++i) {
            eachStep();
            m_world.stepSimulation(1.0f / 60.0f, 0);
            if (i >= warmupSteps) write(out);
        }
    }

private:
    btDefaultCollisionConfiguration m_configuration;
    btCollisionDispatcher m_dispatcher;
    btDbvtBroadphase m_broadphase;
    btSequentialImpulseConstraintSolver m_solver;
    btDiscreteDynamicsWorld m_world;
    int m_nextId = 0;
    FrameBoxes m_boxes;
};

void pyramid(const RecordOptions& o, TraceWriter& out) {
    BulletWorld w;
    const int base = scaled(30, std::sqrt(o.scale), 2);  // 465 boxes
    w.box(0, -1, static_cast<float>(base) + 5, 1, 0);
    for (int row = 0; row < base; ++row)
        for (int i = 0; i < base - row; ++i)
            w.box(static_cast<float>(i) - 0.5f * static_cast<float>(base - row - 1), 0.5f + static_cast<float>(row),
                  0.5f, 0.5f, 1);
    w.run(60, o.frames, out, [] {});
}

void rain(const RecordOptions& o, TraceWriter& out) {
    BulletWorld w;
    std::minstd_rand rng(44);
    const auto uniform = [&](float lo, float hi) {
        return lo + (hi - lo) * static_cast<float>(rng() - 1) / static_cast<float>(std::minstd_rand::max());
    };
    for (int i = 0; i < 12; ++i) w.box(-22.0f + 4.0f * static_cast<float>(i), 10.0f + static_cast<float>(i % 3) * 6.0f,
                                       1.0f, 0.3f, 0);
    const int perStep = scaled(2, o.scale, 1);
    std::vector<btRigidBody*> drops;
    const auto eachStep = [&] {
        for (std::size_t i = 0; i < drops.size();) {
            if (drops[i]->getWorldTransform().getOrigin().y() < -5) {
                w.remove(drops[i]);
                drops[i] = drops.back();
                drops.pop_back();
            } else {
                ++i;
            }
        }
        for (int k = 0; k < perStep; ++k) {
            const float size = uniform(0.2f, 0.5f);
            drops.push_back(w.box(uniform(-25, 25), uniform(30, 34), size, size, 1));
        }
    };
    w.run(240, o.frames, out, eachStep);
}

const SceneInfo kScenes[] = {
    {"bullet", "pyramid", "a pyramid of 465 boxes (base 30) resting on a static floor", 60, &pyramid},
    {"bullet", "rain", "boxes born at the top each step and removed below, through 12 static ledges", 240, &rain},
};

}  // namespace

std::span<const SceneInfo> bulletScenes() { return kScenes; }

}  // namespace ro::record

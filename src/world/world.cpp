#include "world/world.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "broadphase/registry.h"
#include "core/alloc_counter.h"

namespace ro {
namespace {

constexpr std::uint32_t kNoIndex = std::numeric_limits<std::uint32_t>::max();

using Clock = std::chrono::steady_clock;
double msBetween(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

bool isFinite(Vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); }


/// Direction and depth of a contact; depth < 0 means no contact.
struct Contact {
    float nx = 1.0f;
    float ny = 0.0f;
    float depth = -1.0f;
};

Contact boxBox(float ax, float ay, float ahw, float ahh, float bx, float by, float bhw, float bhh) {
    const float dx = bx - ax;
    const float dy = by - ay;
    const float px = ahw + bhw - std::abs(dx);
    const float py = ahh + bhh - std::abs(dy);
    if (px < 0.0f || py < 0.0f) return {};
    // Push out along the axis of least penetration; a tie or zero offset resolves the same way always.
    if (px < py) return {dx < 0.0f ? -1.0f : 1.0f, 0.0f, px};
    return {0.0f, dy < 0.0f ? -1.0f : 1.0f, py};
}

Contact circleCircle(float ax, float ay, float ar, float bx, float by, float br) {
    const float dx = bx - ax;
    const float dy = by - ay;
    const float reach = ar + br;
    const float dist2 = dx * dx + dy * dy;
    if (dist2 > reach * reach) return {};
    const float dist = std::sqrt(dist2);
    if (dist == 0.0f) return {1.0f, 0.0f, reach};
    return {dx / dist, dy / dist, reach - dist};
}

/// Box a against circle b; the normal points from a to b.
Contact boxCircle(float ax, float ay, float ahw, float ahh, float bx, float by, float br) {
    const float qx = std::clamp(bx, ax - ahw, ax + ahw);
    const float qy = std::clamp(by, ay - ahh, ay + ahh);
    const float dx = bx - qx;
    const float dy = by - qy;
    const float dist2 = dx * dx + dy * dy;
    if (dist2 == 0.0f) return boxBox(ax, ay, ahw, ahh, bx, by, br, br);  // centre inside the box
    if (dist2 > br * br) return {};
    const float dist = std::sqrt(dist2);
    return {dx / dist, dy / dist, br - dist};
}

}  // namespace

World::World(const WorldConfig& config) {
    setConfig(config);
    m_settings.gridBounds = config.bounds;
    setBroadPhase(techniques().front().create());
}

void World::setConfig(const WorldConfig& config) {
    if (!config.bounds.hasFiniteArea()) throw std::invalid_argument("world bounds must be finite with max > min");
    if (!std::isfinite(config.tickHz) || !(config.tickHz > 0.0f))
        throw std::invalid_argument("tick rate must be finite and positive");
    if (!std::isfinite(config.speed) || config.speed < 0.0f)
        throw std::invalid_argument("speed must be finite and not negative");
    if (config.subSteps < 1 || config.maxCatchUpTicks < 1)
        throw std::invalid_argument("sub-steps and catch-up ticks must be at least 1");
    if (!std::isfinite(config.gravityAccel)) throw std::invalid_argument("gravity must be finite");
    m_config = config;
}

EntityId World::add(const EntityDesc& d) {
    if (!isFinite(d.position) || !isFinite(d.velocity) || !isFinite(d.acceleration))
        throw std::invalid_argument("entity position, velocity and acceleration must be finite");
    if (!isFinite(d.halfExtents) || !(d.halfExtents.x > 0.0f) || !(d.halfExtents.y > 0.0f))
        throw std::invalid_argument("entity size must be finite and positive");
    if (m_nextId == kNoIndex) throw std::length_error("entity ids exhausted");

    const EntityId id = m_nextId++;
    m_indexOfId.push_back(size());
    m_ids.push_back(id);
    m_posX.push_back(d.position.x);
    m_posY.push_back(d.position.y);
    m_prevX.push_back(d.position.x - d.velocity.x);
    m_prevY.push_back(d.position.y - d.velocity.y);
    m_accX.push_back(d.acceleration.x);
    m_accY.push_back(d.acceleration.y);
    const float hw = d.halfExtents.x;
    const float hh = d.shape == Shape::Circle ? d.halfExtents.x : d.halfExtents.y;
    m_halfW.push_back(hw);
    m_halfH.push_back(hh);
    m_shape.push_back(d.shape);
    m_overlapping.push_back(0);
    m_minX.push_back(d.position.x - hw);
    m_minY.push_back(d.position.y - hh);
    m_maxX.push_back(d.position.x + hw);
    m_maxY.push_back(d.position.y + hh);
    return id;
}

bool World::remove(EntityId id) {
    const auto found = indexOf(id);
    if (!found) return false;
    const std::uint32_t i = *found;
    const std::uint32_t last = size() - 1;
    // Swap-remove keeps the arrays dense; the last entity takes the hole and its id is re-pointed.
    auto moveLast = [&](auto& v) {
        v[i] = v[last];
        v.pop_back();
    };
    m_indexOfId[m_ids[last]] = i;
    m_indexOfId[id] = kNoIndex;
    moveLast(m_ids);
    moveLast(m_posX), moveLast(m_posY), moveLast(m_prevX), moveLast(m_prevY);
    moveLast(m_accX), moveLast(m_accY), moveLast(m_halfW), moveLast(m_halfH);
    moveLast(m_minX), moveLast(m_minY), moveLast(m_maxX), moveLast(m_maxY);
    moveLast(m_shape), moveLast(m_overlapping);
    // Pairs of the last tick name dense indices that may now be stale.
    m_candidates.clear();
    m_overlaps.clear();
    return true;
}

bool World::contains(EntityId id) const { return indexOf(id).has_value(); }

std::optional<std::uint32_t> World::indexOf(EntityId id) const {
    if (id >= m_indexOfId.size() || m_indexOfId[id] == kNoIndex) return std::nullopt;
    return m_indexOfId[id];
}

std::optional<EntityId> World::entityAt(Vec2 p) const {
    // Later entities are drawn on top, so search from the back.
    for (std::uint32_t i = size(); i-- > 0;) {
        const float dx = p.x - m_posX[i];
        const float dy = p.y - m_posY[i];
        const bool inside = m_shape[i] == Shape::Circle
                                ? dx * dx + dy * dy <= m_halfW[i] * m_halfW[i]
                                : std::abs(dx) <= m_halfW[i] && std::abs(dy) <= m_halfH[i];
        if (inside) return m_ids[i];
    }
    return std::nullopt;
}

BoxView World::boxes() const {
    return {m_minX.data(), m_minY.data(), m_maxX.data(), m_maxY.data(), m_ids.data(), size()};
}

float World::largestHalfExtent() const {
    float largest = 0.0f;
    for (std::uint32_t i = 0; i < size(); ++i) largest = std::max({largest, m_halfW[i], m_halfH[i]});
    return largest;
}

void World::setBroadPhase(std::unique_ptr<BroadPhase> technique) {
    if (!technique) throw std::invalid_argument("broad phase must not be null");
    m_broadPhase = std::move(technique);
    m_broadPhase->configure(m_settings);
}

void World::setBroadPhaseSettings(const Settings& settings) {
    checkSettings(settings, /*needsBounds=*/true);  // the world always hands its technique bounds
    m_settings = settings;
    m_broadPhase->configure(m_settings);
}

void World::refreshPairs() {
    m_broadPhase->update(boxes());
    m_broadPhase->findPairs(m_candidates);
    m_stats.broadPhase = m_broadPhase->counters();
    findOverlaps();
}


int World::advance(double realSeconds) {
    if (!std::isfinite(realSeconds) || realSeconds <= 0.0) return 0;
    const double dt = 1.0 / m_config.tickHz;
    m_accumulator += realSeconds * m_config.speed;
    int ticks = 0;
    while (m_accumulator >= dt && ticks < m_config.maxCatchUpTicks) {
        tick();
        m_accumulator -= dt;
        ++ticks;
    }
    // Past the cap we drop time rather than spiral: the simulation slows, it never jumps.
    if (m_accumulator >= dt) m_accumulator = std::fmod(m_accumulator, dt);
    return ticks;
}

void World::tick() {
    m_stats = {};
    const int subSteps = std::max(1, m_config.subSteps);
    const float dt = 1.0f / (m_config.tickHz * static_cast<float>(subSteps));
    for (int s = 0; s < subSteps; ++s) subStep(dt);
    ++m_ticks;
}

void World::subStep(float dt) {
    const auto t0 = Clock::now();
    accelerate(dt);
    updateAabbs();
    const auto t1 = Clock::now();

    const std::uint64_t allocsBefore = heapAllocationCount();
    m_broadPhase->update(boxes());
    const auto t2 = Clock::now();
    m_broadPhase->findPairs(m_candidates);
    m_broadPhase->setHeapAllocations(heapAllocationCount() - allocsBefore);
    m_stats.broadPhase = m_broadPhase->counters();
    findOverlaps();
    const auto t3 = Clock::now();

    resolveContacts();
    const auto t4 = Clock::now();
    applyInertiaAndWalls();
    updateAabbs();
    const auto t5 = Clock::now();

    m_stats.msIntegrate += msBetween(t0, t1) + msBetween(t4, t5);
    m_stats.msBroadUpdate += msBetween(t1, t2);
    m_stats.msPairFind += msBetween(t2, t3);
    m_stats.msNarrow += msBetween(t3, t4);
}

void World::accelerate(float dt) {
    const float gravity = m_config.gravity ? m_config.gravityAccel : 0.0f;
    const float dt2 = dt * dt;
    for (std::uint32_t i = 0; i < size(); ++i) {
        m_posX[i] += m_accX[i] * dt2;
        m_posY[i] += (m_accY[i] + gravity) * dt2;
    }
}

void World::updateAabbs() {
    for (std::uint32_t i = 0; i < size(); ++i) {
        m_minX[i] = m_posX[i] - m_halfW[i];
        m_maxX[i] = m_posX[i] + m_halfW[i];
        m_minY[i] = m_posY[i] - m_halfH[i];
        m_maxY[i] = m_posY[i] + m_halfH[i];
    }
}

void World::findOverlaps() {
    m_overlaps.clear();
    std::fill(m_overlapping.begin(), m_overlapping.end(), std::uint8_t{0});
    const BoxView view = boxes();
    for (const Pair& p : m_candidates) {
        if (overlaps(view.box(p.a), view.box(p.b))) {
            m_overlaps.push_back(p);
            m_overlapping[p.a] = m_overlapping[p.b] = 1;
        }
    }
    // Resolution order must not depend on the technique, or the state would.
    sortPairsCanonical(m_overlaps, size(), m_sortScratch, m_sortOffsets);
    m_stats.candidates = m_candidates.size();
    m_stats.overlaps = m_overlaps.size();
}

void World::resolveContacts() {
    std::uint64_t contacts = 0;
    for (const Pair& p : m_overlaps) {
        const std::uint32_t a = p.a;
        const std::uint32_t b = p.b;
        const bool circleA = m_shape[a] == Shape::Circle;
        const bool circleB = m_shape[b] == Shape::Circle;
        Contact c;
        if (circleA && circleB) {
            c = circleCircle(m_posX[a], m_posY[a], m_halfW[a], m_posX[b], m_posY[b], m_halfW[b]);
        } else if (!circleA && !circleB) {
            c = boxBox(m_posX[a], m_posY[a], m_halfW[a], m_halfH[a], m_posX[b], m_posY[b], m_halfW[b], m_halfH[b]);
        } else if (!circleA) {
            c = boxCircle(m_posX[a], m_posY[a], m_halfW[a], m_halfH[a], m_posX[b], m_posY[b], m_halfW[b]);
        } else {
            c = boxCircle(m_posX[b], m_posY[b], m_halfW[b], m_halfH[b], m_posX[a], m_posY[a], m_halfW[a]);
            c.nx = -c.nx, c.ny = -c.ny;
        }
        if (c.depth < 0.0f) continue;
        ++contacts;
        // Verlet response: move positions apart, heavier (larger) entities less. The implicit
        // velocity changes with them, which is what makes entities bounce off each other.
        const float massA = m_halfW[a] * m_halfH[a];
        const float massB = m_halfW[b] * m_halfH[b];
        const float shareA = massB / (massA + massB);
        const float shareB = 1.0f - shareA;
        m_posX[a] -= c.nx * c.depth * shareA;
        m_posY[a] -= c.ny * c.depth * shareA;
        m_posX[b] += c.nx * c.depth * shareB;
        m_posY[b] += c.ny * c.depth * shareB;
    }
    m_stats.contacts = contacts;
}

void World::applyInertiaAndWalls() {
    const Aabb& w = m_config.bounds;
    // Reflects one axis: a box that crossed a wall is put back against it, moving away from it.
    auto bounce = [](float& pos, float& prev, float half, float lo, float hi) {
        const float v = pos - prev;
        if (2.0f * half >= hi - lo) {  // wider than the world: keep it centred and still
            pos = prev = 0.5f * (lo + hi);
        } else if (pos - half < lo) {
            pos = lo + half;
            prev = pos - std::abs(v);
        } else if (pos + half > hi) {
            pos = hi - half;
            prev = pos + std::abs(v);
        }
    };
    for (std::uint32_t i = 0; i < size(); ++i) {
        const float vx = m_posX[i] - m_prevX[i];
        const float vy = m_posY[i] - m_prevY[i];
        m_prevX[i] = m_posX[i];
        m_prevY[i] = m_posY[i];
        m_posX[i] += vx;
        m_posY[i] += vy;
        bounce(m_posX[i], m_prevX[i], m_halfW[i], w.minX, w.maxX);
        bounce(m_posY[i], m_prevY[i], m_halfH[i], w.minY, w.maxY);
    }
}

}  // namespace ro

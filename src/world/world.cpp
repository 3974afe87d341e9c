#include "ro/world.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "broadphase/swept_boxes.h"
#include "core/alloc_counter.h"
#include "core/box_helpers.h"
#include "core/buffers.h"
#include "core/id_map.h"
#include "core/pair_sort.h"
#include "ro/registry.h"

namespace ro {
namespace {

using Clock = std::chrono::steady_clock;
double msBetween(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

/// Unique across worlds, so that a world replaced by another (a scene loaded) never repeats one.
std::uint64_t nextBoxesVersion() {
    static std::atomic<std::uint64_t> last{0};
    return ++last;
}

/// Direction and depth of a contact; depth < 0 means no contact.
struct Contact {
    float nx = 1.0f;
    float ny = 0.0f;
    float depth = -1.0f;
};

Contact boxBox(float ax, float ay, float ahw, float ahh, float bx, float by, float bhw, float bhh) {
    // Whether they touch is decided on the edges, computed as updateAabb() computes them, so
    // that every pair of boxes the exact AABB test calls overlapping is a contact: the depth's
    // own rounding (hw + hw - |dx|) put 16 of 125,000 such pairs a hair apart at 1,000,000.
    if (bx - bhw > ax + ahw || ax - ahw > bx + bhw || by - bhh > ay + ahh || ay - ahh > by + bhh) return {};
    const float dx = bx - ax;
    const float dy = by - ay;
    const float px = std::max(ahw + bhw - std::abs(dx), 0.0f);
    const float py = std::max(ahh + bhh - std::abs(dy), 0.0f);
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

/// The narrow phase of one overlapping pair: box-box, circle-circle or box-circle, normal from a to b.
Contact contactOf(const World& w, std::uint32_t a, std::uint32_t b) {
    const auto x = w.posX(), y = w.posY(), hw = w.halfW(), hh = w.halfH();
    const bool circleA = w.shapes()[a] == Shape::Circle;
    const bool circleB = w.shapes()[b] == Shape::Circle;
    if (circleA && circleB) return circleCircle(x[a], y[a], hw[a], x[b], y[b], hw[b]);
    if (!circleA && !circleB) return boxBox(x[a], y[a], hw[a], hh[a], x[b], y[b], hw[b], hh[b]);
    if (!circleA) return boxCircle(x[a], y[a], hw[a], hh[a], x[b], y[b], hw[b]);
    Contact c = boxCircle(x[b], y[b], hw[b], hh[b], x[a], y[a], hw[a]);
    c.nx = -c.nx, c.ny = -c.ny;
    return c;
}

/// The contact of two shapes that just touch (at a time of impact): contactOf's, or when
/// rounding left them a hair apart, the normal they are about to meet along, at depth 0.
Contact touchingContact(const World& w, std::uint32_t a, std::uint32_t b) {
    Contact c = contactOf(w, a, b);
    if (c.depth >= 0.0f) return c;
    const auto x = w.posX(), y = w.posY(), hw = w.halfW(), hh = w.halfH();
    const float dx = x[b] - x[a];
    const float dy = y[b] - y[a];
    if (w.shapes()[a] == Shape::Circle && w.shapes()[b] == Shape::Circle) {
        const float length = std::hypot(dx, dy);
        return length > 0.0f ? Contact{dx / length, dy / length, 0.0f} : Contact{1.0f, 0.0f, 0.0f};
    }
    // Boxes (or a box and a circle's square): the axis with the least gap is the one closing.
    const float gapX = std::abs(dx) - hw[a] - hw[b];
    const float gapY = std::abs(dy) - hh[a] - hh[b];
    if (gapX > gapY) return {dx < 0.0f ? -1.0f : 1.0f, 0.0f, 0.0f};
    return {0.0f, dy < 0.0f ? -1.0f : 1.0f, 0.0f};
}

/// When |p + d t| first comes down to `reach`, for t in [0, 1] (0 if it is within now):
/// two circles whose centres are p apart, closing by d in a tick.
std::optional<float> circleEntry(float px, float py, float dx, float dy, float reach) {
    const float c = px * px + py * py - reach * reach;
    if (c <= 0.0f) return 0.0f;
    const float a = dx * dx + dy * dy;
    const float b = 2.0f * (px * dx + py * dy);
    if (a == 0.0f || b >= 0.0f) return std::nullopt;  // still, or moving apart
    const float discriminant = b * b - 4.0f * a * c;
    if (discriminant < 0.0f) return std::nullopt;
    const float t = (-b - std::sqrt(discriminant)) / (2.0f * a);
    if (t < 0.0f || t > 1.0f) return std::nullopt;
    return t;
}

}  // namespace

struct World::Internals {
    IdMap indexOfId;   ///< id -> dense index of the live entities
    SweptBoxes swept;  ///< with sweptBoxes or countMissed
};

World::World(const WorldConfig& config) : m_internals(std::make_unique<Internals>()) {
    setConfig(config);
    m_settings.bounds = config.bounds;
    setBroadPhase(techniques().front().create());
}

World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;
World::~World() = default;

namespace {

/// Throws unless `v` lies in [lo, hi] (a NaN never does), naming the setting and the range.
void checkRange(double v, double lo, double hi, const char* what) {
    if (v >= lo && v <= hi) return;
    // The value with the digits that tell it apart as a float: 10000001 as %g reads "1e+07",
    // as if it were the bound itself.
    char value[32];
    for (int digits = 6; digits <= 9; ++digits) {
        std::snprintf(value, sizeof value, "%.*g", digits, v);
        if (static_cast<float>(std::strtod(value, nullptr)) == static_cast<float>(v)) break;
    }
    char message[192];
    std::snprintf(message, sizeof message, "%s must be between %g and %g, got %s", what, lo, hi, value);
    throw std::invalid_argument(message);
}

}  // namespace

void World::setConfig(const WorldConfig& config) {
    using L = WorldLimits;
    const Aabb& b = config.bounds;
    for (const float v : {b.minX, b.minY, b.maxX, b.maxY})
        checkRange(v, -L::kMaxCoordinate, L::kMaxCoordinate, "world bounds");
    if (!(b.maxX > b.minX && b.maxY > b.minY)) throw std::invalid_argument("world bounds must have max > min");
    checkRange(config.tickHz, L::kMinTickHz, L::kMaxTickHz, "tick rate (Hz)");
    checkRange(config.speed, 0.0, L::kMaxSpeed, "speed");
    checkRange(config.subSteps, 1, L::kMaxSubSteps, "sub-steps");
    checkRange(config.maxCatchUpTicks, 1, L::kMaxCatchUpTicks, "catch-up ticks");
    checkRange(config.gravityAccel, -L::kMaxAcceleration, L::kMaxAcceleration, "gravity");
    m_config = config;
}

void World::check(const EntityDesc& d) {
    using L = WorldLimits;
    checkRange(d.position.x, -L::kMaxCoordinate, L::kMaxCoordinate, "entity position x");
    checkRange(d.position.y, -L::kMaxCoordinate, L::kMaxCoordinate, "entity position y");
    checkRange(d.velocity.x, -L::kMaxSpeedPerTick, L::kMaxSpeedPerTick, "entity velocity x (per tick)");
    checkRange(d.velocity.y, -L::kMaxSpeedPerTick, L::kMaxSpeedPerTick, "entity velocity y (per tick)");
    checkRange(d.acceleration.x, -L::kMaxAcceleration, L::kMaxAcceleration, "entity acceleration x");
    checkRange(d.acceleration.y, -L::kMaxAcceleration, L::kMaxAcceleration, "entity acceleration y");
    checkRange(d.halfExtents.x, L::kMinHalfExtent, L::kMaxHalfExtent, "entity half-extent x");
    if (d.shape == Shape::Box) checkRange(d.halfExtents.y, L::kMinHalfExtent, L::kMaxHalfExtent, "entity half-extent y");
    const Vec2 previous = d.previous.value_or(Vec2{d.position.x - d.velocity.x, d.position.y - d.velocity.y});
    if (d.previous) {
        checkRange(previous.x, -L::kMaxCoordinate, L::kMaxCoordinate, "entity previous position x");
        checkRange(previous.y, -L::kMaxCoordinate, L::kMaxCoordinate, "entity previous position y");
        checkRange(d.position.x - previous.x, -L::kMaxSpeedPerTick, L::kMaxSpeedPerTick, "entity velocity x (per tick)");
        checkRange(d.position.y - previous.y, -L::kMaxSpeedPerTick, L::kMaxSpeedPerTick, "entity velocity y (per tick)");
    }
    if (d.isStatic && (d.velocity.x != 0.0f || d.velocity.y != 0.0f || d.acceleration.x != 0.0f ||
                       d.acceleration.y != 0.0f || (d.previous && (d.previous->x != d.position.x || d.previous->y != d.position.y))))
        throw std::invalid_argument("a static entity has no velocity and no acceleration");
}

void World::addBatch(std::span<const EntityDesc> descs, std::vector<EntityId>* ids) {
    for (std::size_t k = 0; k < descs.size(); ++k) {
        try {
            check(descs[k]);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument("entity " + std::to_string(k) + " of the batch: " + e.what());
        }
    }
    if (descs.size() > IdMap::kAbsent - m_nextId) throw std::length_error("entity ids exhausted");
    for (const EntityDesc& d : descs) {
        const EntityId id = add(d);
        if (ids) ids->push_back(id);
    }
}

std::size_t World::removeBatch(std::span<const EntityId> ids) {
    std::size_t removed = 0;
    for (const EntityId id : ids) removed += remove(id) ? 1 : 0;
    return removed;
}

EntityId World::add(const EntityDesc& d) {
    check(d);
    if (m_nextId == IdMap::kAbsent) throw std::length_error("entity ids exhausted");
    const Vec2 previous = d.previous.value_or(Vec2{d.position.x - d.velocity.x, d.position.y - d.velocity.y});

    const EntityId id = m_nextId++;
    m_internals->indexOfId.set(id, size());
    m_ids.push_back(id);
    m_posX.push_back(d.position.x);
    m_posY.push_back(d.position.y);
    m_prevX.push_back(previous.x);
    m_prevY.push_back(previous.y);
    m_accX.push_back(d.acceleration.x);
    m_accY.push_back(d.acceleration.y);
    const float hw = d.halfExtents.x;
    const float hh = d.shape == Shape::Circle ? d.halfExtents.x : d.halfExtents.y;
    m_halfW.push_back(hw);
    m_halfH.push_back(hh);
    m_shape.push_back(d.shape);
    m_isStatic.push_back(d.isStatic ? 1 : 0);
    m_category.push_back(d.category);
    m_mask.push_back(d.mask);
    m_filteredCount += d.category != 1 || d.mask != ~0u ? 1 : 0;
    m_staticCount += d.isStatic ? 1 : 0;
    m_acceleratedCount += d.acceleration.x != 0.0f || d.acceleration.y != 0.0f ? 1 : 0;
    m_moversKnown = false;
    m_overlapping.push_back(0);
    m_minX.push_back(d.position.x - hw);
    m_minY.push_back(d.position.y - hh);
    m_maxX.push_back(d.position.x + hw);
    m_maxY.push_back(d.position.y + hh);
    m_boxesVersion = nextBoxesVersion();
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
    m_internals->indexOfId.set(m_ids[last], i);
    m_internals->indexOfId.erase(id);
    m_staticCount -= m_isStatic[i];
    m_filteredCount -= m_category[i] != 1 || m_mask[i] != ~0u ? 1 : 0;
    m_acceleratedCount -= m_accX[i] != 0.0f || m_accY[i] != 0.0f ? 1 : 0;
    m_moversKnown = false;
    moveLast(m_isStatic);
    moveLast(m_category);
    moveLast(m_mask);
    moveLast(m_ids);
    moveLast(m_posX), moveLast(m_posY), moveLast(m_prevX), moveLast(m_prevY);
    moveLast(m_accX), moveLast(m_accY), moveLast(m_halfW), moveLast(m_halfH);
    moveLast(m_minX), moveLast(m_minY), moveLast(m_maxX), moveLast(m_maxY);
    moveLast(m_shape), moveLast(m_overlapping);
    // Pairs of the last tick name dense indices that may now be stale.
    m_candidates.clear();
    m_overlaps.clear();
    m_boxesVersion = nextBoxesVersion();
    return true;
}

Entity World::entity(EntityId id) {
    Entity handle(*this, id);
    (void)handle.index();  // a clear error here, not at the first use
    return handle;
}

std::uint32_t Entity::index() const {
    const auto found = m_world->indexOf(m_id);
    if (!found) throw std::out_of_range("entity " + std::to_string(m_id) + " is not in the world (removed, or never added)");
    return *found;
}

Vec2 Entity::position() const {
    const std::uint32_t i = index();
    return {m_world->m_posX[i], m_world->m_posY[i]};
}

Vec2 Entity::velocity() const {
    const std::uint32_t i = index();
    return {m_world->m_posX[i] - m_world->m_prevX[i], m_world->m_posY[i] - m_world->m_prevY[i]};
}

Vec2 Entity::acceleration() const {
    const std::uint32_t i = index();
    return {m_world->m_accX[i], m_world->m_accY[i]};
}

Vec2 Entity::halfExtents() const {
    const std::uint32_t i = index();
    return {m_world->m_halfW[i], m_world->m_halfH[i]};
}

Vec2 Entity::size() const {
    const Vec2 half = halfExtents();
    return {2.0f * half.x, 2.0f * half.y};
}

Shape Entity::shape() const { return m_world->m_shape[index()]; }

bool Entity::isStatic() const { return m_world->m_isStatic[index()] != 0; }

void Entity::setPosition(Vec2 position) {
    const std::uint32_t i = index();
    using L = WorldLimits;
    checkRange(position.x, -L::kMaxCoordinate, L::kMaxCoordinate, "entity position x");
    checkRange(position.y, -L::kMaxCoordinate, L::kMaxCoordinate, "entity position y");
    World& w = *m_world;
    const Vec2 v = velocity();
    w.m_posX[i] = position.x, w.m_posY[i] = position.y;
    w.m_prevX[i] = position.x - v.x, w.m_prevY[i] = position.y - v.y;
    w.updateAabb(i);
    // The moved lists hold the dynamic entities only: a static that moved needs a full update.
    if (w.m_isStatic[i] != 0) w.m_moversKnown = false;
    w.m_boxesVersion = nextBoxesVersion();
}

void Entity::setHalfExtents(Vec2 halfExtents) {
    const std::uint32_t i = index();
    using L = WorldLimits;
    checkRange(halfExtents.x, L::kMinHalfExtent, L::kMaxHalfExtent, "entity half-extent x");
    checkRange(halfExtents.y, L::kMinHalfExtent, L::kMaxHalfExtent, "entity half-extent y");
    World& w = *m_world;
    w.m_halfW[i] = halfExtents.x;
    w.m_halfH[i] = w.m_shape[i] == Shape::Circle ? halfExtents.x : halfExtents.y;
    w.updateAabb(i);
    // As for a move: a static that changed needs a full update.
    if (w.m_isStatic[i] != 0) w.m_moversKnown = false;
    w.m_boxesVersion = nextBoxesVersion();
}

void Entity::setVelocity(Vec2 velocity) {
    const std::uint32_t i = index();
    using L = WorldLimits;
    checkRange(velocity.x, -L::kMaxSpeedPerTick, L::kMaxSpeedPerTick, "entity velocity x (per tick)");
    checkRange(velocity.y, -L::kMaxSpeedPerTick, L::kMaxSpeedPerTick, "entity velocity y (per tick)");
    World& w = *m_world;
    if (w.m_isStatic[i] != 0 && (velocity.x != 0.0f || velocity.y != 0.0f))
        throw std::invalid_argument("a static entity has no velocity and no acceleration");
    w.m_prevX[i] = w.m_posX[i] - velocity.x, w.m_prevY[i] = w.m_posY[i] - velocity.y;
}

void Entity::setAcceleration(Vec2 acceleration) {
    const std::uint32_t i = index();
    using L = WorldLimits;
    checkRange(acceleration.x, -L::kMaxAcceleration, L::kMaxAcceleration, "entity acceleration x");
    checkRange(acceleration.y, -L::kMaxAcceleration, L::kMaxAcceleration, "entity acceleration y");
    World& w = *m_world;
    const bool accelerates = acceleration.x != 0.0f || acceleration.y != 0.0f;
    if (w.m_isStatic[i] != 0 && accelerates)
        throw std::invalid_argument("a static entity has no velocity and no acceleration");
    const bool accelerated = w.m_accX[i] != 0.0f || w.m_accY[i] != 0.0f;
    if (accelerates && !accelerated) ++w.m_acceleratedCount;
    if (accelerated && !accelerates) --w.m_acceleratedCount;
    w.m_accX[i] = acceleration.x, w.m_accY[i] = acceleration.y;
}

bool World::contains(EntityId id) const { return indexOf(id).has_value(); }

std::optional<std::uint32_t> World::indexOf(EntityId id) const {
    const std::uint32_t index = m_internals->indexOfId.find(id);
    if (index == IdMap::kAbsent) return std::nullopt;
    return index;
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
    BoxView view{m_minX.data(), m_minY.data(), m_maxX.data(), m_maxY.data(), m_ids.data(), size()};
    if (m_staticCount > 0) view.isStatic = m_isStatic.data();
    if (m_filteredCount > 0) {
        view.category = m_category.data();
        view.mask = m_mask.data();
    }
    return view;
}

BoxView World::broadPhaseBoxes() const { return m_config.sweptBoxes ? m_internals->swept.view(boxes()) : boxes(); }

void World::updateSweptBoxes() {
    // This tick's motion is position - previous (statics have none).
    (void)m_internals->swept.sweep(boxes(), [&](std::uint32_t i) { return Vec2{m_posX[i] - m_prevX[i], m_posY[i] - m_prevY[i]}; });
}

World::RelativePath World::relativePath(std::uint32_t a, std::uint32_t b) const {
    // In a's frame: b's centre moves by the difference of their motions, against a's box grown
    // by b's half-extents (the Minkowski sum).
    const float dx = (m_posX[b] - m_prevX[b]) - (m_posX[a] - m_prevX[a]);
    const float dy = (m_posY[b] - m_prevY[b]) - (m_posY[a] - m_prevY[a]);
    return {{m_posX[a] - m_halfW[a] - m_halfW[b], m_posY[a] - m_halfH[a] - m_halfH[b], m_posX[a] + m_halfW[a] + m_halfW[b],
             m_posY[a] + m_halfH[a] + m_halfH[b]},
            {{m_posX[b], m_posY[b]}, {m_posX[b] + dx, m_posY[b] + dy}},
            {dx, dy}};
}

std::optional<float> World::timeOfImpact(std::uint32_t a, std::uint32_t b) const {
    const RelativePath path = relativePath(a, b);
    if (m_shape[a] == Shape::Circle && m_shape[b] == Shape::Circle)
        return circleEntry(m_posX[b] - m_posX[a], m_posY[b] - m_posY[a], path.motion.x, path.motion.y, m_halfW[a] + m_halfW[b]);
    // Boxes, or a box and a circle taken as its square: b's centre along the path into the grown box.
    return segmentEntry(path.grown, path.centre);
}

bool World::passesThrough(std::uint32_t a, std::uint32_t b) const {
    // The boxes apart at both ends in the swept test's own arithmetic (b's centre outside the
    // grown box), so that a pair it sees touching now never counts, whatever the rounding of
    // the broad phase's test; and the exact shapes meet on the way.
    const RelativePath path = relativePath(a, b);
    const auto inside = [&](Vec2 p) { return containsBox(path.grown, Aabb{p.x, p.y, p.x, p.y}); };
    return !inside(path.centre.from) && !inside(path.centre.to) && timeOfImpact(a, b).has_value();
}

void World::updateBroadPhase() {
    // A technique keeps the capacity of the most boxes it held: when the scene falls to a
    // quarter of that, a fresh one (with the world's settings) holds memory for this scene.
    if (size() < m_broadPhasePeak / 4) {
        if (std::unique_ptr<BroadPhase> fresh = m_broadPhase->makeFresh()) setBroadPhase(std::move(fresh));
        m_broadPhasePeak = size();
    }
    m_broadPhasePeak = std::max(m_broadPhasePeak, size());
    if (moversListed()) {
        m_broadPhase->updateMoved(broadPhaseBoxes(), m_movers);
        return;
    }
    m_moversKnown = false;
    m_broadPhase->update(broadPhaseBoxes());
    m_movers.clear();
    for (std::uint32_t i = 0; i < size(); ++i)
        if (m_isStatic[i] == 0) m_movers.push_back(i);
    m_moversKnown = true;
}

std::uint64_t World::bytesHeld() const {
    std::uint64_t bytes = m_internals->indexOfId.bytesHeld() + ro::bytesHeld(m_ids) + ro::bytesHeld(m_shape) +
                          ro::bytesHeld(m_isStatic) + ro::bytesHeld(m_movers) + ro::bytesHeld(m_category) +
                          ro::bytesHeld(m_mask) +
                          ro::bytesHeld(m_overlapping) + ro::bytesHeld(m_candidates) + ro::bytesHeld(m_overlaps) +
                          ro::bytesHeld(m_sortScratch) + ro::bytesHeld(m_sortOffsets) + ro::bytesHeld(m_missedPairs);
    for (const auto* v : {&m_posX, &m_posY, &m_prevX, &m_prevY, &m_accX, &m_accY, &m_halfW, &m_halfH, &m_minX, &m_minY,
                          &m_maxX, &m_maxY})
        bytes += ro::bytesHeld(*v);
    return bytes;
}

float World::largestHalfExtent() const {
    float largest = 0.0f;
    for (std::uint32_t i = 0; i < size(); ++i) largest = std::max({largest, m_halfW[i], m_halfH[i]});
    return largest;
}

void World::setBroadPhase(std::unique_ptr<BroadPhase> technique) {
    if (!technique) throw std::invalid_argument("broad phase must not be null");
    technique->configure(m_settings);  // a refused technique leaves the world's as it was
    m_broadPhase = std::move(technique);
    m_moversKnown = false;
    m_broadPhasePeak = 0;
}

void World::setBroadPhaseSettings(const Settings& settings) {
    // The world keeps these across a switch of technique, so every value must suit every
    // registry row that reads its key, not only the technique in use: a max_depth of 0 set
    // under the grid would otherwise be refused only when the quadtree is picked.
    for (const TechniqueInfo& row : techniques()) checkSettings(row.parameters, settings);
    m_broadPhase->configure(settings);  // checks them first: refused settings leave both as they were
    m_settings = settings;
}

void World::refreshPairs(RefreshTimes times) {
    const StepStats tick = m_stats;
    m_stats = {};
    const auto t0 = Clock::now();
    if (m_config.sweptBoxes) updateSweptBoxes();
    updateBroadPhase();
    const auto t1 = Clock::now();
    m_broadPhase->findPairs(m_candidates);
    m_stats.broadPhase = m_broadPhase->counters();
    findOverlaps();
    const auto t2 = Clock::now();
    if (m_observer) m_observer(broadPhaseBoxes(), m_ticks);
    const auto t3 = Clock::now();
    // The narrow phase's count on these positions, without a response.
    std::uint64_t contacts = 0;
    for (const Pair& p : m_overlaps) contacts += contactOf(*this, p.a, p.b).depth >= 0.0f ? 1 : 0;
    m_stats.contacts = contacts;
    const auto t4 = Clock::now();
    if (times == RefreshTimes::KeepTheTicks) {
        // What the tick did (its times, misses and impacts) beside the pairs of where it left them.
        m_stats.msBroadUpdate = tick.msBroadUpdate;
        m_stats.msPairFind = tick.msPairFind;
        m_stats.msNarrow = tick.msNarrow;
        m_stats.msIntegrate = tick.msIntegrate;
        m_stats.msMissedCount = tick.msMissedCount;
        m_stats.missed = tick.missed;
        m_stats.impacts = tick.impacts;
        return;
    }
    m_stats.msBroadUpdate = msBetween(t0, t1);
    m_stats.msPairFind = msBetween(t1, t2);
    m_stats.msNarrow = msBetween(t3, t4);
    if (m_config.countMissed) {
        countMissed(false);
        m_stats.msMissedCount = msBetween(t4, Clock::now());
    }
}


int World::advance(double realSeconds, double wallBudgetSeconds) {
    if (!std::isfinite(realSeconds) || realSeconds <= 0.0) return 0;
    const double dt = 1.0 / m_config.tickHz;
    m_accumulator += realSeconds * m_config.speed;
    const auto start = Clock::now();
    int ticks = 0;
    while (m_accumulator >= dt && ticks < m_config.maxCatchUpTicks) {
        if (ticks > 0 && std::chrono::duration<double>(Clock::now() - start).count() >= wallBudgetSeconds) break;
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
    if (m_beforeTick) m_beforeTick(*this);
    m_missedPairs.clear();
    for (int s = 0; s < subSteps; ++s) subStep(dt);
    ++m_ticks;
    m_boxesVersion = nextBoxesVersion();
}

void World::subStep(float dt) {
    const auto t0 = Clock::now();
    accelerate(dt);
    if (m_config.sweptBoxes) updateSweptBoxes();
    const auto t1 = Clock::now();

    const std::uint64_t allocsBefore = heapAllocationCount();
    updateBroadPhase();
    const auto t2 = Clock::now();
    m_broadPhase->findPairs(m_candidates);
    m_broadPhase->setHeapAllocations(heapAllocationCount() - allocsBefore);
    m_stats.broadPhase = m_broadPhase->counters();
    findOverlaps();
    const auto t3 = Clock::now();
    double msObserver = 0.0;  // not the world's time: taken out of the narrow phase's
    if (m_observer) {
        m_observer(broadPhaseBoxes(), m_ticks + 1);
        msObserver = msBetween(t3, Clock::now());
    }

    if (m_config.countMissed) {
        const auto before = Clock::now();
        countMissed(true);
        const double ms = msBetween(before, Clock::now());
        m_stats.msMissedCount += ms;
        msObserver += ms;  // not the narrow phase's either
    }
    resolveContacts();
    if (m_config.timeOfImpact) resolveImpacts();
    const auto t4 = Clock::now();
    applyInertiaAndWalls();
    const auto t5 = Clock::now();

    m_stats.msIntegrate += msBetween(t0, t1) + msBetween(t4, t5);
    m_stats.msBroadUpdate += msBetween(t1, t2);
    m_stats.msPairFind += msBetween(t2, t3);
    m_stats.msNarrow += msBetween(t3, t4) - msObserver;
}

template <typename Visit>
void World::forEachMover(Visit visit) {
    // With statics, the list the broad phase is given: a field of them costs nothing a tick.
    if (moversListed()) {
        for (const std::uint32_t i : m_movers) visit(i);
        return;
    }
    for (std::uint32_t i = 0; i < size(); ++i)
        if (m_isStatic[i] == 0) visit(i);
}

void World::accelerate(float dt) {
    const float gravity = m_config.gravity ? m_config.gravityAccel : 0.0f;
    // Most scenes: a pass over every mover that would change nothing (at 1,000,000 entities,
    // 24 bytes read and 24 written for each).
    if (gravity == 0.0f && m_acceleratedCount == 0) return;
    const float dt2 = dt * dt;
    forEachMover([&](std::uint32_t i) {
        m_posX[i] += m_accX[i] * dt2;
        m_posY[i] += (m_accY[i] + gravity) * dt2;
        updateAabb(i);
    });
}

void World::findOverlaps() {
    m_overlaps.clear();
    std::fill(m_overlapping.begin(), m_overlapping.end(), std::uint8_t{0});
    // The exact test on what the broad phase was given: with swept boxes, pairs whose paths
    // may meet within the tick.
    const BoxView view = broadPhaseBoxes();
    const BoxView now = boxes();
    std::uint64_t sweptExtra = 0;
    for (const Pair& p : m_candidates) {
        if (overlaps(view.box(p.a), view.box(p.b))) {
            m_overlaps.push_back(p);
            m_overlapping[p.a] = m_overlapping[p.b] = 1;
            if (m_config.sweptBoxes && !overlaps(now.box(p.a), now.box(p.b))) ++sweptExtra;
        }
    }
    m_stats.sweptExtra = sweptExtra;
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
        const Contact c = contactOf(*this, a, b);
        if (c.depth < 0.0f) continue;
        ++contacts;
        if (m_config.response == ContactResponse::None) continue;
        // Heavier (larger) entities move less. Masses are areas; WorldLimits keeps each in
        // [1e-6, 1e10], so their sum is a normal float and each share lies in [0, 1].
        const float massA = m_halfW[a] * m_halfH[a];
        const float massB = m_halfW[b] * m_halfH[b];
        // A static entity weighs infinitely much: the other takes the whole push and kick.
        // (Two statics never pair.)
        const float shareA = m_isStatic[a] ? 0.0f : m_isStatic[b] ? 1.0f : massB / (massA + massB);
        const float shareB = 1.0f - shareA;
        // Verlet response: move positions apart. Pushing apart changes the implicit velocity
        // (pos - prev) too: it takes back about the approach of the last tick, so entities that
        // meet stop and stick (restitution 0, see ContactResponse). A bounce moves prev along,
        // so that only the elastic exchange below changes the velocities.
        const bool bounce = m_config.response == ContactResponse::Bounce;
        const auto push = [&](std::uint32_t i, float by) {
            m_posX[i] += c.nx * by;
            m_posY[i] += c.ny * by;
            if (bounce) m_prevX[i] += c.nx * by, m_prevY[i] += c.ny * by;
        };
        push(a, -c.depth * shareA);
        push(b, c.depth * shareB);
        if (!bounce) continue;
        // Elastic exchange along the normal, for approaching entities only: the relative
        // normal velocity reverses and momentum is kept, so no energy is made or lost.
        const float approach = (m_posX[b] - m_prevX[b] - m_posX[a] + m_prevX[a]) * c.nx +
                               (m_posY[b] - m_prevY[b] - m_posY[a] + m_prevY[a]) * c.ny;
        if (approach >= 0.0f) continue;
        const float kickA = 2.0f * approach * shareA;  // 2 * approach * massB / (massA + massB)
        const float kickB = 2.0f * approach * shareB;
        m_prevX[a] -= c.nx * kickA;
        m_prevY[a] -= c.ny * kickA;
        m_prevX[b] += c.nx * kickB;
        m_prevY[b] += c.ny * kickB;
    }
    m_stats.contacts = contacts;
}

void World::countMissed(bool list) {
    // Every pair that passes through within the tick: a broad phase of its own on the swept
    // boxes, then passesThrough (a pair that ends the tick touching is reported by the next
    // tick). Those the world's broad phase did not report were missed: no tick will.
    if (!m_missedFinder) m_missedFinder = findTechnique("hshg")->create();
    if (!m_config.sweptBoxes) updateSweptBoxes();
    const BoxView swept = m_internals->swept.view(boxes());
    m_missedFinder->update(swept);
    m_missedFinder->findPairs(m_sweptPairs);
    std::uint64_t missed = 0;
    for (const Pair& pair : m_sweptPairs) {
        if (!overlaps(swept.box(pair.a), swept.box(pair.b)) || !passesThrough(pair.a, pair.b)) continue;
        if (std::binary_search(m_overlaps.begin(), m_overlaps.end(), pair)) continue;
        ++missed;
        if (!list) continue;
        // Where they met: both centres moved along this tick's motion to the first touch.
        const float t = timeOfImpact(pair.a, pair.b).value_or(0.0f);
        const auto at = [&](std::uint32_t i) {
            return Vec2{m_posX[i] + t * (m_posX[i] - m_prevX[i]), m_posY[i] + t * (m_posY[i] - m_prevY[i])};
        };
        const Vec2 a = at(pair.a), b = at(pair.b);
        m_missedPairs.push_back({m_ids[pair.a], m_ids[pair.b], {0.5f * (a.x + b.x), 0.5f * (a.y + b.y)}});
    }
    m_stats.missed += missed;
}

void World::resolveImpacts() {
    // Pairs apart now whose paths meet within the tick: both move to the moment of first
    // contact (keeping their velocities) and respond there; pairs touching now were resolved
    // already. The tick's inertia then carries them on from the contact.
    std::uint64_t impacts = 0;
    for (const Pair& p : m_overlaps) {
        const std::uint32_t a = p.a;
        const std::uint32_t b = p.b;
        if (contactOf(*this, a, b).depth >= 0.0f) continue;
        const std::optional<float> t = timeOfImpact(a, b);
        if (!t) continue;
        ++impacts;
        if (m_config.response == ContactResponse::None) continue;
        for (const std::uint32_t i : {a, b}) {
            const float vx = m_posX[i] - m_prevX[i];
            const float vy = m_posY[i] - m_prevY[i];
            m_posX[i] += vx * *t, m_prevX[i] += vx * *t;
            m_posY[i] += vy * *t, m_prevY[i] += vy * *t;
        }
        const Contact c = touchingContact(*this, a, b);
        const float approach = (m_posX[b] - m_prevX[b] - m_posX[a] + m_prevX[a]) * c.nx +
                               (m_posY[b] - m_prevY[b] - m_posY[a] + m_prevY[a]) * c.ny;
        if (approach >= 0.0f) continue;
        // Bounce reverses the approach (elastic), PushApart stops it (inelastic); a static
        // weighs infinitely much.
        const float massA = m_halfW[a] * m_halfH[a];
        const float massB = m_halfW[b] * m_halfH[b];
        const float shareA = m_isStatic[a] ? 0.0f : m_isStatic[b] ? 1.0f : massB / (massA + massB);
        const float restitution = m_config.response == ContactResponse::Bounce ? 1.0f : 0.0f;
        const float kickA = (1.0f + restitution) * approach * shareA;
        const float kickB = (1.0f + restitution) * approach * (1.0f - shareA);
        m_prevX[a] -= c.nx * kickA;
        m_prevY[a] -= c.ny * kickA;
        m_prevX[b] += c.nx * kickB;
        m_prevY[b] += c.ny * kickB;
    }
    m_stats.impacts += impacts;
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
    forEachMover([&](std::uint32_t i) {
        const float vx = m_posX[i] - m_prevX[i];
        const float vy = m_posY[i] - m_prevY[i];
        m_prevX[i] = m_posX[i];
        m_prevY[i] = m_posY[i];
        m_posX[i] += vx;
        m_posY[i] += vy;
        bounce(m_posX[i], m_prevX[i], m_halfW[i], w.minX, w.maxX);
        bounce(m_posY[i], m_prevY[i], m_halfH[i], w.minY, w.maxY);
        updateAabb(i);
    });
}

}  // namespace ro

#pragma once
/// The world (after ro.World and ro.Entity): entities as structure-of-arrays, a fixed-timestep
/// Verlet integrator, and a swappable broad phase; random scenes for it (resizePopulation).
///
/// Step order per tick, as in ro: accelerate, update AABBs, technique update, candidate pairs,
/// AABB test, narrow phase, response, inertia (walls bounce), update AABBs. Overlap pairs are
/// resolved in canonical (a, b) order, so the same seed and inputs give the same state bit for
/// bit whichever technique runs.

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ro/aabb.h"
#include "ro/broadphase.h"
#include "ro/pair.h"
#include "ro/rng.h"

namespace ro {

/// A stable entity handle: valid from add() until remove(); never reused.
using EntityId = std::uint32_t;

/// The sizes, positions and rates the world supports. Inside these ranges every step is well
/// defined (no position ever becomes NaN or infinite); add() and setConfig() refuse values
/// outside them with a message that names the range.
struct WorldLimits {
    static constexpr float kMinHalfExtent = 1.0e-3f;  ///< smaller, masses underflow towards 0/0
    static constexpr float kMaxHalfExtent = 1.0e5f;
    static constexpr float kMaxCoordinate = 1.0e7f;    ///< |x| and |y| of positions and bounds
    static constexpr float kMaxSpeedPerTick = 1.0e6f;  ///< |velocity| on each axis, world units per tick
    static constexpr float kMaxAcceleration = 1.0e7f;  ///< |acceleration| and gravity, units per s^2
    static constexpr float kMinTickHz = 1.0f;
    static constexpr float kMaxTickHz = 10'000.0f;
    static constexpr float kMaxSpeed = 100.0f;         ///< simulated seconds per real second
    static constexpr int kMaxSubSteps = 64;
    static constexpr int kMaxCatchUpTicks = 1000;
};

/// What happens when two entities' exact shapes touch.
///
/// None and Bounce keep the total kinetic energy, so a random scene stays statistically the
/// same for as long as it runs (tests/world/stationary_scene_test.cpp). PushApart does not:
/// a Verlet position correction is also a velocity change, and it cancels the approach, so two
/// entities that meet stop dead and stay together (restitution 0). Such a scene loses energy
/// in contacts and gains some back in bursts where crowded piles are pushed apart; entities
/// pack into piles against the walls, and in the app's default scene the overlaps grow
/// severalfold within minutes.
enum class ContactResponse : std::uint8_t {
    None,       ///< nothing: entities pass through each other (the benchmark's workload)
    PushApart,  ///< positions move apart along the contact normal, heavier (larger) ones less;
                ///< perfectly inelastic, so the scene does not stay stationary
    Bounce,     ///< push apart keeping velocities, then an elastic exchange along the normal
};

enum class Shape : std::uint8_t { Box, Circle };

/// What a new entity looks like. Circles use halfExtents.x as their radius.
struct EntityDesc {
    Vec2 position;
    Vec2 velocity;      ///< world units per tick (Verlet keeps it implicitly as pos - prevPos)
    Vec2 acceleration;  ///< world units per second squared, on top of gravity
    Vec2 halfExtents{4.0f, 4.0f};
    Shape shape = Shape::Box;
    /// Set: the previous position itself, in place of position - velocity (a saved entity's
    /// exact Verlet state; the subtraction would round).
    std::optional<Vec2> previous = std::nullopt;
    /// Never moves: not integrated, not pushed, never paired with another static (level
    /// geometry). Its velocity and acceleration must be zero.
    bool isStatic = false;
    /// Collision filter (Box2D's b2Filter): the layers it is in and the layers it collides
    /// with; two entities pair only when each one's category is in the other's mask.
    std::uint32_t category = 1;
    std::uint32_t mask = ~0u;
};

class World;

/// One entity of a world, by id (after ro.Entity): `world.entity(id).position()`. Reads and
/// writes go to the world's arrays (structure of arrays) at the entity's dense index of the
/// moment, so a handle stays right while other entities come and go. Every call throws
/// std::out_of_range, naming the id, once the entity is removed.
class Entity {
public:
    [[nodiscard]] EntityId id() const { return m_id; }
    /// Its centre, in world units.
    [[nodiscard]] Vec2 position() const;
    /// World units per tick (Verlet keeps it as position - previous position).
    [[nodiscard]] Vec2 velocity() const;
    /// Its own acceleration, world units per second squared, on top of gravity.
    [[nodiscard]] Vec2 acceleration() const;
    /// Half its width and height (a circle's: its radius twice), as EntityDesc::halfExtents.
    [[nodiscard]] Vec2 halfExtents() const;
    /// Its full width and height: twice halfExtents() (ro.Entity's size).
    [[nodiscard]] Vec2 size() const;
    [[nodiscard]] Shape shape() const;
    /// Never moves: not integrated, not pushed, never paired with another static.
    [[nodiscard]] bool isStatic() const;

    // Setters take effect at the next tick; each throws std::invalid_argument, leaving the
    // entity as it was, for a value outside WorldLimits or a motion given to a static entity.
    /// Moves it, keeping its velocity (a static entity too: level geometry can be placed).
    void setPosition(Vec2 position);
    void setVelocity(Vec2 velocity);
    void setAcceleration(Vec2 acceleration);
    /// Resizes it about its centre (a circle takes x as its radius), as a recorded body whose
    /// box changes size as it turns: the same entity, so the broad phase sees it move, not go
    /// and come.
    void setHalfExtents(Vec2 halfExtents);

private:
    friend class World;
    Entity(World& world, EntityId id) : m_world(&world), m_id(id) {}
    /// The entity's dense index now; throws std::out_of_range if it is gone.
    [[nodiscard]] std::uint32_t index() const;

    World* m_world;
    EntityId m_id;
};

/// Fixed-step clock and physics settings.
struct WorldConfig {
    Aabb bounds{0.0f, 0.0f, 1600.0f, 1000.0f};  ///< walls; y grows downwards as on screen
    float tickHz = 60.0f;                     ///< fixed timestep rate
    int maxCatchUpTicks = 3;                  ///< ticks one advance() may run before dropping time
    float speed = 1.0f;                       ///< simulated seconds per real second
    int subSteps = 1;                         ///< sub-steps per tick
    bool gravity = false;
    float gravityAccel = 300.0f;              ///< world units per second squared, downwards
    /// Bounce, not PushApart: the default scene must stay stationary, so that a measurement
    /// taken after two minutes describes the scene the first second showed.
    ContactResponse response = ContactResponse::Bounce;
    // Fast movers (the articles' tunnelling): a discrete broad phase sees where entities are,
    // not where they pass during the tick, so two that cross within one tick are missed.
    /// The broad phase gets swept boxes: each entity's box now joined with its box after this
    /// tick's motion, so every pair whose paths meet within the tick is a candidate.
    bool sweptBoxes = false;
    /// A time-of-impact narrow phase: a candidate pair apart now that meets within the tick
    /// (box-box, circle-circle, box-circle) is moved to its first contact and responded to
    /// there. Needs swept boxes to see such pairs at all.
    bool timeOfImpact = false;
    /// Counts the missed collisions every tick (StepStats::missed), by a second broad phase
    /// on swept boxes and the exact swept tests: it costs about a broad phase more per tick.
    bool countMissed = false;
};

/// Milliseconds and counts of the last tick (summed over its sub-steps).
struct StepStats {
    double msBroadUpdate = 0.0;  ///< technique update
    double msPairFind = 0.0;     ///< findPairs + AABB test + canonical sort
    double msNarrow = 0.0;       ///< narrow phase and response
    double msIntegrate = 0.0;    ///< accelerate, inertia, walls, AABBs
    double msMissedCount = 0.0;  ///< countMissed's second broad phase and swept tests (not in msNarrow)
    std::uint64_t candidates = 0;
    std::uint64_t overlaps = 0;  ///< candidates whose AABBs overlap (closed intervals)
    std::uint64_t contacts = 0;  ///< overlaps whose exact shapes touch (narrow phase)
    std::uint64_t missed = 0;    ///< with countMissed: pairs that passed through each other within
                                 ///< the tick (paths met, boxes apart at both ends: no tick ever shows
                                 ///< them) that the broad phase did not report
    std::uint64_t sweptExtra = 0;  ///< with sweptBoxes: reported pairs whose boxes do not overlap now
    std::uint64_t impacts = 0;   ///< with timeOfImpact: pairs moved to their first contact
    Counters broadPhase;         ///< the technique's counters right after the last pair finding
};

/// A pair that passed through each other within a tick and that the broad phase did not report
/// (WorldConfig::countMissed): what the count counts, by entity and place.
struct MissedPair {
    EntityId a = 0, b = 0;
    Vec2 where;  ///< midway between their centres when their shapes first touched
};

class World {
public:
    /// Throws std::invalid_argument for settings outside WorldLimits.
    explicit World(const WorldConfig& config = {});
    World(World&&) noexcept;
    World& operator=(World&&) noexcept;
    ~World();

    // ---- entities -------------------------------------------------------------------------
    /// Adds an entity; throws std::invalid_argument for a value outside WorldLimits (sizes,
    /// position, velocity, acceleration), leaving the world as it was.
    EntityId add(const EntityDesc& desc);
    /// Removes an entity; false if the id is not alive.
    bool remove(EntityId id);
    /// Adds every entity of `descs` (their ids appended to `ids` if given), or, if any is
    /// outside WorldLimits, none: std::invalid_argument names the first. The technique takes
    /// them all at its next update, as one change (its update compares ids once per step).
    void addBatch(std::span<const EntityDesc> descs, std::vector<EntityId>* ids = nullptr);
    /// Removes the entities of `ids` that are alive; returns how many were.
    std::size_t removeBatch(std::span<const EntityId> ids);
    /// Called at the start of every tick, before its sub-steps: a scene that spawns and
    /// removes bodies every step (the app's rain) does it here, tick for tick.
    void setBeforeTick(std::function<void(World&)> hook) { m_beforeTick = std::move(hook); }
    [[nodiscard]] bool contains(EntityId id) const;
    [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(m_ids.size()); }
    /// A handle on a live entity, to read and set its properties by id; throws
    /// std::out_of_range, naming the id, if it is not in the world.
    [[nodiscard]] Entity entity(EntityId id);
    /// Dense index of a live entity (indices change when others are removed; ids do not).
    [[nodiscard]] std::optional<std::uint32_t> indexOf(EntityId id) const;
    /// The topmost (most recently added) entity whose exact shape contains p.
    [[nodiscard]] std::optional<EntityId> entityAt(Vec2 p) const;

    // ---- structure-of-arrays read access, by dense index -------------------------------------
    [[nodiscard]] std::span<const EntityId> ids() const { return m_ids; }
    [[nodiscard]] std::span<const float> posX() const { return m_posX; }
    [[nodiscard]] std::span<const float> posY() const { return m_posY; }
    [[nodiscard]] std::span<const float> prevX() const { return m_prevX; }
    [[nodiscard]] std::span<const float> prevY() const { return m_prevY; }
    [[nodiscard]] std::span<const float> accX() const { return m_accX; }
    [[nodiscard]] std::span<const float> accY() const { return m_accY; }
    [[nodiscard]] std::span<const float> halfW() const { return m_halfW; }
    [[nodiscard]] std::span<const float> halfH() const { return m_halfH; }
    [[nodiscard]] std::span<const Shape> shapes() const { return m_shape; }
    /// 1 where the entity is static.
    [[nodiscard]] std::span<const std::uint8_t> isStatic() const { return m_isStatic; }
    [[nodiscard]] std::uint32_t staticCount() const { return m_staticCount; }
    [[nodiscard]] std::span<const std::uint32_t> category() const { return m_category; }
    [[nodiscard]] std::span<const std::uint32_t> mask() const { return m_mask; }
    /// Whether any entity has a filter other than the default (category 1, every mask bit).
    [[nodiscard]] bool hasFilters() const { return m_filteredCount > 0; }
    /// 1 where the entity's AABB overlaps another's after the last tick's broad phase.
    [[nodiscard]] std::span<const std::uint8_t> overlapping() const { return m_overlapping; }
    [[nodiscard]] BoxView boxes() const;
    /// What the broad phase is handed: boxes(), or with sweptBoxes the swept boxes.
    [[nodiscard]] BoxView broadPhaseBoxes() const;
    /// When the exact shapes of a and b, moving by their velocities (position - previous),
    /// first touch within the coming tick: t in [0, 1] (0 if they touch now), or nothing.
    /// Box-circle treats the box grown by the radius as square-cornered (a little early at
    /// corners, never late).
    [[nodiscard]] std::optional<float> timeOfImpact(std::uint32_t a, std::uint32_t b) const;
    /// Whether the two pass through each other within the coming tick: their boxes are apart
    /// now and after the tick's motion (circles as their squares), yet timeOfImpact() says the
    /// shapes meet on the way. No tick ever reports such a pair to a discrete broad phase.
    [[nodiscard]] bool passesThrough(std::uint32_t a, std::uint32_t b) const;
    // With statics, the technique is told which entities may have moved (the dynamic ones)
    // through BroadPhase::updateMoved, between ticks that added or removed none.
    /// Heap bytes of the world's own tables (entities, id map, pair buffers), not the technique's.
    [[nodiscard]] std::uint64_t bytesHeld() const;
    /// Largest half-extent of any live entity (0 when empty).
    [[nodiscard]] float largestHalfExtent() const;

    // ---- broad phase ------------------------------------------------------------------------
    /// Swaps the technique; the world's entities stay as they are.
    /// Uses `technique` from the next update, configured with broadPhaseSettings(); throws
    /// std::invalid_argument (and keeps the technique in use) if it is null or refuses them.
    void setBroadPhase(std::unique_ptr<BroadPhase> technique);
    [[nodiscard]] BroadPhase& broadPhase() { return *m_broadPhase; }
    [[nodiscard]] const BroadPhase& broadPhase() const { return *m_broadPhase; }
    /// Parameter values kept across switches of technique. Throws std::invalid_argument (and
    /// keeps the ones it had) if a value is outside the range of any registry technique that
    /// reads its key, or the bounds have no finite area.
    void setBroadPhaseSettings(const Settings& settings);
    [[nodiscard]] const Settings& broadPhaseSettings() const { return m_settings; }
    /// What a refresh does with the last tick's times: measure its own work in their place
    /// (the scene or technique changed, so the tick's times describe another), or keep them
    /// (a single step while paused: the tick ran on the scene on screen).
    enum class RefreshTimes : std::uint8_t { Measure, KeepTheTicks };
    /// Runs the broad phase on the current boxes without advancing the clock (after a technique
    /// switch while paused, say): the candidate and overlap pairs, and their counts in
    /// lastStats(), become those of the technique in use, and the contacts (and, with
    /// countMissed, the missed pairs of the coming tick's motion) are counted on the current
    /// positions (no response is applied). With RefreshTimes::Measure lastStats()' times
    /// become the refresh's: broad update, pair finding, the contact count as the narrow
    /// phase, no integration.
    void refreshPairs(RefreshTimes times = RefreshTimes::Measure);
    /// Called with the boxes the technique was just given, after its pairs were found, every
    /// sub-step and every refreshPairs(), with the tick they belong to (the one running, or
    /// tickCount() for a refresh): a second opinion (the app's compare) sees exactly what the
    /// world's technique saw. Its time is not counted in the tick's figures.
    using BroadPhaseObserver = std::function<void(const BoxView& boxes, std::uint64_t tick)>;
    void setBroadPhaseObserver(BroadPhaseObserver observer) { m_observer = std::move(observer); }
    /// Candidate and overlap pairs of the last tick's final sub-step, canonical order.
    [[nodiscard]] const std::vector<Pair>& candidatePairs() const { return m_candidates; }
    [[nodiscard]] const std::vector<Pair>& overlapPairs() const { return m_overlaps; }
    /// With countMissed: the pairs the last tick missed (all its sub-steps) and where they
    /// passed. Kept until the next tick's sub-steps begin, so the before-tick hook still reads
    /// them; a refresh counts the coming tick's misses (lastStats) but lists none.
    [[nodiscard]] std::span<const MissedPair> missedPairs() const { return m_missedPairs; }

    // ---- clock --------------------------------------------------------------------------------
    /// Adds real elapsed time (scaled by speed) and runs the whole ticks it covers, at most
    /// maxCatchUpTicks, and no further tick once `wallBudgetSeconds` of wall time went into
    /// ticks (a window keeps its frame rate); time left over past either cap is dropped, so
    /// the simulation slows rather than spirals. Returns the ticks run.
    int advance(double realSeconds, double wallBudgetSeconds = std::numeric_limits<double>::infinity());
    /// Runs exactly one tick (all its sub-steps), e.g. for single-stepping while paused.
    void tick();
    [[nodiscard]] std::uint64_t tickCount() const { return m_ticks; }
    /// Changes whenever an entity's box may have (a tick, an add, a remove), so that a copy of
    /// the boxes (the app's query twin) is brought up to date only then.
    [[nodiscard]] std::uint64_t boxesVersion() const { return m_boxesVersion; }
    [[nodiscard]] const StepStats& lastStats() const { return m_stats; }
    [[nodiscard]] const WorldConfig& config() const { return m_config; }
    /// Replaces the clock and physics settings; throws std::invalid_argument, leaving the old
    /// ones in place, for bounds, rates or counts the constructor would reject.
    void setConfig(const WorldConfig& config);

private:
    friend class Entity;  // reads and writes the arrays at its entity's index

    /// b's centre along this tick's motion relative to a's, and a's box grown by b's half
    /// extents (the Minkowski sum): the swept tests' common arithmetic.
    struct RelativePath {
        Aabb grown;
        Segment centre;
        Vec2 motion;  ///< b's motion relative to a's (centre.to - centre.from before rounding)
    };
    [[nodiscard]] RelativePath relativePath(std::uint32_t a, std::uint32_t b) const;
    /// Throws std::invalid_argument for a description outside WorldLimits.
    static void check(const EntityDesc& d);
    void subStep(float dt);
    /// Whether m_movers lists the dynamic entities and there are statics to skip: the broad
    /// phase then gets it as the moved list, and the world steps those entities alone.
    [[nodiscard]] bool moversListed() const { return m_moversKnown && m_staticCount > 0; }
    /// Calls visit(i) for each dynamic entity: from the movers' list once it is known.
    template <typename Visit>
    void forEachMover(Visit visit);
    /// Adds each dynamic entity's acceleration (and gravity) to its position, and updates its
    /// box; nothing when no entity accelerates and gravity is off (the boxes already match the
    /// positions: every pass that moves an entity updates its box).
    void accelerate(float dt);
    /// A dynamic entity's box, from its position.
    void updateAabb(std::uint32_t i) {
        m_minX[i] = m_posX[i] - m_halfW[i];
        m_maxX[i] = m_posX[i] + m_halfW[i];
        m_minY[i] = m_posY[i] - m_halfH[i];
        m_maxY[i] = m_posY[i] + m_halfH[i];
    }
    void findOverlaps();
    void resolveContacts();
    /// Verlet inertia and the walls' bounce for each dynamic entity, and its box after them.
    void applyInertiaAndWalls();
    /// Hands the boxes to the technique: only the movers when it saw the same entities last.
    void updateBroadPhase();
    void updateSweptBoxes();
    /// Moves pairs that meet within the tick to their first contact and responds there.
    void resolveImpacts();
    /// Counts the missed pairs into m_stats.missed; with `list`, appends them to m_missedPairs.
    void countMissed(bool list);

    WorldConfig m_config;
    Settings m_settings;
    std::unique_ptr<BroadPhase> m_broadPhase;
    std::uint32_t m_broadPhasePeak = 0;  ///< the most entities m_broadPhase has held
    BroadPhaseObserver m_observer;
    std::function<void(World&)> m_beforeTick;
    double m_accumulator = 0.0;
    std::uint64_t m_ticks = 0;
    std::uint64_t m_boxesVersion = 0;  ///< see boxesVersion()
    StepStats m_stats;

    // Entities, structure of arrays, dense.
    std::vector<EntityId> m_ids;
    std::vector<float> m_posX, m_posY, m_prevX, m_prevY, m_accX, m_accY, m_halfW, m_halfH;
    std::vector<float> m_minX, m_minY, m_maxX, m_maxY;
    std::vector<Shape> m_shape;
    std::vector<std::uint8_t> m_isStatic;
    std::uint32_t m_staticCount = 0;
    std::vector<std::uint32_t> m_category, m_mask;
    std::uint32_t m_filteredCount = 0;  ///< entities whose filter is not the default
    std::uint32_t m_acceleratedCount = 0;  ///< entities with an acceleration of their own
    std::vector<std::uint32_t> m_movers;  ///< dense indices of the dynamic entities, when m_moversKnown
    bool m_moversKnown = false;  ///< the technique's last update saw these entities in this order
    std::unique_ptr<BroadPhase> m_missedFinder;  ///< countMissed's own broad phase (an HSHG)
    std::vector<Pair> m_sweptPairs;
    std::vector<MissedPair> m_missedPairs;  ///< see missedPairs()
    std::vector<std::uint8_t> m_overlapping;
    /// The id map and the swept boxes: types of the library's own, kept out of this header.
    struct Internals;
    std::unique_ptr<Internals> m_internals;
    EntityId m_nextId = 0;

    // Per-step buffers, reused so steady-state steps do not allocate.
    std::vector<Pair> m_candidates, m_overlaps, m_sortScratch;
    std::vector<std::uint32_t> m_sortOffsets;
};

// ---- random scenes: fully defined by count, sizes and seed -----------------------------------

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

}  // namespace ro

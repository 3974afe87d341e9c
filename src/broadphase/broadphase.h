#pragma once
/// The one interface every broad-phase technique implements.
///
/// Each step the world hands a technique the current boxes (update), then asks for candidate
/// pairs (findPairs). A candidate may or may not overlap; the world applies the exact AABB test,
/// which a technique whose candidates are exact (pairsAreExact) lets callers skip.
/// Every pair that overlaps must be among the candidates, each candidate is reported once,
/// with a < b. One virtual call per phase; the hot loops stay non-virtual inside each technique.

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <algorithm>
#include <vector>

#include "core/aabb.h"
#include "core/id_slots.h"
#include "core/pair.h"

namespace ro {

/// Read-only view of the boxes a technique works on: structure of arrays, dense indices 0..count-1.
struct BoxView {
    const float* minX = nullptr;
    const float* minY = nullptr;
    const float* maxX = nullptr;
    const float* maxY = nullptr;
    const std::uint32_t* ids = nullptr;  ///< entity ids, unique and stable while an entity lives (any 32-bit value)
    std::uint32_t count = 0;

    [[nodiscard]] Aabb box(std::uint32_t i) const { return {minX[i], minY[i], maxX[i], maxY[i]}; }
};

/// What a technique did in the last step: the HUD, the tests and the bench read these.
struct Counters {
    std::uint64_t candidatePairs = 0;      ///< unique pairs output by the last findPairs
    std::uint64_t pairTests = 0;           ///< pairs examined to produce them (the seeds' collisionTests)
    std::uint64_t cellsTouched = 0;        ///< cells or buckets visited by update + findPairs
    std::uint64_t bytesHeld = 0;           ///< heap memory held by the technique's structures
    std::uint64_t heapAllocations = 0;     ///< heap allocations during the last update + findPairs
    std::uint64_t hashFalsePositives = 0;  ///< candidates found only because two cells share a bucket
    std::uint64_t sortSwaps = 0;           ///< sweeps: adjacent swaps insertion sort made in the last update
    float cellSize = 0.0f;                 ///< cell size in use (0 where the technique has no cells)
};

/// Which axis a sweep sorts along; Auto picks the one along which the centres vary most.
enum class SweepAxis : std::uint8_t { Auto, X, Y };

/// Parameters a person can change from the panel or the command line. Each technique reads
/// the fields it has a use for and ignores the rest.
struct Settings {
    float cellSize = 16.0f;            ///< grid and hash cell side, world units
    Aabb gridBounds{0, 0, 1600, 1000}; ///< the bounded grid's (and quadtree's) extent; boxes outside clamp to the edge
    std::uint32_t hashTableSize = 0;   ///< buckets of the spatial hash; 0 picks a prime near 10x the count
    float hshgFactor = 2.0f;           ///< HSHG: cell size ratio between one level and the next
    float treeMargin = 2.0f;           ///< dynamic tree: how far a fat box reaches beyond its box, world units
    std::uint32_t quadCapacity = 8;    ///< quadtree: entities a leaf holds before it splits
    std::uint32_t quadMaxDepth = 10;   ///< quadtree: levels below the root at most
    SweepAxis sweepAxis = SweepAxis::Auto;  ///< sweeps: the axis to sort along
    friend bool operator==(const Settings&, const Settings&) = default;
};

/// The limits checkSettings enforces, for the panel's sliders and the command line.
struct SettingsLimits {
    static constexpr float kMinHshgFactor = 1.5f;
    static constexpr float kMaxHshgFactor = 16.0f;
    static constexpr float kMaxTreeMargin = 1.0e6f;
    static constexpr std::uint32_t kMaxQuadCapacity = 4096;
    static constexpr std::uint32_t kMaxQuadDepth = 20;
    static constexpr std::uint32_t kMaxHashTableSize = 1u << 26;  ///< the hash, the panel and checkSettings read this one
    /// The cell sizes the app and ro_bench offer (the library takes any finite positive size:
    /// far outside this range the grid and the hash degrade to their exact paths).
    static constexpr float kMinOfferedCellSize = 0.05f;
    static constexpr float kMaxOfferedCellSize = 10'000.0f;
};

/// Throws std::invalid_argument unless every field is in range: a finite, positive cell size;
/// where `needsBounds` (a bounded technique), grid bounds with a finite, non-empty area; an
/// HSHG factor in [1.5, 16]; a finite tree margin >= 0; a quadtree capacity in [1, 4096] and
/// depth in [1, 20]; a hash table of at most 2^26 buckets. Every technique's configure() calls it first.
inline void checkSettings(const Settings& settings, bool needsBounds = false) {
    using L = SettingsLimits;
    if (!std::isfinite(settings.cellSize) || !(settings.cellSize > 0.0f))
        throw std::invalid_argument("cell size must be finite and positive");
    if (needsBounds && !settings.gridBounds.hasFiniteArea())
        throw std::invalid_argument("grid bounds must be finite with max > min");
    if (!(settings.hshgFactor >= L::kMinHshgFactor && settings.hshgFactor <= L::kMaxHshgFactor))
        throw std::invalid_argument("HSHG factor must be between 1.5 and 16");
    if (!(settings.treeMargin >= 0.0f && settings.treeMargin <= L::kMaxTreeMargin))
        throw std::invalid_argument("tree margin must be finite and >= 0");
    if (settings.quadCapacity < 1 || settings.quadCapacity > L::kMaxQuadCapacity)
        throw std::invalid_argument("quadtree capacity must be between 1 and 4096");
    if (settings.quadMaxDepth < 1 || settings.quadMaxDepth > L::kMaxQuadDepth)
        throw std::invalid_argument("quadtree depth must be between 1 and 20");
    if (settings.hashTableSize > L::kMaxHashTableSize)
        throw std::invalid_argument("hash table size must be at most 2^26 buckets");
}

/// One element of a technique's structure, for the overlays and the structure tests.
struct CellView {
    enum class Kind : std::uint8_t {
        Cell,       ///< a grid, hash or HSHG cell, or a quadtree leaf: `bounds`, `count` entities
        Node,       ///< an inner node of a tree: `bounds` (a quadtree's region or an AABB tree's box)
        FatBox,     ///< a fattened box a technique keeps for an entity: `bounds`
        Delimiter,  ///< a sweep's begin or end delimiter at `bounds.minX` on the sweep axis (`level`: 0 x, 1 y),
                    ///< visited in sorted order
    };
    Aabb bounds;
    std::uint32_t count = 0;   ///< entities in the cell (for the hash: in its bucket)
    std::uint32_t level = 0;   ///< HSHG level, tree depth, or the sweep's axis for a delimiter
    Kind kind = Kind::Cell;
    bool isBegin = false;      ///< Delimiter: a begin (min) rather than an end (max)
    bool touchesVoid = false;  ///< Delimiter: no interval is open between this delimiter and the next (Wells)
};

/// A segment query from `from` to `to`: hits are reported at t in [0, 1] along it.
struct Segment {
    Vec2 from;
    Vec2 to;
};

/// One box a segment touches: its index and the t where the segment enters it (0 if it starts inside).
struct RayHit {
    std::uint32_t index = 0;
    float t = 0.0f;
    friend bool operator==(const RayHit&, const RayHit&) = default;
};

/// What a query cost: cells, buckets, nodes or delimiters visited, and exact box tests run.
struct QueryCost {
    std::uint64_t visited = 0;
    std::uint64_t tests = 0;
};

/// The exact segment-box test every technique's ray query is judged by (closed box, slab method).
/// Returns the entry t in [0, 1], or nothing when the segment misses the box.
[[nodiscard]] inline std::optional<float> segmentEntry(const Aabb& box, const Segment& s) {
    float enter = 0.0f;
    float leave = 1.0f;
    // Clips [enter, leave] to the parameter range where the segment lies inside [lo, hi] on one axis.
    const auto clip = [&](float from, float to, float lo, float hi) {
        const float d = to - from;
        if (d == 0.0f) return from >= lo && from <= hi;
        float t0 = (lo - from) / d;
        float t1 = (hi - from) / d;
        if (t0 > t1) std::swap(t0, t1);
        enter = std::max(enter, t0);
        leave = std::min(leave, t1);
        return enter <= leave;
    };
    if (!clip(s.from.x, s.to.x, box.minX, box.maxX) || !clip(s.from.y, s.to.y, box.minY, box.maxY))
        return std::nullopt;
    return enter;
}

/// A broad-phase technique. Implementations are `final` and listed in the registry table.
class BroadPhase {
public:
    virtual ~BroadPhase() = default;

    /// Takes new parameters, applied at the next update (until then forEachCell still shows the
    /// last step's structure). Throws std::invalid_argument for settings checkSettings rejects.
    virtual void configure(const Settings& settings) = 0;
    /// Takes in the current boxes. The caller keeps the view's arrays unchanged until the next
    /// update: findPairs and the queries read them.
    ///
    /// The contract every technique shares, checked here once for all of them: every box has
    /// finite corners with min <= max on both axes (a point is a valid box), and the ids are
    /// unique. Otherwise it throws std::invalid_argument naming the first bad box or id, and
    /// the technique is left as the last good update left it.
    void update(const BoxView& boxes);
    /// Clears `out` and fills it with candidate pairs, each once, a < b.
    virtual void findPairs(std::vector<Pair>& out) = 0;
    /// True when findPairs already tests the boxes, so every candidate overlaps (closed) and
    /// the caller can skip its own exact test.
    [[nodiscard]] virtual bool pairsAreExact() const { return false; }
    /// Visits the elements of the structure built by the last update (cells that hold entities,
    /// tree nodes, fat boxes, delimiters); brute force has none.
    virtual void forEachCell(const std::function<void(const CellView&)>& visit) const { (void)visit; }
    /// Checks every invariant of the structure built by the last update; returns the first broken
    /// one, or an empty string. Techniques that keep no structure between steps have none to break.
    [[nodiscard]] virtual std::string validate() const { return {}; }

    // Queries run on the boxes of the last update(); they report dense indices, each at most once.
    // A non-finite coordinate throws std::invalid_argument.

    /// Clears `out` and fills it with the boxes that contain `point` (closed), in any order.
    QueryCost queryPoint(Vec2 point, std::vector<std::uint32_t>& out);
    /// Clears `out` and fills it with the boxes that overlap `box` (closed), in any order.
    QueryCost queryBox(const Aabb& box, std::vector<std::uint32_t>& out);
    /// Clears `out` and fills it with every box the segment touches, sorted by t, then index.
    QueryCost queryRay(const Segment& segment, std::vector<RayHit>& out);
    /// The first box the segment touches (least t, then least index), in `hit`; nothing if none.
    QueryCost raycastFirst(const Segment& segment, std::optional<RayHit>& hit);

    /// Counters of the last update + findPairs (bytesHeld includes the id slots update() keeps).
    [[nodiscard]] Counters counters() const {
        Counters counters = m_counters;
        counters.bytesHeld += m_idSlots.bytesHeld();
        return counters;
    }
    /// Lets the caller that measured it record the allocations of the last step.
    void setHeapAllocations(std::uint64_t count) { m_counters.heapAllocations = count; }

protected:
    /// What each technique implements behind update(): the boxes are checked, and `ids` holds
    /// small stable slots instead of the caller's ids (unique, below idSlots().slotLimit(); a
    /// slot freed in one update is reused only from a later one), so tables kept by id hold
    /// memory in proportion to the live entities.
    virtual void doUpdate(const BoxView& boxes) = 0;
    [[nodiscard]] IdSlots& idSlots() { return m_idSlots; }
    [[nodiscard]] const IdSlots& idSlots() const { return m_idSlots; }

    // What each technique implements; the public wrappers above check the input and sort ray
    // hits. A point query is a box query of no size (closed boxes contain their edges).
    virtual QueryCost doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) = 0;
    virtual QueryCost doQueryRay(const Segment& segment, std::vector<RayHit>& out) = 0;
    virtual QueryCost doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) = 0;

    Counters m_counters;

private:
    IdSlots m_idSlots;
};

/// Orders hits by t, then index: the order queryRay reports and raycastFirst picks from.
[[nodiscard]] inline bool hitBefore(const RayHit& a, const RayHit& b) {
    return a.t < b.t || (a.t == b.t && a.index < b.index);
}

/// Keeps in `nearest` whichever of it and `candidate` comes first along the segment.
inline void keepNearest(std::optional<RayHit>& nearest, RayHit candidate) {
    if (!nearest || hitBefore(candidate, *nearest)) nearest = candidate;
}

}  // namespace ro

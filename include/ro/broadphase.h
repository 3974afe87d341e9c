#pragma once
/// The broad phase as a game calls it: BroadPhase (update, findPairs, queries, counters) and
/// the small value types it takes and gives (BoxView, Pair, Counters, QueryCost, RayHit).
/// Pick a technique through <ro/registry.h>.
///
/// Each step the world hands a technique the current boxes (update), then asks for candidate
/// pairs (findPairs). A candidate may or may not overlap; the world applies the exact AABB test,
/// which a technique whose candidates are exact (pairsAreExact) lets callers skip.
/// Every pair that overlaps must be among the candidates, each candidate is reported once,
/// with a < b. One virtual call per phase; the hot loops stay non-virtual inside each technique.

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ro/aabb.h"
#include "ro/pair.h"
#include "ro/parameters.h"

namespace ro {

/// Read-only view of the boxes a technique works on: structure of arrays, dense indices 0..count-1.
struct BoxView {
    const float* minX = nullptr;
    const float* minY = nullptr;
    const float* maxX = nullptr;
    const float* maxY = nullptr;
    const std::uint32_t* ids = nullptr;  ///< entity ids, unique and stable while an entity lives (any 32-bit value)
    std::uint32_t count = 0;
    // Which overlapping pairs are reported (PairRule); null arrays leave every pair in.
    const std::uint8_t* isStatic = nullptr;  ///< non-zero: the entity never moves; two statics never pair
    const std::uint32_t* category = nullptr; ///< the layers an entity is in (bits); with `mask`, or neither
    const std::uint32_t* mask = nullptr;     ///< the layers it collides with

    [[nodiscard]] Aabb box(std::uint32_t i) const { return {minX[i], minY[i], maxX[i], maxY[i]}; }
    /// The same entities (ids, flags, filters) over other coordinate arrays.
    [[nodiscard]] BoxView withCoordinates(const float* x0, const float* y0, const float* x1, const float* y1) const {
        BoxView view = *this;
        view.minX = x0, view.minY = y0, view.maxX = x1, view.maxY = y1;
        return view;
    }
};

/// autoCellSize(largest side, median side) of these boxes (a side: the larger of a box's width
/// and height). O(n); for a change of scene, not for every step.
[[nodiscard]] float autoCellSize(const BoxView& boxes);

/// A counter that only some techniques keep, by key.
struct NamedCounter {
    std::string_view key;  ///< e.g. "sort_swaps"; the HUD shows it with spaces for underscores
    double value = 0.0;
};

/// The counters a technique keeps beyond those every technique fills: the cell size in use
/// ("cell_size"), a sweep's sort swaps ("sort_swaps"), the hash's false positives
/// ("hash_false_positives"). A few at most, held in place (no heap, copied with Counters).
class ExtraCounters {
public:
    static constexpr std::size_t kCapacity = 8;
    /// Sets the counter with this key (a string that outlives the counters: a literal).
    void set(std::string_view key, double value) {
        for (std::size_t i = 0; i < m_count; ++i)
            if (m_items[i].key == key) {
                m_items[i].value = value;
                return;
            }
        if (m_count < kCapacity) m_items[m_count++] = {key, value};
    }
    [[nodiscard]] std::optional<double> find(std::string_view key) const {
        for (const NamedCounter& c : all())
            if (c.key == key) return c.value;
        return std::nullopt;
    }
    [[nodiscard]] std::span<const NamedCounter> all() const { return {m_items.data(), m_count}; }

private:
    std::array<NamedCounter, kCapacity> m_items{};
    std::size_t m_count = 0;
};

/// What a technique did in the last step: the HUD, the tests and the bench read these.
struct Counters {
    std::uint64_t candidatePairs = 0;   ///< unique pairs output by the last findPairs
    std::uint64_t pairTests = 0;        ///< pairs examined to produce them (the seeds' collisionTests)
    std::uint64_t elementsVisited = 0;  ///< cells, buckets or tree nodes visited by update + findPairs
    std::uint64_t bytesHeld = 0;        ///< heap memory held by the technique's structures
    std::uint64_t heapAllocations = 0;  ///< heap allocations during the last update + findPairs
    ExtraCounters extra;                ///< the technique's own counters, by key
};

/// One element of a technique's structure (a cell, a tree node, a fat box or a sweep's
/// delimiter), for the overlays and the structure tests.
struct StructureElement {
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

/// What a person choosing a technique reads about it, declared beside its code (`kGuide`) and
/// carried by its registry row: the app's panel and ro_bench --list show it.
struct TechniqueGuide {
    std::string_view how;         ///< how it works, in a sentence or two
    std::string_view complexity;  ///< one short line: the big O and when it holds
    std::string_view cost;        ///< its cost in more words: what it depends on, what it costs in memory
    std::string_view suits;       ///< the scenes to pick it for
    std::string_view source;      ///< author and title of the article it comes from (docs/references.md)
};

/// A broad-phase technique: what a game calls. Create one through the registry
/// (<ro/registry.h>); every technique answers the same calls the same way, brute force included.
class BroadPhase {
public:
    virtual ~BroadPhase() = default;

    /// The technique's parameters, as its registry row lists them.
    [[nodiscard]] virtual std::span<const ParameterSpec> parameters() const = 0;
    /// Takes new parameter values, applied at the next update (until then forEachElement still
    /// shows the last step's structure). Throws std::invalid_argument, naming the parameter and
    /// its range, for a value checkSettings rejects, and naming the key for a key that no
    /// technique in the registry has (a misspelt one); keys of other techniques are ignored.
    virtual void configure(const Settings& settings) = 0;
    /// Takes in the current boxes. The technique keeps what it needs of them (coordinates,
    /// static flags, filters), so the caller's arrays are free again when it returns: findPairs
    /// and the queries answer for these boxes until the next good update, whatever is since
    /// written into the arrays (or if they are freed).
    ///
    /// The contract every technique shares, checked once for all of them: every box has
    /// finite corners with min <= max on both axes (a point is a valid box), and the ids are
    /// unique. Otherwise it throws std::invalid_argument naming the first bad box or id, and
    /// the technique is left as the last good update left it.
    virtual void update(const BoxView& boxes) = 0;
    /// Like update(), when only the boxes at the dense indices `moved` changed since the last
    /// update: the same ids in the same order, the same static flags and filters (the caller
    /// vouches for that). Only the moved boxes are checked, and a technique that keeps state
    /// (the AABB tree) works in proportion to them; one that rebuilds every step rebuilds.
    /// Throws std::invalid_argument before a first update(), when the count changed, when static
    /// flags or filters came or went since it, or for a moved index out of range or a bad moved box.
    virtual void updateMoved(const BoxView& boxes, std::span<const std::uint32_t> moved) = 0;
    /// Whether updateMoved() costs in proportion to the moved boxes rather than to all of them.
    [[nodiscard]] virtual bool exploitsMovedLists() const { return false; }
    /// A new, empty instance of the same technique, its parameters at their defaults, or null
    /// where the technique cannot make one. A technique keeps the capacity of the most boxes it
    /// held; World swaps in a fresh one when its scene falls to a quarter of that, so memory
    /// follows the live entities.
    [[nodiscard]] virtual std::unique_ptr<BroadPhase> makeFresh() const { return nullptr; }
    /// Clears `out` and fills it with candidate pairs, each once, a < b.
    virtual void findPairs(std::vector<Pair>& out) = 0;
    /// True when findPairs already tests the boxes, so every candidate overlaps (closed) and
    /// the caller can skip its own exact test.
    [[nodiscard]] virtual bool pairsAreExact() const { return false; }
    /// Visits the elements of the structure built by the last update (cells that hold entities,
    /// tree nodes, fat boxes, delimiters); brute force has none.
    virtual void forEachElement(const std::function<void(const StructureElement&)>& visit) const { (void)visit; }
    /// Checks every invariant of the structure built by the last update; returns the first broken
    /// one, or an empty string. Techniques that keep no structure between steps have none to break.
    [[nodiscard]] virtual std::string validate() const { return {}; }

    // Queries run on the boxes of the last update(); they report dense indices, each at most once.
    // A non-finite coordinate throws std::invalid_argument.

    /// Clears `out` and fills it with the boxes that contain `point` (closed), in any order.
    virtual QueryCost queryPoint(Vec2 point, std::vector<std::uint32_t>& out) = 0;
    /// Clears `out` and fills it with the boxes that overlap `box` (closed), in any order.
    virtual QueryCost queryBox(const Aabb& box, std::vector<std::uint32_t>& out) = 0;
    /// Clears `out` and fills it with every box the segment touches, sorted by t, then index.
    virtual QueryCost queryRay(const Segment& segment, std::vector<RayHit>& out) = 0;
    /// The first box the segment touches (least t, then least index), in `hit`; nothing if none.
    virtual QueryCost raycastFirst(const Segment& segment, std::optional<RayHit>& hit) = 0;

    /// Counters of the last update + findPairs (bytesHeld includes what update() keeps of the
    /// ids, static flags and filters).
    [[nodiscard]] virtual Counters counters() const = 0;
    /// Lets the caller that measured it record the allocations of the last step.
    virtual void setHeapAllocations(std::uint64_t count) = 0;
};

}  // namespace ro

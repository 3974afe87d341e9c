#pragma once
/// Dynamic AABB tree (Lembcke and Korth's "axis aligned bounding box trees" and spatial-index operations:
/// insert, remove, reindex, query; built as Box2D's b2DynamicTree): the broad phase
/// around the structure in aabb_tree.h. Each entity is a leaf holding its fattened box (each
/// side pushed out by the parameter "fat_margin", by default a tenth of the boxes' median
/// side, so that it follows the scene's scale), kept across steps and changed
/// incrementally. O(n) per step to check the boxes, plus O(m log n) for the m entities that
/// left their fat box, plus O(p) for the p pairs whose fat boxes overlap.
///
/// - Entities: a proxy per entity (a stable handle, in a pool with a free list) holds its
///   exact box, dense index and leaf; a step inserts the entities that came and removes those
///   that went (EntityDiff says which), and touches only the leaves whose box left their fat
///   box. In an update's pass such a mover's new fat box grows where its leaf stands (its
///   ancestors' boxes grow to hold it, as Box2D v3 does), and the movers' tree is built
///   anew once as many have grown as there are movers: a build costs less than moving each.
/// - Pairs: a persistent list of the pairs whose FAT boxes overlap. Fat boxes change only when a
///   leaf is inserted or moved, so each step keeps the pairs of untouched leaves, drops those of
///   touched ones, and queries the tree only for the touched leaves. With a margin of a few
///   frames of motion that is a few percent of the leaves, so this beats re-querying every leaf
///   (n log n node visits a step) by about the tree depth; the price is one exact test per fat
///   pair, which also keeps the candidates down to the exact overlaps.
/// - Statics and filters: static leaves live in a tree of their own (as Chipmunk's static
///   index), with no fat margin, so a moving leaf reinserts into a tree of the movers alone,
///   and a touched static queries only that one (two statics never pair). A pair the rule
///   refuses never enters the list, so a field of statics costs nothing per step. Given the
///   moved entities (updateMoved), a step visits only them: O(m log n + p) with p the pairs
///   of moved leaves' fat boxes.
/// - A mover's pairs with statics are kept for a smaller box inside its fat box, its still
///   reach (a quarter of the margin around, 8 steps of motion ahead), with the static's box
///   beside each pair: statics are many, so a big fat box would keep ten pairs to test for
///   each overlap. A mover that leaves its still reach finds its statics anew; once the
///   statics have stayed unchanged for a few steps, in a grid of them (static_cells.h) rather
///   than the static tree: one contiguous scan per row of cells, not a descent with a cache
///   miss a level.
/// - Few movers among many statics (entered at most 4,096 movers with 8 statics or more for
///   each, left past 6,144 or under 6: level geometry and the bodies in it): the movers pair
///   with each other by a sweep of their exact boxes, along the axis they spread over,
///   re-sorted each step by insertion from the last order. At 1,000 movers among 99,000
///   statics that is ~800 tests a step, where their kept fat pairs were ~900 plus a tree
///   query for each leaf that left its fat box. Their fat boxes then decide no pair (the
///   still reach inside them does), so they reach 4 times as far around and ahead, and fewer
///   leaves move (their reinsertions took 5 us a step instead of 9); leaving the sweep gives
///   them the usual fat boxes again and builds the movers' tree anew.
/// - Fast movers: an update whose pass finds half the movers or more outside their fat boxes
///   (rain, teleports) rebuilds the movers' tree top down and lists its pairs afresh, about
///   20x cheaper than reinserting each; a leaf that jumped further than its fat box reaches,
///   at two reinsertions in a row, gets its own box (it would leave any fat box next step).
/// - Threads (the parameter "threads", as the grid's): the movers' queries go in chunks of 512
///   whatever the thread count, and with 2,048 or more, the chunks run in parallel (oneTBB)
///   into lists of their own, appended in chunk order: the pairs of one thread, in its order.
///   The rest of a step is serial.
/// - When half the leaves have moved since, the tree renumbers its nodes in depth-first
///   order, so queries walk memory that is close together. Nothing is allocated per step once
///   the pools have grown.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broadphase/technique_base.h"
#include "broadphase/entity_diff.h"
#include "broadphase/tree/aabb_tree.h"
#include "broadphase/tree/static_cells.h"

namespace ro {

class DynamicTree final : public Technique<DynamicTree> {
    friend class Technique<DynamicTree>;  // calls the hooks below

public:
    static constexpr TechniqueGuide kGuide{
        .how = "A bounding volume hierarchy of fattened boxes (as in Box2D); only a box that leaves its fat box "
               "is reinserted, and each moved box queries the tree. The fat margin is a tenth of the boxes' "
               "median side unless set, so it follows the scene's scale.",
        .complexity = "O(n + m log n + p): m leaves left their fat box, p fat pairs",
        .cost = "O(n + m log n + p): m boxes left their fat box, p pairs of fat boxes.",
        .suits = "Many static or slow bodies, unbounded worlds, ray casts.",
        .source = "Scott Lembcke and Andy Korth, \"Collision Detection and Spatial Indexes\" (2012)",
    };
    static constexpr ParameterSpec kMarginParameter{
        .key = "fat_margin",
        .label = "Fat margin",
        .kind = ParameterKind::Real,
        .min = 0.0,
        .max = 1.0e6,
        .offeredMin = 0.0,
        .offeredMax = 50.0,
        .defaultValue = 0.0,
        .unit = "world units",
        .help = "how far a leaf's fat box reaches beyond its box: larger moves the tree less, tests more pairs; "
                "0 (the default) is auto: a tenth of the boxes' median side, measured by the tree",
        .zeroIsAuto = true,
    };
    // The automatic margin (fat_margin 0) is fat_margin.h's rule, a tenth of the median side,
    // as for the coherence layer. 0 is the sentinel, as the hash's table size uses it, because
    // a margin of exactly 0 is useless (every move reinserts; 1e-6 does the same if wanted)
    // and a negative default would read as a length.
    /// While the movers sweep (few among many statics), the automatic margin is this share of
    /// the side instead: their fat boxes decide no pair there and they meet few others, so a
    /// longer reach costs little, while a tenth of the side made movers crossing half their
    /// side a step leave their still reach every step (static field at 100,000: 0.057 ms a
    /// step with the fixed 2 units, 0.14 with a tenth of the side everywhere).
    static constexpr float kSweptAutoShare = 1.0f;
    /// The margin in use: the parameter, or the automatic one as last measured.
    [[nodiscard]] float margin() const { return m_margin; }
    static constexpr ParameterSpec kParameters[] = {kMarginParameter, kThreadsParameter};
    DynamicTree();
    ~DynamicTree() override;

    /// Steps of motion a moved leaf's fat box reaches ahead, and that reach's limit in margins;
    /// kSteadySteps, up to kSteadyStretch margins, for a leaf whose motion kept its direction
    /// (within kSteadyCosine) since it was last placed and whose fat box met at most
    /// kSparseNeighbours others there: a body on a steady course through open space is
    /// reinserted about half as often (a fast one among statics, a third as often), and one
    /// in a crowd keeps a short reach, which would otherwise add more pairs than it saves.
    static constexpr float kPredictedSteps = 32.0f, kSteadySteps = 128.0f, kSteadyCosine = 0.9f, kMaxStretch = 4.0f,
                           kSteadyStretch = 16.0f;
    static constexpr std::uint8_t kSparseNeighbours = 1;
    /// The movers' queries go in chunks of this many, whatever the threads: a chunk's queries
    /// take turns (queryMany), so the chunks fix the order of the pairs, and on several
    /// threads the chunks' pairs concatenated are the one thread's.
    static constexpr std::uint32_t kQueriesPerChunk = 512;
    /// Fewer queries than this stay on one thread: a task's start would cost more than it saves.
    static constexpr std::uint32_t kMinParallelQueries = 2048;
    /// Steps of motion a leaf must have travelled, the same way, since it was placed for its
    /// first reinsertion to count as steady.
    static constexpr float kSteadyEvidenceSteps = 8.0f;
    /// An update whose pass finds at least this share of the movers (and kRebuildMin)
    /// outside their fat boxes rebuilds the movers' tree instead of reinserting each: it
    /// lists every fat pair anew, which at a quarter of the leaves (orbit's first wave at
    /// 100,000) cost more than the reinsertions.
    static constexpr float kRebuildShare = 0.5f;
    /// A mover that left its fat box in an update's pass takes its new one where it stands
    /// (AabbTree::enlarge: no search, no rotation; about a quarter of a move's cost at mixed
    /// 0.5:10:40:4), and the boxes above it loosen. Once the movers have done so this many
    /// times per mover since the last build, their tree is built anew (top down, ~10 ms at
    /// 100,000): every leaf moved once on average. Twice as many let queries slow down
    /// over 1,500 steps.
    static constexpr float kEnlargedShare = 1.0f;
    /// A dynamic leaf's reach among the statics (its still reach, inside its fat box): this
    /// share of the margin around its box, and this many steps of motion ahead, at most
    /// kStillStretch of those shares (2 margins). Statics are many and never move, so a small
    /// reach keeps few pairs to test a step, and the grid of statics makes finding them anew
    /// cheap. A mover on a course leaves it ahead, not to the side: with as far to go ahead,
    /// a quarter margin around kept 1,700 pairs where half a margin kept 2,400, for 10% more
    /// returns to the grid (1,000 movers among 99,000 statics: ~2.5 us a step less).
    static constexpr float kStillMarginShare = 0.25f, kStillPredictedSteps = 8.0f, kStillStretch = 8.0f;
    /// The largest height difference allowed between the two children of a node.
    static constexpr std::int32_t kMaxImbalance = AabbTree::kMaxImbalance;

    /// What the tree did since the last update() began (public edits add to it too).
    struct StepStats {
        std::uint64_t inserted = 0;
        std::uint64_t removed = 0;
        std::uint64_t reinserted = 0;  ///< leaves whose box left the fat box, moved in the tree
        std::uint64_t rotations = 0;   ///< child-grandchild swaps, for balance or perimeter
        std::uint64_t rebuilds = 0;    ///< the movers' tree rebuilt top down instead of reinserting one at a time
        std::uint64_t tightenings = 0; ///< the movers' tree rebuilt top down to tighten boxes grown in place
    };

    /// Adds entity `id` as dense index leafCount(). Throws std::invalid_argument if `id` is
    /// present or the box is not finite with min <= max.
    void insert(std::uint32_t id, const Aabb& box);
    /// Removes entity `id`; the last dense index takes its place (as the world swap-removes).
    /// Throws std::invalid_argument if `id` is absent.
    void remove(std::uint32_t id);
    /// Gives entity `id` a new box; returns true if it left its fat box and was reinserted.
    /// Throws std::invalid_argument if `id` is absent or the box is not finite with min <= max.
    bool move(std::uint32_t id, const Aabb& box);

    /// The exact box of dense index `dense` (below leafCount()) as the last update or move gave it.
    [[nodiscard]] Aabb boxOf(std::uint32_t dense) const { return m_proxies[m_proxyOfDense[dense]].box; }
    /// Leaves (entities) in the tree.
    [[nodiscard]] std::uint32_t leafCount() const { return static_cast<std::uint32_t>(m_proxyOfDense.size()); }
    /// Height of the root (0 for a single leaf or an empty tree).
    [[nodiscard]] std::uint32_t height() const { return std::max(m_trees[0].height(), m_trees[1].height()); }
    /// Sum of the inner nodes' half perimeters: the quantity the SAH keeps small.
    [[nodiscard]] double innerPerimeterSum() const {
        return m_trees[0].innerPerimeterSum() + m_trees[1].innerPerimeterSum();
    }
    /// Whether the statics' grid answers the moved leaves' queries (their statics have stayed
    /// unchanged for kSteadyStepsForCells steps, and are many and even enough for a grid).
    [[nodiscard]] bool usesStaticCells() const { return !m_staticCells.empty(); }
    /// Whether the movers pair by a sweep of their boxes (few movers among many statics, as of
    /// the last findPairs) rather than by their kept fat pairs.
    [[nodiscard]] bool pairsMoversBySweep() const { return m_sweepMovers; }
    [[nodiscard]] StepStats stepStats() const {
        StepStats stats = m_stats;
        stats.rotations = m_trees[0].rotations() + m_trees[1].rotations();
        return stats;
    }

    // Implementing interface of BroadPhase (see BroadPhase for documentation).
    void doUpdate(const BoxView& boxes) override;
    void doUpdateMoved(const BoxView& boxes, std::span<const std::uint32_t> moved);
    [[nodiscard]] bool exploitsMovedLists() const override { return true; }
    void findPairs(std::vector<Pair>& out) override;
    [[nodiscard]] bool pairsAreExact() const override { return true; }
    void forEachElement(const std::function<void(const StructureElement&)>& visit) const override;
    [[nodiscard]] std::string validate() const override;

protected:
    void applySettings(const Settings& settings) override;
    QueryCost doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) override;
    QueryCost doQueryRay(const Segment& segment, std::vector<RayHit>& out) override;
    QueryCost doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) override;

private:
    static constexpr std::uint32_t kNull = AabbTree::kNull;

    struct Proxy {
        Aabb box;             // the exact box of the last update or move
        std::uint32_t dense;  // dense index of the last update
        std::uint32_t leaf;   // its leaf in the tree, kNull while the proxy is free
    };
    struct ProxyPair {
        std::uint32_t a, b;
    };
    /// A dynamic proxy whose still reach touches a static's box, with that box beside it:
    /// statics do not move, so the step's test of the pair reads this list and the mover, and
    /// touches the static's own memory only when the pair first overlaps.
    struct StillPair {
        std::uint32_t mover, still;
        Aabb stillBox;
        std::uint32_t stillDense;  ///< the static's dense index, read when the pair first overlaps (else kNull)
    };

    void clear();
    static void checkBox(const Aabb& box);
    /// Makes m_proxyOfId hold ids below `size`.
    void growIdMap(std::uint32_t size);
    /// `box` pushed out by `margin` and ahead along `steps` of `motion` (its last step's),
    /// at most `stretch` margins.
    [[nodiscard]] static Aabb reachAhead(const Aabb& box, Vec2 motion, float margin, float steps,
                                         float stretch = kMaxStretch);
    /// The leaf's box: its box reached ahead by the margin, or the box itself for a static.
    [[nodiscard]] Aabb fatten(std::uint32_t proxy, const Aabb& box, Vec2 motion) const;
    /// A dynamic proxy's new still reach (inside its fat box); its pairs with statics go anew.
    void reachStatics(std::uint32_t proxy, Vec2 motion);
    void markStillDirty(std::uint32_t proxy);
    /// When a leaf that left its fat box is reinserted: at once (a public move), or after
    /// the update's pass, with the others that left (see settleLeaving).
    enum class Reinsert : std::uint8_t { Now, AfterThePass };
    /// Takes entity i's box in an update's pass (and, with `rules`, its static flag and
    /// filter): a changed rule reinserts the leaf, else it moves as moveProxy says.
    void takeEntity(std::uint32_t proxy, const BoxView& boxes, std::uint32_t i, bool rules);
    /// Gives the proxy its new box; if it left its fat box, reinserts it `when` says.
    void moveProxy(std::uint32_t proxy, const Aabb& box, Reinsert when);
    /// Takes entity i's static flag and filter from `boxes`; true if they changed.
    bool takeRule(std::uint32_t proxy, const BoxView& boxes, std::uint32_t i);
    /// Whether the pair rule lets the two proxies pair.
    [[nodiscard]] bool mayPair(std::uint32_t p, std::uint32_t q) const {
        return !(m_isStatic[p] & m_isStatic[q]) && (m_category[p] & m_mask[q]) != 0 && (m_category[q] & m_mask[p]) != 0;
    }

    /// A proxy for entity `id`; with `rules`, it takes entity i's static flag and filter.
    std::uint32_t createProxy(std::uint32_t id, const Aabb& box, const BoxView* rules = nullptr, std::uint32_t i = 0);
    void destroyProxy(std::uint32_t proxy);
    /// Empties every per-proxy array, the dirty lists and the pair lists.
    void clearProxies();
    /// How a leaf that left its fat box takes its new one: moved to where the SAH puts it, or
    /// enlarged where it stands (a mover in an update's pass; see kEnlargedShare).
    enum class Placement : std::uint8_t { Move, Enlarge };
    void reinsert(std::uint32_t proxy, Vec2 motion, Placement placement = Placement::Move);
    /// A reinserted leaf's new fat box (reaching further ahead on a steady course).
    void refatten(std::uint32_t proxy, Vec2 motion);
    /// Starts an update's pass, whose leaves that leave their fat boxes wait in m_leaving.
    void collectLeaving();
    /// Reinserts the leaves an update's pass found outside their fat boxes: one at a time,
    /// or, when they are many (kRebuildShare of the movers, and kRebuildMin), by rebuilding
    /// the movers' tree and listing its pairs afresh. Fast movers leave their fat boxes
    /// every step, and a build costs a fraction of a reinsertion per leaf. While the movers
    /// sweep, the leaves wait (across steps) unless `when` is Now or an overlay was drawn.
    enum class Settle : std::uint8_t { WhenNeeded, Now };
    void settleLeaving(Settle when = Settle::WhenNeeded);
    void markDirty(std::uint32_t proxy);
    void removeDense(std::uint32_t dense);

    /// The automatic margin (fat_margin.h): measured at the first update of a scene
    /// (an empty tree) and again once as many entities came and went as there were leaves
    /// (a new scene), then adopted only if it differs 2x or more (which rebuilds the tree).
    /// A tree filled by insert() takes a share of the side of the first box inserted into it empty.
    void fitMargin(const BoxView& boxes);
    /// The median side of (a sample of) the movers' boxes, or of all if none moves; points: their spacing.
    [[nodiscard]] float measureSide(const BoxView& boxes);
    void takeAutoMargin(float side);
    float m_margin = 0.0f;       ///< in use
    float m_sweptMargin = 0.0f;  ///< in use while the movers sweep (times kSweptMarginScale; see kSweptAutoShare)
    bool m_autoMargin = true;    ///< the parameter is 0: m_margin follows the boxes
    std::uint64_t m_churnSinceFit = 0;  ///< entities that came or went since the margin was measured
    std::uint64_t m_leavesAtFit = 0;    ///< leaves then
    std::vector<float> m_sides;         ///< measureSide's scratch
    /// A leaf per live proxy, carrying the proxy: the dynamic ones in m_trees[kMoving], the
    /// static ones in m_trees[kStill].
    static constexpr std::uint8_t kMoving = 0, kStill = 1;
    AabbTree m_trees[2];
    [[nodiscard]] AabbTree& treeOf(std::uint32_t proxy) { return m_trees[m_treeOf[proxy]]; }
    [[nodiscard]] const AabbTree& treeOf(std::uint32_t proxy) const { return m_trees[m_treeOf[proxy]]; }
    /// Renumbers a tree's nodes depth first once the leaves relocated in it reach half of it.
    /// Grows the trees' pools and the step's lists to the leaves there are, with headroom.
    void reserveForLeaves();
    void defragmentIfScattered(std::uint8_t which);
    enum class Rebuild : std::uint8_t { No, TopDown };
    /// Renumbers a tree's nodes depth first (after building it anew top down, if asked),
    /// telling each leaf's proxy its new node.
    void renumber(std::uint8_t which, Rebuild rebuild);
    /// Movers among many statics (at most kSweptMoversMax, and kStaticsPerSweptMover statics
    /// or more for each) pair with each other by a sweep of their exact boxes, sorted anew each
    /// step from the last order (few shifts: they moved a little), instead of keeping their fat
    /// pairs: 1,000 movers among 99,000 statics kept ~900 fat pairs and queried the movers'
    /// tree for each leaf that left its fat box; the sweep makes ~800 tests and no query.
    void chooseMoverPairing();
    /// The movers' pairs by the sweep; returns the pair tests.
    std::uint64_t sweepMovers(std::vector<Pair>& out);
    /// The sweep is entered with at most kSweptMoversMax movers and kStaticsPerSweptMover
    /// statics each, and left past 1.5 times as many movers or under kStaticsPerSweptMoverToStay.
    static constexpr std::uint64_t kSweptMoversMax = 4096, kStaticsPerSweptMover = 8, kStaticsPerSweptMoverToStay = 6,
                                   kSweepShiftsPerMover = 32;
    /// Movers after each one tested without a branch (sparse movers rarely reach further).
    static constexpr std::size_t kSweepWindow = 2;
    /// How much further a mover's fat box reaches while the movers pair by the sweep.
    static constexpr float kSweptMarginScale = 4.0f;
    /// A mover's box on the sweep's axis (low, high) and the other (otherLow, otherHigh).
    struct SweptMover {
        float low, high, otherLow, otherHigh;
        std::uint32_t proxy;
    };
    bool m_sweepMovers = false;
    bool m_moverOrderStale = true;  ///< movers came, went, or changed kind: list them anew
    bool m_sweepAlongY = false;
    std::vector<SweptMover> m_sweep;  ///< the movers by `low`, then kSweepWindow entries past them all
    std::vector<ProxyPair> m_sweepHits;  ///< sweepMovers' scratch: positions in m_sweep of the overlapping pairs
    /// Drops the statics' grid when a static came, went or changed; builds it when they have
    /// stayed unchanged for kSteadyStepsForCells steps (counted in findPairs calls).
    void keepStaticCells();
    static constexpr std::uint32_t kSteadyStepsForCells = 4;
    StaticCells m_staticCells;
    bool m_staticsChanged = false;
    std::uint32_t m_staticsSteadySteps = 0;
    std::vector<StaticCells::Static> m_cellStatics;  ///< keepStaticCells' scratch: box, proxy, dense index
    std::vector<std::uint32_t> m_queryMovers;        ///< findPairs' scratch: the dirty movers that query their tree
    /// Pairs the movers in m_queryMovers with the movers their fat boxes meet: appends the fat
    /// pairs to m_pairs and those whose boxes overlap to `out`; returns the tests.
    std::uint64_t queryMovers(std::vector<Pair>& out);
    struct Parallel;  ///< the task arena and the chunks' buffers (pairs.cpp): keeps TBB out of this header
    /// Takes the parameter "threads" (pairs.cpp, beside the parallel queries).
    void applyThreads(const Settings& settings);
    std::unique_ptr<Parallel> m_parallel;  ///< null when it runs on one thread
    std::vector<std::uint32_t> m_reachMovers;        ///< findPairs' scratch: the movers that query the grid,
    std::vector<Aabb> m_reaches;                     ///< their still reaches,
    std::vector<StaticCells::RowScan> m_rowScans;    ///< and the rows of cells those cover
    bool m_cellDenseValid = false;  ///< no dense index moved since the grid was built
    EntityDiff m_diff;  ///< which ids came and went since the last update

    std::vector<Proxy> m_proxies;
    std::vector<Aabb> m_fatBoxes;              ///< by proxy: its leaf's box (the box it takes, for a leaf that waits)
    std::vector<Vec2> m_reinsertMotion;        ///< by proxy: the step's motion at its last (re)insertion
    std::vector<Vec2> m_placedAt;              ///< by proxy: its box's min corner at its last (re)insertion
    std::vector<float> m_reachSteps;           ///< by proxy: steps of motion its fat box reaches ahead
    std::vector<std::uint8_t> m_neighbours;    ///< by proxy: movers its fat box met when last listed (at most 255; 0 while the movers sweep)
    std::vector<std::uint32_t> m_proxyId;      ///< by proxy: its entity id
    std::vector<std::uint8_t> m_isStatic;      ///< by proxy: 1 if static
    std::vector<std::uint8_t> m_treeOf;        ///< by proxy: the tree its leaf is in (kMoving, kStill)
    std::vector<std::uint32_t> m_category;     ///< by proxy: filter category (all bits without filters)
    std::vector<std::uint32_t> m_mask;         ///< by proxy: filter mask
    std::vector<std::uint8_t> m_dirty;         ///< by proxy: inserted, moved, freed or re-ruled since findPairs
    std::vector<std::uint32_t> m_dirtyList;    ///< the proxies with m_dirty set
    std::vector<Aabb> m_stillReach;            ///< by dynamic proxy: the box its pairs with statics are kept for
    std::vector<std::uint8_t> m_stillDirty;    ///< by proxy: its still reach changed (or it went) since findPairs
    std::vector<std::uint32_t> m_stillDirtyList;
    std::vector<std::uint32_t> m_freeProxies;
    std::vector<std::uint32_t> m_proxyOfId;    ///< by entity id, kNull if absent
    std::vector<std::uint32_t> m_proxyOfDense; ///< by dense index
    std::vector<ProxyPair> m_pairs;            ///< pairs of dynamic proxies whose fat boxes overlap
    std::uint32_t m_reservedLeaves[2] = {0, 0};  ///< leaves each tree's pools were grown for (reserveForLeaves)
    std::size_t m_reservedProxies = 0;           ///< proxies the step's lists were grown for
    std::vector<StillPair> m_stillPairs;       ///< pairs of a dynamic proxy's still reach and a static's box that touch
    std::vector<Pair> m_pairHits;              ///< findPairs' scratch: the kept fat pairs' dense pairs, those that overlap first
    std::vector<std::uint32_t> m_stillHits;    ///< findPairs' scratch: the kept still pairs that overlap, by position
    bool m_anyRuled = false;        ///< the last update had static flags or filters
    bool m_filtersSeen = false;     ///< some proxy had a category or mask other than all bits
    bool m_reachKept = false;       ///< there were statics at the last findPairs: movers keep still reaches
    bool m_denseChanged = false;    ///< entities came or went since findPairs: dense indices moved
    bool m_bulkLoad = false;        ///< this update stages new leaves and builds the trees once
    bool m_pairsAnew = false;       ///< after a bulk load or a rebuild: findPairs lists every fat pair afresh
    static constexpr std::size_t kBulkLoadMin = 256;
    /// A movers' tree of at most this many nodes (256 KB, a quarter of a core's L2 here) is
    /// prefetched whole before the leaves that left their fat boxes are reinserted.
    static constexpr std::size_t kPrefetchedTreeNodes = 8192;
    static constexpr std::size_t kRebuildMin = 256;  ///< fewer leaving leaves are always reinserted one at a time
    static constexpr std::size_t kPairLookahead = 16;  ///< kept pairs ahead whose proxies are prefetched
    /// Asks the caches for an array's lines a share at a time, over `steps` steps of a loop.
    class LineFetcher {
    public:
        template <typename T>
        LineFetcher(const std::vector<T>& array, std::size_t steps)
            : m_bytes(reinterpret_cast<const char*>(array.data())),
              m_lines((array.size() * sizeof(T) + kLine - 1) / kLine),
              m_perStep(steps == 0 ? 0 : (m_lines + steps - 1) / steps) {}
        void operator()(std::size_t step) const {
            for (std::size_t line = step * m_perStep, end = std::min(line + m_perStep, m_lines); line < end; ++line)
                __builtin_prefetch(m_bytes + line * kLine);
        }

    private:
        static constexpr std::size_t kLine = 64;
        const char* m_bytes;
        std::size_t m_lines, m_perStep;
    };
    struct Leaving {
        std::uint32_t proxy;
        Vec2 motion;  ///< its step, from the box it had before
    };
    std::vector<Leaving> m_leaving;  ///< movers whose box left their fat box, to be settled; a proxy once at most
    /// A proxy's place in m_leaving: not listed, listed and waiting, or listed but no longer
    /// waiting (removed, or placed by a public move or a rule change, since it left).
    enum LeavingState : std::uint8_t { kUnlisted, kWaits, kListedOnly };
    std::vector<std::uint8_t> m_leavingState;  ///< by proxy
    void stopWaiting(std::uint32_t proxy) {
        if (m_leavingState[proxy] == kWaits) m_leavingState[proxy] = kListedOnly;
    }
    /// Updates that still settle every waiting leaf because an overlay drew the tree
    /// (forEachElement, const, sets it: the tree's state is a cache the overlay wants current).
    mutable std::uint32_t m_overlayUpdatesLeft = 0;
    static constexpr std::uint32_t kShownUpdates = 120;
    std::uint64_t m_relocated[2] = {0, 0};  ///< by tree: leaves inserted or reinserted since its last defragment()
    std::uint64_t m_nodesVisited = 0;  ///< by queries of findPairs; the tree counts its own edits
    StepStats m_stats;                 ///< all but the rotations, which the tree counts
};

}  // namespace ro

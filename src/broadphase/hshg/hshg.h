#pragma once
/// Hierarchical spatial hash grid (Petersen, "Attempt #3"; Petersen's "Future Expansion": one
/// cell per entity, a hierarchy of grids for entities of different sizes; Lembcke and Korth's queries).
/// O(n + k) for any mix of sizes: no entity is ever put in more than one cell.
///
/// Levels. Level L has the nominal size s_L = s_0 * f^L (f = the parameter "level_factor"), and cells a
/// hair larger: c_L = s_L * (1 + 2^-10). The levels are anchored at the largest entity: s_0 is
/// the smallest entity's side or up to f times more, so that one level's size is the largest
/// side (plus 2^-8 of it, for rounding). They are kept while the smallest stays within a
/// factor f of the smallest when they were set, so one new entity does not rehash everyone.
/// An entity lives on the lowest level with s_L >= its largest side, in the ONE cell holding
/// its min corner. At most 24 levels: when the sizes spread over f^24 or more, s_0 is the
/// smallest side and the top level stretches to hold the largest entity. Boxes
/// wider than 1e30 (or NaN) skip the levels and are tested against everyone (oversized.h).
/// It has no cell size parameter: the HSHG picks its cells from the entities, and the
/// counter "cell_size" reports c_0.
///
/// Neighbourhood rule. If box B (side wB < c) overlaps box Q, closed, then
/// Q.minX - wB <= B.minX <= Q.maxX, so B's column floor(B.minX / c) lies in
/// [cell(Q.minX) - 1, cell(Q.maxX)], and its row likewise: a 2x2 block of cells for a box Q
/// inside one cell, 3x3 at most for Q no wider than a cell. Cells are computed in double and
/// clamped to +-2^28 (far boxes share the edge cells); the 2^-10 margin between s_L and c_L
/// absorbs the rounding of widths and cells, so boxes that touch exactly are never missed.
/// Each pair is found once:
///  - same level: within the cell, and against HALF the 8 neighbours, (x+1, y) and
///    (x-1..x+1, y+1);
///  - two levels: in one direction per pair of levels, the cheaper by their populations:
///    each entity of the finer level looks up its block on the coarser one (Petersen's way;
///    cheap when the fine level is sparse), or each entity of the coarser level looks up its
///    footprint on the finer one (fewer tests when the fine level is crowded: the footprint
///    hugs the box, where the block is 2x2 big cells).
///
/// Storage. One 64-bit key (level, row, column) per entity, sorted, with the boxes copied in
/// that order. Same-level neighbours are then two contiguous key ranges, [k, k+1] and
/// [k+W-1, k+W+1], reached by a cursor that only moves forward: no hashing, no lookup. Other
/// levels are looked up through a table of first slots per block of cells where lookups are
/// many, else by binary search.
///
/// Pair loops. Where hits are common (lookups into a level with a table, crowded levels) no
/// test branches on its hit: each writes its pair and a hit keeps it, and a lookup's rows
/// (a few slots each in the bench) are listed first and tested four at a time in one loop,
/// since a loop per row would end at a hard-to-guess place. A sparse level, and a lookup by
/// binary search (few lookups), keep a branch per hit: rarely taken, or rarely run.
///
/// Rehash only on cell change: each entity's key is kept by id, and only the entities whose
/// cell changed (about 5% per step in the bench's motion; rehashedLastUpdate() counts them)
/// are radix-sorted and merged into the kept order. The merge still copies every box into the
/// sorted order each step, since every box moved; a per-step radix rebuild would pay for that
/// copy too, and sort everyone besides. counters().elementsVisited: entities rehashed, plus the
/// cells findPairs examined.
///
/// Threads (the parameter "threads", as the grid's). From 16,384 placed entities, findPairs cuts
/// each level's scans (within it, then its lookups) into chunks of consecutive slots, scanned
/// in parallel (oneTBB) into a buffer per chunk, concatenated in order: a slot's pairs depend
/// on that slot alone, so the array is the serial one. placeAll runs in equal parts of the
/// entities. The merge runs one key range of the kept order a thread, each range's slots in
/// the new order known from the entities placeAll counted leaving it. The sort of the moved
/// and the oversized pairs stay serial.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "broadphase/technique_base.h"
#include "broadphase/box_copy.h"
#include "broadphase/entity_diff.h"
#include "broadphase/oversized.h"

namespace ro {

class HierarchicalGrid final : public Technique<HierarchicalGrid> {
    friend class Technique<HierarchicalGrid>;  // calls the hooks below

public:
    static constexpr TechniqueGuide kGuide{
        .how = "Several grids, each twice (the level factor) as coarse as the last; a box goes to the level its "
               "size fits, and each level is tested against itself and coarser ones.",
        .complexity = "O(n + k) for any mix of sizes; rehash on cell change",
        .cost = "O(n + k) for any mix of sizes; a box moving to a new cell is rehashed.",
        .suits = "Sizes of every mix, or sizes you do not know ahead; the fastest in ro_bench's uniform and "
                 "mixed-size runs at 100,000.",
        .source = "Andrew Petersen, \"Broad Phase Collision Detection Using Spatial Partitioning\"",
    };
    static constexpr ParameterSpec kFactorParameter{
        .key = "level_factor",
        .label = "Level factor",
        .kind = ParameterKind::Real,
        .min = 1.5,
        .max = 16.0,
        .offeredMin = 1.5,
        .offeredMax = 8.0,
        .defaultValue = 2.0,
        .unit = "",
        .help = "cell size ratio between one level and the next: fewer levels when larger, looser cells",
    };
    static constexpr ParameterSpec kParameters[] = {kFactorParameter, kThreadsParameter};
    HierarchicalGrid();
    ~HierarchicalGrid() override;

    static constexpr std::uint32_t kMaxLevels = 24;
    /// Entities wider than this skip the levels and are paired by a scan.
    static constexpr float kMaxSide = 1.0e30f;

    /// The level an entity of this largest side goes to under the last update's geometry
    /// (kMaxLevels: it skips the levels).
    [[nodiscard]] std::uint32_t levelOfSide(float side) const;
    /// The largest side a level holds (s_L), its cell side, and how many entities it held after
    /// the last update.
    [[nodiscard]] double levelSize(std::uint32_t level) const { return m_levels.at(level).size; }
    [[nodiscard]] double levelCellSize(std::uint32_t level) const { return m_levels.at(level).cell; }
    [[nodiscard]] std::uint32_t levelPopulation(std::uint32_t level) const;
    /// After an update, for two populated levels fine < coarse: true when each coarse entity
    /// looks up its footprint on `fine`, false when each fine entity looks up its block on `coarse`.
    [[nodiscard]] bool searchesDown(std::uint32_t fine, std::uint32_t coarse) const;
    /// Entities (re)inserted by the last update because their cell changed or they are new.
    [[nodiscard]] std::uint64_t rehashedLastUpdate() const { return m_rehashed; }

    // Implementing interface of BroadPhase (see BroadPhase for documentation).
    void doUpdate(const BoxView& boxes) override;
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
    struct IdState {            // 32 bytes, by entity id
        std::uint64_t key;      ///< the cell it is in, kOversizedKey, or kNoKey when new or gone
        Aabb box;               ///< this step's box
        std::uint32_t dense;    ///< this step's dense index
    };
    /// A box as its slot stores it, (minX, minY, -maxX, -maxY): box b overlaps box a when b's
    /// four lanes are <= a's probe (maxX, maxY, -minX, -minY), one SIMD compare per candidate.
    struct SlotBox {
        float minX, minY, negMaxX, negMaxY;
        [[nodiscard]] Aabb box() const { return {minX, minY, -negMaxX, -negMaxY}; }
    };
    struct Moved {
        std::uint64_t key;
        std::uint32_t id;
        std::uint32_t order;  ///< its dense index: equal keys keep the order they were placed in
    };
    struct Level {
        double size = 0.0;     ///< s_L: the largest side it holds
        double below = 0.0;    ///< s_{L-1}: it holds sides above this (-inf on level 0)
        double cell = 0.0;     ///< c_L
        double inverse = 0.0;  ///< 1 / c_L
        std::uint32_t begin = 0, end = 0;  ///< its slots in the sorted order
        bool hasTable = false;             ///< a direct table of first slots per block of its extent
        std::int32_t x0 = 0, y0 = 0;       ///< the table's extent, in cells
        std::uint32_t width = 0, height = 0;
        std::uint32_t blockShift = 0;      ///< a block is 2^blockShift columns of one row
        std::uint32_t rowBlocks = 0;       ///< blocks per row
        std::uint32_t tableBegin = 0;      ///< in m_table; rowBlocks * height + 1 entries
        std::uint32_t targets = 0;         ///< bit T: its entities look up level T (T != L)
        bool crowded = false;  ///< its last scan within it found over one pair per two entities: scan without branches
    };
    struct SizeStats {
        float minPositiveSide;
        float maxSide;
    };
    struct CellRect {
        std::int32_t x0, y0, x1, y1;
    };
    class PairWriter;  ///< findPairs' output, written without a branch per test
    struct Parallel;   ///< the task arena and the chunks' buffers (hshg.cpp): keeps TBB out of this header

    [[nodiscard]] static SlotBox slotBoxOf(const Aabb& box);
    /// The lowest level whose size holds `side` (placeAll checks an entity's last level first).
    [[nodiscard]] std::uint32_t levelFor(float side) const;
    [[nodiscard]] CellRect reachOf(std::uint32_t level, const Aabb& box) const;
    [[nodiscard]] bool geometryFits(const SizeStats& stats) const;
    [[nodiscard]] SizeStats measureSizes() const;
    void setGeometry(const SizeStats& stats);
    /// Takes each entity's box and cell; lists in m_moved those whose cell changed. With
    /// `recordsReady` (every entity has its record), on several threads.
    SizeStats placeAll(bool rebuild, bool recordsReady);
    struct PlaceBounds {  ///< placeAll's view of the levels: the sides each holds, in float, and 1 / c_L
        std::array<float, kMaxLevels> holdsAbove, holdsUpTo;
        std::array<double, kMaxLevels> inverse;
    };
    /// placeAll over the entities [begin, end), appending to `moved` and `oversized`; grows the
    /// records for new ids if `mayGrow`, else throws on one (the parallel parts). With
    /// `leftByRange`, counts there, by merge range, the entities that leave the kept order.
    SizeStats placeRange(std::uint32_t begin, std::uint32_t end, bool rebuild, const PlaceBounds& bounds,
                         std::vector<Moved>& moved, std::vector<std::uint32_t>& oversized, bool mayGrow,
                         std::uint32_t* leftByRange);
    void growState(std::uint32_t id);
    /// On several threads, cuts the kept order into key ranges, one a thread, for mergeOrder:
    /// chosen before any record changes, so that the entities leaving each range are counted
    /// as they leave, and each range's place in the new order is known without another pass.
    void chooseMergeRanges(bool rebuild);
    void mergeOrder(bool rebuild);
    /// Merges the kept slots [keptBegin, keptEnd) with the sorted moved entries [next, movedEnd)
    /// into the new order's slots from `out`, at most up to `outEnd`; returns the slot after
    /// the last written.
    std::uint32_t mergeRange(std::uint32_t keptBegin, std::uint32_t keptEnd, const Moved* next, const Moved* movedEnd,
                             std::uint32_t out, std::uint32_t outEnd);
    /// mergeOrder's merge, one key range a thread (chooseMergeRanges).
    void mergeInRanges(std::uint32_t previous, std::uint32_t placed);
    void plan();
    [[nodiscard]] double spreadArea() const;
    void buildTable(std::uint32_t level);
    /// findPairs' two parts: pairs within a level, and a level's lookups in its target levels.
    /// Both over the slots [begin, end) of the level, which lv.begin <= begin <= end <= lv.end.
    template <bool kCrowded>
    void pairWithinLevel(const Level& lv, std::uint32_t begin, std::uint32_t end, PairWriter& out,
                         std::uint64_t& testCount) const;
    void pairAcrossLevels(const Level& lv, std::uint32_t begin, std::uint32_t end, PairWriter& out,
                          std::uint64_t& testCount, std::uint64_t& cellCount) const;
    /// findPairs on several threads: the levels' slots in chunks, each chunk's pairs in a buffer
    /// of its own, the buffers concatenated in the serial order. Returns the tests and cells.
    std::pair<std::uint64_t, std::uint64_t> findPairsInChunks(std::vector<Pair>& out);
    /// Visits the slots of `level` whose cells lie in the rows [y0, y1] and columns [x0, x1]
    /// (through a table, also those of the end blocks' other columns: callers test every slot);
    /// returns the cells spanned. Rows are found in the level's table or by binary search.
    template <typename Visit>
    std::uint64_t forEachInRows(std::uint32_t level, CellRect r, Visit visit) const;
    /// For the rows of a table level's rectangle (clamped to the extent), in batches, calls
    /// runs(RowRuns): the slots [begins[k], ends[k]) (k < count, total in all) of the batch's
    /// rows that hold any: those of the rectangle's blocks, so a few may lie up to
    /// 2^blockShift - 1 columns past its columns. Returns the cells spanned.
    template <typename Runs>
    std::uint64_t forEachTableRow(std::uint32_t level, CellRect r, Runs runs) const;
    /// As forEachInRows, but visits every slot of the level when that is cheaper.
    template <typename Visit>
    std::uint64_t forEachInRect(std::uint32_t level, CellRect r, Visit visit) const;
    template <typename OnHit, typename KeepGoing>
    QueryCost walkSegment(const Segment& segment, OnHit hit, KeepGoing keepGoing);

    /// The last update's boxes: the caller's during the update; after it, over m_copy when
    /// some entity is oversized, else with no coordinates (nothing reads them then).
    BoxView m_boxes;
    BoxCopy m_copy;
    float m_factor = 2.0f;
    bool m_hasGeometry = false;
    double m_smallest = 1.0;  ///< the smallest side when the levels were set, for the hysteresis
    bool m_topStretched = false;  ///< the top level was widened to hold the largest entity
    bool m_needsRebuild = false;  ///< an update failed: the next one places every entity afresh
    std::array<Level, kMaxLevels> m_levels{};
    std::uint32_t m_populated = 0;  ///< bit L: level L holds entities
    std::uint64_t m_rehashed = 0;
    std::uint32_t m_placed = 0;  ///< entities in the levels (the rest are oversized)

    std::vector<IdState> m_state;  ///< by id
    EntityDiff m_diff;             ///< which ids came and went since the last update
    std::vector<Moved> m_moved, m_movedScratch;
    bool m_movedSorted = false;  ///< placeAll sorted m_moved already (in parts, on several threads)
    // The sorted order, one slot per placed entity, then a few slots of padding (end keys).
    std::vector<std::uint64_t> m_keys, m_previousKeys;
    std::vector<std::uint32_t> m_ids, m_previousIds;
    std::vector<SlotBox> m_slotBoxes;
    std::vector<std::uint32_t> m_slotDense;
    std::vector<std::uint32_t> m_table;  ///< the levels' direct tables, end to end

    std::vector<std::uint32_t> m_oversized;   ///< dense indices of entities that skip the levels
    std::vector<std::uint8_t> m_isOversized;  ///< by dense index, filled only when some are
    OversizedScratch m_oversizedScratch;
    std::vector<std::uint32_t> m_queryMark;   ///< by slot: the last ray query that met it
    std::uint32_t m_queryStamp = 0;
    std::unique_ptr<Parallel> m_parallel;  ///< null when it runs on one thread
};

}  // namespace ro

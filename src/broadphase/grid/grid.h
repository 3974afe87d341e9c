#pragma once
/// Spatial grid (Petersen; Lembcke and Korth): a bounded dense grid over the world, offset by its min
/// corner, rebuilt every step. An entity goes in every cell its box overlaps; boxes outside
/// the grid clamp to the edge cells. O(n + k) when the cell fits the largest box.
///
/// Each step lists (cell, entity) entries and radix-sorts them by cell, so a cell's entities
/// end up contiguous and the pair scan reads memory in order (a counting sort straight into
/// the cell array would miss the cache on every entity). A pair sharing several cells is
/// reported only in the first cell both boxes cover: no pair cache, no string keys, and no
/// lookup either, since two flag bits per entry say whether the cell is in the entity's first
/// column and first row.
/// An entity covering more than kMaxCellsPerEntity cells, or reaching more than a cell beyond
/// the bounds (where it would be clamped into an edge cell), skips the grid (oversized.h).
///
/// With more than one thread, pair finding splits the sorted entries into chunks at cell
/// boundaries, scans them in parallel (oneTBB) into one buffer per chunk, and concatenates
/// the buffers in chunk order: the pair array is the serial one, pair for pair.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "broadphase/technique_base.h"
#include "broadphase/box_copy.h"
#include "broadphase/oversized.h"

namespace ro {

class SpatialGrid final : public Technique<SpatialGrid> {
    friend class Technique<SpatialGrid>;  // calls the hooks below

public:
    static constexpr TechniqueGuide kGuide{
        .how = "A fixed array of cells over the world; each box is listed in the cells it covers, and boxes "
               "sharing a cell are tested.",
        .complexity = "O(n + k) when the cell fits the largest box",
        .cost = "O(n + k) when a cell fits the largest box; memory grows with the bounds' area.",
        .suits = "Bounded worlds with sizes in one range: the simplest good choice.",
        .source = "Andrew Petersen, \"Broad Phase Collision Detection Using Spatial Partitioning\"",
    };
    /// At most this many cells (cell indices fit two 12-bit radix passes); a smaller cell size
    /// is widened to fit, and the counter "cell_size" reports the size in use.
    static constexpr std::uint32_t kMaxCells = 1u << 24;
    /// Entity indices share their word with two flags.
    static constexpr std::uint32_t kMaxEntities = 1u << 30;
    /// The grid covers Settings::bounds and clamps what lies outside.
    static constexpr ParameterSpec kParameters[] = {kCellSizeParameter, kThreadsParameter};
    SpatialGrid();
    ~SpatialGrid() override;

    // Implementing interface of BroadPhase (see BroadPhase for documentation).
    void doUpdate(const BoxView& boxes) override;
    void findPairs(std::vector<Pair>& out) override;
    void forEachElement(const std::function<void(const StructureElement&)>& visit) const override;

protected:
    void applySettings(const Settings& settings) override;
    QueryCost doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) override;
    QueryCost doQueryRay(const Segment& segment, std::vector<RayHit>& out) override;
    QueryCost doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) override;

private:
    struct Entry {
        std::uint32_t cell;
        std::uint32_t entity;  ///< index | kFirstColumn | kFirstRow
    };
    struct CellRange {
        std::uint32_t x0, y0, x1, y1;
    };
    static constexpr std::uint32_t kFirstColumn = 1u << 31;  ///< the cell is in the entity's first column
    static constexpr std::uint32_t kFirstRow = 1u << 30;     ///< the cell is in the entity's first row
    static constexpr std::uint32_t kIndexMask = kFirstRow - 1;

    struct Parallel;  // the task arena and the chunks' buffers (grid.cpp): keeps TBB out of this header

    /// Scans the cell runs of [begin, end), which starts and ends at run boundaries, appending
    /// its pairs to `out` and adding to the counts.
    void scanRuns(const Entry* begin, const Entry* end, std::vector<Pair>& out, std::uint64_t& tests,
                  std::uint64_t& occupiedCells) const;
    [[nodiscard]] std::uint32_t column(float x) const;
    [[nodiscard]] std::uint32_t row(float y) const;
    /// Calls visit(entry) for the entries of cells [firstCell, lastCell] (one row's span);
    /// returns how many it visited.
    template <typename Visit>
    std::uint64_t forEachEntry(std::uint32_t firstCell, std::uint32_t lastCell, Visit visit) const;
    /// Walks the cells along a segment, calling hit(entity, t) once per entity it touches;
    /// stops early when keepGoing(enterT) says a row cannot hold a better hit.
    template <typename OnHit, typename KeepGoing>
    QueryCost walkSegment(const Segment& segment, OnHit hit, KeepGoing keepGoing);

    BoxCopy m_copy;   ///< the last good update's coordinates
    BoxView m_boxes;  ///< that update's boxes, over the copy
    Aabb m_bounds;
    float m_cellSize = 1.0f;
    float m_inverseCellSize = 1.0f;
    std::uint32_t m_columns = 1;
    std::uint32_t m_rows = 1;
    std::uint32_t m_cellBits = 1;  ///< bits of the largest cell index: what the radix sort sorts on
    std::vector<CellRange> m_ranges;  ///< each entity's cell range, this step
    std::vector<Entry> m_entries;     ///< (cell, entity), sorted by cell after update
    std::vector<Entry> m_sortScratch;
    std::vector<std::uint32_t> m_oversized;   ///< entities that skip the grid
    std::vector<std::uint8_t> m_isOversized;  ///< by entity index
    OversizedScratch m_oversizedScratch;
    std::vector<std::uint32_t> m_queryMark;   ///< by entity: the last ray query that met it
    std::uint32_t m_queryStamp = 0;
    std::unique_ptr<Parallel> m_parallel;  ///< null when the grid runs on one thread
};

}  // namespace ro

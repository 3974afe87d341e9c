#pragma once
/// Spatial hash (the spatial hashing article; Lembcke and Korth): an unbounded grid whose cells are hashed into a table of
/// prime size with Chipmunk's coordinate hash. O(n + k) when the cell fits the entities, plus
/// the false positives of cells that share a bucket (the counter "hash_false_positives").
///
/// Insert and query are one pass (Lembcke and Korth's reindex/query): each entity first collects the
/// entities already in its buckets, then inserts itself, so every pair comes out once. A
/// query stamp per entity stops a neighbour met in two cells from being reported twice.
/// Entities are visited row by row, so a neighbour's data is still in cache when it is met
/// (in the world's order every access would be a miss). Buckets are reset lazily by a frame
/// stamp, never cleared wholesale.

#include <cstdint>
#include <optional>
#include <vector>

#include "broadphase/technique_base.h"
#include "broadphase/box_copy.h"
#include "broadphase/oversized.h"

namespace ro {

class SpatialHash final : public Technique<SpatialHash> {
    friend class Technique<SpatialHash>;  // calls the hooks below

public:
    static constexpr TechniqueGuide kGuide{
        .how = "Cells as in the grid, but found through a hash table: unbounded worlds, and two far cells may "
               "share a bucket (a false positive).",
        .complexity = "O(n + k) when the cell fits the entities",
        .cost = "O(n + k) when a cell fits the entities; table size trades memory for collisions.",
        .suits = "Unbounded or sparse worlds with sizes in one range.",
        .source = "\"Fast Collision in Games: Spatial Hashing vs. Naive\"; Lembcke and Korth (2012)",
    };
    /// Largest table (512 MiB of buckets): checkSettings refuses a larger request, and the
    /// automatic size (about 10x the count) stops here.
    static constexpr std::uint32_t kMaxTableSize = 1u << 26;
    static constexpr ParameterSpec kTableSizeParameter{
        .key = "hash_buckets",
        .label = "Buckets",
        .kind = ParameterKind::Integer,
        .min = 0,
        .max = kMaxTableSize,
        .offeredMin = 0,
        .offeredMax = kMaxTableSize,
        .defaultValue = 0,
        .unit = "buckets",
        .help = "size of the hash table, rounded up to a prime; 0 picks one near 10x the entity count",
        .zeroIsAuto = true,
    };
    static constexpr ParameterSpec kParameters[] = {kCellSizeParameter, kTableSizeParameter};
    SpatialHash() : Technique(kParameters) {}

    /// Chipmunk's hash of Lembcke and Korth before the modulo: multiply by large primes and XOR.
    [[nodiscard]] static std::uint32_t hashKey(std::int32_t x, std::int32_t y) {
        return static_cast<std::uint32_t>(x) * 1640531513u ^ static_cast<std::uint32_t>(y) * 2654435789u;
    }
    /// The smallest prime >= n (n >= 2).
    [[nodiscard]] static std::uint32_t nextPrime(std::uint32_t n);
    /// The prime table size used for a requested size (0: about 10x the entity count).
    [[nodiscard]] static std::uint32_t tableSizeFor(std::uint32_t requested, std::uint32_t entityCount);
    /// The bucket of cell (x, y): hashKey modulo the prime table size.
    [[nodiscard]] std::uint32_t bucketOf(std::int32_t x, std::int32_t y) const;
    /// Buckets in the table (after the first update).
    [[nodiscard]] std::uint32_t tableSize() const { return m_tableSize; }

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
    struct CellRange {
        std::int32_t x0, y0, x1, y1;
    };
    struct Bucket {
        std::uint32_t head;   ///< newest node, or kEnd
        std::uint32_t frame;  ///< the bucket is live this step iff frame == m_frame
    };
    struct Visit {
        std::uint32_t key;  ///< row-major cell of the entity's min corner
        std::uint32_t entity;
    };
    struct Node {
        std::uint32_t rank;  ///< position of the entity in the visit order
        std::uint32_t next;  ///< next node in the bucket, kEnd at the tail
        std::int32_t cellX, cellY;
    };

    [[nodiscard]] std::int32_t cellOf(float value) const;
    void resizeTable(std::uint32_t entityCount);
    void orderByCell();
    void insertAndQuery(std::uint32_t rank, std::vector<Pair>& out);
    void newFrame();
    /// Queries need the table: builds it (insert only) when findPairs has not since the update.
    void ensureTable();
    std::uint32_t nextQueryStamp();
    template <typename OnNode>
    void forEachNodeInCell(std::int32_t x, std::int32_t y, OnNode visit) const;
    template <typename OnHit, typename KeepGoing>
    QueryCost walkSegment(const Segment& segment, OnHit hit, KeepGoing keepGoing);

    BoxCopy m_copy;   ///< the last good update's coordinates
    BoxView m_boxes;  ///< that update's boxes, over the copy
    float m_cellSize = 1.0f;
    std::uint64_t m_falsePositives = 0;  ///< candidates of the last findPairs whose cells only share a bucket
    float m_inverseCellSize = 1.0f;
    std::uint32_t m_requestedTableSize = 0;  ///< 0: follow the entity count
    std::uint32_t m_tableSize = 0;
    std::uint64_t m_moduloMagic = 0;  ///< for an exact modulo by m_tableSize without a division
    std::uint32_t m_frame = 0;        ///< stamps the buckets used this step
    bool m_tableBuilt = false;        ///< the table holds the boxes of the last update
    std::uint32_t m_queryStamp = 0;   ///< unique per query; m_seen[rank] == it once reported
    std::vector<Bucket> m_buckets;
    std::vector<Node> m_nodes;
    // Per entity, in visit order (rank): which entity, its cell range, its query mark.
    std::vector<Visit> m_order, m_orderScratch;
    std::vector<CellRange> m_ranges;
    std::vector<std::uint32_t> m_seen;
    std::vector<std::uint32_t> m_oversized;   ///< entities that skip the table (see oversized.h)
    std::vector<std::uint8_t> m_isOversized;  ///< by entity index
    OversizedScratch m_oversizedScratch;
};

}  // namespace ro

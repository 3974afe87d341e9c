#pragma once
/// Spatial hash (seeds 001 and 004): an unbounded grid whose cells are hashed into a table of
/// prime size with Chipmunk's coordinate hash. O(n + k) when the cell fits the entities, plus
/// the false positives of cells that share a bucket (counted in hashFalsePositives).
///
/// Insert and query are one pass (seed 004's reindex/query): each entity first collects the
/// entities already in its buckets, then inserts itself, so a pair comes out once, a < b.
/// A query stamp per entity stops a neighbour met in two cells from being reported twice.
/// Buckets are reset lazily by a frame stamp, so a step never clears the whole table.

#include <cstdint>
#include <vector>

#include "broadphase/broadphase.h"

namespace ro {

class SpatialHash final : public BroadPhase {
public:
    /// An entity covering more cells than this is tested against every other entity instead
    /// of being inserted cell by cell (a huge box in an unbounded grid would cover millions).
    static constexpr std::uint64_t kMaxCellsPerEntity = 4096;

    /// Chipmunk's hash of seed 004: multiply by large primes, XOR, modulo a prime table size.
    [[nodiscard]] static std::uint32_t hashCell(std::int32_t x, std::int32_t y, std::uint32_t tableSize) {
        return (static_cast<std::uint32_t>(x) * 1640531513u ^ static_cast<std::uint32_t>(y) * 2654435789u) % tableSize;
    }
    /// The smallest prime >= n (n >= 2).
    [[nodiscard]] static std::uint32_t nextPrime(std::uint32_t n);

    // Implementing interface of BroadPhase (see BroadPhase for documentation).
    void configure(const Settings& settings) override;
    void update(const BoxView& boxes) override;
    void findPairs(std::vector<Pair>& out) override;
    void forEachCell(const std::function<void(const CellView&)>& visit) const override;

private:
    struct CellRange {
        std::int32_t x0, y0, x1, y1;
    };
    struct Node {
        std::uint32_t entity;
        std::uint32_t next;  ///< next node in the bucket, kEnd at the tail
        std::int32_t cellX, cellY;
    };

    [[nodiscard]] std::int32_t cellOf(float value) const;
    void resizeTable(std::uint32_t entityCount);
    void insertAndQuery(std::uint32_t i, std::vector<Pair>& out);
    void pairOversized(std::vector<Pair>& out);

    BoxView m_boxes;
    float m_cellSize = 1.0f;
    float m_inverseCellSize = 1.0f;
    std::uint32_t m_requestedTableSize = 0;  ///< 0: follow the entity count
    std::uint32_t m_tableSize = 0;
    std::uint32_t m_frame = 0;       ///< bucket b is live this step iff m_bucketFrame[b] == m_frame
    std::uint32_t m_queryStamp = 0;  ///< unique per query; m_seen[j] == it once j was reported
    std::vector<std::uint32_t> m_bucketHead, m_bucketFrame, m_bucketCount;
    std::vector<Node> m_nodes;
    std::vector<std::uint32_t> m_seen;
    std::vector<CellRange> m_ranges;
    std::vector<std::uint32_t> m_oversized;
    std::vector<std::uint8_t> m_isOversized;
};

}  // namespace ro

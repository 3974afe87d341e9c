#pragma once
/// The one interface every broad-phase technique implements.
///
/// Each step the world hands a technique the current boxes (update), then asks for candidate
/// pairs (findPairs). A candidate may or may not overlap; the world applies the exact AABB test.
/// Every pair that overlaps must be among the candidates, each candidate is reported once,
/// with a < b. One virtual call per phase; the hot loops stay non-virtual inside each technique.

#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "core/aabb.h"
#include "core/pair.h"

namespace ro {

/// Read-only view of the boxes a technique works on: structure of arrays, dense indices 0..count-1.
struct BoxView {
    const float* minX = nullptr;
    const float* minY = nullptr;
    const float* maxX = nullptr;
    const float* maxY = nullptr;
    const std::uint32_t* ids = nullptr;  ///< stable entity ids, for techniques that keep state across steps
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
    float cellSize = 0.0f;                 ///< cell size in use (0 where the technique has no cells)
};

/// Parameters a person can change from the panel or the command line.
struct Settings {
    float cellSize = 16.0f;            ///< grid and hash cell side, world units
    Aabb gridBounds{0, 0, 1600, 1000}; ///< the bounded grid's extent; boxes outside clamp to edge cells
    std::uint32_t hashTableSize = 0;   ///< buckets of the spatial hash; 0 picks a prime near 10x the count
};

/// Throws std::invalid_argument unless the cell size is finite and positive, and, where
/// `needsBounds` (a bounded technique), the grid bounds have a finite, non-empty area.
/// Every technique's configure() calls it first.
inline void checkSettings(const Settings& settings, bool needsBounds = false) {
    if (!std::isfinite(settings.cellSize) || !(settings.cellSize > 0.0f))
        throw std::invalid_argument("cell size must be finite and positive");
    if (needsBounds && !settings.gridBounds.hasFiniteArea())
        throw std::invalid_argument("grid bounds must be finite with max > min");
}

/// One cell of a technique's structure, for the overlay.
struct CellView {
    Aabb bounds;
    std::uint32_t count = 0;  ///< entities in the cell (for the hash: in its bucket)
};

/// A broad-phase technique. Implementations are `final` and listed in the registry table.
class BroadPhase {
public:
    virtual ~BroadPhase() = default;

    /// Takes new parameters, applied at the next update (until then forEachCell still shows the
    /// last step's structure). Throws std::invalid_argument for settings checkSettings rejects.
    virtual void configure(const Settings& settings) = 0;
    /// Takes in the current boxes. The view stays valid until findPairs returns.
    virtual void update(const BoxView& boxes) = 0;
    /// Clears `out` and fills it with candidate pairs, each once, a < b.
    virtual void findPairs(std::vector<Pair>& out) = 0;
    /// Visits the cells that hold entities (techniques without cells visit none).
    virtual void forEachCell(const std::function<void(const CellView&)>& visit) const { (void)visit; }

    /// Counters of the last update + findPairs.
    [[nodiscard]] const Counters& counters() const { return m_counters; }
    /// Lets the caller that measured it record the allocations of the last step.
    void setHeapAllocations(std::uint64_t count) { m_counters.heapAllocations = count; }

protected:
    Counters m_counters;
};

}  // namespace ro

#include "broadphase/registry.h"

#include <array>

#include "broadphase/brute_force.h"
#include "broadphase/dynamic_tree.h"
#include "broadphase/hshg.h"
#include "broadphase/quadtree.h"
#include "broadphase/single_axis_sweep.h"
#include "broadphase/spatial_grid.h"
#include "broadphase/spatial_hash.h"
#include "broadphase/sweep_and_prune.h"

namespace ro {
namespace {

template <typename Technique>
std::unique_ptr<BroadPhase> make() {
    return std::make_unique<Technique>();
}

constexpr std::array kTechniques{
    TechniqueInfo{"brute", "Brute force", "O(n^2) pair tests", "000 (Approach #1)", 0, &make<BruteForce>, 20'000},
    TechniqueInfo{"grid", "Spatial grid", "O(n + k) when the cell fits the largest box", "000 (Approach #2), 004",
                  kUsesCellSize | kUsesGridBounds, &make<SpatialGrid>},
    TechniqueInfo{"hash", "Spatial hash", "O(n + k) when the cell fits the entities", "001, 004",
                  kUsesCellSize | kUsesHashTableSize, &make<SpatialHash>},
    TechniqueInfo{"hshg", "Hierarchical spatial hash grid", "O(n + k) for any mix of sizes; rehash on cell change",
                  "002 (Attempt #3), 000, 004", kUsesHshgFactor, &make<HierarchicalGrid>},
    TechniqueInfo{"sap", "Sweep and prune (delimiters)", "O(n + k_axis) when coherent, radix rebuild when not", "003",
                  kUsesSweepAxis, &make<SweepAndPrune>},
    TechniqueInfo{"sweep", "Single-axis sweep (insertion sort)", "O(n + k_axis) when coherent, O(n^2) sort when not",
                  "004", kUsesSweepAxis, &make<SingleAxisSweep>},
    TechniqueInfo{"tree", "Dynamic AABB tree", "O(n + m log n + p): m leaves left their fat box, p fat pairs",
                  "004 (AABB trees; insert, remove, reindex, query), Box2D", kUsesTreeMargin, &make<DynamicTree>},
    TechniqueInfo{"quadtree", "Quadtree", "O(n log n + k) when boxes are small against the bounds",
                  "000 and 004 (quadtrees)", kUsesGridBounds | kUsesQuadTree, &make<Quadtree>},
};

}  // namespace

std::span<const TechniqueInfo> techniques() { return kTechniques; }

const TechniqueInfo* findTechnique(std::string_view id) {
    for (const TechniqueInfo& t : kTechniques)
        if (t.id == id) return &t;
    return nullptr;
}

}  // namespace ro

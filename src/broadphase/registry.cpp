#include "broadphase/registry.h"

#include <array>

#include "broadphase/brute/brute.h"
#include "broadphase/tree/tree.h"
#include "broadphase/hshg/hshg.h"
#include "broadphase/quadtree/quadtree.h"
#include "broadphase/sweep/sweep.h"
#include "broadphase/grid/grid.h"
#include "broadphase/hash/hash.h"
#include "broadphase/sap/sap.h"

namespace ro {
namespace {

template <typename Technique>
std::unique_ptr<BroadPhase> make() {
    return std::make_unique<Technique>();
}

constexpr std::array kTechniques{
    TechniqueInfo{"brute", "Brute force", "O(n^2) pair tests", "Petersen (approach #1)", BruteForce::kParameters, &make<BruteForce>, 20'000},
    TechniqueInfo{"grid", "Spatial grid", "O(n + k) when the cell fits the largest box", "Petersen (approach #2); Lembcke and Korth",
                  SpatialGrid::kParameters, &make<SpatialGrid>},
    TechniqueInfo{"hash", "Spatial hash", "O(n + k) when the cell fits the entities", "the spatial hashing article; Lembcke and Korth",
                  SpatialHash::kParameters, &make<SpatialHash>},
    TechniqueInfo{"hshg", "Hierarchical spatial hash grid", "O(n + k) for any mix of sizes; rehash on cell change",
                  "Petersen (attempt #3)", HierarchicalGrid::kParameters, &make<HierarchicalGrid>},
    TechniqueInfo{"sap", "Sweep and prune (delimiters)", "O(n + k_axis) when coherent, radix rebuild when not", "Wells",
                  SweepAndPrune::kParameters, &make<SweepAndPrune>},
    TechniqueInfo{"sweep", "Single-axis sweep (insertion sort)", "O(n + k_axis) when coherent, O(n^2) sort when not",
                  "Lembcke and Korth", SingleAxisSweep::kParameters, &make<SingleAxisSweep>},
    TechniqueInfo{"tree", "Dynamic AABB tree", "O(n + m log n + p): m leaves left their fat box, p fat pairs",
                  "Lembcke and Korth (AABB trees, spatial index operations); Box2D", DynamicTree::kParameters, &make<DynamicTree>},
    TechniqueInfo{"quadtree", "Quadtree", "O(n log n + k) when boxes are small against the bounds",
                  "Petersen; Lembcke and Korth (quadtrees)", Quadtree::kParameters, &make<Quadtree>},
};

}  // namespace

std::span<const TechniqueInfo> techniques() { return kTechniques; }

const TechniqueInfo* findTechnique(std::string_view id) {
    for (const TechniqueInfo& t : kTechniques)
        if (t.id == id) return &t;
    return nullptr;
}

}  // namespace ro

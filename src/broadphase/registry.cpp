#include "ro/registry.h"

#include <array>
#include <stdexcept>
#include <string>

#include "broadphase/auto/auto.h"
#include "broadphase/brute/brute.h"
#include "broadphase/coherent/coherent.h"
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
    TechniqueInfo{"brute", "Brute force", BruteForce::kGuide, BruteForce::kParameters, &make<BruteForce>, 20'000},
    TechniqueInfo{"grid", "Spatial grid", SpatialGrid::kGuide, Coherent<SpatialGrid>::kParameters, &make<Coherent<SpatialGrid>>},
    TechniqueInfo{"hash", "Spatial hash", SpatialHash::kGuide, Coherent<SpatialHash>::kParameters, &make<Coherent<SpatialHash>>},
    TechniqueInfo{"hshg", "Hierarchical spatial hash grid", HierarchicalGrid::kGuide, Coherent<HierarchicalGrid>::kParameters, &make<Coherent<HierarchicalGrid>>},
    TechniqueInfo{"sap", "Sweep and prune (delimiters)", SweepAndPrune::kGuide, Coherent<SweepAndPrune>::kParameters, &make<Coherent<SweepAndPrune>>},
    TechniqueInfo{"sweep", "Single-axis sweep (insertion sort)", SingleAxisSweep::kGuide, Coherent<SingleAxisSweep>::kParameters, &make<Coherent<SingleAxisSweep>>},
    TechniqueInfo{"tree", "Dynamic AABB tree", DynamicTree::kGuide, DynamicTree::kParameters, &make<DynamicTree>},
    TechniqueInfo{"quadtree", "Quadtree", Quadtree::kGuide, Coherent<Quadtree>::kParameters, &make<Coherent<Quadtree>>},
    TechniqueInfo{"auto", "Auto: HSHG, tree or SAP, timed", AutoPick::kGuide, AutoPick::kParameters, &make<AutoPick>},
};

}  // namespace

std::span<const TechniqueInfo> techniques() { return kTechniques; }

const TechniqueInfo* findTechnique(std::string_view id) {
    for (const TechniqueInfo& t : kTechniques)
        if (t.id == id) return &t;
    return nullptr;
}

std::unique_ptr<BroadPhase> createTechnique(std::string_view id) {
    if (const TechniqueInfo* info = findTechnique(id)) return info->create();
    std::string ids;
    for (const TechniqueInfo& t : kTechniques) ids.append(ids.empty() ? "" : ", ").append(t.id);
    throw std::invalid_argument("no technique '" + std::string(id) + "'; the techniques: " + ids);
}

}  // namespace ro

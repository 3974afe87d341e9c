#include "ro/registry.h"

#include <array>
#include <stdexcept>
#include <string>

#include "broadphase/auto/auto.h"
#include "broadphase/brute/brute.h"
#include "broadphase/coherent/coherent.h"
#include "broadphase/statics/statics.h"
#include "broadphase/tree/tree.h"
#include "broadphase/hshg/hshg.h"
#include "broadphase/quadtree/quadtree.h"
#include "broadphase/sweep/sweep.h"
#include "broadphase/grid/grid.h"
#include "broadphase/hash/hash.h"
#include "broadphase/sap/sap.h"

namespace ro {
namespace {

/// The techniques that rebuild from their boxes: statics in an index of their own, under the
/// coherence layer (docs/statics.md says why in that order).
template <typename Inner>
using Layered = Coherent<WithStatics<Inner>>;

template <typename Technique>
std::unique_ptr<BroadPhase> make() {
    return std::make_unique<Technique>();
}

constexpr std::array kTechniques{
    TechniqueInfo{"brute", "Brute force", BruteForce::kGuide, BruteForce::kParameters, &make<BruteForce>, 20'000},
    TechniqueInfo{"grid", "Spatial grid", SpatialGrid::kGuide, Layered<SpatialGrid>::kParameters, &make<Layered<SpatialGrid>>},
    TechniqueInfo{"hash", "Spatial hash", SpatialHash::kGuide, Layered<SpatialHash>::kParameters, &make<Layered<SpatialHash>>},
    TechniqueInfo{"hshg", "Hierarchical spatial hash grid", HierarchicalGrid::kGuide, Layered<HierarchicalGrid>::kParameters, &make<Layered<HierarchicalGrid>>},
    TechniqueInfo{"sap", "Sweep and prune (delimiters)", SweepAndPrune::kGuide, Layered<SweepAndPrune>::kParameters, &make<Layered<SweepAndPrune>>},
    TechniqueInfo{"sweep", "Single-axis sweep (insertion sort)", SingleAxisSweep::kGuide, Layered<SingleAxisSweep>::kParameters, &make<Layered<SingleAxisSweep>>},
    TechniqueInfo{"tree", "Dynamic AABB tree", DynamicTree::kGuide, DynamicTree::kParameters, &make<DynamicTree>},
    TechniqueInfo{"quadtree", "Quadtree", Quadtree::kGuide, Layered<Quadtree>::kParameters, &make<Layered<Quadtree>>},
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

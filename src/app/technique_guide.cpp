#include "app/technique_guide.h"

#include <array>
#include <utility>

namespace ro::app {
namespace {

constexpr std::string_view kPetersen = "Andrew Petersen, \"Broad Phase Collision Detection Using Spatial Partitioning\"";
constexpr std::string_view kLembcke = "Scott Lembcke and Andy Korth, \"Collision Detection and Spatial Indexes\" (2012)";

constexpr std::array kGuides{
    std::pair{std::string_view{"brute"},
              TechniqueGuide{"Tests every pair of boxes once: the reference every other technique is checked against.",
                             "n^2/2 tests a step: 50 M at 10,000 entities, 0.4 s a step at 20,000.",
                             "A few hundred entities, or to check another technique.", kPetersen}},
    std::pair{std::string_view{"grid"},
              TechniqueGuide{"A fixed array of cells over the world; each box is listed in the cells it covers, and "
                             "boxes sharing a cell are tested.",
                             "O(n + k) when a cell fits the largest box; memory grows with the bounds' area.",
                             "Bounded worlds with sizes in one range: the default choice.", kPetersen}},
    std::pair{std::string_view{"hash"},
              TechniqueGuide{"Cells as in the grid, but found through a hash table: unbounded worlds, and two far "
                             "cells may share a bucket (a false positive).",
                             "O(n + k) when a cell fits the entities; table size trades memory for collisions.",
                             "Unbounded or sparse worlds with sizes in one range.",
                             "\"Fast Collision in Games: Spatial Hashing vs. Naive\"; Lembcke and Korth (2012)"}},
    std::pair{std::string_view{"hshg"},
              TechniqueGuide{"Several grids, each twice (the level factor) as coarse as the last; a box goes to the "
                             "level its size fits, and each level is tested against itself and coarser ones.",
                             "O(n + k) for any mix of sizes; a box moving to a new cell is rehashed.",
                             "Sizes of every mix, or sizes you do not know ahead; the fastest in ro_bench's uniform and mixed-size runs at 100,000.",
                             kPetersen}},
    std::pair{std::string_view{"sap"},
              TechniqueGuide{"Begin and end delimiters of every box sorted along an axis; boxes whose intervals are "
                             "open together are tested on the other axis.",
                             "O(n + k_axis) when motion is coherent; a radix rebuild when it is not.",
                             "Coherent motion, entities spread along one axis.",
                             "John Wells, \"Broadphase Collision Detection\" (2007)"}},
    std::pair{std::string_view{"sweep"},
              TechniqueGuide{"Boxes sorted by their minimum on one axis with insertion sort (almost sorted from the "
                             "last step); each box is tested against the following ones until they start past its end.",
                             "O(n + k_axis) when coherent, O(n^2) sorting when not; a crowded axis costs k_axis.",
                             "Few entities, simple code, motion that keeps the order.", kLembcke}},
    std::pair{std::string_view{"tree"},
              TechniqueGuide{"A bounding volume hierarchy of fattened boxes (as in Box2D); only a box that leaves its "
                             "fat box is reinserted, and each moved box queries the tree.",
                             "O(n + m log n + p): m boxes left their fat box, p pairs of fat boxes.",
                             "Many static or slow bodies, unbounded worlds, ray casts.", kLembcke}},
    std::pair{std::string_view{"quadtree"},
              TechniqueGuide{"The world's bounds split into four, recursively, until a leaf holds few boxes; a box "
                             "straddling a split stays in the node above.",
                             "O(n log n + k) when boxes are small against the bounds; large boxes pile up high.",
                             "Clustered scenes of small boxes in known bounds.", kLembcke}},
};

}  // namespace

const TechniqueGuide& techniqueGuide(std::string_view id) {
    static constexpr TechniqueGuide kNone{};
    for (const auto& [key, guide] : kGuides)
        if (key == id) return guide;
    return kNone;
}

}  // namespace ro::app

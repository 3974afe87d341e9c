#pragma once
/// The canonical order the world resolves pairs in.

#include <cstdint>
#include <vector>

#include "ro/pair.h"

namespace ro {

/// Sorts pairs by (a, b) in O(n + k): a counting sort on a, then insertion sort inside each
/// run of equal a (runs are short: an entity has few neighbours). `entityCount` bounds a;
/// `scratch` and `offsets` are reused between calls so steady-state sorting does not allocate.
void sortPairsCanonical(std::vector<Pair>& pairs, std::uint32_t entityCount, std::vector<Pair>& scratch,
                        std::vector<std::uint32_t>& offsets);

}  // namespace ro

#pragma once
/// Pairs of entity indices, and the canonical order the world resolves them in.

#include <compare>
#include <cstdint>
#include <span>
#include <vector>

namespace ro {

/// Two dense entity indices with a < b.
struct Pair {
    std::uint32_t a = 0;
    std::uint32_t b = 0;

    friend auto operator<=>(const Pair&, const Pair&) = default;
};

/// Builds a pair with the smaller index first.
[[nodiscard]] inline Pair makePair(std::uint32_t i, std::uint32_t j) {
    return i < j ? Pair{i, j} : Pair{j, i};
}

/// Sorts pairs by (a, b) in O(n + k): a counting sort on a, then insertion sort inside each
/// run of equal a (runs are short: an entity has few neighbours). `entityCount` bounds a;
/// `scratch` and `offsets` are reused between calls so steady-state sorting does not allocate.
void sortPairsCanonical(std::vector<Pair>& pairs, std::uint32_t entityCount, std::vector<Pair>& scratch,
                        std::vector<std::uint32_t>& offsets);

}  // namespace ro

#pragma once
/// Pairs of entity indices, as the broad phase and the world report them.

#include <compare>
#include <cstdint>

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

}  // namespace ro

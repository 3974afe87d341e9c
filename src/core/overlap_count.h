#pragma once
/// How many pairs of boxes overlap, counted without listing them: O(n log n) time and O(n)
/// memory whatever the count, so a scene whose pairs could not be held (20,000 boxes at one
/// point are 200 million pairs) is known before a step tries to list them.

#include <cstdint>

#include "ro/broadphase.h"

namespace ro {

/// The overlapping pairs a step would report before filters: every pair of closed boxes that
/// overlap (touching counts), except two statics. With category and mask filters the pairs
/// reported are at most this many.
[[nodiscard]] std::uint64_t countOverlappingPairs(const BoxView& boxes);

}  // namespace ro

#pragma once
/// Insertion sort for arrays kept from step to step (Lembcke and Korth: "insertion sort is
/// recommended as the list should already be mostly sorted"): O(n + shifts), where each shift
/// is a swap of neighbours, so the shifts are the inversions of last step's order. The sweeps
/// re-sort their delimiters with it and the tree its movers' sweep.

#include <cstddef>
#include <cstdint>
#include <limits>

namespace ro {

/// Sorts items[0, count) stably by `before` (a strict order), stopping once the shifts pass
/// `budget` (the items then hold the same values, not all in order: the caller sorts another
/// way). Returns the shifts made.
template <typename T, typename Before>
std::uint64_t insertionSort(T* items, std::size_t count, Before before,
                            std::uint64_t budget = std::numeric_limits<std::uint64_t>::max()) {
    std::uint64_t shifts = 0;
    for (std::size_t i = 1; i < count && shifts <= budget; ++i) {
        if (!before(items[i], items[i - 1])) continue;  // most items of a mostly sorted array
        const T item = items[i];
        std::size_t j = i;
        for (; j > 0 && before(item, items[j - 1]); --j) items[j] = items[j - 1];
        items[j] = item;
        shifts += i - j;
    }
    return shifts;
}

}  // namespace ro

#pragma once
/// A stable LSD radix sort on 32-bit keys, at most 12 bits per pass: the histograms fit in L1
/// and every pass streams through memory, which beats comparison sorts and counting straight
/// into large arrays for the (cell, entity) lists the grids sort every step. Keys of up to 24
/// bits take two passes.

#include <array>
#include <cstdint>
#include <vector>

#include "core/buffers.h"

namespace ro {

/// Sorts `items` by keyOf(item) (an unsigned key below 2^keyBits, keyBits <= 32), keeping
/// the order of equal keys. `scratch` is reused between calls.
template <typename T, typename KeyOf>
void radixSort(std::vector<T>& items, std::vector<T>& scratch, std::uint32_t keyBits, KeyOf keyOf) {
    constexpr std::uint32_t kMaxDigitBits = 12;
    const std::uint32_t passes = (keyBits + kMaxDigitBits - 1) / kMaxDigitBits;
    if (passes == 0) return;  // every key is 0
    const std::uint32_t digitBits = (keyBits + passes - 1) / passes;  // digits as even as the passes allow
    const std::uint32_t digitMask = (1u << digitBits) - 1;
    std::array<std::array<std::uint32_t, 1u << kMaxDigitBits>, 3> counts{};
    for (const T& item : items) {
        const std::uint32_t key = keyOf(item);
        for (std::uint32_t p = 0; p < passes; ++p) ++counts[p][(key >> (p * digitBits)) & digitMask];
    }
    resizeWithHeadroom(scratch, items.size());
    for (std::uint32_t p = 0; p < passes; ++p) {
        std::uint32_t offset = 0;
        bool oneDigit = false;  // every key has the same digit here: the pass would move nothing
        for (std::uint32_t& c : counts[p]) {
            oneDigit = oneDigit || c == items.size();
            const std::uint32_t n = c;
            c = offset;
            offset += n;
        }
        if (oneDigit) continue;
        const std::uint32_t shift = p * digitBits;
        for (const T& item : items) scratch[counts[p][(keyOf(item) >> shift) & digitMask]++] = item;
        items.swap(scratch);
    }
}

}  // namespace ro

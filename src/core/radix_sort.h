#pragma once
/// A stable LSD radix sort on 32-bit keys, 11 bits per pass: the histograms fit in L1 and
/// every pass streams through memory, which beats comparison sorts and counting straight
/// into large arrays for the (cell, entity) lists the grids sort every step.

#include <array>
#include <cstdint>
#include <vector>

#include "core/buffers.h"

namespace ro {

/// Sorts `items` by keyOf(item) (an unsigned key below 2^keyBits, keyBits <= 33), keeping
/// the order of equal keys. `scratch` is reused between calls.
template <typename T, typename KeyOf>
void radixSort(std::vector<T>& items, std::vector<T>& scratch, std::uint32_t keyBits, KeyOf keyOf) {
    constexpr std::uint32_t kDigitBits = 11;
    constexpr std::uint32_t kDigits = 1u << kDigitBits;
    const std::uint32_t passes = (keyBits + kDigitBits - 1) / kDigitBits;
    std::array<std::array<std::uint32_t, kDigits>, 3> counts{};
    for (const T& item : items) {
        const std::uint32_t key = keyOf(item);
        for (std::uint32_t p = 0; p < passes; ++p) ++counts[p][(key >> (p * kDigitBits)) & (kDigits - 1)];
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
        const std::uint32_t shift = p * kDigitBits;
        for (const T& item : items) scratch[counts[p][(keyOf(item) >> shift) & (kDigits - 1)]++] = item;
        items.swap(scratch);
    }
}

}  // namespace ro

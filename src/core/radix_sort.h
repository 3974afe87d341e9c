#pragma once
/// A stable LSD radix sort on 32-bit keys, at most 12 bits per pass: the histograms fit in L1
/// and every pass streams through memory, which beats comparison sorts and counting straight
/// into large arrays for the (cell, entity) lists the grids sort every step. Keys of up to 24
/// bits take two passes.

#include <algorithm>
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

/// radixSort on `chunks` parts of `items` at once: each pass counts every chunk's digits,
/// then moves every chunk's items, through `run(chunks, task)`, which calls task(c) for each c
/// (on any threads). A chunk's items go after those of the chunks before it with the same
/// digit, so the order is exactly radixSort's. `counts` is reused between calls.
template <typename T, typename KeyOf, typename Run>
void radixSortChunks(std::vector<T>& items, std::vector<T>& scratch, std::vector<std::uint32_t>& counts,
                     std::uint32_t keyBits, KeyOf keyOf, std::size_t chunks, Run run) {
    constexpr std::uint32_t kMaxDigitBits = 12;
    const std::uint32_t passes = (keyBits + kMaxDigitBits - 1) / kMaxDigitBits;
    if (passes == 0) return;
    const std::uint32_t digitBits = (keyBits + passes - 1) / passes;
    const std::uint32_t digits = 1u << digitBits;
    const std::uint32_t digitMask = digits - 1;
    const std::size_t n = items.size();
    resizeWithHeadroom(scratch, n);
    resizeWithHeadroom(counts, chunks * digits);
    for (std::uint32_t p = 0; p < passes; ++p) {
        const std::uint32_t shift = p * digitBits;
        run(chunks, [&](std::size_t c) {
            std::uint32_t* count = counts.data() + c * digits;
            std::fill(count, count + digits, 0u);
            for (std::size_t i = n * c / chunks; i != n * (c + 1) / chunks; ++i)
                ++count[(keyOf(items[i]) >> shift) & digitMask];
        });
        std::uint32_t offset = 0;
        bool oneDigit = false;  // every key has the same digit here: the pass would move nothing
        for (std::uint32_t d = 0; d < digits; ++d) {
            const std::uint32_t digitStart = offset;
            for (std::size_t c = 0; c < chunks; ++c) {
                std::uint32_t& count = counts[c * digits + d];
                const std::uint32_t k = count;
                count = offset;
                offset += k;
            }
            oneDigit = oneDigit || offset - digitStart == n;
        }
        if (oneDigit) continue;
        run(chunks, [&](std::size_t c) {
            std::uint32_t* next = counts.data() + c * digits;
            for (std::size_t i = n * c / chunks; i != n * (c + 1) / chunks; ++i)
                scratch[next[(keyOf(items[i]) >> shift) & digitMask]++] = items[i];
        });
        items.swap(scratch);
    }
}

}  // namespace ro

#pragma once
/// The HSHG's inner loops: box tests on slot boxes (four lanes at once with SSE), the radix
/// sort by key, and the fixed-window scans of findPairs and the table lookups. Private to
/// hshg/.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "broadphase/hshg/hshg.h"
#include "broadphase/hshg/keys.h"
#include "core/box_helpers.h"
#include "core/radix_sort.h"

namespace ro::hshg_detail {
// Overlap tests of findPairs on slot boxes (see SlotBox): the same answer as overlaps(),
// since negating a float is exact. With SSE, one compare of four lanes.
#if defined(__SSE2__)
using Probe = __m128;
template <typename SlotBox>
inline Probe probeOf(const SlotBox& a) {
    const __m128 v = _mm_loadu_ps(&a.minX);  // (minX, minY, -maxX, -maxY)
    return _mm_xor_ps(_mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 3, 2)), _mm_set1_ps(-0.0f));
}
template <typename SlotBox>
inline bool touches(Probe probe, const SlotBox& b) {
    return _mm_movemask_ps(_mm_cmple_ps(_mm_loadu_ps(&b.minX), probe)) == 0xF;
}
#else
struct Probe {
    float maxX, maxY, negMinX, negMinY;
};
template <typename SlotBox>
inline Probe probeOf(const SlotBox& a) {
    return {-a.negMaxX, -a.negMaxY, -a.minX, -a.minY};
}
template <typename SlotBox>
inline bool touches(const Probe& probe, const SlotBox& b) {
    return (b.minX <= probe.maxX) & (b.minY <= probe.maxY) & (b.negMaxX <= probe.negMinX) & (b.negMaxY <= probe.negMinY);
}
#endif

/// A box as a slot stores it (see SlotBox): two sign flips, one xor with SSE.
template <typename SlotBox>
inline SlotBox toSlotBox(const Aabb& b) {
    SlotBox slot;
#if defined(__SSE2__)
    static_assert(sizeof(SlotBox) == sizeof(Aabb));
    _mm_storeu_ps(&slot.minX, _mm_xor_ps(_mm_loadu_ps(&b.minX), _mm_set_ps(-0.0f, -0.0f, 0.0f, 0.0f)));
#else
    slot = {b.minX, b.minY, -b.maxX, -b.maxY};
#endif
    return slot;
}

/// makePair without a branch: dense indices come in random order, a branch would be a coin toss.
inline Pair orderedPair(std::uint32_t i, std::uint32_t j) {
    const std::uint32_t swap = (j < i ? ~0u : 0u) & (i ^ j);
    return {i ^ swap, j ^ swap};
}

/// The largest float at or under d: for a float s, s <= d exactly when s <= floatAtOrBelow(d),
/// and s > d exactly when s > floatAtOrBelow(d).
inline float floatAtOrBelow(double d) {
    float f = static_cast<float>(d);
    if (static_cast<double>(f) > d) f = std::nextafter(f, -kInf);
    return f;
}

inline float sideOf(const Aabb& b) { return std::max(b.maxX - b.minX, b.maxY - b.minY); }

/// Fits the levels: both extents finite and at most kMaxSide (false for NaN).
inline bool fitsLevels(const Aabb& b) {
    return b.maxX - b.minX <= HierarchicalGrid::kMaxSide && b.maxY - b.minY <= HierarchicalGrid::kMaxSide;
}

/// LSD radix sort by 64-bit key, 11-bit digits placed only where the keys differ
/// (keys hold absolute cells, so most of their high bits are the same). Stable: items come
/// in increasing `order`, and a few items are sorted by key, then order, which is the same.
/// So lists sorted in parts and merged in part order give the one-thread order.
template <typename T>
inline void sortByKey(std::vector<T>& items, std::vector<T>& scratch) {
    const std::size_t n = items.size();
    if (n < 256) {
        std::sort(items.begin(), items.end(),
                  [](const T& a, const T& b) { return a.key < b.key || (a.key == b.key && a.order < b.order); });
        return;
    }
    constexpr unsigned kDigitBits = 11;
    constexpr std::uint64_t kDigitMask = (1u << kDigitBits) - 1;
    std::uint64_t varying = 0;
    for (const T& item : items) varying |= item.key ^ items[0].key;
    std::array<unsigned, 6> shifts{};
    unsigned passes = 0;
    for (unsigned bit = 0; bit < 64 && (varying >> bit) != 0; bit += kDigitBits) {
        bit += static_cast<unsigned>(std::countr_zero(varying >> bit));
        shifts[passes++] = bit;
    }
    std::array<std::array<std::uint32_t, kDigitMask + 1>, 6> counts{};
    for (const T& item : items)
        for (unsigned p = 0; p < passes; ++p) ++counts[p][(item.key >> shifts[p]) & kDigitMask];
    resizeWithHeadroom(scratch, n);
    for (unsigned p = 0; p < passes; ++p) {
        std::uint32_t offset = 0;
        for (std::uint32_t& c : counts[p]) offset += std::exchange(c, offset);
        for (const T& item : items) scratch[counts[p][(item.key >> shifts[p]) & kDigitMask]++] = item;
        items.swap(scratch);
    }
}

/// Tests the box (probe, self) against the slots slotAt(0..3), of which the first `valid`
/// (>= 1) are real (the others any readable slots, tested and dropped). Always writes four
/// pairs at pairs[0..3] (room for four), the hits' first, with no branch. Returns how many
/// it kept.
template <typename SlotBox, typename SlotAt>
inline std::uint32_t testFour(Probe probe, std::uint32_t self, const SlotBox* boxes, const std::uint32_t* dense, SlotAt slotAt,
                       std::uint32_t valid, Pair* pairs) {
#if defined(__SSE2__)
    // The four compares packed to one mask, four bits a box; then the four pairs ordered at
    // once (an unsigned compare by flipping the sign bits) and stored each where the last
    // kept one ends.
    const std::uint32_t s0 = slotAt(0), s1 = slotAt(1), s2 = slotAt(2), s3 = slotAt(3);
    const auto lanes = [&](std::uint32_t s) { return _mm_castps_si128(_mm_cmple_ps(_mm_loadu_ps(&boxes[s].minX), probe)); };
    const __m128i packed = _mm_packs_epi16(_mm_packs_epi32(lanes(s0), lanes(s1)), _mm_packs_epi32(lanes(s2), lanes(s3)));
    auto hits = static_cast<std::uint32_t>(_mm_movemask_epi8(packed));
    hits &= hits >> 2;
    hits &= hits >> 1;  // bit 4k: box k passed all four compares
    hits &= 0x1111u & ((1u << (4 * std::min(valid, 4u))) - 1);
    const __m128i others = _mm_setr_epi32(static_cast<int>(dense[s0]), static_cast<int>(dense[s1]),
                                          static_cast<int>(dense[s2]), static_cast<int>(dense[s3]));
    const __m128i mine = _mm_set1_epi32(static_cast<int>(self));
    const __m128i sign = _mm_set1_epi32(std::numeric_limits<int>::min());
    const __m128i otherIsLarger = _mm_cmpgt_epi32(_mm_xor_si128(others, sign), _mm_xor_si128(mine, sign));
    const __m128i low = _mm_or_si128(_mm_and_si128(otherIsLarger, mine), _mm_andnot_si128(otherIsLarger, others));
    const __m128i high = _mm_or_si128(_mm_and_si128(otherIsLarger, others), _mm_andnot_si128(otherIsLarger, mine));
    const __m128i pairs01 = _mm_unpacklo_epi32(low, high);
    const __m128i pairs23 = _mm_unpackhi_epi32(low, high);
    std::uint32_t kept = 0;
    const auto store = [&](__m128i pair, std::uint32_t hit) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(pairs + kept), pair);
        kept += hit;
    };
    store(pairs01, hits & 1u);
    store(_mm_unpackhi_epi64(pairs01, pairs01), (hits >> 4) & 1u);
    store(pairs23, (hits >> 8) & 1u);
    store(_mm_unpackhi_epi64(pairs23, pairs23), (hits >> 12) & 1u);
    return kept;
#else
    std::uint32_t kept = 0;
    for (std::uint32_t lane = 0; lane < 4; ++lane) {
        const std::uint32_t s = slotAt(lane);
        pairs[kept] = orderedPair(self, dense[s]);
        kept += static_cast<std::uint32_t>(lane < valid && touches(probe, boxes[s]));
    }
    return kept;
#endif
}

/// Writes begin, begin + 1, ..., begin + 7 at `to`: two stores with SSE2.
inline void listEight(std::uint32_t* to, std::uint32_t begin) {
#if defined(__SSE2__)
    const __m128i firstFour = _mm_add_epi32(_mm_set1_epi32(static_cast<int>(begin)), _mm_setr_epi32(0, 1, 2, 3));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to), firstFour);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 4), _mm_add_epi32(firstFour, _mm_set1_epi32(4)));
#else
    for (std::uint32_t j = 0; j < 8; ++j) to[j] = begin + j;
#endif
}

/// The slots [begins[k], ends[k]) (k < count) of a batch of rows, `total` in all.
struct RowRuns {
    const std::uint32_t* begins;
    const std::uint32_t* ends;
    std::size_t count;
    std::uint32_t total;
};

/// Tests the box (probe, self) against every slot of `runs`, four at a time, with no branch on
/// the tests (hits are common here: a large box meets most of the small ones it reaches).
/// Writes each pair at `pairs` (room for total + 4) and returns how many it kept. Everything
/// the loop reads is a local, so nothing stays in memory between tests.
template <typename SlotBox>
inline std::size_t testRowRuns(const RowRuns& runs, const SlotBox* boxes, const std::uint32_t* dense, Probe probe,
                        std::uint32_t self, Pair* pairs, std::uint64_t& tests) {
    const std::uint32_t* begins = runs.begins;
    const std::uint32_t* ends = runs.ends;
    std::size_t kept = 0;
    const auto test = [&](const auto slotAt, std::uint32_t valid) {
        kept += testFour(probe, self, boxes, dense, slotAt, valid, pairs + kept);
    };
    // Rows hold a few slots (0-10 in the bench): a loop per row would end at a hard-to-guess
    // place in every row. So the slot numbers are listed first, eight per row whatever its
    // length (the next row's overwrite the extra; longer rows take a loop), then tested in
    // one loop.
    constexpr std::uint32_t kListed = 512;
    if (runs.total <= kListed) {
        std::array<std::uint32_t, kListed + 8> list;
        std::uint32_t listed = 0;
        for (std::size_t k = 0; k < runs.count; ++k) {
            const std::uint32_t begin = begins[k];
            const std::uint32_t length = ends[k] - begin;
            listEight(&list[listed], begin);
            for (std::uint32_t j = 8; j < length; ++j) list[listed + j] = begin + j;  // rarely runs
            listed += length;
        }
        for (std::uint32_t j = 0; j < 4; ++j) list[listed + j] = begins[0];  // read past the end, masked
        for (std::uint32_t i = 0; i < listed; i += 4)
            test([&](std::uint32_t lane) { return list[i + lane]; }, listed - i);
    } else {
        for (std::size_t k = 0; k < runs.count; ++k)
            for (std::uint32_t q = begins[k]; q < ends[k]; q += 4)
                test([&](std::uint32_t lane) { return q + lane; }, ends[k] - q);
    }
    tests += runs.total;
    return kept;
}

/// Tests the box (probe, self) against the slots from `begin` on whose keys are <= last (a
/// run of cells in the sorted order), four at a time with the slots past the run masked off:
/// for crowded levels, where the hits are common and the runs' lengths vary.
template <typename SlotBox, typename Writer>
inline void testKeyRun(const std::uint64_t* keys, const SlotBox* boxes, const std::uint32_t* dense, Probe probe,
                std::uint32_t self, std::uint32_t begin, std::uint64_t last, Writer& out, std::uint64_t& tests) {
    std::uint64_t inRunCount = 0;
    for (std::uint32_t q = begin; keys[q] <= last; q += 4) {
        // The keys are sorted: the slots in the run are a prefix of the four.
        std::uint32_t inRun = 0;
        for (std::uint32_t s = q; s < q + 4; ++s) inRun += static_cast<std::uint32_t>(keys[s] <= last);
        out.kept(testFour(probe, self, boxes, dense, [q](std::uint32_t lane) { return q + lane; }, inRun, out.room(4)));
        inRunCount += inRun;
    }
    tests += inRunCount;
}

}  // namespace ro::hshg_detail

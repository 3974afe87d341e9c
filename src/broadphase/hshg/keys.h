#pragma once
/// The HSHG's cell keys: how a (level, row, column) packs into one sortable 64-bit key, the
/// cell of a coordinate, and the constants the rest of the technique is tuned by. Private to
/// hshg/: only the technique's own files include it.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "broadphase/hshg/hshg.h"

namespace ro::hshg_detail {

// A key packs (level, row, column): level in bits 58-62, row + kBias in bits 29-57, column +
// kBias in bits 0-28. Sorted keys are level by level, row-major: the cell right of key k is
// k + 1, the cell above is k + kRow.
constexpr unsigned kLevelShift = 58;
constexpr unsigned kRowShift = 29;
constexpr std::uint64_t kRow = std::uint64_t{1} << kRowShift;
constexpr std::uint64_t kFieldMask = kRow - 1;
constexpr std::int64_t kBias = std::int64_t{1} << 28;
// Cells are clamped to +-kCellLimit, so a neighbour (+-1) never leaves its 29-bit field.
// Clamping keeps neighbours neighbours: far-away boxes share the edge cells, slowly but correctly.
constexpr std::int32_t kCellLimit = (1 << 28) - 2;
constexpr std::uint64_t kNoKey = ~std::uint64_t{0};  // an entity not placed yet
constexpr std::uint64_t kOversizedKey = kNoKey - 1;
// After the sorted keys: above every real key (the first key of a level that does not exist),
// yet below 2^63, so the difference of two keys has the sign of their comparison.
constexpr std::uint64_t kEndKey = std::uint64_t{HierarchicalGrid::kMaxLevels} << kLevelShift;
constexpr double kCellMargin = 1.0 + 1.0 / 1024.0;  // c_L / s_L
constexpr double kSizeMargin = 1.0 + 1.0 / 256.0;  // s_k / the largest side, on the level it fills
constexpr double kMinSize = 1.0e-30;                // the smallest s_0
constexpr float kInf = std::numeric_limits<float>::infinity();
// Relative cost of looking up one row of cells, in box tests, for choosing search directions.
constexpr double kRowCost = 4.0;
// A direct table has an entry per block of at most 2^kMaxBlockShift columns.
constexpr std::uint32_t kMaxBlockShift = 6;
// Slots of padding after the sorted arrays (end keys), so the fixed windows of findPairs (up
// to four slots past a cursor) never read past them.
constexpr std::uint32_t kWindow = 5;

inline std::uint64_t packKey(std::uint32_t level, std::int32_t x, std::int32_t y) {
    return (std::uint64_t{level} << kLevelShift) | (static_cast<std::uint64_t>(y + kBias) << kRowShift) |
           static_cast<std::uint64_t>(x + kBias);
}
inline std::uint32_t levelOfKey(std::uint64_t key) { return static_cast<std::uint32_t>(key >> kLevelShift); }
inline std::int32_t columnOfKey(std::uint64_t key) {
    return static_cast<std::int32_t>(static_cast<std::int64_t>(key & kFieldMask) - kBias);
}
inline std::int32_t rowOfKey(std::uint64_t key) {
    return static_cast<std::int32_t>(static_cast<std::int64_t>((key >> kRowShift) & kFieldMask) - kBias);
}

/// floor(v / c) as floor(v * (1 / c)) in double, clamped to +-kCellLimit (NaN to the low end).
/// Monotone in v, and within 2^-22 of the exact quotient inside the clamp: see the header.
/// Biased by 2^28 the value is positive, where truncation is floor; rounding the sum moves it
/// by at most 2^-25 and keeps it monotone.
inline std::int32_t cellOf(float v, double inverse) {
    constexpr double kLimit = kCellLimit;
    // max(-limit, p) first: NaN compares false and becomes -limit. No branch: min/max.
    const double p = std::min(std::max(-kLimit, static_cast<double>(v) * inverse), kLimit);
    return static_cast<std::int32_t>(static_cast<std::int64_t>(p + static_cast<double>(kBias)) - kBias);
}

/// The key of the cell holding (x, y) on `level`: cellOf for both at once, the same operations
/// in the same order on two lanes (the same results), with SSE.
inline std::uint64_t cellKeyOf(std::uint32_t level, float x, float y, double inverse) {
#if defined(__SSE2__)
    const __m128d p = _mm_mul_pd(_mm_cvtps_pd(_mm_setr_ps(x, y, 0.0f, 0.0f)), _mm_set1_pd(inverse));
    // max(p, -limit) returns -limit for NaN, as cellOf does; then min, then the bias.
    const __m128d clamped = _mm_min_pd(_mm_max_pd(p, _mm_set1_pd(-kCellLimit)), _mm_set1_pd(kCellLimit));
    const __m128i biased = _mm_cvttpd_epi32(_mm_add_pd(clamped, _mm_set1_pd(static_cast<double>(kBias))));
    const auto both = static_cast<std::uint64_t>(_mm_cvtsi128_si64(biased));  // x in the low half
    return (std::uint64_t{level} << kLevelShift) | ((both >> 32) << kRowShift) | (both & 0xFFFFFFFFu);
#else
    return packKey(level, cellOf(x, inverse), cellOf(y, inverse));
#endif
}

}  // namespace ro::hshg_detail

#include "broadphase/hshg/hshg.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "broadphase/cell_walk.h"
#include "broadphase/oversized.h"
#include "core/buffers.h"

namespace ro {
namespace {

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
constexpr std::uint32_t kFrameLimit = 0xfffffff0u;  // placeAll stamps at most twice an update
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

std::uint64_t packKey(std::uint32_t level, std::int32_t x, std::int32_t y) {
    return (std::uint64_t{level} << kLevelShift) | (static_cast<std::uint64_t>(y + kBias) << kRowShift) |
           static_cast<std::uint64_t>(x + kBias);
}
std::uint32_t levelOfKey(std::uint64_t key) { return static_cast<std::uint32_t>(key >> kLevelShift); }
std::int32_t columnOfKey(std::uint64_t key) {
    return static_cast<std::int32_t>(static_cast<std::int64_t>(key & kFieldMask) - kBias);
}
std::int32_t rowOfKey(std::uint64_t key) {
    return static_cast<std::int32_t>(static_cast<std::int64_t>((key >> kRowShift) & kFieldMask) - kBias);
}

/// floor(v / c) as floor(v * (1 / c)) in double, clamped to +-kCellLimit (NaN to the low end).
/// Monotone in v, and within 2^-22 of the exact quotient inside the clamp: see the header.
/// Biased by 2^28 the value is positive, where truncation is floor; rounding the sum moves it
/// by at most 2^-25 and keeps it monotone.
std::int32_t cellOf(float v, double inverse) {
    constexpr double kLimit = kCellLimit;
    // max(-limit, p) first: NaN compares false and becomes -limit. No branch: min/max.
    const double p = std::min(std::max(-kLimit, static_cast<double>(v) * inverse), kLimit);
    return static_cast<std::int32_t>(static_cast<std::int64_t>(p + static_cast<double>(kBias)) - kBias);
}

/// The key of the cell holding (x, y) on `level`: cellOf for both at once, the same operations
/// in the same order on two lanes (the same results), with SSE.
std::uint64_t cellKeyOf(std::uint32_t level, float x, float y, double inverse) {
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

// Overlap tests of findPairs on slot boxes (see SlotBox): the same answer as overlaps(),
// since negating a float is exact. With SSE, one compare of four lanes.
#if defined(__SSE2__)
using Probe = __m128;
template <typename SlotBox>
Probe probeOf(const SlotBox& a) {
    const __m128 v = _mm_loadu_ps(&a.minX);  // (minX, minY, -maxX, -maxY)
    return _mm_xor_ps(_mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 3, 2)), _mm_set1_ps(-0.0f));
}
template <typename SlotBox>
bool touches(Probe probe, const SlotBox& b) {
    return _mm_movemask_ps(_mm_cmple_ps(_mm_loadu_ps(&b.minX), probe)) == 0xF;
}
#else
struct Probe {
    float maxX, maxY, negMinX, negMinY;
};
template <typename SlotBox>
Probe probeOf(const SlotBox& a) {
    return {-a.negMaxX, -a.negMaxY, -a.minX, -a.minY};
}
template <typename SlotBox>
bool touches(const Probe& probe, const SlotBox& b) {
    return (b.minX <= probe.maxX) & (b.minY <= probe.maxY) & (b.negMaxX <= probe.negMinX) & (b.negMaxY <= probe.negMinY);
}
#endif

/// A box as a slot stores it (see SlotBox): two sign flips, one xor with SSE.
template <typename SlotBox>
SlotBox toSlotBox(const Aabb& b) {
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
Pair orderedPair(std::uint32_t i, std::uint32_t j) {
    const std::uint32_t swap = (j < i ? ~0u : 0u) & (i ^ j);
    return {i ^ swap, j ^ swap};
}

/// The largest float at or under d: for a float s, s <= d exactly when s <= floatAtOrBelow(d),
/// and s > d exactly when s > floatAtOrBelow(d).
float floatAtOrBelow(double d) {
    float f = static_cast<float>(d);
    if (static_cast<double>(f) > d) f = std::nextafter(f, -kInf);
    return f;
}

float sideOf(const Aabb& b) { return std::max(b.maxX - b.minX, b.maxY - b.minY); }

/// Fits the levels: both extents finite and at most kMaxSide (false for NaN).
bool fitsLevels(const Aabb& b) {
    return b.maxX - b.minX <= HierarchicalGrid::kMaxSide && b.maxY - b.minY <= HierarchicalGrid::kMaxSide;
}

/// LSD radix sort by 64-bit key, 11-bit digits placed only where the keys differ
/// (keys hold absolute cells, so most of their high bits are the same).
template <typename T>
void sortByKey(std::vector<T>& items, std::vector<T>& scratch) {
    const std::size_t n = items.size();
    if (n < 256) {
        std::sort(items.begin(), items.end(), [](const T& a, const T& b) { return a.key < b.key; });
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
std::uint32_t testFour(Probe probe, std::uint32_t self, const SlotBox* boxes, const std::uint32_t* dense, SlotAt slotAt,
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
std::size_t testRowRuns(const RowRuns& runs, const SlotBox* boxes, const std::uint32_t* dense, Probe probe,
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
void testKeyRun(const std::uint64_t* keys, const SlotBox* boxes, const std::uint32_t* dense, Probe probe,
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

}  // namespace

/// findPairs' output. Loops whose tests are hard to predict write without a branch per test:
/// each test writes its pair at the next free place and a hit keeps it (room() and kept()).
/// The vector is written over from its start, its old elements used as room (growing it zeroes
/// every new element), grown ahead of the writes and cut to the pairs kept by finish().
class HierarchicalGrid::PairWriter {
public:
    explicit PairWriter(std::vector<Pair>& out) : m_out(out) {}
    /// Where the next `count` pairs may be written.
    Pair* room(std::size_t count) {
        const std::size_t needed = m_kept + count;
        // Some slack, so the next calls need not grow it, but no more than its capacity holds.
        if (needed > m_out.size()) m_out.resize(std::max(needed, std::min(needed + 256, m_out.capacity())));
        return m_out.data() + m_kept;
    }
    /// Keeps the first `count` pairs written at room().
    void kept(std::size_t count) { m_kept += count; }
    void push(Pair pair) {
        *room(1) = pair;
        ++m_kept;
    }
    [[nodiscard]] std::size_t size() const { return m_kept; }
    void finish() { m_out.resize(m_kept); }

private:
    std::vector<Pair>& m_out;
    std::size_t m_kept = 0;
};

void HierarchicalGrid::configure(const Settings& settings) {
    checkSettings(settings);
    m_pending = settings;
}

std::uint32_t HierarchicalGrid::levelPopulation(std::uint32_t level) const {
    const Level& lv = m_levels.at(level);
    return lv.end - lv.begin;
}

bool HierarchicalGrid::searchesDown(std::uint32_t fine, std::uint32_t coarse) const {
    return (m_levels.at(coarse).targets >> fine) & 1u;
}

std::uint32_t HierarchicalGrid::levelOfSide(float side) const {
    if (!(side <= kMaxSide)) return kMaxLevels;
    return levelFor(side);
}

std::uint32_t HierarchicalGrid::levelFor(float side) const {
    std::uint32_t level = 0;
    while (level + 1 < kMaxLevels && side > m_levels[level].size) ++level;
    return level;
}

HierarchicalGrid::CellRect HierarchicalGrid::reachOf(std::uint32_t level, const Aabb& box) const {
    // The neighbourhood rule of the header: entities of `level` that can touch `box`.
    const double inverse = m_levels[level].inverse;
    return {cellOf(box.minX, inverse) - 1, cellOf(box.minY, inverse) - 1, cellOf(box.maxX, inverse),
            cellOf(box.maxY, inverse)};
}

bool HierarchicalGrid::geometryFits(const SizeStats& stats) const {
    if (!m_hasGeometry) return false;
    const double f = m_factor;
    if (stats.minPositiveSide < kInf) {
        // Hysteresis: the smallest entity may drift within a factor f either way of the
        // smallest when the levels were set.
        const double wanted = std::max<double>(stats.minPositiveSide, kMinSize);
        if (!(wanted > m_smallest / f && wanted <= m_smallest * f)) return false;
    }
    const double top = m_levels[kMaxLevels - 1].size;
    if (stats.maxSide > top) return false;
    return !(m_topStretched && stats.maxSide * f < top);  // a stretched top shrinks back
}

HierarchicalGrid::SizeStats HierarchicalGrid::measureSizes() const {
    SizeStats stats{kInf, 0.0f};
    for (std::uint32_t i = 0; i < m_boxes.count; ++i) {
        const Aabb box = m_boxes.box(i);
        if (!fitsLevels(box)) continue;
        const float side = sideOf(box);
        if (side > 0.0f) stats.minPositiveSide = std::min(stats.minPositiveSide, side);
        stats.maxSide = std::max(stats.maxSide, side);
    }
    return stats;
}

void HierarchicalGrid::setGeometry(const SizeStats& stats) {
    const double f = m_factor;
    m_smallest = stats.minPositiveSide < kInf ? std::max<double>(stats.minPositiveSide, kMinSize)
                                              : (m_hasGeometry ? m_smallest : 1.0);
    // Anchored at the largest entity: s_0 = largest / f^k for the largest k that keeps s_0 at
    // the smallest side or over. The smallest sit on level 0, the largest fill their level's
    // cells (they meet the most others), and sizes less than f apart share one level with
    // cells their own size, not up to f times it. (Mixed sizes at 100k: 8% fewer tests; the
    // small boxes' cells 1.25, not 1.6.) Sizes spread over f^24 or more: s_0 is the
    // smallest, and the top level stretches.
    double size = std::max<double>(stats.maxSide, m_smallest);
    for (std::uint32_t steps = 0; size / f >= m_smallest; ++steps) {
        if (steps + 1 == kMaxLevels) {
            size = m_smallest;
            break;
        }
        size /= f;
    }
    // Sides are differences of coordinates and wobble by their rounding from step to step: a
    // margin keeps the largest on their level.
    size *= kSizeMargin;
    for (std::uint32_t level = 0; level < kMaxLevels; ++level, size *= f) {
        Level& lv = m_levels[level];
        lv.size = size;
        m_topStretched = level + 1 == kMaxLevels && stats.maxSide > size;
        if (m_topStretched) lv.size = stats.maxSide;  // the top level holds everything larger
        lv.below = level == 0 ? -std::numeric_limits<double>::infinity() : m_levels[level - 1].size;
        lv.cell = lv.size * kCellMargin;
        lv.inverse = 1.0 / lv.cell;
    }
    m_hasGeometry = true;
}

void HierarchicalGrid::growState(std::uint32_t id) {
    const std::size_t size = std::size_t{id} + 1;
    if (size > m_state.capacity()) m_state.reserve(size + size / 2);
    m_state.resize(size, IdState{kNoKey, {}, 0, 0});
}

HierarchicalGrid::SizeStats HierarchicalGrid::placeAll(bool rebuild) {
    ++m_frame;  // doUpdate restarts the count long before it could wrap
    m_moved.clear();
    m_oversized.clear();
    // Locals, not members, in the loop: the stores into the records could alias members.
    const BoxView b = m_boxes;
    const std::uint32_t frame = m_frame;
    IdState* state = m_state.data();
    std::size_t stateSize = m_state.size();
    // Level L holds the sides in (below_L, size_L]. Most entities stay on their level, so
    // that test comes first, on floats: against the largest float at or under each bound it
    // gives the same answer as against the bound in double.
    std::array<float, kMaxLevels> holdsAbove, holdsUpTo;
    std::array<double, kMaxLevels> inverse;
    for (std::uint32_t level = 0; level < kMaxLevels; ++level) {
        holdsAbove[level] = floatAtOrBelow(m_levels[level].below);
        holdsUpTo[level] = floatAtOrBelow(m_levels[level].size);
        inverse[level] = m_levels[level].inverse;
    }
    float minPositiveSide = kInf;
    float maxSide = 0.0f;
    for (std::uint32_t i = 0; i < b.count; ++i) {
        const std::uint32_t id = b.ids[i];
        if (id >= stateSize) [[unlikely]] {
            growState(id);
            state = m_state.data();
            stateSize = m_state.size();
        }
        IdState& st = state[id];
        // A slot not seen in the last update is a new entity, whatever key it held before.
        if (st.stamp + 1 != frame) [[unlikely]]
            st.key = kNoKey;
        const Aabb box{b.minX[i], b.minY[i], b.maxX[i], b.maxY[i]};
        std::uint64_t key = kOversizedKey;
        if (fitsLevels(box)) [[likely]] {
            const float side = sideOf(box);
            minPositiveSide = std::min(minPositiveSide, side > 0.0f ? side : kInf);
            maxSide = std::max(maxSide, side);
            std::uint32_t level = levelOfKey(st.key);  // out of range for kNoKey and kOversizedKey
            if (!(level < kMaxLevels && side <= holdsUpTo[level] && side > holdsAbove[level])) [[unlikely]]
                level = levelFor(side);
            key = cellKeyOf(level, box.minX, box.minY, inverse[level]);
        } else {
            m_oversized.push_back(i);
        }
        st.box = box;
        st.dense = i;
        st.stamp = frame;
        // Rehash only on cell change: an entity whose key is unchanged keeps its place.
        if (key != st.key || rebuild) [[unlikely]] {
            st.key = key;
            if (key != kOversizedKey) m_moved.push_back({key, id, 0});
        }
    }
    return {minPositiveSide, maxSide};
}

HierarchicalGrid::SlotBox HierarchicalGrid::slotBoxOf(const Aabb& box) { return toSlotBox<SlotBox>(box); }

void HierarchicalGrid::mergeOrder(bool rebuild) {
    sortByKey(m_moved, m_movedScratch);
    const std::uint32_t previous = rebuild ? 0 : m_placed;
    const auto placed = static_cast<std::uint32_t>(m_boxes.count - m_oversized.size());
    m_keys.swap(m_previousKeys);
    m_ids.swap(m_previousIds);
    resizeWithHeadroom(m_keys, std::size_t{placed} + kWindow);
    resizeWithHeadroom(m_ids, placed);
    resizeWithHeadroom(m_slotBoxes, std::size_t{placed} + kWindow);
    resizeWithHeadroom(m_slotDense, std::size_t{placed} + kWindow);

    // One pass over the kept order and the sorted moved list; each slot takes its entity's box
    // and dense index from the record placeAll just wrote.
    const IdState* state = m_state.data();
    const std::uint32_t frame = m_frame;
    const std::uint64_t* previousKeys = m_previousKeys.data();
    const std::uint32_t* previousIds = m_previousIds.data();
    const std::size_t movedCount = m_moved.size();
    m_moved.push_back({kNoKey, 0, 0});  // ends the moved list (its capacity holds n + 1)
    const Moved* moved = m_moved.data();
    std::uint64_t* keys = m_keys.data();
    std::uint32_t* ids = m_ids.data();
    SlotBox* boxes = m_slotBoxes.data();
    std::uint32_t* dense = m_slotDense.data();
    std::uint32_t written = 0;
    const auto emit = [&](std::uint64_t key, std::uint32_t id, const IdState& st) {
        keys[written] = key;
        ids[written] = id;
        boxes[written] = slotBoxOf(st.box);
        dense[written] = st.dense;
        ++written;
    };
    const Moved* next = moved;
    // The records are read in the kept order, at random ids: fetched ahead, as the hardware
    // cannot guess where.
    constexpr std::uint32_t kAhead = 16;
    for (std::uint32_t o = 0; o < std::min(previous, kAhead); ++o) __builtin_prefetch(&state[previousIds[o]]);
    for (std::uint32_t o = 0; o < previous; ++o) {
        if (o + kAhead < previous) __builtin_prefetch(&state[previousIds[o + kAhead]]);
        const std::uint64_t key = previousKeys[o];
        const std::uint32_t id = previousIds[o];
        const IdState& st = state[id];
        if (st.stamp != frame || st.key != key) continue;  // removed, or in another cell now
        for (; next->key < key; ++next) emit(next->key, next->id, state[next->id]);
        emit(key, id, st);
    }
    for (; next != moved + movedCount; ++next) emit(next->key, next->id, state[next->id]);
    m_moved.pop_back();
    if (written != placed) throw std::logic_error("HSHG: the merged order lost or repeated an entity");
    std::fill(m_keys.begin() + placed, m_keys.end(), kEndKey);
    m_placed = placed;

    const auto sorted = m_keys.begin();
    for (std::uint32_t level = 0; level < kMaxLevels; ++level) {
        Level& lv = m_levels[level];
        lv.begin = level == 0 ? 0 : m_levels[level - 1].end;
        lv.end = static_cast<std::uint32_t>(
            std::lower_bound(sorted + lv.begin, sorted + placed, std::uint64_t{level + 1} << kLevelShift) - sorted);
    }
}

double HierarchicalGrid::spreadArea() const {
    // From the most populous level: its rows exactly (first and last key), its columns from a
    // sample of its keys. An estimate for choosing directions, nothing depends on it otherwise.
    std::uint32_t level = 0;
    for (std::uint32_t l = 1; l < kMaxLevels; ++l)
        if (levelPopulation(l) > levelPopulation(level)) level = l;
    const Level& lv = m_levels[level];
    const std::uint32_t stride = std::max(1u, (lv.end - lv.begin) / 1024);
    std::int32_t x0 = kCellLimit;
    std::int32_t x1 = -kCellLimit;
    for (std::uint32_t s = lv.begin; s < lv.end; s += stride) {
        x0 = std::min(x0, columnOfKey(m_keys[s]));
        x1 = std::max(x1, columnOfKey(m_keys[s]));
    }
    const double rows = static_cast<double>(rowOfKey(m_keys[lv.end - 1])) - rowOfKey(m_keys[lv.begin]) + 1.0;
    const double columns = static_cast<double>(x1) - x0 + 1.0;
    return rows * columns * lv.cell * lv.cell;
}

void HierarchicalGrid::plan() {
    m_populated = 0;
    double coarsest = 0.0;
    for (std::uint32_t level = 0; level < kMaxLevels; ++level) {
        Level& lv = m_levels[level];
        lv.targets = 0;
        lv.hasTable = false;
        if (lv.end > lv.begin) {
            m_populated |= 1u << level;
            coarsest = lv.cell;
        }
    }
    if (std::popcount(m_populated) < 2) return;  // no pair of levels: nothing to plan
    // Area over which the entities spread, for the expected tests of each direction.
    const double area = std::max(spreadArea(), coarsest * coarsest);

    // Each pair of populated levels is searched in one direction: the cheaper one.
    std::array<double, kMaxLevels> lookups{};
    for (std::uint32_t fine = 0; fine < kMaxLevels; ++fine) {
        if (!(m_populated >> fine & 1u)) continue;
        for (std::uint32_t coarse = fine + 1; coarse < kMaxLevels; ++coarse) {
            if (!(m_populated >> coarse & 1u)) continue;
            const double nf = levelPopulation(fine);
            const double nc = levelPopulation(coarse);
            const double cf = m_levels[fine].cell;
            const double cc = m_levels[coarse].cell;
            // Up: each fine entity looks up a 2x2 (at most 3x3) block of coarse cells.
            const double up = nf * (2.5 * kRowCost + nc * 4.0 * cc * cc / area);
            // Down: each coarse entity looks up its footprint, about cc / cf + 2 rows of fine cells.
            const double rowsDown = std::min(cc / cf + 2.0, nf);
            const double down = nc * (rowsDown * kRowCost + nf * (cc + 2.0 * cf) * (cc + 2.0 * cf) / area);
            if (up <= down) {
                m_levels[fine].targets |= 1u << coarse;
                lookups[coarse] += 2.5 * nf;
            } else {
                m_levels[coarse].targets |= 1u << fine;
                lookups[fine] += rowsDown * nc;
            }
        }
    }

    // A direct table of first slots where lookups are many and the extent is small. One entry
    // per block of 2^blockShift columns, the blocks about as many as the entities: filling a
    // table costs an entry per block, a block's extra slots cost a test each.
    std::uint64_t tableSize = 0;
    const std::uint64_t budget = 8 * std::uint64_t{m_placed} + 4096;
    for (std::uint32_t level = 0; level < kMaxLevels; ++level) {
        Level& lv = m_levels[level];
        const double count = lv.end - lv.begin;
        const double searchCost = lookups[level] * std::log2(count + 1.0);
        if (lookups[level] == 0.0 || searchCost <= 2.0 * count) continue;
        std::int32_t x0 = kCellLimit;
        std::int32_t x1 = -kCellLimit;
        for (std::uint32_t s = lv.begin; s < lv.end; ++s) {
            x0 = std::min(x0, columnOfKey(m_keys[s]));
            x1 = std::max(x1, columnOfKey(m_keys[s]));
        }
        const std::int32_t y0 = rowOfKey(m_keys[lv.begin]);
        const auto width = static_cast<std::uint64_t>(x1 - x0 + 1);
        const auto height = static_cast<std::uint64_t>(rowOfKey(m_keys[lv.end - 1]) - y0 + 1);
        std::uint32_t shift = 0;
        const auto blocksWith = [&](std::uint32_t sh) { return height * (((width - 1) >> sh) + 1); };
        while (shift < kMaxBlockShift && blocksWith(shift) > 2 * static_cast<std::uint64_t>(count)) ++shift;
        const std::uint64_t blocks = blocksWith(shift);
        if (static_cast<double>(blocks) + count > searchCost || tableSize + blocks + 1 > budget) continue;
        lv.hasTable = true;
        lv.x0 = x0;
        lv.y0 = y0;
        lv.width = static_cast<std::uint32_t>(width);
        lv.height = static_cast<std::uint32_t>(height);
        lv.blockShift = shift;
        lv.rowBlocks = static_cast<std::uint32_t>(((width - 1) >> shift) + 1);
        lv.tableBegin = static_cast<std::uint32_t>(tableSize);
        tableSize += blocks + 1;
    }
    resizeWithHeadroom(m_table, tableSize);
    for (std::uint32_t level = 0; level < kMaxLevels; ++level)
        if (m_levels[level].hasTable) buildTable(level);
}

void HierarchicalGrid::buildTable(std::uint32_t level) {
    // table[block] = the first slot whose cell is in `block` or after (row-major in the extent).
    // Without a branch per slot (a block holds 0-3 slots, no length to guess): each slot
    // writes its block going backwards, so the first one wins; then every empty block takes
    // its successor's entry, as the minimum going backwards.
    const Level& lv = m_levels[level];
    std::uint32_t* table = m_table.data() + lv.tableBegin;
    const std::uint64_t* keys = m_keys.data();
    const std::int64_t x0 = lv.x0;
    const std::int64_t y0 = lv.y0;
    const std::uint64_t rowBlocks = lv.rowBlocks;
    const std::uint32_t shift = lv.blockShift;
    const std::uint64_t blocks = rowBlocks * lv.height;
    std::fill(table, table + blocks + 1, lv.end);
    for (std::uint32_t s = lv.end; s-- > lv.begin;) {
        const std::uint64_t key = keys[s];
        table[static_cast<std::uint64_t>(rowOfKey(key) - y0) * rowBlocks +
              (static_cast<std::uint64_t>(columnOfKey(key) - x0) >> shift)] = s;
    }
    std::uint32_t next = lv.end;
    for (std::uint64_t block = blocks; block-- > 0;) next = table[block] = std::min(table[block], next);
}

void HierarchicalGrid::doUpdate(const BoxView& boxes) {
    m_boxes = boxes;
    m_counters = {};
    if (m_pending) {
        if (m_pending->hshgFactor != m_factor) {
            m_factor = m_pending->hshgFactor;
            m_hasGeometry = false;
        }
        m_pending.reset();
    }
    try {
        reserveWithHeadroom(m_moved, std::size_t{boxes.count} + 1);
        reserveWithHeadroom(m_movedScratch, std::size_t{boxes.count} + 1);
        // After a failed update the kept keys cannot be trusted: place everyone afresh.
        bool rebuild = m_needsRebuild || !m_hasGeometry;
        if (m_frame > kFrameLimit) {  // restart the stamps long before they wrap
            for (IdState& st : m_state) st.stamp = 0;
            m_frame = 0;
            rebuild = true;
        }
        m_needsRebuild = true;  // until this update finishes
        if (!m_hasGeometry) setGeometry(measureSizes());  // rather than place everyone twice
        if (!geometryFits(placeAll(rebuild))) {
            setGeometry(measureSizes());
            rebuild = true;
            (void)placeAll(true);
        }
        m_rehashed = m_moved.size();
        mergeOrder(rebuild);
        plan();
        m_isOversized.clear();
        if (!m_oversized.empty()) {
            m_isOversized.resize(boxes.count, 0);
            for (const std::uint32_t i : m_oversized) m_isOversized[i] = 1;
        }
        m_needsRebuild = false;
    } catch (...) {
        // Leave a valid, empty structure behind, so later calls see nothing rather than stale
        // slots; the kept keys cannot be trusted, so the next update places everyone afresh.
        m_boxes.count = 0;
        m_placed = 0;
        m_keys.assign(kWindow, kEndKey);
        m_oversized.clear();
        m_populated = 0;
        for (Level& lv : m_levels) {
            Level empty;
            empty.size = lv.size;
            empty.cell = lv.cell;
            empty.inverse = lv.inverse;
            lv = empty;
        }
        throw;
    }
}

template <bool kCrowded>
void HierarchicalGrid::pairWithinLevel(const Level& lv, PairWriter& out, std::uint64_t& testCount) const {
    const std::uint64_t* keys = m_keys.data();
    const SlotBox* boxes = m_slotBoxes.data();
    const std::uint32_t* dense = m_slotDense.data();
    std::uint64_t tests = 0;
    std::uint32_t above = lv.begin;  // first slot at or after the cell above-left of p's
    for (std::uint32_t p = lv.begin; p < lv.end; ++p) {
        const std::uint64_t key = keys[p];
        const Probe probe = probeOf(boxes[p]);
        const std::uint32_t self = dense[p];
        // Half the neighbourhood: the rest of p's cell and the cell to its right (keys up to
        // key + 1), then the three cells above (key + kRow - 1 .. key + kRow + 1). Sentinels
        // and the next level's larger keys end both runs.
        const std::uint64_t lastRight = key + 1;
        const std::uint64_t aboveLeft = key + kRow - 1;
        const std::uint64_t lastAbove = key + kRow + 1;
        // The cursor moves a geometric number of slots per entity (mean 1 in a sparse
        // level): count the first four from independent loads, by the sign of the key
        // differences, rather than guess a loop's length.
        const auto moveCursor = [&] {
            const auto below = [&](std::uint32_t q) { return static_cast<std::uint32_t>((keys[q] - aboveLeft) >> 63); };
            const std::uint32_t step = below(above) + below(above + 1) + below(above + 2) + below(above + 3);
            above += step;
            if (step == 4)
                while (keys[above] < aboveLeft) ++above;
        };
        if constexpr (kCrowded) {
            testKeyRun(keys, boxes, dense, probe, self, p + 1, lastRight, out, tests);
            moveCursor();
            testKeyRun(keys, boxes, dense, probe, self, above, lastAbove, out, tests);
        } else {
            // A sparse level's cells hold 0-2 entities, and most tests miss: the first slots
            // of each run are tested whether or not they belong to it (the key says, without
            // a branch), and a hit takes a branch that is rarely taken; the rest of a run,
            // when there is one, goes to testKeyRun.
            const auto test = [&](std::uint32_t q, bool inRun) {
                tests += inRun ? 1 : 0;
                if (inRun & touches(probe, boxes[q])) out.push(orderedPair(self, dense[q]));
            };
            test(p + 1, keys[p + 1] <= lastRight);
            if (keys[p + 2] <= lastRight) testKeyRun(keys, boxes, dense, probe, self, p + 2, lastRight, out, tests);
            moveCursor();
            test(above, keys[above] <= lastAbove);
            test(above + 1, keys[above + 1] <= lastAbove);
            if (keys[above + 2] <= lastAbove)
                testKeyRun(keys, boxes, dense, probe, self, above + 2, lastAbove, out, tests);
        }
    }
    testCount += tests;
}

void HierarchicalGrid::pairAcrossLevels(const Level& lv, PairWriter& out, std::uint64_t& testCount,
                                        std::uint64_t& cellCount) const {
    const SlotBox* boxes = m_slotBoxes.data();
    const std::uint32_t* dense = m_slotDense.data();
    std::uint64_t tests = 0;
    std::uint64_t cells = 0;
    for (std::uint32_t p = lv.begin; p < lv.end; ++p) {
        const Aabb a = boxes[p].box();
        const Probe probe = probeOf(boxes[p]);
        const std::uint32_t self = dense[p];
        const auto testSlot = [&](std::uint32_t q) {
            ++tests;
            if (touches(probe, boxes[q])) out.push(orderedPair(self, dense[q]));
        };
        const auto testRuns = [&](const RowRuns& runs) {
            out.kept(testRowRuns(runs, boxes, dense, probe, self, out.room(std::size_t{runs.total} + 4), tests));
        };
        for (std::uint32_t targets = lv.targets; targets != 0; targets &= targets - 1) {
            const auto target = static_cast<std::uint32_t>(std::countr_zero(targets));
            const CellRect r = reachOf(target, a);
            if (m_levels[target].hasTable) {
                cells += forEachTableRow(target, r, testRuns);
            } else {
                cells += forEachInRect(target, r, testSlot);
            }
        }
    }
    testCount += tests;
    cellCount += cells;
}

void HierarchicalGrid::findPairs(std::vector<Pair>& out) {
    std::uint64_t tests = 0;
    std::uint64_t cells = 0;
    PairWriter writer(out);
    for (std::uint32_t levels = m_populated; levels != 0; levels &= levels - 1) {
        Level& lv = m_levels[std::countr_zero(levels)];
        const std::size_t before = writer.size();
        if (lv.crowded) {
            pairWithinLevel<true>(lv, writer, tests);
        } else {
            pairWithinLevel<false>(lv, writer, tests);
        }
        // A pair for every other entity or more: next step, scan without a branch on the hits.
        // (Below that the branch is cheaper: most runs are empty or hold one slot. Measured:
        // dense scenes, 0.7 pairs an entity, gain; orbit rings, 0.4, lose.)
        lv.crowded = 2 * (writer.size() - before) > lv.end - lv.begin;
        if (lv.targets != 0) pairAcrossLevels(lv, writer, tests, cells);
        cells += 5 * std::uint64_t{lv.end - lv.begin};
    }
    writer.finish();
    if (!m_oversized.empty()) tests += pairOversized(m_boxes, m_oversized, m_isOversized, out, m_oversizedScratch);
    m_counters.pairTests = tests;
    m_counters.candidatePairs = out.size();
    m_counters.cellsTouched = m_rehashed + cells;
    m_counters.cellSize = static_cast<float>(m_levels[0].cell);
    m_counters.bytesHeld = bytesHeld(m_state) + bytesHeld(m_moved) + bytesHeld(m_movedScratch) + bytesHeld(m_keys) +
                           bytesHeld(m_previousKeys) + bytesHeld(m_ids) + bytesHeld(m_previousIds) +
                           bytesHeld(m_slotBoxes) + bytesHeld(m_slotDense) + bytesHeld(m_table) +
                           bytesHeld(m_oversized) + bytesHeld(m_isOversized) + m_oversizedScratch.bytesHeld() +
                           bytesHeld(m_queryMark);
}

void HierarchicalGrid::forEachCell(const std::function<void(const CellView&)>& visit) const {
    for (std::uint32_t s = 0; s < m_placed;) {
        const std::uint64_t key = m_keys[s];
        std::uint32_t end = s + 1;
        while (m_keys[end] == key) ++end;  // the end key stops it
        const std::uint32_t level = levelOfKey(key);
        const double c = m_levels[level].cell;
        const double x = columnOfKey(key);
        const double y = rowOfKey(key);
        const Aabb bounds{static_cast<float>(x * c), static_cast<float>(y * c), static_cast<float>((x + 1) * c),
                          static_cast<float>((y + 1) * c)};
        visit({bounds, end - s, level, CellView::Kind::Cell});
        s = end;
    }
}

std::string HierarchicalGrid::validate() const {
    const std::uint32_t count = m_boxes.count;
    if (m_placed + m_oversized.size() != count) return "placed and oversized entities do not add up to the count";
    if (m_placed > 0 && (m_keys.size() < m_placed + kWindow ||
                         std::any_of(m_keys.begin() + m_placed, m_keys.end(), [](auto k) { return k != kEndKey; })))
        return "the sorted keys lack their sentinels";
    const auto at = [](std::uint32_t s) { return " (slot " + std::to_string(s) + ")"; };
    std::vector<std::uint8_t> seen(count, 0);
    for (std::uint32_t s = 0; s < m_placed; ++s) {
        const std::uint64_t key = m_keys[s];
        if (s > 0 && key < m_keys[s - 1]) return "keys out of order" + at(s);
        const std::uint32_t level = levelOfKey(key);
        if (level >= kMaxLevels) return "a key names no level" + at(s);
        const Level& lv = m_levels[level];
        if (s < lv.begin || s >= lv.end) return "a slot lies outside its level's range" + at(s);
        const Aabb box = m_slotBoxes[s].box();
        if (!fitsLevels(box) || levelFor(sideOf(box)) != level)
            return "an entity is on level " + std::to_string(level) + ", not the one its size picks" + at(s);
        if (cellOf(box.minX, lv.inverse) != columnOfKey(key) || cellOf(box.minY, lv.inverse) != rowOfKey(key))
            return "an entity is not in the cell of its min corner" + at(s);
        const std::uint32_t id = m_ids[s];
        if (id >= m_state.size()) return "a slot names an unknown id" + at(s);
        const IdState& st = m_state[id];
        if (st.key != key || st.dense != m_slotDense[s] || st.stamp != m_frame ||
            std::memcmp(&st.box, &box, sizeof(Aabb)) != 0)
            return "the record of id " + std::to_string(id) + " disagrees with its slot" + at(s);
        const std::uint32_t i = m_slotDense[s];
        if (i >= count) return "a dense index is out of range" + at(s);
        if (seen[i]++) return "entity " + std::to_string(i) + " is in two cells";
    }
    for (const std::uint32_t i : m_oversized) {
        if (i >= count || seen[i]++) return "an oversized entity is out of range or also in a cell";
        if (fitsLevels(m_boxes.box(i))) return "entity " + std::to_string(i) + " fits the levels but skips them";
    }
    for (std::uint32_t i = 0; i < count; ++i)
        if (!seen[i]) return "entity " + std::to_string(i) + " is in no cell";

    for (std::uint32_t level = 0; level < kMaxLevels; ++level) {
        const Level& lv = m_levels[level];
        if (lv.begin != (level == 0 ? 0 : m_levels[level - 1].end) || lv.end < lv.begin)
            return "level ranges are not contiguous at level " + std::to_string(level);
        if (((m_populated >> level) & 1u) != (lv.end > lv.begin ? 1u : 0u)) return "the populated levels are wrong";
        if (level > 0 && !(lv.size >= m_levels[level - 1].size * m_factor * (1.0 - 1.0e-12)))
            return "level sizes do not grow by the factor at level " + std::to_string(level);
        for (std::uint32_t other = 0; other < level; ++other) {
            const bool up = (m_levels[other].targets >> level) & 1u;
            const bool down = (lv.targets >> other) & 1u;
            const bool both = ((m_populated >> other) & (m_populated >> level) & 1u) != 0;
            if (both ? up == down : up || down)
                return "levels " + std::to_string(other) + " and " + std::to_string(level) +
                       " are not searched in exactly one direction";
        }
        if (!lv.hasTable) continue;
        const std::uint32_t* table = m_table.data() + lv.tableBegin;
        const std::uint64_t blocks = std::uint64_t{lv.rowBlocks} * lv.height;
        for (std::uint64_t block = 0; block <= blocks; ++block) {
            std::uint32_t first = lv.end;
            if (block < blocks) {
                const auto x = static_cast<std::int32_t>(lv.x0 + static_cast<std::int64_t>((block % lv.rowBlocks) << lv.blockShift));
                const auto y = static_cast<std::int32_t>(lv.y0 + static_cast<std::int64_t>(block / lv.rowBlocks));
                first = static_cast<std::uint32_t>(
                    std::lower_bound(m_keys.begin() + lv.begin, m_keys.begin() + lv.end, packKey(level, x, y)) -
                    m_keys.begin());
            }
            if (table[block] != first) return "the cell table of level " + std::to_string(level) + " is wrong";
        }
        if (table[0] != lv.begin) return "the cell table of level " + std::to_string(level) + " misses entities";
    }
    if (m_levels[kMaxLevels - 1].size < m_levels[kMaxLevels - 2].size) return "the top level is smaller than the one below";
    return {};
}

}  // namespace ro

// Lookups shared by findPairs and the queries (Lembcke and Korth): the rows of a rectangle of cells.

namespace ro {

template <typename Runs>
std::uint64_t HierarchicalGrid::forEachTableRow(std::uint32_t level, CellRect r, Runs runs) const {
    const Level& lv = m_levels[level];
    const auto x0 = std::max<std::int64_t>(r.x0, lv.x0);
    const auto x1 = std::min<std::int64_t>(r.x1, std::int64_t{lv.x0} + lv.width - 1);
    const auto y0 = std::max<std::int64_t>(r.y0, lv.y0);
    const auto y1 = std::min<std::int64_t>(r.y1, std::int64_t{lv.y0} + lv.height - 1);
    if (x0 > x1 || y0 > y1) return 0;
    const std::uint32_t* row = m_table.data() + lv.tableBegin + static_cast<std::uint64_t>(y0 - lv.y0) * lv.rowBlocks;
    const auto first = static_cast<std::uint64_t>(x0 - lv.x0) >> lv.blockShift;
    const auto last = (static_cast<std::uint64_t>(x1 - lv.x0) >> lv.blockShift) + 1;
    // The blocks at a row's ends may reach up to 2^blockShift - 1 columns past the rectangle.
    // Their slots there are kept: every caller tests each slot exactly, so they cost a test,
    // never a wrong answer (no box outside the rectangle touches the caller's box; a ray may
    // truly hit one elsewhere on its segment, and its stamp reports it once). A test costs
    // less than reading keys to cut them: 0.2 slots per row end in the mixed bench, where the
    // cutting took a quarter of findPairs.
    // Rows in batches: their ranges are read, their first slots prefetched and the empty ones
    // dropped before any is scanned, so a row's loads do not wait for the last row's loop.
    constexpr std::int64_t kBatch = 32;
    std::array<std::uint32_t, kBatch> begins, ends;
    for (std::int64_t y = y0; y <= y1; y += kBatch) {
        const auto batch = static_cast<std::size_t>(std::min(kBatch, y1 - y + 1));
        std::size_t count = 0;
        std::uint32_t total = 0;
        for (std::size_t k = 0; k < batch; ++k, row += lv.rowBlocks) {
            const std::uint32_t begin = row[first];
            const std::uint32_t end = row[last];
            begins[count] = begin;
            ends[count] = end;
            __builtin_prefetch(&m_slotBoxes[begin]);
            count += begin < end ? 1 : 0;
            total += end - begin;
        }
        if (count > 0) runs(RowRuns{begins.data(), ends.data(), count, total});
    }
    return static_cast<std::uint64_t>(x1 - x0 + 1) * static_cast<std::uint64_t>(y1 - y0 + 1);
}

template <typename Visit>
std::uint64_t HierarchicalGrid::forEachInRows(std::uint32_t level, CellRect r, Visit visit) const {
    const std::uint64_t* keys = m_keys.data();
    if (m_levels[level].hasTable) {
        return forEachTableRow(level, r, [&](const RowRuns& runs) {
            for (std::size_t k = 0; k < runs.count; ++k)
                for (std::uint32_t s = runs.begins[k]; s < runs.ends[k]; ++s) visit(s);
        });
    }
    // Rows come in key order, so each binary search starts where the last one ended.
    const Level& lv = m_levels[level];
    std::uint32_t from = lv.begin;
    for (std::int32_t y = r.y0; y <= r.y1; ++y) {
        const std::uint64_t last = packKey(level, r.x1, y);
        std::uint32_t s = static_cast<std::uint32_t>(
            std::lower_bound(keys + from, keys + lv.end, packKey(level, r.x0, y)) - keys);
        for (; keys[s] <= last; ++s) visit(s);
        from = s;
    }
    return static_cast<std::uint64_t>(r.x1 - r.x0 + 1) * static_cast<std::uint64_t>(r.y1 - r.y0 + 1);
}

template <typename Visit>
std::uint64_t HierarchicalGrid::forEachInRect(std::uint32_t level, CellRect r, Visit visit) const {
    const Level& lv = m_levels[level];
    const std::uint32_t count = lv.end - lv.begin;
    const auto rows = static_cast<std::uint64_t>(r.y1 - r.y0 + 1);
    const std::uint64_t rowCost = lv.hasTable ? rows : rows * std::bit_width(count);
    if (rowCost > count) {  // a footprint as large as the level: read the level instead
        for (std::uint32_t s = lv.begin; s < lv.end; ++s) visit(s);
        return 0;
    }
    return forEachInRows(level, r, visit);
}

QueryCost HierarchicalGrid::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    // Each entity is in one cell and each cell is read once: no stamp needed.
    QueryCost cost;
    for (std::uint32_t levels = m_populated; levels != 0; levels &= levels - 1) {
        const auto level = static_cast<std::uint32_t>(std::countr_zero(levels));
        cost.visited += forEachInRect(level, reachOf(level, box), [&](std::uint32_t s) {
            ++cost.tests;
            if (overlaps(m_slotBoxes[s].box(), box)) out.push_back(m_slotDense[s]);
        });
    }
    queryOversized(m_boxes, m_oversized, box, out, cost);
    return cost;
}

template <typename OnHit, typename KeepGoing>
QueryCost HierarchicalGrid::walkSegment(const Segment& segment, OnHit hit, KeepGoing keepGoing) {
    QueryCost cost;
    if (m_queryMark.size() != m_placed || ++m_queryStamp == 0) {
        m_queryMark.assign(m_placed, 0);
        m_queryStamp = 1;
    }
    const std::uint32_t stamp = m_queryStamp;
    const auto test = [&](std::uint32_t s) {
        ++cost.tests;
        if (const auto t = segmentEntry(m_slotBoxes[s].box(), segment)) hit(m_slotDense[s], *t);
    };
    // What walkSegmentRows pads by, so the estimate of the cells it walks is honest.
    const float magnitude = std::max({std::fabs(segment.from.x), std::fabs(segment.from.y), std::fabs(segment.to.x),
                                      std::fabs(segment.to.y)});
    const double length = std::fabs(static_cast<double>(segment.to.x) - segment.from.x) +
                          std::fabs(static_cast<double>(segment.to.y) - segment.from.y);
    for (std::uint32_t levels = m_populated; levels != 0; levels &= levels - 1) {
        const auto level = static_cast<std::uint32_t>(std::countr_zero(levels));
        const Level& lv = m_levels[level];
        const double pad = lv.cell * 1.0e-3 + magnitude * 0x1p-18;
        if ((length + 4.0 * pad) * lv.inverse + 4.0 > lv.end - lv.begin) {
            // The walk would cross more cells than the level holds entities: test them all.
            for (std::uint32_t s = lv.begin; s < lv.end; ++s) test(s);
            continue;
        }
        const auto cellAt = [&lv](float v) { return cellOf(v, lv.inverse); };
        const auto band = [&lv](std::int64_t c) {
            const float lo = c <= -kCellLimit ? -kInf : static_cast<float>(static_cast<double>(c) * lv.cell);
            const float hi = c >= kCellLimit ? kInf : static_cast<float>(static_cast<double>(c + 1) * lv.cell);
            return std::pair{lo, hi};
        };
        // An entity touching the walked cell (x, y) is stored in x-1..x, y-1..y: the walk meets
        // it from up to two rows, so a stamp keeps it to one test.
        const auto onRow = [&](std::int64_t y, std::int64_t x0, std::int64_t x1, float enterT) {
            if (!keepGoing(enterT)) return false;
            const CellRect r{static_cast<std::int32_t>(x0) - 1, static_cast<std::int32_t>(y) - 1,
                             static_cast<std::int32_t>(x1), static_cast<std::int32_t>(y)};
            cost.visited += forEachInRows(level, r, [&](std::uint32_t s) {
                if (m_queryMark[s] == stamp) return;
                m_queryMark[s] = stamp;
                test(s);
            });
            return true;
        };
        walkSegmentRows(segment, static_cast<float>(lv.cell), 0.0f, cellAt, band, cellAt, onRow);  // cells start at 0
    }
    segmentOversized(m_boxes, m_oversized, segment, hit, cost);
    return cost;
}

QueryCost HierarchicalGrid::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    return everyHit([&](auto onHit, auto keepGoing) { return walkSegment(segment, onHit, keepGoing); }, out);
}

QueryCost HierarchicalGrid::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    return nearestHit([&](auto onHit, auto keepGoing) { return walkSegment(segment, onHit, keepGoing); }, hit);
}

}  // namespace ro

#include "broadphase/hshg/hshg.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "broadphase/cell_walk.h"
#include "broadphase/hshg/keys.h"
#include "broadphase/hshg/kernels.h"
#include "broadphase/hshg/lookups.h"
#include "broadphase/oversized.h"
#include "broadphase/threads.h"
#include "core/box_helpers.h"
#include "core/buffers.h"

namespace ro {

/// findPairs' output. Loops whose tests are hard to predict write without a branch per test:
/// each test writes its pair at the next free place and a hit keeps it (room() and kept()).
/// The vector is written over from its start, its old elements used as room (growing it zeroes
/// every new element), grown ahead of the writes and cut to the pairs kept by finish().
/// With a pair rule (statics, filters) each hit is checked as it is kept.
class HierarchicalGrid::PairWriter {
public:
    PairWriter(std::vector<Pair>& out, const PairRule& rule) : m_out(out), m_rule(rule), m_ruled(rule.active()) {}
    /// Where the next `count` pairs may be written.
    Pair* room(std::size_t count) {
        const std::size_t needed = m_kept + count;
        // Some slack, so the next calls need not grow it, but no more than its capacity holds.
        if (needed > m_out.size()) m_out.resize(std::max(needed, std::min(needed + 256, m_out.capacity())));
        return m_out.data() + m_kept;
    }
    /// Keeps the first `count` pairs written at room().
    void kept(std::size_t count) {
        if (!m_ruled) {
            m_kept += count;
            return;
        }
        Pair* const first = m_out.data() + m_kept;
        for (std::size_t k = 0; k < count; ++k)
            if (m_rule.accepts(first[k])) m_out[m_kept++] = first[k];
    }
    void push(Pair pair) {
        if (m_ruled && !m_rule.accepts(pair)) return;
        *room(1) = pair;
        ++m_kept;
    }
    [[nodiscard]] std::size_t size() const { return m_kept; }
    void finish() { m_out.resize(m_kept); }

private:
    std::vector<Pair>& m_out;
    const PairRule& m_rule;
    const bool m_ruled;
    std::size_t m_kept = 0;
};

// As the grid's (grid.cpp): an arena of its own, so `threads` bounds this technique's work alone.
struct HierarchicalGrid::Parallel {
    /// More chunks than threads, so a chunk of a crowded stretch does not leave the other
    /// threads idle; each chunk at least this many slots, so a chunk's set-up stays small.
    static constexpr std::uint32_t kChunksPerThread = 8;
    static constexpr std::uint32_t kMinSlotsPerChunk = 2048;

    struct Chunk {
        std::uint32_t level;
        bool across;  ///< the level's lookups in other levels, else its pairs within itself
        std::uint32_t begin, end;  ///< its slots
    };
    explicit Parallel(int threads) : threads(threads), arena(threads) {}
    int threads;
    tbb::task_arena arena;
    std::vector<Chunk> chunks;               ///< in the serial scan's order
    std::vector<std::vector<Pair>> pairs;    ///< by chunk, kept between steps
    std::vector<std::uint64_t> tests, cells;  ///< by chunk
    std::vector<std::size_t> offsets;        ///< where chunk c's pairs go in the output
    // placeAll's, by part of the entities.
    std::vector<std::vector<Moved>> partMoved, partScratch;  ///< each part's moved, sorted by key in its task
    std::vector<std::vector<std::uint32_t>> partOversized;
    std::vector<SizeStats> partStats;
    // mergeOrder's, by key range of the kept order: range r holds the keys from splitKeys[r]
    // (splitKeys[0] is 0) up to the next range's. Empty when the merge runs on one thread.
    std::vector<std::uint64_t> splitKeys;
    /// Kept entities that left each range: row 0 counted by the serial code, row 1 + c by
    /// placeAll's part c; `ranges` counters a row.
    std::vector<std::uint32_t> left;
    std::vector<std::uint32_t> keptBegin, movedBegin, outBegin;  ///< by range, and one past the last
};

namespace {

/// The merge range of a key of the kept order (keys below kEndKey).
std::uint32_t rangeOfKey(const std::uint64_t* splitKeys, std::size_t ranges, std::uint64_t key) {
    return static_cast<std::uint32_t>(std::upper_bound(splitKeys, splitKeys + ranges, key) - splitKeys) - 1;
}

}  // namespace

HierarchicalGrid::HierarchicalGrid() : Technique(kParameters) {}
HierarchicalGrid::~HierarchicalGrid() = default;

void HierarchicalGrid::applySettings(const Settings& settings) {
    fitParallel(m_parallel, settings);
    if (settings.real(kFactorParameter) != m_factor) {
        m_factor = settings.real(kFactorParameter);
        m_hasGeometry = false;
    }
}

// Per entity, on the hot paths of update and findPairs: kept beside them so they inline.
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

void HierarchicalGrid::growState(std::uint32_t id) {
    const std::size_t size = std::size_t{id} + 1;
    if (size > m_state.capacity()) m_state.reserve(size + size / 2);
    m_state.resize(size, IdState{kNoKey, {}, 0});
}

HierarchicalGrid::SizeStats HierarchicalGrid::placeAll(bool rebuild, bool recordsReady) {
    m_moved.clear();
    m_movedSorted = false;
    m_oversized.clear();
    // Level L holds the sides in (below_L, size_L]. Most entities stay on their level, so
    // that test comes first, on floats: against the largest float at or under each bound it
    // gives the same answer as against the bound in double.
    PlaceBounds bounds;
    for (std::uint32_t level = 0; level < kMaxLevels; ++level) {
        bounds.holdsAbove[level] = floatAtOrBelow(m_levels[level].below);
        bounds.holdsUpTo[level] = floatAtOrBelow(m_levels[level].size);
        bounds.inverse[level] = m_levels[level].inverse;
    }
    const std::uint32_t count = m_boxes.count;
    const std::size_t parts = m_parallel && recordsReady && count >= kMinParallelCount
                                  ? std::min<std::size_t>(static_cast<std::size_t>(m_parallel->threads),
                                                          count / Parallel::kMinSlotsPerChunk)
                                  : 1;
    // Counts of who leaves each merge range, when the merge is split (chooseMergeRanges).
    const bool countLeft = m_parallel && !m_parallel->splitKeys.empty() && !rebuild;
    const std::size_t ranges = countLeft ? m_parallel->splitKeys.size() : 0;
    if (parts <= 1)
        return placeRange(0, count, rebuild, bounds, m_moved, m_oversized, true,
                          countLeft ? m_parallel->left.data() : nullptr);
    // Equal parts of the entities, each listing its moved and oversized ones; the lists joined
    // in part order are the serial loop's. Every id is unique and already has its record
    // (doUpdate grew them for the ids that came), so the parts write different records.
    Parallel& par = *m_parallel;
    if (par.partMoved.size() < parts) par.partMoved.resize(parts), par.partScratch.resize(parts);
    if (par.partOversized.size() < parts) par.partOversized.resize(parts);
    par.partStats.resize(parts);
    const auto first = [&](std::size_t c) { return static_cast<std::uint32_t>(std::uint64_t{count} * c / parts); };
    par.arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, parts, 1), [&](const tbb::blocked_range<std::size_t>& r) {
            for (std::size_t c = r.begin(); c != r.end(); ++c) {
                par.partMoved[c].clear();
                par.partOversized[c].clear();
                reserveWithHeadroom(par.partMoved[c], first(c + 1) - first(c));  // all of them may move
                reserveWithHeadroom(par.partScratch[c], first(c + 1) - first(c));  // the sort trades the two
                par.partStats[c] = placeRange(first(c), first(c + 1), rebuild, bounds, par.partMoved[c],
                                              par.partOversized[c], false,
                                              countLeft ? par.left.data() + (1 + c) * ranges : nullptr);
                hshg_detail::sortByKey(par.partMoved[c], par.partScratch[c]);
            }
        });
    });
    // The parts' sorted lists merged in part order: std::merge takes the first list's item
    // first among equal keys, so the order is the stable sort's of the joined lists, as on
    // one thread. Only this pass stays serial, not the sort.
    const auto byKey = [](const Moved& a, const Moved& b) { return a.key < b.key; };
    m_moved.resize(par.partMoved[0].size() + par.partMoved[1].size());
    std::merge(par.partMoved[0].begin(), par.partMoved[0].end(), par.partMoved[1].begin(), par.partMoved[1].end(),
               m_moved.begin(), byKey);
    for (std::size_t c = 2; c < parts; ++c) {
        m_movedScratch.resize(m_moved.size() + par.partMoved[c].size());
        std::merge(m_moved.begin(), m_moved.end(), par.partMoved[c].begin(), par.partMoved[c].end(), m_movedScratch.begin(),
                   byKey);
        m_moved.swap(m_movedScratch);
    }
    m_movedSorted = true;
    SizeStats stats{kInf, 0.0f};
    for (std::size_t c = 0; c < parts; ++c) {
        m_oversized.insert(m_oversized.end(), par.partOversized[c].begin(), par.partOversized[c].end());
        stats.minPositiveSide = std::min(stats.minPositiveSide, par.partStats[c].minPositiveSide);
        stats.maxSide = std::max(stats.maxSide, par.partStats[c].maxSide);
    }
    return stats;
}

HierarchicalGrid::SizeStats HierarchicalGrid::placeRange(std::uint32_t begin, std::uint32_t end, bool rebuild,
                                                         const PlaceBounds& bounds, std::vector<Moved>& moved,
                                                         std::vector<std::uint32_t>& oversized, bool mayGrow,
                                                         std::uint32_t* leftByRange) {
    // Locals, not members, in the loop: the stores into the records could alias members.
    const BoxView b = m_boxes;
    IdState* state = m_state.data();
    std::size_t stateSize = m_state.size();
    float minPositiveSide = kInf;
    float maxSide = 0.0f;
    const std::uint64_t* splitKeys = leftByRange != nullptr ? m_parallel->splitKeys.data() : nullptr;
    const std::size_t ranges = leftByRange != nullptr ? m_parallel->splitKeys.size() : 0;
    // Ids follow the dense order until entities come and go; then the records are read at
    // scattered slots, fetched ahead as in mergeOrder.
    constexpr std::uint32_t kAhead = 16;
    for (std::uint32_t i = begin; i < end; ++i) {
        if (i + kAhead < end && b.ids[i + kAhead] < stateSize) __builtin_prefetch(&state[b.ids[i + kAhead]]);
        const std::uint32_t id = b.ids[i];
        if (id >= stateSize) [[unlikely]] {
            if (!mayGrow) throw std::logic_error("HSHG: an entity without a record on a parallel update");
            growState(id);
            state = m_state.data();
            stateSize = m_state.size();
        }
        IdState& st = state[id];
        const Aabb box{b.minX[i], b.minY[i], b.maxX[i], b.maxY[i]};
        std::uint64_t key = kOversizedKey;
        if (fitsLevels(box)) [[likely]] {
            const float side = sideOf(box);
            minPositiveSide = std::min(minPositiveSide, side > 0.0f ? side : kInf);
            maxSide = std::max(maxSide, side);
            std::uint32_t level = levelOfKey(st.key);  // out of range for kNoKey and kOversizedKey
            if (!(level < kMaxLevels && side <= bounds.holdsUpTo[level] && side > bounds.holdsAbove[level])) [[unlikely]]
                level = levelFor(side);
            key = cellKeyOf(level, box.minX, box.minY, bounds.inverse[level]);
        } else {
            oversized.push_back(i);
        }
        st.box = box;
        st.dense = i;
        // Rehash only on cell change: an entity whose key is unchanged keeps its place.
        if (key != st.key || rebuild) [[unlikely]] {
            if (leftByRange != nullptr && st.key < kEndKey) ++leftByRange[rangeOfKey(splitKeys, ranges, st.key)];
            st.key = key;
            if (key != kOversizedKey) moved.push_back({key, id, i});
        }
    }
    return {minPositiveSide, maxSide};
}

HierarchicalGrid::SlotBox HierarchicalGrid::slotBoxOf(const Aabb& box) { return toSlotBox<SlotBox>(box); }

void HierarchicalGrid::chooseMergeRanges(bool rebuild) {
    if (!m_parallel) return;
    Parallel& par = *m_parallel;
    par.splitKeys.clear();
    if (rebuild || m_placed < kMinParallelCount) return;
    // Equal shares of the kept order; the new order is the kept one give or take the moved.
    const auto ranges = static_cast<std::uint32_t>(par.threads);
    for (std::uint32_t r = 0; r < ranges; ++r)
        par.splitKeys.push_back(r == 0 ? 0 : m_keys[std::uint64_t{m_placed} * r / ranges]);
    par.left.assign(std::size_t{ranges} * (1 + ranges), 0);  // a row for the serial code, one a part of placeAll
}

void HierarchicalGrid::mergeOrder(bool rebuild) {
    if (!m_movedSorted) sortByKey(m_moved, m_movedScratch);
    const std::uint32_t previous = rebuild ? 0 : m_placed;
    const auto placed = static_cast<std::uint32_t>(m_boxes.count - m_oversized.size());
    m_keys.swap(m_previousKeys);
    m_ids.swap(m_previousIds);
    resizeWithHeadroom(m_keys, std::size_t{placed} + kWindow);
    resizeWithHeadroom(m_ids, placed);
    resizeWithHeadroom(m_slotBoxes, std::size_t{placed} + kWindow);
    resizeWithHeadroom(m_slotDense, std::size_t{placed} + kWindow);

    const std::size_t movedCount = m_moved.size();
    m_moved.push_back({kNoKey, 0, 0});  // ends the moved list (its capacity holds n + 1)
    if (m_parallel && !rebuild && !m_parallel->splitKeys.empty()) {
        mergeInRanges(previous, placed);
    } else if (mergeRange(0, previous, m_moved.data(), m_moved.data() + movedCount, 0, placed) != placed) {
        throw std::logic_error("HSHG: the merged order lost an entity");
    }
    m_moved.pop_back();
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

std::uint32_t HierarchicalGrid::mergeRange(std::uint32_t keptBegin, std::uint32_t keptEnd, const Moved* next,
                                           const Moved* movedEnd, std::uint32_t out, std::uint32_t outEnd) {
    // One pass over the kept order and the sorted moved list; each slot takes its entity's box
    // and dense index from the record placeAll just wrote.
    const IdState* state = m_state.data();
    const std::uint64_t* previousKeys = m_previousKeys.data();
    const std::uint32_t* previousIds = m_previousIds.data();
    std::uint64_t* keys = m_keys.data();
    std::uint32_t* ids = m_ids.data();
    SlotBox* boxes = m_slotBoxes.data();
    std::uint32_t* dense = m_slotDense.data();
    const auto emit = [&](std::uint64_t key, std::uint32_t id, const IdState& st) {
        if (out == outEnd) [[unlikely]]
            throw std::logic_error("HSHG: the merged order repeated an entity");
        keys[out] = key;
        ids[out] = id;
        boxes[out] = slotBoxOf(st.box);
        dense[out] = st.dense;
        ++out;
    };
    // The records are read in the kept order, at random ids: fetched ahead, as the hardware
    // cannot guess where. A moved entry is emitted before the first kept key above its own,
    // so the moved entry past a range's end (or the list's end marker) stops the inner loop.
    constexpr std::uint32_t kAhead = 16;
    for (std::uint32_t o = keptBegin; o < std::min(keptEnd, keptBegin + kAhead); ++o)
        __builtin_prefetch(&state[previousIds[o]]);
    for (std::uint32_t o = keptBegin; o < keptEnd; ++o) {
        if (o + kAhead < keptEnd) __builtin_prefetch(&state[previousIds[o + kAhead]]);
        const std::uint64_t key = previousKeys[o];
        const std::uint32_t id = previousIds[o];
        const IdState& st = state[id];
        if (st.key != key) continue;  // gone (kNoKey), or in another cell now
        for (; next->key < key; ++next) emit(next->key, next->id, state[next->id]);
        emit(key, id, st);
    }
    for (; next != movedEnd; ++next) emit(next->key, next->id, state[next->id]);
    return out;
}

void HierarchicalGrid::mergeInRanges(std::uint32_t previous, std::uint32_t placed) {
    Parallel& par = *m_parallel;
    const std::size_t ranges = par.splitKeys.size();
    const std::uint64_t* previousKeys = m_previousKeys.data();
    const Moved* moved = m_moved.data();
    const std::size_t movedCount = m_moved.size() - 1;  // without the end marker
    par.keptBegin.resize(ranges + 1);
    par.movedBegin.resize(ranges + 1);
    par.outBegin.resize(ranges + 1);
    for (std::size_t r = 0; r <= ranges; ++r) {
        if (r == 0 || r == ranges) {
            par.keptBegin[r] = r == 0 ? 0 : previous;
            par.movedBegin[r] = r == 0 ? 0 : static_cast<std::uint32_t>(movedCount);
            continue;
        }
        const std::uint64_t split = par.splitKeys[r];
        par.keptBegin[r] =
            static_cast<std::uint32_t>(std::lower_bound(previousKeys, previousKeys + previous, split) - previousKeys);
        par.movedBegin[r] = static_cast<std::uint32_t>(
            std::lower_bound(moved, moved + movedCount, split, [](const Moved& m, std::uint64_t k) { return m.key < k; }) -
            moved);
    }
    // A range's slots in the new order: its kept entities that stayed, then those that came.
    par.outBegin[0] = 0;
    for (std::size_t r = 0; r < ranges; ++r) {
        std::uint32_t left = 0;
        for (std::size_t row = 0; row <= ranges; ++row) left += par.left[row * ranges + r];
        const std::uint32_t kept = par.keptBegin[r + 1] - par.keptBegin[r];
        if (left > kept) throw std::logic_error("HSHG: more entities left a range of the order than it held");
        par.outBegin[r + 1] = par.outBegin[r] + (kept - left) + (par.movedBegin[r + 1] - par.movedBegin[r]);
    }
    if (par.outBegin[ranges] != placed) throw std::logic_error("HSHG: the merge ranges lost or repeated an entity");
    par.arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, ranges, 1), [&](const tbb::blocked_range<std::size_t>& b) {
            for (std::size_t r = b.begin(); r != b.end(); ++r)
                if (mergeRange(par.keptBegin[r], par.keptBegin[r + 1], moved + par.movedBegin[r],
                               moved + par.movedBegin[r + 1], par.outBegin[r], par.outBegin[r + 1]) != par.outBegin[r + 1])
                    throw std::logic_error("HSHG: a merge range lost an entity");
        });
    });
}

void HierarchicalGrid::doUpdate(const BoxView& boxes) {
    m_boxes = boxes;
    m_counters = {};
    try {
        reserveWithHeadroom(m_moved, std::size_t{boxes.count} + 1);
        reserveWithHeadroom(m_movedScratch, std::size_t{boxes.count} + 1);
        // After a failed update the kept keys cannot be trusted: place everyone afresh.
        bool rebuild = m_needsRebuild || !m_hasGeometry;
        // An entity that went leaves the kept order (no kept key matches kNoKey); a new one
        // starts without a cell, whatever its slot's record held before (a record made here).
        chooseMergeRanges(rebuild);  // before any record changes
        m_diff.track(boxes, passes());
        const bool countLeft = m_parallel && !m_parallel->splitKeys.empty();
        for (const std::uint32_t id : m_diff.removed()) {
            if (id >= m_state.size()) continue;
            std::uint64_t& key = m_state[id].key;
            if (countLeft && key < kEndKey)
                ++m_parallel->left[rangeOfKey(m_parallel->splitKeys.data(), m_parallel->splitKeys.size(), key)];
            key = kNoKey;
        }
        for (const std::uint32_t i : m_diff.added()) {
            if (boxes.ids[i] >= m_state.size()) growState(boxes.ids[i]);
            m_state[boxes.ids[i]].key = kNoKey;
        }
        // Every entity has its record now, unless the last update failed after tracking ids it
        // never placed: placeAll then runs on one thread, which grows them.
        const bool recordsReady = !m_needsRebuild;
        m_needsRebuild = true;  // until this update finishes
        if (!m_hasGeometry) setGeometry(measureSizes());  // rather than place everyone twice
        if (!geometryFits(placeAll(rebuild, recordsReady))) {
            setGeometry(measureSizes());
            rebuild = true;
            (void)placeAll(true, recordsReady);
        }
        m_rehashed = m_moved.size();
        mergeOrder(rebuild);
        plan();
        m_isOversized.clear();
        if (!m_oversized.empty()) {
            m_isOversized.resize(boxes.count, 0);
            for (const std::uint32_t i : m_oversized) m_isOversized[i] = 1;
        }
        // The cells keep their boxes; only oversized entities are tested (against every box)
        // from the coordinates later, so only then are they copied: the caller's arrays are
        // free once update() returns.
        m_boxes = m_oversized.empty() ? withoutCoordinates(boxes) : m_copy.take(boxes, passes());
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
void HierarchicalGrid::pairWithinLevel(const Level& lv, std::uint32_t begin, std::uint32_t end, PairWriter& out,
                                       std::uint64_t& testCount) const {
    const std::uint64_t* keys = m_keys.data();
    const SlotBox* boxes = m_slotBoxes.data();
    const std::uint32_t* dense = m_slotDense.data();
    std::uint64_t tests = 0;
    // The first slot at or after the cell above-left of p's: where the cursor of a scan from
    // lv.begin would stand at `begin` (a chunk's scan starts there).
    std::uint32_t above = begin == lv.begin || begin == end
                              ? lv.begin
                              : static_cast<std::uint32_t>(
                                    std::lower_bound(keys + lv.begin, keys + lv.end, keys[begin] + kRow - 1) - keys);
    for (std::uint32_t p = begin; p < end; ++p) {
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

void HierarchicalGrid::pairAcrossLevels(const Level& lv, std::uint32_t begin, std::uint32_t end, PairWriter& out,
                                        std::uint64_t& testCount, std::uint64_t& cellCount) const {
    const SlotBox* boxes = m_slotBoxes.data();
    const std::uint32_t* dense = m_slotDense.data();
    std::uint64_t tests = 0;
    std::uint64_t cells = 0;
    for (std::uint32_t p = begin; p < end; ++p) {
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

std::pair<std::uint64_t, std::uint64_t> HierarchicalGrid::findPairsInChunks(std::vector<Pair>& out) {
    Parallel& par = *m_parallel;
    // A static partition (it depends on the slots alone, never on timing): each level's scan
    // within itself, then its lookups, each cut into chunks of consecutive slots. A slot's
    // pairs depend on that slot alone, so the chunks' pairs in order are the serial scan's.
    const std::uint32_t chunkSlots = std::max(Parallel::kMinSlotsPerChunk,
                                              m_placed / (static_cast<std::uint32_t>(par.threads) * Parallel::kChunksPerThread));
    par.chunks.clear();
    // At most two scans a level, each of at most placed / chunkSlots + 1 chunks.
    reserveWithHeadroom(par.chunks, 2 * (std::size_t{m_placed / chunkSlots} + std::popcount(m_populated)));
    for (std::uint32_t levels = m_populated; levels != 0; levels &= levels - 1) {
        const auto level = static_cast<std::uint32_t>(std::countr_zero(levels));
        const Level& lv = m_levels[level];
        for (const bool across : {false, true}) {
            if (across && lv.targets == 0) continue;
            for (std::uint32_t s = lv.begin; s < lv.end; s += std::min(chunkSlots, lv.end - s))
                par.chunks.push_back({level, across, s, s + std::min(chunkSlots, lv.end - s)});
        }
    }
    const std::size_t chunks = par.chunks.size();
    if (par.pairs.size() < chunks) par.pairs.resize(chunks + chunks / 2);  // spares for a step with more chunks
    par.tests.assign(chunks, 0);
    par.cells.assign(chunks, 0);
    par.offsets.resize(chunks + 1);
    par.arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
            for (std::size_t c = r.begin(); c != r.end(); ++c) {
                const Parallel::Chunk& chunk = par.chunks[c];
                const Level& lv = m_levels[chunk.level];
                PairWriter writer(par.pairs[c], pairRule());
                if (chunk.across) {
                    pairAcrossLevels(lv, chunk.begin, chunk.end, writer, par.tests[c], par.cells[c]);
                } else if (lv.crowded) {
                    pairWithinLevel<true>(lv, chunk.begin, chunk.end, writer, par.tests[c]);
                } else {
                    pairWithinLevel<false>(lv, chunk.begin, chunk.end, writer, par.tests[c]);
                }
                writer.finish();
            }
        });
    });
    std::uint64_t tests = 0;
    std::uint64_t cells = 0;
    std::array<std::size_t, kMaxLevels> within{};  // each level's pairs within itself
    std::size_t largest = 0;
    par.offsets[0] = 0;
    for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t count = par.pairs[c].size();
        par.offsets[c + 1] = par.offsets[c] + count;
        if (!par.chunks[c].across) within[par.chunks[c].level] += count;
        tests += par.tests[c];
        cells += par.cells[c];
        largest = std::max(largest, count);
    }
    for (std::uint32_t levels = m_populated; levels != 0; levels &= levels - 1) {
        Level& lv = m_levels[std::countr_zero(levels)];
        lv.crowded = 2 * within[std::countr_zero(levels)] > lv.end - lv.begin;  // as in the serial scan
        cells += 5 * std::uint64_t{lv.end - lv.begin};
    }
    // Room in every chunk, the spares too, for half again the largest: pairs drifting between
    // chunks from step to step, and a step with more chunks, then allocate nothing.
    for (std::vector<Pair>& pairs : par.pairs) reserveWithHeadroom(pairs, largest);
    resizeWithHeadroom(out, par.offsets[chunks]);
    par.arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
            for (std::size_t c = r.begin(); c != r.end(); ++c)
                std::copy(par.pairs[c].begin(), par.pairs[c].end(), out.begin() + static_cast<std::ptrdiff_t>(par.offsets[c]));
        });
    });
    return {tests, cells};
}

void HierarchicalGrid::findPairs(std::vector<Pair>& out) {
    std::uint64_t tests = 0;
    std::uint64_t cells = 0;
    if (m_parallel && m_placed >= kMinParallelCount) {
        std::tie(tests, cells) = findPairsInChunks(out);
    } else {
        PairWriter writer(out, pairRule());
        for (std::uint32_t levels = m_populated; levels != 0; levels &= levels - 1) {
            Level& lv = m_levels[std::countr_zero(levels)];
            const std::size_t before = writer.size();
            if (lv.crowded) {
                pairWithinLevel<true>(lv, lv.begin, lv.end, writer, tests);
            } else {
                pairWithinLevel<false>(lv, lv.begin, lv.end, writer, tests);
            }
            // A pair for every other entity or more: next step, scan without a branch on the hits.
            // (Below that the branch is cheaper: most runs are empty or hold one slot. Measured:
            // dense scenes, 0.7 pairs an entity, gain; orbit rings, 0.4, lose.)
            lv.crowded = 2 * (writer.size() - before) > lv.end - lv.begin;
            if (lv.targets != 0) pairAcrossLevels(lv, lv.begin, lv.end, writer, tests, cells);
            cells += 5 * std::uint64_t{lv.end - lv.begin};
        }
        writer.finish();
    }
    if (!m_oversized.empty()) tests += pairOversized(m_boxes, m_oversized, m_isOversized, out, m_oversizedScratch);
    m_counters.pairTests = tests;
    m_counters.candidatePairs = out.size();
    m_counters.elementsVisited = m_rehashed + cells;
    m_counters.extra.set("cell_size", m_levels[0].cell);
    m_counters.bytesHeld = bytesHeld(m_state) + bytesHeld(m_moved) + bytesHeld(m_movedScratch) + bytesHeld(m_keys) +
                           bytesHeld(m_previousKeys) + bytesHeld(m_ids) + bytesHeld(m_previousIds) +
                           bytesHeld(m_slotBoxes) + bytesHeld(m_slotDense) + bytesHeld(m_table) +
                           bytesHeld(m_oversized) + bytesHeld(m_isOversized) + m_oversizedScratch.bytesHeld() +
                           bytesHeld(m_queryMark) + m_diff.bytesHeld() + m_copy.bytesHeld();
    if (m_parallel) {
        const Parallel& par = *m_parallel;
        for (const std::vector<Pair>& p : par.pairs) m_counters.bytesHeld += bytesHeld(p);
        m_counters.bytesHeld += bytesHeld(par.chunks) + bytesHeld(par.pairs) + bytesHeld(par.tests) +
                                bytesHeld(par.cells) + bytesHeld(par.offsets);
    }
}

void HierarchicalGrid::forEachElement(const std::function<void(const StructureElement&)>& visit) const {
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
        visit({bounds, end - s, level, StructureElement::Kind::Cell});
        s = end;
    }
}

}  // namespace ro

#include "broadphase/sap/sap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/insertion_sort.h"
#include "core/radix_sort.h"
#include "core/buffers.h"

namespace ro {

void SweepAndPrune::applySettings(const Settings& settings) {
    m_axisSetting = static_cast<SweepAxis>(settings.integer(sweep::kAxisParameter));
    m_swapBudget = settings.value(kSwapBudgetParameter);
    m_axisChooser.reset();
}

void SweepAndPrune::forgetAll() {
    m_boxes = {};
    m_delimiters.clear();
    m_built = false;
    m_stripsBuilt = false;
    m_diff.forget();
}

void SweepAndPrune::doUpdate(const BoxView& boxes) {
    m_counters = {};
    m_counters.extra.set(sweep::kSortSwapsCounter, 0);
    if (boxes.count > kMaxEntities) {
        forgetAll();
        throw std::length_error("sweep and prune holds at most 2^30 entities");
    }
    m_diff.track(boxes);  // update() checked the boxes and the ids already
    m_boxes = m_copy.take(boxes);
    const std::uint32_t axis = m_axisChooser.choose(boxes, m_axisSetting);
    m_rebuilt = !m_built || axis != m_axis;
    m_axis = axis;
    if (!m_rebuilt && m_rebuildsAhead > 0) {  // incoherent lately: insertion sort would give up again
        --m_rebuildsAhead;
        m_rebuilt = true;
    }
    if (!m_rebuilt) {
        refresh();
        if (insertionSort()) {
            m_rebuildStreak = 1;
        } else {
            m_rebuilt = true;
            m_rebuildsAhead = m_rebuildStreak;
            m_rebuildStreak = std::min(2 * m_rebuildStreak, kMaxRebuildStreak);
        }
    }
    if (m_rebuilt) {
        rebuild();
    } else {
        mergeAdded();
    }
    m_built = true;
    m_stripsBuilt = false;
    markVoid();
}

void SweepAndPrune::rebuild() {
    // Begins first, then ends: the radix sort is stable, so at equal coordinates begins stay
    // before ends without a tie bit in the key.
    const std::uint32_t n = m_boxes.count;
    resizeWithHeadroom(m_delimiters, 2 * static_cast<std::size_t>(n));
    for (std::uint32_t i = 0; i < n; ++i) {
        m_delimiters[i] = beginOf(i);
        m_delimiters[n + i] = endOf(i);
    }
    radixSort(m_delimiters, m_scratch, 32, [](const Delimiter& d) { return sweep::sortableKey(d.value); });
}

void SweepAndPrune::refresh() {
    // Indexed by the begin bit rather than branched on: begins and ends alternate at random.
    const float* const coordinates[2] = {axisMax(), axisMin()};
    std::size_t kept = 0;
    for (const Delimiter& d : m_delimiters) {
        const std::uint32_t entity = m_diff.newIndex(d.entity());
        if (entity == EntityDiff::kGone) continue;
        const std::uint32_t begin = d.bits & kBegin;
        m_delimiters[kept++] = {coordinates[begin >> 31][entity] + 0.0f, entity | begin};
    }
    m_delimiters.resize(kept);
}

bool SweepAndPrune::insertionSort() {
    const auto budget = static_cast<std::uint64_t>(m_swapBudget * static_cast<double>(m_delimiters.size()));
    const std::uint64_t swaps = ro::insertionSort(m_delimiters.data(), m_delimiters.size(), sortsBefore, budget);
    m_counters.extra.set(sweep::kSortSwapsCounter, static_cast<double>(swaps));
    return swaps <= budget;
}

void SweepAndPrune::mergeAdded() {
    const std::vector<std::uint32_t>& added = m_diff.added();
    if (added.empty()) return;
    m_added.clear();
    reserveWithHeadroom(m_added, 2 * std::size_t{m_boxes.count});  // a burst of new entities must not allocate
    for (const std::uint32_t i : added) {
        m_added.push_back(beginOf(i));
        m_added.push_back(endOf(i));
    }
    std::sort(m_added.begin(), m_added.end(), sortsBefore);
    resizeWithHeadroom(m_scratch, m_delimiters.size() + m_added.size());
    std::merge(m_delimiters.begin(), m_delimiters.end(), m_added.begin(), m_added.end(), m_scratch.begin(),
               sortsBefore);
    m_delimiters.swap(m_scratch);
}

void SweepAndPrune::markVoid() {
    // The seed's stack: +1 at a begin, -1 at an end; at zero no interval is open until the next delimiter.
    std::uint32_t depth = 0;
    for (Delimiter& d : m_delimiters) {
        depth += (d.bits >> 30 & 2u) - 1u;  // +1 at a begin, -1 (wrapping) at an end, without a branch
        d.bits = (d.bits & ~kTouchesVoid) | (depth == 0 ? kTouchesVoid : 0u);
    }
    const float* lo = axisMin();
    const float* hi = axisMax();
    float largest = 0.0f;
    for (std::uint32_t i = 0; i < m_boxes.count; ++i) largest = std::max(largest, hi[i] - lo[i]);
    // Rounded up, in double, so min + extent never falls short of a box's max.
    const double extent = static_cast<double>(largest);
    m_largestExtent = std::nextafter(extent + extent * 1e-6, std::numeric_limits<double>::infinity());
}

void SweepAndPrune::findPairs(std::vector<Pair>& out) {
    out.clear();
    const float* oMin = otherMin();
    const float* oMax = otherMax();
    // The open intervals, as three arrays so the tests against them vectorize; at most n open.
    for (auto* v : {&m_openMin, &m_openMax}) resizeWithHeadroom(*v, m_boxes.count);
    resizeWithHeadroom(m_openEntity, m_boxes.count);
    resizeWithHeadroom(m_openSlot, m_boxes.count);
    resizeWithHeadroom(m_hitFlags, m_boxes.count + 8);
    float* openMin = m_openMin.data();
    float* openMax = m_openMax.data();
    std::uint32_t* openEntity = m_openEntity.data();
    std::uint32_t open = 0;
    const PairRule& rule = pairRule();
    const bool ruled = rule.active();
    std::uint64_t tests = 0;
    for (const Delimiter& d : m_delimiters) {
        const std::uint32_t e = d.entity();
        if (d.isBegin()) {
            // Every open interval overlaps this one on the sweep axis; the other axis decides.
            const float lo = oMin[e];
            const float hi = oMax[e];
            tests += open;
            sweep::forEachOverlap(openMin, openMax, open, lo, hi, m_hitFlags.data(),
                                  [&](std::uint32_t k) {
                                      if (!ruled || rule.accepts(e, openEntity[k])) out.push_back(makePair(e, openEntity[k]));
                                  });
            m_openSlot[e] = open;
            openMin[open] = lo;
            openMax[open] = hi;
            openEntity[open] = e;
            ++open;
        } else {
            // Swap-remove: the last open interval takes this one's place.
            const std::uint32_t slot = m_openSlot[e];
            --open;
            openMin[slot] = openMin[open];
            openMax[slot] = openMax[open];
            openEntity[slot] = openEntity[open];
            m_openSlot[openEntity[slot]] = slot;
        }
    }
    m_counters.pairTests = tests;
    m_counters.candidatePairs = out.size();
    m_counters.bytesHeld = bytesHeld(m_delimiters) + bytesHeld(m_scratch) + bytesHeld(m_added) + bytesHeld(m_strips) +
                           bytesHeld(m_stripBoxes) + bytesHeld(m_openMin) +
                           bytesHeld(m_openMax) + bytesHeld(m_openEntity) + bytesHeld(m_openSlot) +
                           bytesHeld(m_hitFlags) + m_diff.bytesHeld() + m_copy.bytesHeld();
}

void SweepAndPrune::forEachElement(const std::function<void(const StructureElement&)>& visit) const {
    for (const Delimiter& d : m_delimiters) {
        StructureElement view;
        view.bounds = {d.value, 0.0f, d.value, 0.0f};
        view.count = 1;
        view.level = m_axis;
        view.kind = StructureElement::Kind::Delimiter;
        view.isBegin = d.isBegin();
        view.touchesVoid = d.touchesVoid();
        visit(view);
    }
}

std::string SweepAndPrune::validate() const {
    const std::uint32_t n = m_boxes.count;
    if (m_delimiters.size() != 2 * static_cast<std::size_t>(n))
        return "expected 2 delimiters per entity, found " + std::to_string(m_delimiters.size()) + " for " +
               std::to_string(n);
    std::vector<std::uint8_t> seen(n, 0);  // bit 0: begin seen, bit 1: end seen
    std::uint32_t depth = 0;
    for (std::size_t k = 0; k < m_delimiters.size(); ++k) {
        const Delimiter& d = m_delimiters[k];
        const std::uint32_t e = d.entity();
        const std::string at = "delimiter " + std::to_string(k) + " (entity " + std::to_string(e) + ")";
        if (e >= n) return at + " names no entity";
        if (k > 0 && sortsBefore(d, m_delimiters[k - 1])) return at + " is out of order";
        const std::uint8_t bit = d.isBegin() ? 1 : 2;
        if (seen[e] & bit) return at + " is a second " + (d.isBegin() ? "begin" : "end");
        if (!d.isBegin() && !(seen[e] & 1)) return at + " ends before it begins";
        seen[e] |= bit;
        const float expected = d.isBegin() ? axisMin()[e] : axisMax()[e];
        if (d.value != expected)
            return at + " is at " + std::to_string(d.value) + ", its box at " + std::to_string(expected);
        depth = d.isBegin() ? depth + 1 : depth - 1;
        if (d.touchesVoid() != (depth == 0))
            return at + (depth == 0 ? " should touch void" : " is marked touching void with intervals open");
    }
    return {};
}

}  // namespace ro

// Queries (Wells): binary search on the sweep axis, void markers bound how far to look.

namespace ro {

template <typename Visit>
std::uint64_t SweepAndPrune::forEachOnAxis(float lo, float hi, Visit visit) const {
    const float* axisEnd = axisMax();
    // The first delimiter at or past lo. Intervals that begin in [lo, hi] have their begin
    // from here on; those that began before lo and are still open began after the last
    // delimiter that touches void before here (at it, nothing was open), and no further back
    // than the largest extent: in a dense field no delimiter touches void.
    const auto first = std::partition_point(m_delimiters.begin(), m_delimiters.end(),
                                            [lo](const Delimiter& d) { return d.value < lo; });
    const double reach = static_cast<double>(lo) - m_largestExtent;
    std::uint64_t visited = 0;
    for (auto it = first; it != m_delimiters.begin();) {
        const Delimiter& d = *--it;
        if (d.touchesVoid() || static_cast<double>(d.value) < reach) break;
        ++visited;
        if (d.isBegin() && axisEnd[d.entity()] >= lo) visit(d.entity());
    }
    for (auto it = first; it != m_delimiters.end() && it->value <= hi; ++it) {
        ++visited;
        if (it->isBegin()) visit(it->entity());
    }
    return visited;
}

QueryCost SweepAndPrune::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    if (!m_keepStrips) return sweep::queryBox(onAxis(), m_axis, m_boxes, box, out);
    if (!m_stripsBuilt) buildStrips();
    return queryStrips(box, out);
}

namespace {
/// `extent` rounded up, in double, so min + extent never falls short of a box's max.
double roundedUp(float extent) {
    const double e = static_cast<double>(extent);
    return std::nextafter(e + e * 1e-6, std::numeric_limits<double>::infinity());
}
}  // namespace

void SweepAndPrune::buildStrips() {
    // The begins in the array's order are the boxes by min on the axis; every run of about
    // sqrt(n) of them is a strip, sorted by min on the other axis.
    const std::uint32_t n = m_boxes.count;
    const auto run = std::max<std::uint32_t>(8, static_cast<std::uint32_t>(std::sqrt(static_cast<double>(n))));
    resizeWithHeadroom(m_stripBoxes, n);
    const float* oMin = otherMin();
    const float* oMax = otherMax();
    std::size_t k = 0;
    for (const Delimiter& d : m_delimiters) {
        if (!d.isBegin()) continue;
        const std::uint32_t e = d.entity();
        m_stripBoxes[k++] = {oMin[e], oMax[e], axisMin()[e], axisMax()[e], e};
    }
    m_strips.clear();
    for (std::uint32_t begin = 0; begin < n; begin += run) {
        const std::uint32_t end = std::min(n, begin + run);
        StripBox* const first = m_stripBoxes.data() + begin;
        StripBox* const last = m_stripBoxes.data() + end;
        Strip strip{first->min, (last - 1)->min, first->max, begin, 0.0};
        float extent = 0.0f;
        for (const StripBox* b = first; b != last; ++b) {
            strip.lastMax = std::max(strip.lastMax, b->max);
            extent = std::max(extent, b->otherMax - b->otherMin);
        }
        strip.otherExtent = roundedUp(extent);
        std::sort(first, last, [](const StripBox& a, const StripBox& b) { return a.otherMin < b.otherMin; });
        m_strips.push_back(strip);
    }
    m_strips.push_back({0.0f, 0.0f, 0.0f, n, 0.0});
    m_stripsBuilt = true;
}

QueryCost SweepAndPrune::queryStrips(const Aabb& box, std::vector<std::uint32_t>& out) const {
    // A box meeting the query has its min on the axis in [lo - largest extent, hi]: the strips
    // whose mins reach into that span, in order, but for those whose maxes all fall short of
    // lo (one long box makes the span long). In each, its min on the other axis lies in
    // [other lo - the strip's extent, other hi].
    QueryCost cost;
    const float lo = m_axis == 0 ? box.minX : box.minY;
    const float hi = m_axis == 0 ? box.maxX : box.maxY;
    const float otherLo = m_axis == 0 ? box.minY : box.minX;
    const float otherHi = m_axis == 0 ? box.maxY : box.maxX;
    const double reach = static_cast<double>(lo) - m_largestExtent;
    const auto strips = m_strips.begin();
    const auto stripsEnd = m_strips.end() - 1;
    auto strip = std::partition_point(strips, stripsEnd, [reach](const Strip& s) { return static_cast<double>(s.lastMin) < reach; });
    for (; strip != stripsEnd && strip->firstMin <= hi; ++strip) {
        ++cost.visited;
        if (strip->lastMax < lo) continue;
        const double otherReach = static_cast<double>(otherLo) - strip->otherExtent;
        const StripBox* const end = m_stripBoxes.data() + (strip + 1)->begin;
        const StripBox* b = std::partition_point(m_stripBoxes.data() + strip->begin, end, [otherReach](const StripBox& s) {
            return static_cast<double>(s.otherMin) < otherReach;
        });
        for (; b != end && b->otherMin <= otherHi; ++b) {
            ++cost.tests;
            if (b->min <= hi && lo <= b->max && otherLo <= b->otherMax) out.push_back(b->entity);
        }
    }
    return cost;
}

QueryCost SweepAndPrune::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    return sweep::querySegment(onAxis(), m_axis, m_boxes, segment,
                               [&](std::uint32_t e, float t) { out.push_back({e, t}); });
}

QueryCost SweepAndPrune::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    return sweep::querySegment(onAxis(), m_axis, m_boxes, segment,
                               [&](std::uint32_t e, float t) { keepNearest(hit, {e, t}); });
}

QueryCost SweepAndPrune::interferingWith(std::uint32_t entity, std::vector<std::uint32_t>& out) const {
    out.clear();
    if (entity >= m_boxes.count)
        throw std::out_of_range("entity " + std::to_string(entity) + " is not among the " +
                                std::to_string(m_boxes.count) + " of the last update");
    // The seed's rules: from the binary search for its begin, a begin before its end is an
    // interference; an end whose begin lies before the search's position is one too (it was
    // open across our begin). Past our own end, stop at the first delimiter touching void.
    QueryCost cost;
    const float begin = axisMin()[entity];
    const float* lo = axisMin();
    const Aabb box = m_boxes.box(entity);
    const auto test = [&](std::uint32_t other) {
        ++cost.tests;
        if (overlaps(m_boxes.box(other), box)) out.push_back(other);
    };
    bool pastOwnEnd = false;
    auto it = std::partition_point(m_delimiters.begin(), m_delimiters.end(),
                                   [begin](const Delimiter& d) { return d.value < begin; });
    for (; it != m_delimiters.end(); ++it) {
        ++cost.visited;
        const std::uint32_t other = it->entity();
        if (other == entity) {
            pastOwnEnd = !it->isBegin();
        } else if (it->isBegin()) {
            if (!pastOwnEnd) test(other);
        } else if (lo[other] < begin) {
            test(other);
        }
        if (pastOwnEnd && it->touchesVoid()) break;
    }
    return cost;
}

}  // namespace ro

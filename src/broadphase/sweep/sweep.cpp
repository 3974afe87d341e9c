#include "broadphase/sweep/sweep.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>

#include "core/insertion_sort.h"
#include "core/radix_sort.h"
#include "core/buffers.h"

namespace ro {

void SingleAxisSweep::applySettings(const Settings& settings) {
    m_axisSetting = static_cast<SweepAxis>(settings.integer(sweep::kAxisParameter));
    m_axisChooser.reset();
}

void SingleAxisSweep::doUpdate(const BoxView& boxes) {
    m_counters = {};
    m_counters.extra.set(sweep::kSortSwapsCounter, 0);
    m_diff.track(boxes);  // update() checked the boxes and the ids already
    m_boxes = m_copy.take(boxes);
    const std::uint32_t axis = m_axisChooser.choose(boxes, m_axisSetting);
    // A new axis invalidates the order: every entity is merged in afresh.
    const bool fresh = !m_built || axis != m_axis;
    m_axis = axis;
    if (fresh) {
        m_order.clear();
    } else {
        refresh();
        m_counters.extra.set(sweep::kSortSwapsCounter, static_cast<double>(insertionSort()));
    }
    mergeAdded(fresh);
    m_built = true;
    gather();
}

void SingleAxisSweep::refresh() {
    const float* lo = axisMin();
    std::size_t kept = 0;
    for (const Entry& e : m_order) {
        const std::uint32_t entity = m_diff.newIndex(e.entity);
        if (entity != EntityDiff::kGone) m_order[kept++] = {lo[entity], entity};
    }
    m_order.resize(kept);
}

std::uint64_t SingleAxisSweep::insertionSort() {
    return ro::insertionSort(m_order.data(), m_order.size(), [](const Entry& a, const Entry& b) { return a.min < b.min; });
}

void SingleAxisSweep::mergeAdded(bool all) {
    const float* lo = axisMin();
    m_added.clear();
    if (all) {
        for (std::uint32_t i = 0; i < m_boxes.count; ++i) m_added.push_back({lo[i], i});
    } else {
        for (const std::uint32_t i : m_diff.added()) m_added.push_back({lo[i], i});
    }
    if (m_added.empty()) return;
    const auto byMin = [](const Entry& a, const Entry& b) { return a.min < b.min; };
    std::sort(m_added.begin(), m_added.end(),
              [](const Entry& a, const Entry& b) { return a.min < b.min || (a.min == b.min && a.entity < b.entity); });
    resizeWithHeadroom(m_scratch, m_order.size() + m_added.size());
    std::merge(m_order.begin(), m_order.end(), m_added.begin(), m_added.end(), m_scratch.begin(), byMin);
    m_order.swap(m_scratch);
}

void SingleAxisSweep::gather() {
    const std::size_t n = m_order.size();
    for (auto* v : {&m_min, &m_max, &m_otherMin, &m_otherMax}) resizeWithHeadroom(*v, n);
    resizeWithHeadroom(m_entity, n);
    resizeWithHeadroom(m_endTouchesVoid, n);
    const float* hi = axisMax();
    const float* oMin = otherMin();
    const float* oMax = otherMax();
    double largest = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t e = m_order[k].entity;
        m_min[k] = m_order[k].min;
        m_max[k] = hi[e];
        m_otherMin[k] = oMin[e];
        m_otherMax[k] = oMax[e];
        m_entity[k] = e;
        largest = std::max(largest, static_cast<double>(hi[e]) - static_cast<double>(m_min[k]));
    }
    // Rounded up, so min + extent never falls short of a box's max.
    m_largestExtent = largest > 0.0 ? std::nextafter(largest, std::numeric_limits<double>::infinity()) : 0.0;

    // The ends that touch void: where the largest end so far lies before the next begin, no
    // interval is open in between. Of equal ends the last in delimiter order (highest entity
    // index) is the one after which the depth count reaches zero.
    std::fill(m_endTouchesVoid.begin(), m_endTouchesVoid.end(), 0);
    std::size_t reach = 0;  // position of the entity with the largest end so far
    for (std::size_t k = 0; k < n; ++k) {
        if (k == 0 || m_max[k] > m_max[reach] || (m_max[k] == m_max[reach] && m_entity[k] > m_entity[reach])) reach = k;
        if (k + 1 == n || m_max[reach] < m_min[k + 1]) {
            m_endTouchesVoid[reach] = 1;
            reach = k + 1;
        }
    }
}

void SingleAxisSweep::findPairs(std::vector<Pair>& out) {
    out.clear();
    const std::size_t n = m_min.size();
    std::uint64_t tests = 0;
    resizeWithHeadroom(m_hitFlags, n + 8);
    const PairRule& rule = pairRule();
    const bool ruled = rule.active();
    for (std::size_t i = 0; i < n; ++i) {
        const float hi = m_max[i];
        // The seed's inner loop: later entities overlap this one on the axis until one begins
        // past its max. The run is found first, then tested on the other axis in one go.
        std::size_t end = i + 1;
        while (end < n && m_min[end] <= hi) ++end;
        const auto run = static_cast<std::uint32_t>(end - i - 1);
        tests += run;
        const std::uint32_t a = m_entity[i];
        const std::uint32_t* others = m_entity.data() + i + 1;
        sweep::forEachOverlap(m_otherMin.data() + i + 1, m_otherMax.data() + i + 1, run, m_otherMin[i], m_otherMax[i],
                              m_hitFlags.data(), [&](std::uint32_t k) {
                                  if (!ruled || rule.accepts(a, others[k])) out.push_back(makePair(a, others[k]));
                              });
    }
    m_counters.pairTests = tests;
    m_counters.candidatePairs = out.size();
    m_counters.bytesHeld = bytesHeld(m_order) + bytesHeld(m_added) + bytesHeld(m_scratch) + bytesHeld(m_min) +
                           bytesHeld(m_max) + bytesHeld(m_otherMin) + bytesHeld(m_otherMax) + bytesHeld(m_entity) +
                           bytesHeld(m_endTouchesVoid) + bytesHeld(m_hitFlags) + m_diff.bytesHeld() + m_copy.bytesHeld();
}

void SingleAxisSweep::forEachElement(const std::function<void(const StructureElement&)>& visit) const {
    // The ends are not kept sorted (the sweep has no use for it): the overlay, which wants
    // every delimiter in order, pays for sorting them here. Equal ends go by entity, the order
    // in which the last of them is the one marked touching void: two stable radix sorts, by
    // entity and then by end. A comparison sort of the positions read two arrays at random
    // for every comparison (80 ms a frame at 1,000,000 entities).
    std::vector<OverlayEnd>& ends = m_overlayEnds;
    ends.resize(m_max.size());
    std::uint32_t lastEntity = 0;
    for (std::uint32_t k = 0; k < ends.size(); ++k) {
        ends[k] = {sweep::sortableKey(m_max[k]), m_entity[k], k};
        lastEntity = std::max(lastEntity, m_entity[k]);
    }
    radixSort(ends, m_overlayScratch, static_cast<std::uint32_t>(std::bit_width(lastEntity)),
              [](const OverlayEnd& e) { return e.entity; });
    radixSort(ends, m_overlayScratch, 32, [](const OverlayEnd& e) { return e.key; });
    StructureElement view;
    view.count = 1;
    view.level = m_axis;
    view.kind = StructureElement::Kind::Delimiter;
    std::size_t begin = 0;
    for (const OverlayEnd& sorted : ends) {
        const std::uint32_t end = sorted.index;
        for (; begin < m_min.size() && m_min[begin] <= m_max[end]; ++begin) {  // begins first at equal coordinates
            view.bounds = {m_min[begin], 0.0f, m_min[begin], 0.0f};
            view.isBegin = true;
            view.touchesVoid = false;
            visit(view);
        }
        view.bounds = {m_max[end], 0.0f, m_max[end], 0.0f};
        view.isBegin = false;
        view.touchesVoid = m_endTouchesVoid[end] != 0;
        visit(view);
    }
}

std::string SingleAxisSweep::validate() const {
    const std::uint32_t n = m_boxes.count;
    if (m_order.size() != n || m_min.size() != n)
        return "the order holds " + std::to_string(m_order.size()) + " entities, the last update had " +
               std::to_string(n);
    std::vector<std::uint8_t> seen(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t e = m_order[k].entity;
        const std::string at = "position " + std::to_string(k) + " (entity " + std::to_string(e) + ")";
        if (e >= n) return at + " names no entity";
        if (seen[e]++) return at + " appears twice";
        if (k > 0 && m_order[k].min < m_order[k - 1].min) return at + " is out of order";
        if (m_order[k].min != axisMin()[e] || m_min[k] != axisMin()[e] || m_max[k] != axisMax()[e] ||
            m_otherMin[k] != otherMin()[e] || m_otherMax[k] != otherMax()[e] || m_entity[k] != e)
            return at + " holds coordinates other than its box's";
        if (static_cast<double>(m_min[k]) + m_largestExtent < static_cast<double>(m_max[k]))
            return at + " is longer than the largest extent";
    }
    // Void markers, recomputed from the seed's depth count over all delimiters in sort order.
    std::vector<std::tuple<float, bool, std::uint32_t>> delimiters;  // (value, isEnd, entity)
    for (std::size_t k = 0; k < n; ++k) {
        delimiters.emplace_back(m_min[k], false, m_entity[k]);
        delimiters.emplace_back(m_max[k], true, m_entity[k]);
    }
    std::sort(delimiters.begin(), delimiters.end());
    std::vector<std::uint8_t> touchesVoid(n, 0);
    std::uint32_t depth = 0;
    for (const auto& [value, isEnd, entity] : delimiters) {
        depth = isEnd ? depth - 1 : depth + 1;
        if (depth == 0) touchesVoid[entity] = 1;
    }
    for (std::size_t k = 0; k < n; ++k)
        if ((m_endTouchesVoid[k] != 0) != (touchesVoid[m_entity[k]] != 0))
            return "the end of entity " + std::to_string(m_entity[k]) +
                   (touchesVoid[m_entity[k]] ? " should touch void" : " should not touch void");
    return {};
}

}  // namespace ro

// Queries (Lembcke and Korth): binary search on the sorted minima, bounded by the largest extent.

namespace ro {

template <typename Visit>
std::uint64_t SingleAxisSweep::forEachOnAxis(float lo, float hi, Visit visit) const {
    // A box reaching lo began no earlier than lo minus the largest extent (in double, so the
    // bound is never rounded past a box that reaches).
    const double reach = m_largestExtent;
    const auto first = std::partition_point(m_min.begin(), m_min.end(), [&](float min) {
        return static_cast<double>(min) + reach < static_cast<double>(lo);
    });
    std::uint64_t visited = 0;
    for (auto k = static_cast<std::size_t>(first - m_min.begin()); k < m_min.size() && m_min[k] <= hi; ++k) {
        ++visited;
        if (m_max[k] >= lo) visit(m_entity[k]);
    }
    return visited;
}

QueryCost SingleAxisSweep::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    return sweep::queryBox(onAxis(), m_axis, m_boxes, box, out);
}

QueryCost SingleAxisSweep::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    return sweep::querySegment(onAxis(), m_axis, m_boxes, segment,
                               [&](std::uint32_t e, float t) { out.push_back({e, t}); });
}

QueryCost SingleAxisSweep::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    return sweep::querySegment(onAxis(), m_axis, m_boxes, segment,
                               [&](std::uint32_t e, float t) { keepNearest(hit, {e, t}); });
}

}  // namespace ro

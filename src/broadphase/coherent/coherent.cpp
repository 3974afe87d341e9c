#include "broadphase/coherent/coherent.h"

#include <algorithm>
#include <numeric>
#include <type_traits>

#include "broadphase/fat_margin.h"
#include "broadphase/threads.h"
#include "core/box_helpers.h"
#include "core/buffers.h"

namespace ro {

template <typename Inner>
Coherent<Inner>::Coherent() : Base(kParameters) {}

template <typename Inner>
void Coherent<Inner>::applySettings(const Settings& settings) {
    m_enabled = settings.integer(kCoherentParameter) != 0;
    m_setMargin = settings.real(DynamicTree::kMarginParameter);
    m_autoMargin = m_setMargin == 0.0f;
    m_margin = m_autoMargin ? 0.0f : m_setMargin;
    m_churnSinceFit = m_countAtFit = 0;
    m_queryWork = m_listWork = 0.0;
    m_calmSteps = m_stepsUnlooked = 0;
    m_warmedTight = false;
    m_inner.configure(settings);  // checked by our configure (the inner's keys are ours); applied at its next update
    m_mode = m_enabled ? Mode::Coherent : Mode::Off;
    m_reset = true;
}

template <typename Inner>
void Coherent<Inner>::measureMargin(const BoxView& boxes) {
    // As the tree: measured at a scene's first update and again once as many entities came
    // and went as there were; a new margin only if it differs 2x (it lists everything anew).
    const std::uint32_t n = boxes.count;
    const std::uint64_t added = this->idSlots().newIdCount();
    m_churnSinceFit += added + (m_count + added - n);
    if (n == 0) return;
    const bool measured = m_countAtFit > 0;
    if (measured && m_churnSinceFit < m_countAtFit) return;
    m_churnSinceFit = 0;
    m_countAtFit = n;
    const double cap = DynamicTree::kMarginParameter.max;
    const float margin = fat_margin::automatic(fat_margin::medianSide(boxes, cap, m_sides), cap);
    if (measured && margin < 2.0f * m_margin && m_margin < 2.0f * margin) return;
    if (margin != m_margin) m_reset = true;
    m_margin = margin;
}

template <typename Inner>
void Coherent<Inner>::resizeFor(std::uint32_t count) {
    for (auto* v : {&m_fatMinX, &m_fatMinY, &m_fatMaxX, &m_fatMaxY}) resizeWithHeadroom(*v, count);
    resizeWithHeadroom(m_tight, count);
    resizeWithHeadroom(m_slots, count);
    reserveWithHeadroom(m_changedList, count);
}

template <typename Inner>
BoxView Coherent<Inner>::fatView(const BoxView& boxes) const {
    return boxes.withCoordinates(m_fatMinX.data(), m_fatMinY.data(), m_fatMaxX.data(), m_fatMaxY.data());
}

template <typename Inner>
void Coherent<Inner>::doUpdate(const BoxView& boxes) {
    m_innerRan = false;
    m_visited = m_tests = m_refound = 0;
    const std::uint32_t n = boxes.count;
    if (!m_enabled) {
        updateInnerOnBoxes(boxes);
        return;
    }
    if (m_autoMargin) measureMargin(boxes);
    // Flags or filters that came or went: every pair's rule may differ, so all is listed anew.
    const bool rulesCameOrWent = (boxes.isStatic != nullptr) != !m_static.empty() ||
                                 (boxes.category != nullptr) != !m_category.empty();
    if (m_mode == Mode::PassThrough && !m_reset && !rulesCameOrWent && ++m_stepsUnlooked < kCalmSteps) {
        // Passing through, the layer looks for calm every kCalmSteps steps, not every step:
        // its marks and refattening cost a fifth of a cheap inner step (the HSHG at 1,000
        // uniform boxes: 21 us a step against 16 without the layer), and it has nothing
        // else to do here. The marks of the next look compare with those of the last.
        updateInnerOnBoxes(boxes);
        m_tightStale = true;
        return;
    }
    const std::uint32_t old = m_markedCount;
    const std::uint32_t common = m_reset || rulesCameOrWent ? 0 : std::min(old, n);
    const std::uint32_t span = std::max(old, n);
    resizeWithHeadroom(m_changed, span);
    resizeFor(n);

    // The marking pass: branch-free over the arrays, so the compiler vectorises it; in parts
    // on several threads. It also keeps this update's slots for the next update's marks.
    std::uint8_t* changed = m_changed.data();
    std::uint32_t differs = 0;  // entities at a new index, or with a new rule: the inner needs a full update
    std::uint32_t count = 0;    // entities changed
    const auto mark = [&](std::uint32_t begin, std::uint32_t end, std::uint32_t& partDiffers, std::uint32_t& partCount) {
        const std::uint32_t markEnd = std::min(end, common);
        const float *x0 = boxes.minX, *y0 = boxes.minY, *x1 = boxes.maxX, *y1 = boxes.maxY;
        const float *f0 = m_fatMinX.data(), *f1 = m_fatMinY.data(), *f2 = m_fatMaxX.data(), *f3 = m_fatMaxY.data();
        const std::uint32_t *slots = boxes.ids, *was = m_slots.data();
        std::uint8_t* const out = changed;  // a local copy: a byte store could alias the captured pointer
        std::uint32_t d = 0;
        for (std::uint32_t i = begin; i < markEnd; ++i) {  // one loop, so GCC vectorises it
            const std::uint32_t left = ((f0[i] <= x0[i]) & (f1[i] <= y0[i]) & (x1[i] <= f2[i]) & (y1[i] <= f3[i])) ^ 1u;
            const std::uint32_t other = slots[i] != was[i];
            out[i] = static_cast<std::uint8_t>(left | other);
            d += other;
        }
        if (const std::uint8_t* flags = boxes.isStatic; flags != nullptr) {
            const std::uint8_t* flagsWere = m_static.data();
            for (std::uint32_t i = begin; i < markEnd; ++i) {
                const std::uint32_t c = (flags[i] != 0) != (flagsWere[i] != 0);
                out[i] = static_cast<std::uint8_t>(out[i] | c);
                d += c;
            }
        }
        if (const std::uint32_t *category = boxes.category, *mask = boxes.mask; category != nullptr) {
            const std::uint32_t *categoryWas = m_category.data(), *maskWas = m_mask.data();
            for (std::uint32_t i = begin; i < markEnd; ++i) {
                const std::uint32_t c = (category[i] != categoryWas[i]) | (mask[i] != maskWas[i]);
                out[i] = static_cast<std::uint8_t>(out[i] | c);
                d += c;
            }
        }
        // Came, or went (kept pairs there drop).
        if (std::max(begin, common) < end) std::fill(out + std::max(begin, common), out + end, std::uint8_t{1});
        const std::uint32_t keptEnd = std::min(end, n);
        if (begin < keptEnd) std::copy(boxes.ids + begin, boxes.ids + keptEnd, m_slots.data() + begin);
        std::uint32_t c = 0;
        for (std::uint32_t i = begin; i < keptEnd; ++i) c += out[i];
        partDiffers = d, partCount = c;
    };
    // The layer's passes over every box are memory-bound and cheap a box, but at 1,000,000
    // boxes they were a share of a step that two threads could not shorten: they run in
    // parts on the threads of the passes (the inner technique's "threads").
    PassArena* passes = this->passes();
    const std::size_t parts = passes != nullptr ? static_cast<std::size_t>(passes->threads) : 1;
    m_partDiffers.assign(parts, 0);  // within the capacity once warm: no allocation
    m_partChanged.assign(parts, 0);
    inParts(passes, span, [&](std::uint32_t begin, std::uint32_t end, std::size_t part) {
        mark(begin, end, m_partDiffers[part], m_partChanged[part]);
    });
    for (std::size_t part = 0; part < parts; ++part) differs += m_partDiffers[part], count += m_partChanged[part];

    // Keep this update's rules for the next update's marks (and its boxes, below).
    const auto keep = [n](auto& copy, const auto* from) {
        if (from == nullptr) {
            std::remove_reference_t<decltype(copy)>().swap(copy);
            return;
        }
        resizeWithHeadroom(copy, n);
        std::copy_n(from, n, copy.data());
    };
    keep(m_static, boxes.isStatic);
    keep(m_category, boxes.category);
    keep(m_mask, boxes.mask);
    m_count = m_markedCount = n;
    m_gone = old > n ? old - n : 0;  // their pairs drop: a change even when no index holds a new one
    const std::uint32_t window = std::max(m_stepsUnlooked, 1u);  // steps since the last marks
    m_stepsUnlooked = 0;

    if (m_reset || rulesCameOrWent) {
        m_reset = false;
        m_changedList.clear();
        if (m_startPassing) {
            // Every entity is marked changed: every fat box is made, the inner runs on the boxes.
            m_startPassing = false;
            m_mode = Mode::PassThrough;
            m_calmSteps = 0;
            m_warmedTight = true;
            passThrough(boxes, {}, false, changed);
        } else {
            relist(boxes);
        }
    } else if (m_mode == Mode::PassThrough) {
        m_changedList.clear();
        if (calmAgain(n, count, count, window))
            relist(boxes);
        else
            passThrough(boxes, {}, false, changed);
    } else {
        copyTight(boxes);
        m_changedList.resize(count);
        if (count > 0) {
            std::uint32_t* list = m_changedList.data();
            std::uint32_t w = 0;
            for (std::uint32_t i = 0; i < n && w < count; ++i) {
                list[w] = i;
                w += changed[i];
            }
        }
        step(boxes, {}, n == old && differs == 0);
    }
    m_changed.resize(n);  // no allocation: it shrinks or stays
    std::fill(m_changed.begin(), m_changed.end(), std::uint8_t{0});
}

template <typename Inner>
void Coherent<Inner>::updateInnerOnBoxes(const BoxView& boxes) {
    Base::updateChecked(m_inner, boxes);
    m_holds = Holds::Tight;
    m_innerRan = true;
    m_count = boxes.count;
}

template <typename Inner>
void Coherent<Inner>::doUpdateMoved(const BoxView& boxes, std::span<const std::uint32_t> moved) {
    m_innerRan = false;
    m_visited = m_tests = m_refound = 0;
    if (!m_enabled) {
        // Every step of Off updates the inner technique, with these entities.
        Base::updateMovedChecked(m_inner, boxes, moved);
        m_innerRan = true;
        return;
    }
    if (m_reset || m_stepsUnlooked > 0) {
        // Also after full updates that skipped their marks: the slots and rules kept are
        // older than the last update, and only a marking pass brings them up to date.
        doUpdate(boxes);
        return;
    }
    // The same entities and rules (the caller vouches): only the moved boxes can have left.
    m_gone = 0;
    if (m_mode == Mode::PassThrough && m_tightStale) copyTight(boxes);
    std::uint8_t* changed = m_changed.data();
    m_changedList.clear();
    for (const std::uint32_t i : moved) {
        const Aabb box = boxes.box(i);
        m_tight[i] = box;
        const bool inside = (m_fatMinX[i] <= box.minX) && (m_fatMinY[i] <= box.minY) && (box.maxX <= m_fatMaxX[i]) &&
                            (box.maxY <= m_fatMaxY[i]);
        if (inside || changed[i] != 0) continue;  // a moved index listed twice is one change
        changed[i] = 1;
        m_changedList.push_back(i);  // reserved for the count
    }
    step(boxes, moved, true);
    for (const std::uint32_t i : m_changedList) changed[i] = 0;
}

template <typename Inner>
bool Coherent<Inner>::calmAgain(std::uint32_t n, std::uint32_t changed, std::uint32_t refinding, std::uint32_t steps) {
    // Calm for kCalmSteps in a row: a crowd moving at a steady speed leaves its fat boxes in
    // waves (all fattened at once, they leave together), and one calm step between two waves
    // would list everything anew for nothing. The queries' work must be at most half the pair
    // search's, the same hysteresis as the shares. A look after several steps holds their
    // leavers together to the bar of one step: stricter, so a wave in them is seen.
    const bool calm = static_cast<float>(changed + m_gone) <= kLeavePassThrough * static_cast<float>(n) &&
                      2.0 * m_queryWork * static_cast<double>(refinding) <= m_listWork;
    m_calmSteps = calm ? m_calmSteps + steps : 0;
    if (m_calmSteps < kCalmSteps) return false;
    m_calmSteps = 0;
    return true;
}

template <typename Inner>
void Coherent<Inner>::copyTight(const BoxView& boxes) {
    for (std::uint32_t i = 0; i < boxes.count; ++i) m_tight[i] = {boxes.minX[i], boxes.minY[i], boxes.maxX[i], boxes.maxY[i]};
    m_tightStale = false;
}

template <typename Inner>
void Coherent<Inner>::passThrough(const BoxView& boxes, std::span<const std::uint32_t> moved, bool sameEntities,
                                  const std::uint8_t* changed) {
    // Fat boxes stay current, to see when few leave them again: with the marks of a full
    // update, in one branch-free pass over every box (the tight copies wait until the layer
    // is coherent again); with a list, by it.
    if (changed != nullptr) {
        const float *x0 = boxes.minX, *y0 = boxes.minY, *x1 = boxes.maxX, *y1 = boxes.maxY;
        float *f0 = m_fatMinX.data(), *f1 = m_fatMinY.data(), *f2 = m_fatMaxX.data(), *f3 = m_fatMaxY.data();
        const std::uint8_t* still = boxes.isStatic;
        const float margin = m_margin;
        inParts(this->passes(), boxes.count, [&](std::uint32_t begin, std::uint32_t end, std::size_t) {
            for (std::uint32_t i = begin; i < end; ++i) {
                const float m = still != nullptr && still[i] != 0 ? 0.0f : margin;
                const bool c = changed[i] != 0;
                f0[i] = c ? x0[i] - m : f0[i], f1[i] = c ? y0[i] - m : f1[i];
                f2[i] = c ? x1[i] + m : f2[i], f3[i] = c ? y1[i] + m : f3[i];
            }
        });
        m_tightStale = true;
    } else {
        refatten(boxes, m_changedList);
    }
    if (m_holds == Holds::Tight && sameEntities && !moved.empty())
        Base::updateMovedChecked(m_inner, boxes, moved);
    else
        Base::updateChecked(m_inner, boxes);
    m_holds = Holds::Tight;
    m_innerRan = true;
}

template <typename Inner>
void Coherent<Inner>::step(const BoxView& boxes, std::span<const std::uint32_t> moved, bool sameEntities) {
    const std::uint32_t n = boxes.count;
    const auto changedCount = static_cast<float>(m_changedList.size() + m_gone);
    const auto listed = static_cast<std::uint32_t>(m_changedList.size());
    if (m_mode == Mode::PassThrough && calmAgain(n, listed, listed, 1)) {
        relist(boxes);
        return;
    }
    // Queries dearer than the inner technique's own pair search (a sweep's query in a pile
    // with no gap on its axis walks back to its start) pass through too.
    const double refindWork = m_queryWork * static_cast<double>(m_changedList.size());
    if (m_mode == Mode::Coherent &&
        (changedCount > kEnterPassThrough * static_cast<float>(n) || (m_listWork > 0.0 && refindWork > m_listWork))) {
        m_mode = Mode::PassThrough;
        m_calmSteps = m_stepsUnlooked = 0;
    }
    if (m_mode == Mode::PassThrough) {
        passThrough(boxes, moved, sameEntities, nullptr);
        return;
    }
    if (m_changedList.empty() && m_gone == 0) return;  // the inner technique is not touched
    refatten(boxes, m_changedList);
    if (m_holds == Holds::Fat && sameEntities)
        Base::updateMovedChecked(m_inner, fatView(boxes), m_changedList);
    else
        Base::updateChecked(m_inner, fatView(boxes));
    m_holds = Holds::Fat;
    m_innerRan = true;
    refind(boxes);
}

template <typename Inner>
void Coherent<Inner>::refatten(const BoxView& boxes, std::span<const std::uint32_t> indices) {
    for (const std::uint32_t i : indices) {
        // Statics do not move: no margin, no extra pairs with their many neighbours.
        const float m = boxes.isStatic != nullptr && boxes.isStatic[i] != 0 ? 0.0f : m_margin;
        const Aabb& box = m_tight[i];
        m_fatMinX[i] = box.minX - m, m_fatMinY[i] = box.minY - m, m_fatMaxX[i] = box.maxX + m, m_fatMaxY[i] = box.maxY + m;
    }
}

template <typename Inner>
void Coherent<Inner>::relist(const BoxView& boxes) {
    const std::uint32_t n = boxes.count;
    copyTight(boxes);
    if (!m_warmedTight) {
        // Once per scene, the inner technique's step on the tight boxes too: its buffers then
        // fit a pass-through step, and the first one does not allocate.
        m_warmedTight = true;
        Base::updateChecked(m_inner, boxes);
        m_inner.findPairs(m_innerPairs);
        m_passCandidates = m_innerPairs.size();
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        const float m = boxes.isStatic != nullptr && boxes.isStatic[i] != 0 ? 0.0f : m_margin;
        m_fatMinX[i] = boxes.minX[i] - m, m_fatMinY[i] = boxes.minY[i] - m;
        m_fatMaxX[i] = boxes.maxX[i] + m, m_fatMaxY[i] = boxes.maxY[i] + m;
    }
    Base::updateChecked(m_inner, fatView(boxes));
    m_holds = Holds::Fat;
    m_innerRan = true;
    m_inner.findPairs(m_innerPairs);
    const Counters listed = m_inner.counters();
    m_tests += listed.pairTests;
    m_listWork = static_cast<double>(listed.pairTests + listed.elementsVisited);
    const bool exact = m_inner.pairsAreExact();
    m_kept.clear();
    reserveWithHeadroom(m_found, 64);
    for (const Pair p : m_innerPairs) {
        const Aabb a{m_fatMinX[p.a], m_fatMinY[p.a], m_fatMaxX[p.a], m_fatMaxY[p.a]};
        const Aabb b{m_fatMinX[p.b], m_fatMinY[p.b], m_fatMaxX[p.b], m_fatMaxY[p.b]};
        if (exact || touches(a, b)) m_kept.push_back({p.a, p.b});
    }
    // In index order: the exact tests of later steps then read the boxes nearly in sequence.
    std::sort(m_kept.begin(), m_kept.end(), [](IndexPair x, IndexPair y) { return x.a < y.a || (x.a == y.a && x.b < y.b); });
    reserveWithHeadroom(m_kept, 2 * m_kept.size());  // room for the pairs refinds add
    m_refound = n;
    m_mode = Mode::Coherent;
}

template <typename Inner>
void Coherent<Inner>::refind(const BoxView& boxes) {
    const std::uint8_t* changed = m_changed.data();
    // Drop the pairs of changed entities (and of those that went: their flags are set).
    std::size_t w = 0;
    for (const IndexPair p : m_kept) {
        m_kept[w] = p;
        w += (changed[p.a] | changed[p.b]) ^ 1;
    }
    m_kept.resize(w);
    const PairRule& rule = this->pairRule();
    for (const std::uint32_t c : m_changedList) {
        const Aabb fat{m_fatMinX[c], m_fatMinY[c], m_fatMaxX[c], m_fatMaxY[c]};
        const QueryCost cost = m_inner.queryBox(fat, m_found);
        m_visited += cost.visited;
        m_tests += cost.tests;
        for (const std::uint32_t j : m_found) {
            // A pair of two changed entities is added by the lower index only.
            if (j == c || (changed[j] != 0 && j < c)) continue;
            if (rule.active() && !rule.accepts(c, j)) continue;
            m_kept.push_back({std::min(c, j), std::max(c, j)});
        }
    }
    m_refound = m_changedList.size();
    if (!m_changedList.empty()) m_queryWork = static_cast<double>(m_visited + m_tests) / static_cast<double>(m_changedList.size());
    (void)boxes;
}

template <typename Inner>
void Coherent<Inner>::findPairs(std::vector<Pair>& out) {
    if (m_mode != Mode::Coherent) {
        m_inner.findPairs(out);
        const std::uint64_t allocations = this->m_counters.heapAllocations;
        this->m_counters = m_inner.counters();
        if (m_mode == Mode::PassThrough)
            m_listWork = static_cast<double>(this->m_counters.pairTests + this->m_counters.elementsVisited);
        this->m_counters.heapAllocations = allocations;
        if (m_mode == Mode::PassThrough) {
            this->m_counters.extra.set("refound", 0.0);
            this->m_counters.extra.set("kept_pairs", 0.0);
            this->m_counters.extra.set("pass_through", 1.0);
        }
    } else {
        // Branch-free: whether a kept pair overlaps is a coin toss the predictor cannot learn.
        // The caller's array gets room for a pass-through step's candidates too (inexact ones
        // can be many more than the kept pairs), so passing through does not grow it.
        reserveWithHeadroom(out, std::max(m_kept.size(), m_passCandidates));
        out.resize(m_kept.size());
        const Aabb* tight = m_tight.data();
        Pair* to = out.data();
        std::size_t w = 0;
        for (const IndexPair p : m_kept) {
            to[w] = {p.a, p.b};
            w += touches(tight[p.a], tight[p.b]) ? 1 : 0;
        }
        out.resize(w);
        Counters counters;
        const Counters inner = m_inner.counters();
        counters.extra = inner.extra;  // its settings in use (a cell size) hold while it rests
        if (m_innerRan) counters.elementsVisited = inner.elementsVisited;
        counters.elementsVisited += m_visited;
        counters.pairTests = m_tests + m_kept.size();
        counters.candidatePairs = out.size();
        counters.heapAllocations = this->m_counters.heapAllocations;
        counters.extra.set("refound", static_cast<double>(m_refound));
        counters.extra.set("kept_pairs", static_cast<double>(m_kept.size()));
        counters.extra.set("pass_through", 0.0);
        this->m_counters = counters;
    }
    this->m_counters.bytesHeld = m_inner.counters().bytesHeld;
    if (m_mode != Mode::Off) {
        this->m_counters.bytesHeld += bytesHeld(m_fatMinX) + bytesHeld(m_fatMinY) + bytesHeld(m_fatMaxX) + bytesHeld(m_fatMaxY) +
                                bytesHeld(m_tight) + bytesHeld(m_slots) + bytesHeld(m_static) + bytesHeld(m_category) +
                                bytesHeld(m_mask) + bytesHeld(m_changed) + bytesHeld(m_changedList) + bytesHeld(m_kept) +
                                bytesHeld(m_found) + bytesHeld(m_innerPairs) + bytesHeld(m_hits) + bytesHeld(m_sides);
    }
}

template <typename Inner>
QueryCost Coherent<Inner>::doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    QueryCost cost = m_inner.queryBox(box, out);
    if (m_holds != Holds::Fat) return cost;
    // The inner technique answered for the fat boxes: keep those whose own box overlaps.
    cost.tests += out.size();
    std::erase_if(out, [&](std::uint32_t i) { return !touches(m_tight[i], box); });
    return cost;
}

template <typename Inner>
QueryCost Coherent<Inner>::doQueryRay(const Segment& segment, std::vector<RayHit>& out) {
    QueryCost cost = m_inner.queryRay(segment, out);
    if (m_holds != Holds::Fat) return cost;
    cost.tests += out.size();
    std::size_t w = 0;
    for (const RayHit hit : out) {
        const std::optional<float> t = segmentEntry(m_tight[hit.index], segment);
        if (!t) continue;
        out[w++] = {hit.index, *t};
    }
    out.resize(w);  // the caller sorts them again by the tight t
    return cost;
}

template <typename Inner>
QueryCost Coherent<Inner>::doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    if (m_holds != Holds::Fat) return m_inner.raycastFirst(segment, hit);
    // The fat boxes' first hit need not be the tight boxes' first: through every hit.
    const QueryCost cost = doQueryRay(segment, m_hits);
    for (const RayHit candidate : m_hits) keepNearest(hit, candidate);
    return cost;
}

template <typename Inner>
std::string Coherent<Inner>::validate() const {
    if (std::string broken = m_inner.validate(); !broken.empty()) return broken;
    // Passing through, the fat boxes only steer the mode, and the tight copies may wait.
    if (m_mode != Mode::Coherent) return {};
    for (std::uint32_t i = 0; i < m_count; ++i) {
        const Aabb fat{m_fatMinX[i], m_fatMinY[i], m_fatMaxX[i], m_fatMaxY[i]};
        if (!containsBox(fat, m_tight[i])) return "coherent: box " + std::to_string(i) + " is not inside its fat box";
    }
    if (m_count > kValidatePairsMax) return {};
    std::vector<Pair> kept, fat;
    for (const IndexPair p : m_kept) {
        if (p.a >= p.b || p.b >= m_count) return "coherent: kept pair (" + std::to_string(p.a) + ", " + std::to_string(p.b) + ") is malformed";
        kept.push_back({p.a, p.b});
    }
    const PairRule& rule = this->pairRule();
    for (std::uint32_t a = 0; a < m_count; ++a)
        for (std::uint32_t b = a + 1; b < m_count; ++b) {
            const Aabb fa{m_fatMinX[a], m_fatMinY[a], m_fatMaxX[a], m_fatMaxY[a]};
            const Aabb fb{m_fatMinX[b], m_fatMinY[b], m_fatMaxX[b], m_fatMaxY[b]};
            if (overlaps(fa, fb) && (!rule.active() || rule.accepts(a, b))) fat.push_back({a, b});
        }
    std::sort(kept.begin(), kept.end());
    if (std::adjacent_find(kept.begin(), kept.end()) != kept.end()) return "coherent: a kept pair is listed twice";
    if (kept != fat)
        return "coherent: " + std::to_string(kept.size()) + " kept pairs, but " + std::to_string(fat.size()) +
               " pairs of fat boxes overlap";
    return {};
}

template class Coherent<SpatialGrid>;
template class Coherent<SpatialHash>;
template class Coherent<HierarchicalGrid>;
template class Coherent<SweepAndPrune>;
template class Coherent<SingleAxisSweep>;
template class Coherent<Quadtree>;
template class Coherent<WithStatics<SpatialGrid>>;
template class Coherent<WithStatics<SpatialHash>>;
template class Coherent<WithStatics<HierarchicalGrid>>;
template class Coherent<WithStatics<SweepAndPrune>>;
template class Coherent<WithStatics<SingleAxisSweep>>;
template class Coherent<WithStatics<Quadtree>>;

}  // namespace ro

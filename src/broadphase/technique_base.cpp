#include "broadphase/technique_base.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "ro/registry.h"
#include "broadphase/threads.h"
#include "core/buffers.h"

namespace ro {
namespace {

void checkFinite(float v, const char* what) {
    if (!std::isfinite(v)) throw std::invalid_argument(std::string(what) + " must have finite coordinates");
}

/// Throws for a key that neither `own` nor any technique of the registry has: a misspelt key
/// would otherwise leave its parameter at the default without a word. Keys of the other
/// techniques pass, so one Settings can serve them all (as the app's and Auto's do).
void checkKeysKnown(std::span<const ParameterSpec> own, const Settings& settings) {
    for (const auto& entry : settings.values()) {
        const std::string& key = entry.first;  // not a structured binding: clang 14 cannot capture one
        if (findParameter(own, key) != nullptr) continue;
        const auto& rows = techniques();
        if (std::any_of(rows.begin(), rows.end(), [&](const TechniqueInfo& t) { return findParameter(t.parameters, key) != nullptr; }))
            continue;
        throw std::invalid_argument(unknownParameter(own, key));
    }
}

/// Throws for the first box that is not finite or has min > max. One branch-free pass that
/// the compiler vectorises; the slow search for the culprit runs only when one fails.
void checkArrays(const BoxView& b) {
    if (b.count > 0 && (!b.minX || !b.minY || !b.maxX || !b.maxY))
        throw std::invalid_argument("boxes need all four coordinate arrays (minX, minY, maxX, maxY)");
}

/// Whether box i is finite with min <= max: x * 0 == 0 is false for an infinity and for NaN;
/// min <= max is false for NaN too. Branch-free, so the compiler vectorises a count of it.
bool goodBox(const BoxView& b, std::uint32_t i) {
    return (b.minX[i] <= b.maxX[i]) & (b.minY[i] <= b.maxY[i]) & (b.minX[i] * 0.0f == 0.0f) &
           (b.minY[i] * 0.0f == 0.0f) & (b.maxX[i] * 0.0f == 0.0f) & (b.maxY[i] * 0.0f == 0.0f);
}

/// Whether every box in [begin, end) is good. Counted, not and-ed into a bool: the compiler
/// vectorises the count (about 5x faster at 100,000 boxes, a quarter of a millisecond a step).
bool allGood(const BoxView& b, std::uint32_t begin, std::uint32_t end) {
    std::uint32_t goodCount = 0;
    for (std::uint32_t i = begin; i < end; ++i) goodCount += goodBox(b, i);
    return goodCount == end - begin;
}

/// Throws for the first box in [begin, end) that is not good, naming it.
void throwFirstBad(const BoxView& b, std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
        if (goodBox(b, i)) continue;
        const Aabb box = b.box(i);
        const std::string which = "box " + std::to_string(i) + (b.ids ? " (id " + std::to_string(b.ids[i]) + ")" : "");
        if (!box.isFinite()) throw std::invalid_argument(which + " must have finite coordinates");
        throw std::invalid_argument(which + " must have min <= max on both axes");
    }
}

/// Throws for the first box in [begin, end) that is not good, each part on a thread of
/// `passes` (null: on this one).
void checkBoxRange(PassArena* passes, const BoxView& b, std::uint32_t begin, std::uint32_t end) {
    const bool good = inEveryPart(passes, end - begin, [&](std::uint32_t from, std::uint32_t to) {
        return allGood(b, begin + from, begin + to);
    });
    if (!good) throwFirstBad(b, begin, end);
}

/// Whether `moved` is one run of consecutive indices below `count` (a world keeps its awake
/// bodies side by side, as Box2D's awake set): its boxes are then checked as a range.
bool isOneRun(std::span<const std::uint32_t> moved, std::uint32_t count) {
    if (moved.empty() || moved[0] > count || moved.size() > count - moved[0]) return false;
    std::uint32_t differs = 0;  // or-ed without a branch, so the compiler vectorises it
    for (std::uint32_t k = 0; k < moved.size(); ++k) differs |= moved[k] ^ (moved[0] + k);
    return differs == 0;
}

/// Filters come as a category and a mask per box, or not at all.
void checkFilters(const BoxView& b) {
    if ((b.category == nullptr) != (b.mask == nullptr))
        throw std::invalid_argument("filters need both a category and a mask per box, or neither");
}

}  // namespace

TechniqueBase::TechniqueBase(std::span<const ParameterSpec> parameters) : m_parameters(parameters), m_pending(Settings{}) {}

TechniqueBase::~TechniqueBase() = default;

void TechniqueBase::configure(const Settings& settings) {
    checkSettings(m_parameters, settings);
    checkKeysKnown(m_parameters, settings);
    m_pending = settings;
}

void TechniqueBase::checkBoxes(const BoxView& boxes) const {
    checkArrays(boxes);
    checkBoxRange(m_passes.get(), boxes, 0, boxes.count);
    checkFilters(boxes);
}

void TechniqueBase::settingsApplied() {
    if (findParameter(m_parameters, kThreadsParameter.key) != nullptr) fitParallel(m_passes, *m_pending);
    m_pending.reset();
}

void TechniqueBase::prepareUpdate(const BoxView& boxes) {
    // All that can throw (bad_alloc) before anything changes; growing moves the copies (with
    // their contents), so the last update's rule follows them, for a refusal below.
    m_ruleCopy.reserveFor(boxes);
    if (m_rule.isStatic != nullptr) m_rule.isStatic = m_ruleCopy.isStatic.data();
    if (m_rule.category != nullptr) m_rule.category = m_ruleCopy.category.data(), m_rule.mask = m_ruleCopy.mask.data();
    if (m_outerSlots != nullptr) {  // the ids are the outer technique's slots: copied, not mapped
        std::uint32_t* slots = m_idSlots.adopt(boxes.count, m_outerSlots->slotLimit(), m_outerSlots->newIdCount());
        // Most steps hand over the same slots: compared, they are not written again.
        inParts(m_passes.get(), boxes.count, [&](std::uint32_t begin, std::uint32_t end, std::size_t) {
            if (!std::equal(boxes.ids + begin, boxes.ids + end, slots + begin))
                std::copy(boxes.ids + begin, boxes.ids + end, slots + begin);
        });
        return;
    }
    // The same ids as the last update (most steps): proved in parts when there are threads.
    if (m_passes != nullptr && boxes.ids != nullptr && boxes.count == m_idSlots.count() && boxes.count >= kMinParallelCount &&
        inEveryPart(m_passes.get(), boxes.count,
                    [&](std::uint32_t begin, std::uint32_t end) { return m_idSlots.sameIds(boxes.ids, begin, end); })) {
        m_idSlots.keepIds();
        return;
    }
    m_idSlots.update(boxes.ids, boxes.count);
}

BoxView TechniqueBase::keyUpdate(const BoxView& boxes) {
    BoxView keyed = m_ruleCopy.take(boxes);
    m_rule = PairRule(keyed);
    m_updatedCount = boxes.count;
    keyed.ids = m_idSlots.slots();
    return keyed;
}

void TechniqueBase::RuleCopy::reserveFor(const BoxView& boxes) {
    // At least one, so given arrays stay given (non-null) even for no boxes.
    const std::size_t n = std::max<std::size_t>(boxes.count, 1);
    if (boxes.isStatic != nullptr) reserveWithHeadroom(isStatic, n);
    if (boxes.category != nullptr) reserveWithHeadroom(category, n);
    if (boxes.mask != nullptr) reserveWithHeadroom(mask, n);
}

BoxView TechniqueBase::RuleCopy::take(const BoxView& boxes) {
    BoxView view = boxes;
    const auto copy = [n = boxes.count](auto& to, const auto* from) {
        if (from == nullptr) {
            std::remove_reference_t<decltype(to)>().swap(to);  // an array that went holds no memory
            return decltype(to.data()){nullptr};
        }
        to.resize(n);  // reserved by reserveFor: no allocation
        std::copy_n(from, n, to.data());
        return to.data();
    };
    view.isStatic = copy(isStatic, boxes.isStatic);
    view.category = copy(category, boxes.category);
    view.mask = copy(mask, boxes.mask);
    return view;
}

std::uint64_t TechniqueBase::RuleCopy::bytesHeld() const {
    return ro::bytesHeld(isStatic) + ro::bytesHeld(category) + ro::bytesHeld(mask);
}

[[gnu::hot]] void TechniqueBase::checkMoved(const BoxView& boxes, std::span<const std::uint32_t> moved) const {
    checkMovedCall(boxes);
    // A run of indices (ro_bench's scenes, a world's awake bodies) in update()'s vectorised
    // pass: a box at a time took 1.9 us of the tree's 35 us step at 1,000 of 100,000 moving.
    std::span<const std::uint32_t> unchecked = moved;
    if (isOneRun(moved, boxes.count)) {
        checkBoxRange(m_passes.get(), boxes, moved[0], moved[0] + static_cast<std::uint32_t>(moved.size()));
        unchecked = {};
    }
    for (const std::uint32_t i : unchecked) {
        if (i >= boxes.count)
            throw std::invalid_argument("updateMoved: moved index " + std::to_string(i) + " is not below the count " +
                                        std::to_string(boxes.count));
        if (!goodBox(boxes, i)) throwFirstBad(boxes, i, i + 1);  // the same test and message as a run's
    }
}

void TechniqueBase::checkMovedCall(const BoxView& boxes) const {
    if (m_updatedCount == kNoUpdate) throw std::invalid_argument("updateMoved needs a full update() first");
    if (boxes.count != m_updatedCount)
        throw std::invalid_argument("updateMoved: the count changed from " + std::to_string(m_updatedCount) + " to " +
                                    std::to_string(boxes.count) + "; entities that come or go need update()");
    checkArrays(boxes);
    checkFilters(boxes);
    if ((boxes.isStatic == nullptr) != (m_rule.isStatic == nullptr) || (boxes.category == nullptr) != (m_rule.category == nullptr))
        throw std::invalid_argument("updateMoved: static flags or filters came or went since the last update; that needs update()");
}

BoxView TechniqueBase::keyMoved(const BoxView& boxes) const {
    // The same flags and filters as the last update() (the caller vouches): its copies stand.
    BoxView keyed = boxes;
    keyed.isStatic = m_rule.isStatic;
    keyed.category = m_rule.category;
    keyed.mask = m_rule.mask;
    keyed.ids = m_idSlots.slots();
    return keyed;
}

void TechniqueBase::checkPoint(Vec2 point) {
    checkFinite(point.x, "query point");
    checkFinite(point.y, "query point");
}

void TechniqueBase::checkQueryBox(const Aabb& box) {
    if (!box.isFinite()) throw std::invalid_argument("query box must have finite coordinates");
    if (box.minX > box.maxX || box.minY > box.maxY) throw std::invalid_argument("query box must have min <= max");
}

void TechniqueBase::checkSegment(const Segment& s) {
    checkFinite(s.from.x, "ray");
    checkFinite(s.from.y, "ray");
    checkFinite(s.to.x, "ray");
    checkFinite(s.to.y, "ray");
    // -3e38 to 3e38 has finite ends but an infinite direction: every t would be 0 or NaN.
    if (!std::isfinite(s.to.x - s.from.x) || !std::isfinite(s.to.y - s.from.y))
        throw std::invalid_argument("ray's extent must be finite (to - from overflows)");
}

void TechniqueBase::sortHits(std::vector<RayHit>& hits) { std::sort(hits.begin(), hits.end(), hitBefore); }

}  // namespace ro

#pragma once
/// What every technique shares behind the public BroadPhase: the input contract checked once
/// for all of them, the id slots, the copy of the pair rule's arrays, and the do* hooks each
/// technique implements. A technique derives from Technique<Itself> and is `final`, so each
/// public call is one virtual call that reaches the technique's hook directly.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "ro/broadphase.h"
#include "broadphase/pair_rule.h"
#include "core/id_slots.h"

namespace ro {

class PassArena;

/// The state and checks every technique shares; the hooks are declared here, dispatched by
/// Technique<Derived>.
class TechniqueBase : public BroadPhase {
public:
    ~TechniqueBase() override;
    [[nodiscard]] std::span<const ParameterSpec> parameters() const final { return m_parameters; }
    void configure(const Settings& settings) final;
    [[nodiscard]] Counters counters() const final {
        Counters counters = m_counters;
        counters.bytesHeld += m_idSlots.bytesHeld() + m_ruleCopy.bytesHeld();
        return counters;
    }
    void setHeapAllocations(std::uint64_t count) final { m_counters.heapAllocations = count; }

protected:
    /// A new technique takes every parameter at its default on its first update.
    explicit TechniqueBase(std::span<const ParameterSpec> parameters);

    /// Takes the values configure() accepted, at the start of the update after it.
    virtual void applySettings(const Settings& settings) = 0;
    /// What each technique implements behind update(): the boxes are checked, and `ids` holds
    /// small stable slots instead of the caller's ids (unique, below idSlots().slotLimit(); a
    /// slot freed in one update is reused only from a later one), so tables kept by id hold
    /// memory in proportion to the live entities.
    virtual void doUpdate(const BoxView& boxes) = 0;
    // updateMoved()'s work, doUpdateMoved(boxes, moved) on boxes keyed as doUpdate's, is a full
    // doUpdate unless the technique declares its own (Technique<Derived> holds the default).
    // The queries' work, after the public calls checked the input and cleared `out` (and
    // before queryRay sorts its hits). A point query is a box query of no size (closed boxes
    // contain their edges).
    virtual QueryCost doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) = 0;
    virtual QueryCost doQueryRay(const Segment& segment, std::vector<RayHit>& out) = 0;
    virtual QueryCost doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) = 0;

    /// For a technique made of others (a layer, auto): hands `inner` boxes this technique's
    /// update() checked and keyed by its slots (or some of them), which `inner` adopts as its
    /// own slots: they are not mapped again, layer after layer.
    void updateChecked(TechniqueBase& inner, const BoxView& boxes) const {
        inner.m_outerSlots = &m_idSlots;
        try {
            inner.takeChecked(boxes);
        } catch (...) {
            inner.m_outerSlots = nullptr;
            throw;
        }
        inner.m_outerSlots = nullptr;
    }
    /// The same for updateMoved(): its boxes and moved indices were checked (O(moved) once, not
    /// once per technique); only the call is checked against `inner`'s last update.
    static void updateMovedChecked(TechniqueBase& inner, const BoxView& boxes, std::span<const std::uint32_t> moved) {
        inner.checkMovedCall(boxes);
        inner.takeCheckedMoved(boxes, moved);
    }
    /// The rule of the last update's boxes, for the loops that emit pairs.
    [[nodiscard]] const PairRule& pairRule() const { return m_rule; }
    [[nodiscard]] IdSlots& idSlots() { return m_idSlots; }
    /// The threads of the passes over every box (null: this thread), for a technique's own
    /// such passes (inParts in threads.h).
    [[nodiscard]] PassArena* passes() const { return m_passes.get(); }
    [[nodiscard]] const IdSlots& idSlots() const { return m_idSlots; }

    // The checks of the public calls, for Technique<Derived>: each throws std::invalid_argument.
    /// update()'s: every box finite with min <= max, filters complete.
    void checkBoxes(const BoxView& boxes) const;
    /// updateMoved()'s: the call against the last update, and the moved boxes.
    void checkMoved(const BoxView& boxes, std::span<const std::uint32_t> moved) const;
    static void checkPoint(Vec2 point);
    static void checkQueryBox(const Aabb& box);
    static void checkSegment(const Segment& segment);
    /// Sorts ray hits into the order queryRay reports (hitBefore).
    static void sortHits(std::vector<RayHit>& hits);

    /// update() after its checks, before the settings: what can throw (a repeated id, memory)
    /// happens here, with the technique as the last good update left it.
    void prepareUpdate(const BoxView& boxes);
    /// After prepareUpdate and the settings: keeps the boxes' rule arrays and returns the boxes
    /// over them, keyed by slot, as doUpdate takes them.
    [[nodiscard]] BoxView keyUpdate(const BoxView& boxes);
    /// updateMoved()'s boxes over the last update's rule copies, keyed by slot.
    [[nodiscard]] BoxView keyMoved(const BoxView& boxes) const;
    /// The settings configure() took since the last update, if any; settingsApplied() clears them.
    [[nodiscard]] const std::optional<Settings>& pendingSettings() const { return m_pending; }
    /// Also fits the threads of the passes over every box (checks, id compare) to "threads".
    void settingsApplied();

    Counters m_counters;

private:
    /// update() after its checks (Technique<Derived> implements it: it calls the hooks).
    virtual void takeChecked(const BoxView& boxes) = 0;
    /// updateMoved() after its checks.
    virtual void takeCheckedMoved(const BoxView& boxes, std::span<const std::uint32_t> moved) = 0;
    /// updateMoved()'s checks of the call against the last update (O(1)): a first update, the
    /// same count, the same kinds of rule arrays.
    void checkMovedCall(const BoxView& boxes) const;

    std::span<const ParameterSpec> m_parameters;
    std::optional<Settings> m_pending;  ///< from configure(), applied by the next update()
    IdSlots m_idSlots;
    /// During updateChecked from an outer technique: its slots, which key this update's boxes.
    const IdSlots* m_outerSlots = nullptr;
    /// For a technique with "threads": the passes over every box run in parts on it (at
    /// 1,000,000 boxes the checks and the id compare were a tenth of a step on two threads).
    std::unique_ptr<PassArena> m_passes;
    /// The last good update's static flags and filters, which the pair loops read until the
    /// next: with the techniques' own copies of the boxes, the caller's arrays are free again
    /// once update() returns.
    struct RuleCopy {
        std::vector<std::uint8_t> isStatic;
        std::vector<std::uint32_t> category, mask;
        /// Grows the arrays for `boxes` (what can throw, before anything changes).
        void reserveFor(const BoxView& boxes);
        /// After reserveFor: copies the arrays `boxes` has into these (frees those it has
        /// not); returns `boxes` over the copies.
        BoxView take(const BoxView& boxes);
        [[nodiscard]] std::uint64_t bytesHeld() const;
    } m_ruleCopy;
    PairRule m_rule;  ///< over m_ruleCopy
    static constexpr std::uint32_t kNoUpdate = 0xFFFFFFFFu;
    std::uint32_t m_updatedCount = kNoUpdate;  ///< boxes of the last good update, for updateMoved
};

/// The public calls of a technique: the checks, then the technique's own hook, called
/// directly (Derived is final, so the hook's call needs no virtual dispatch). A technique
/// declares `friend class Technique<Itself>` when its hooks are not public.
template <typename Derived>
class Technique : public TechniqueBase {
public:
    [[nodiscard]] std::unique_ptr<BroadPhase> makeFresh() const final { return std::make_unique<Derived>(); }
    void update(const BoxView& boxes) final {
        checkBoxes(boxes);
        takeChecked(boxes);
    }
    void updateMoved(const BoxView& boxes, std::span<const std::uint32_t> moved) final {
        checkMoved(boxes, moved);
        takeCheckedMoved(boxes, moved);
    }
    QueryCost queryPoint(Vec2 point, std::vector<std::uint32_t>& out) final {
        checkPoint(point);
        out.clear();
        return self().doQueryBox({point.x, point.y, point.x, point.y}, out);
    }
    QueryCost queryBox(const Aabb& box, std::vector<std::uint32_t>& out) final {
        checkQueryBox(box);
        out.clear();
        return self().doQueryBox(box, out);
    }
    QueryCost queryRay(const Segment& segment, std::vector<RayHit>& out) final {
        checkSegment(segment);
        out.clear();
        const QueryCost cost = self().doQueryRay(segment, out);
        sortHits(out);
        return cost;
    }
    QueryCost raycastFirst(const Segment& segment, std::optional<RayHit>& hit) final {
        checkSegment(segment);
        hit.reset();
        return self().doRaycastFirst(segment, hit);
    }

protected:
    using TechniqueBase::TechniqueBase;

    /// updateMoved()'s work, on boxes keyed as doUpdate's: a full doUpdate, unless Derived
    /// declares its own doUpdateMoved, which hides this one.
    void doUpdateMoved(const BoxView& boxes, std::span<const std::uint32_t> moved) {
        (void)moved;
        self().doUpdate(boxes);
    }

private:
    Derived& self() { return static_cast<Derived&>(*this); }

    void takeChecked(const BoxView& boxes) final {
        prepareUpdate(boxes);
        if (pendingSettings()) {  // after the checks: a refused update leaves the technique as it was
            self().applySettings(*pendingSettings());
            settingsApplied();
        }
        self().doUpdate(keyUpdate(boxes));
    }
    void takeCheckedMoved(const BoxView& boxes, std::span<const std::uint32_t> moved) final {
        const BoxView keyed = keyMoved(boxes);
        if (pendingSettings()) {  // new settings rebuild: a full update on boxes checked by now
            self().applySettings(*pendingSettings());
            settingsApplied();
            self().doUpdate(keyed);
            return;
        }
        self().doUpdateMoved(keyed, moved);
    }
};

/// Orders hits by t, then index: the order queryRay reports and raycastFirst picks from.
[[nodiscard]] inline bool hitBefore(const RayHit& a, const RayHit& b) {
    return a.t < b.t || (a.t == b.t && a.index < b.index);
}

/// Keeps in `nearest` whichever of it and `candidate` comes first along the segment.
inline void keepNearest(std::optional<RayHit>& nearest, RayHit candidate) {
    if (!nearest || hitBefore(candidate, *nearest)) nearest = candidate;
}

}  // namespace ro

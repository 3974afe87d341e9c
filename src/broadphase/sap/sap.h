#pragma once
/// Sweep and prune with delimiters (Wells): each entity's interval on one axis is a begin
/// and an end delimiter in one sorted array; sweeping the array with the set of open intervals
/// finds every pair that overlaps on the axis, and the other axis prunes it to the overlaps.
/// O(n + s + k_axis) per step: s the delimiters' reorderings, k_axis the pairs that overlap
/// on the sweep axis (up to n^2 when everything lines up along it).
///
/// - Begins sort before ends at equal coordinates, so boxes that touch overlap.
/// - "Touches void" markers (the seed's dotted lines): a running depth count after sorting
///   marks each delimiter after which no interval is open. Queries and interferingWith() stop
///   their scans there instead of walking the rest of the array.
/// - Temporal coherence: the array is kept from the last step and re-sorted by insertion sort,
///   O(n + swaps). When motion is incoherent the swaps grow towards n^2, so insertion sort
///   gives up past swap_budget swaps per delimiter (0.5) and the array is rebuilt and
///   radix-sorted in O(n) instead. Why so low a budget: measured at 100k boxes, a swap costs
///   as much as a delimiter's share of the radix sort (each moved delimiter mispredicts a
///   branch), and reading the new coordinates in sorted, hence random, order already costs
///   half of it; insertion sort wins only when most delimiters keep their place (a mostly
///   static scene, where it is twice as fast). After it gives up, the next 1, 2, 4.. up to
///   kMaxRebuildStreak steps rebuild without trying: chaos costs a radix sort per step and
///   little more, and calm returns to insertion sort. New entities are sorted apart and merged in.
/// - The axis is the one along which the centres vary most (sweep_common.h), or the setting's.
/// - Strips for box queries, when asked (favourQueries(): the statics layer asks it of its
///   static index, queried once per mover each step and rebuilt only when a static changes).
///   A query on the array reads the slab of boxes that meet its interval on the axis, about
///   160 on a field of 99,000 statics, each tested where its coordinates lie. The strips are
///   the boxes in the array's order cut into runs of about sqrt(n), each run sorted by its
///   min on the other axis, with copies of the boxes: a query binary-searches the runs that
///   meet its interval on the axis and, in each, the boxes that meet it on the other, and
///   tests a few boxes in sequence. Built on the first query after an update.

#include <cstdint>
#include <optional>
#include <vector>

#include "broadphase/technique_base.h"
#include "broadphase/box_copy.h"
#include "broadphase/entity_diff.h"
#include "broadphase/sweep_common.h"

namespace ro {

class SweepAndPrune final : public Technique<SweepAndPrune> {
    friend class Technique<SweepAndPrune>;  // calls the hooks below

public:
    static constexpr TechniqueGuide kGuide{
        .how = "Begin and end delimiters of every box sorted along an axis; boxes whose intervals are open "
               "together are tested on the other axis.",
        .complexity = "O(n + k_axis) when coherent, radix rebuild when not",
        .cost = "O(n + k_axis) when motion is coherent; a radix rebuild when it is not.",
        .suits = "Coherent motion, entities spread along one axis.",
        .source = "John Wells, \"Broadphase Collision Detection\" (2007)",
    };
    /// Insertion sort gives up past this many swaps per delimiter; the array is rebuilt and
    /// radix-sorted instead (0.5: the break-even measured at 100k boxes).
    static constexpr ParameterSpec kSwapBudgetParameter{
        .key = "swap_budget",
        .label = "Swap budget",
        .kind = ParameterKind::Real,
        .min = 0.0,
        .max = 1024.0,
        .offeredMin = 0.0,
        .offeredMax = 8.0,
        .defaultValue = 0.5,
        .unit = "swaps per delimiter",
        .help = "insertion-sort swaps per delimiter before a step re-sorts by radix instead; 0 always re-sorts",
    };
    static constexpr ParameterSpec kParameters[] = {sweep::kAxisParameter, kSwapBudgetParameter};
    SweepAndPrune() : Technique(kParameters) {}

    /// Entity indices share their word with two flags.
    static constexpr std::uint32_t kMaxEntities = 1u << 30;
    /// After insertion sort gave up, at most this many steps rebuild before it is tried again.
    static constexpr std::uint32_t kMaxRebuildStreak = 32;

    /// The seed's "which objects interfere with this one?": clears `out` and fills it with the
    /// entities whose boxes overlap entity `entity`'s (itself excluded), from a binary search
    /// for its begin delimiter and a scan to the first delimiter past its end that touches void.
    /// Throws std::out_of_range for an index the last update did not have.
    QueryCost interferingWith(std::uint32_t entity, std::vector<std::uint32_t>& out) const;
    /// The last update's box at dense index `i` (its own copy).
    [[nodiscard]] Aabb boxOf(std::uint32_t i) const { return m_boxes.box(i); }
    /// The axis of the last update (0 x, 1 y).
    [[nodiscard]] std::uint32_t axis() const { return m_axis; }
    /// Whether the last update rebuilt the array (first step, new axis, too many swaps now or lately).
    [[nodiscard]] bool lastUpdateRebuilt() const { return m_rebuilt; }
    /// Box queries from now on go through strips, built on the first query after each update:
    /// for an index queried many times between updates.
    void favourQueries() { m_keepStrips = true; }
    /// Strips of the last query (0 when box queries scan the array).
    [[nodiscard]] std::uint32_t stripCount() const { return m_stripsBuilt ? static_cast<std::uint32_t>(m_strips.size()) : 0; }

    // Implementing interface of BroadPhase (see BroadPhase for documentation).
    void doUpdate(const BoxView& boxes) override;
    void findPairs(std::vector<Pair>& out) override;
    [[nodiscard]] bool pairsAreExact() const override { return true; }
    /// One Delimiter view per delimiter, in sorted order; bounds.minX (== maxX) is its coordinate.
    void forEachElement(const std::function<void(const StructureElement&)>& visit) const override;
    [[nodiscard]] std::string validate() const override;

protected:
    void applySettings(const Settings& settings) override;
    QueryCost doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) override;
    QueryCost doQueryRay(const Segment& segment, std::vector<RayHit>& out) override;
    QueryCost doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) override;

private:
    static constexpr std::uint32_t kBegin = 1u << 31;
    static constexpr std::uint32_t kTouchesVoid = 1u << 30;
    static constexpr std::uint32_t kIndexMask = kTouchesVoid - 1;

    struct Delimiter {
        float value;         ///< the box's min (begin) or max (end) on the sweep axis
        std::uint32_t bits;  ///< entity index | kBegin | kTouchesVoid
        [[nodiscard]] std::uint32_t entity() const { return bits & kIndexMask; }
        [[nodiscard]] bool isBegin() const { return (bits & kBegin) != 0; }
        [[nodiscard]] bool touchesVoid() const { return (bits & kTouchesVoid) != 0; }
    };
    /// Sort order: by coordinate, begins before ends at equal coordinates.
    [[nodiscard]] static bool sortsBefore(const Delimiter& a, const Delimiter& b) {
        return a.value < b.value || (a.value == b.value && a.isBegin() && !b.isBegin());
    }
    [[nodiscard]] const float* axisMin() const { return m_axis == 0 ? m_boxes.minX : m_boxes.minY; }
    [[nodiscard]] const float* axisMax() const { return m_axis == 0 ? m_boxes.maxX : m_boxes.maxY; }
    [[nodiscard]] const float* otherMin() const { return m_axis == 0 ? m_boxes.minY : m_boxes.minX; }
    [[nodiscard]] const float* otherMax() const { return m_axis == 0 ? m_boxes.maxY : m_boxes.maxX; }
    [[nodiscard]] Delimiter beginOf(std::uint32_t entity) const { return {axisMin()[entity] + 0.0f, entity | kBegin}; }
    [[nodiscard]] Delimiter endOf(std::uint32_t entity) const { return {axisMax()[entity] + 0.0f, entity}; }

    void forgetAll();
    void rebuild();
    /// Drops the delimiters of removed entities, renumbers the rest, reads their new coordinates.
    void refresh();
    /// Insertion sort from last step's order; false (array unsorted) when it ran out of budget.
    bool insertionSort();
    void mergeAdded();
    /// The delimiters after which no interval is open, and the largest extent on the axis.
    void markVoid();
    /// Calls visit(entity) once for every entity whose interval on the sweep axis meets
    /// [lo, hi]; returns the delimiters visited.
    template <typename Visit>
    std::uint64_t forEachOnAxis(float lo, float hi, Visit visit) const;
    /// forEachOnAxis as a callable, for the queries sweep_common.h shares.
    [[nodiscard]] auto onAxis() const {
        return [this](float lo, float hi, auto visit) { return forEachOnAxis(lo, hi, visit); };
    }

    struct StripBox {  ///< a box in its strip: other axis first (the strip's order), then the axis
        float otherMin, otherMax, min, max;
        std::uint32_t entity;
    };
    struct Strip {
        float firstMin, lastMin;  ///< its boxes' least and greatest min on the axis
        float lastMax;            ///< their greatest max on the axis
        std::uint32_t begin;      ///< its boxes are m_stripBoxes[begin, next strip's begin)
        double otherExtent;       ///< its largest extent on the other axis, rounded up
    };
    void buildStrips();
    QueryCost queryStrips(const Aabb& box, std::vector<std::uint32_t>& out) const;

    BoxCopy m_copy;   ///< the last good update's coordinates
    BoxView m_boxes;  ///< that update's boxes, over the copy
    SweepAxis m_axisSetting = SweepAxis::Auto;
    double m_swapBudget = kSwapBudgetParameter.defaultValue;  ///< swaps per delimiter
    sweep::AxisChooser m_axisChooser;
    EntityDiff m_diff;
    std::uint32_t m_axis = 0;
    double m_largestExtent = 0.0;  ///< max - min on the axis, at least (rounded up): how far a query walks back
    bool m_built = false;    ///< m_delimiters holds last step's entities
    bool m_rebuilt = false;
    std::uint32_t m_rebuildsAhead = 0;  ///< steps left that rebuild without trying insertion sort
    std::uint32_t m_rebuildStreak = 1;  ///< m_rebuildsAhead after insertion sort next gives up
    std::vector<Delimiter> m_delimiters;  ///< sorted after update
    std::vector<Delimiter> m_scratch;     ///< radix sort and merge
    std::vector<Delimiter> m_added;       ///< delimiters of new entities, sorted apart
    // The intervals open during findPairs' sweep: their extents on the other axis, their entity.
    std::vector<float> m_openMin, m_openMax;
    std::vector<std::uint32_t> m_openEntity;
    std::vector<std::uint32_t> m_openSlot;  ///< by entity: its place among the open intervals
    std::vector<std::uint8_t> m_hitFlags;   ///< scratch of sweep::forEachOverlap
    bool m_keepStrips = false;
    bool m_stripsBuilt = false;  ///< the strips hold the last update's boxes
    std::vector<Strip> m_strips;      ///< plus one past the last, whose begin is the end
    std::vector<StripBox> m_stripBoxes;
};

}  // namespace ro

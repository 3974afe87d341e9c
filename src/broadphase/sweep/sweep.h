#pragma once
/// Single-axis sweep (Lembcke and Korth): entities ordered by their minimum on one axis; each one is
/// paired with those after it whose minimum is at most its maximum. The order is kept from
/// the last step and re-sorted by insertion sort, which is O(n) when motion is coherent (few
/// entities overtake one another). Per step O(n + swaps + k_axis): k_axis the pairs that
/// overlap on the axis.
///
/// The seed's caveat is kept on purpose, and counted: when motion is incoherent the swaps
/// (the counter "sort_swaps") grow towards n^2 / 4 and the sweep is no better than brute force.
/// It stays correct, only slow; sweep and prune (sap/sap.h) falls back to a radix
/// sort instead. Entities added since the last step are sorted apart and merged in (not
/// counted as swaps); removed ones are dropped, both by stable id.
///
/// Queries: binary search on the sorted minima. A box that reaches position p began at or
/// before p, and no earlier than p minus the largest extent on the axis, kept per step.
/// Overlay: a begin and an end Delimiter per entity, in sorted order; the end's touchesVoid
/// is computed each step (a gap after the prefix maximum of the ends), begins never touch void.

#include <cstdint>
#include <optional>
#include <vector>

#include "broadphase/technique_base.h"
#include "broadphase/box_copy.h"
#include "broadphase/entity_diff.h"
#include "broadphase/sweep_common.h"

namespace ro {

class SingleAxisSweep final : public Technique<SingleAxisSweep> {
    friend class Technique<SingleAxisSweep>;  // calls the hooks below

public:
    static constexpr TechniqueGuide kGuide{
        .how = "Boxes sorted by their minimum on one axis with insertion sort (almost sorted from the last "
               "step); each box is tested against the following ones until they start past its end.",
        .complexity = "O(n + k_axis) when coherent, O(n^2) sort when not",
        .cost = "O(n + k_axis) when coherent, O(n^2) sorting when not; a crowded axis costs k_axis.",
        .suits = "Few entities, simple code, motion that keeps the order.",
        .source = "Scott Lembcke and Andy Korth, \"Collision Detection and Spatial Indexes\" (2012)",
    };
    static constexpr std::span<const ParameterSpec> kParameters = sweep::kParameters;
    SingleAxisSweep() : Technique(kParameters) {}

    /// The axis of the last update (0 x, 1 y).
    [[nodiscard]] std::uint32_t axis() const { return m_axis; }

    // Implementing interface of BroadPhase (see BroadPhase for documentation).
    void doUpdate(const BoxView& boxes) override;
    void findPairs(std::vector<Pair>& out) override;
    [[nodiscard]] bool pairsAreExact() const override { return true; }
    /// A begin and an end per entity, in sorted order (sorting the ends costs O(n log n) here);
    /// bounds.minX (== maxX) is the coordinate.
    void forEachElement(const std::function<void(const StructureElement&)>& visit) const override;
    [[nodiscard]] std::string validate() const override;

protected:
    void applySettings(const Settings& settings) override;
    QueryCost doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) override;
    QueryCost doQueryRay(const Segment& segment, std::vector<RayHit>& out) override;
    QueryCost doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) override;

private:
    struct Entry {
        float min;  ///< on the sweep axis
        std::uint32_t entity;
    };

    [[nodiscard]] const float* axisMin() const { return m_axis == 0 ? m_boxes.minX : m_boxes.minY; }
    [[nodiscard]] const float* axisMax() const { return m_axis == 0 ? m_boxes.maxX : m_boxes.maxY; }
    [[nodiscard]] const float* otherMin() const { return m_axis == 0 ? m_boxes.minY : m_boxes.minX; }
    [[nodiscard]] const float* otherMax() const { return m_axis == 0 ? m_boxes.maxY : m_boxes.maxX; }

    /// Drops removed entities, renumbers the rest, reads their new minima.
    void refresh();
    /// Insertion sort from last step's order; returns the swaps it made.
    std::uint64_t insertionSort();
    void mergeAdded(bool all);
    /// Copies each entity's extents into sorted order, finds the largest extent and the ends that touch void.
    void gather();
    /// Calls visit(entity) for every entity whose interval on the axis meets [lo, hi];
    /// returns the entities visited.
    template <typename Visit>
    std::uint64_t forEachOnAxis(float lo, float hi, Visit visit) const;
    /// forEachOnAxis as a callable, for the queries sweep_common.h shares.
    [[nodiscard]] auto onAxis() const {
        return [this](float lo, float hi, auto visit) { return forEachOnAxis(lo, hi, visit); };
    }

    BoxCopy m_copy;   ///< the last good update's coordinates
    BoxView m_boxes;  ///< that update's boxes, over the copy
    SweepAxis m_axisSetting = SweepAxis::Auto;
    sweep::AxisChooser m_axisChooser;
    EntityDiff m_diff;
    std::uint32_t m_axis = 0;
    bool m_built = false;  ///< m_order holds last step's entities
    std::vector<Entry> m_order;  ///< sorted by min after update
    std::vector<Entry> m_added, m_scratch;
    // By sorted position: the sweep reads these in order, never the world's arrays.
    std::vector<float> m_min, m_max, m_otherMin, m_otherMax;
    std::vector<std::uint32_t> m_entity;
    std::vector<std::uint8_t> m_endTouchesVoid;
    std::vector<std::uint8_t> m_hitFlags;  ///< scratch of sweep::forEachOverlap
    struct OverlayEnd {
        std::uint32_t key;     ///< the end, as sweep::sortableKey orders it
        std::uint32_t entity;  ///< the tie-break
        std::uint32_t index;   ///< where it is in m_max (and its entity in m_entity)
    };
    mutable std::vector<OverlayEnd> m_overlayEnds, m_overlayScratch;  ///< forEachElement's sort of the ends, reused
    double m_largestExtent = 0.0;  ///< max - min on the axis, at least (rounded up)
};

}  // namespace ro

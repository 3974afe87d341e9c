#pragma once
/// Brute force (Petersen, "Attempt #1"): every pair tested once. O(n^2) tests.
/// The reference every other technique is checked against. Its candidates are exactly the
/// overlapping pairs, since it has already paid for the test.

#include "broadphase/box_copy.h"
#include "broadphase/technique_base.h"

namespace ro {

class BruteForce final : public Technique<BruteForce> {
    friend class Technique<BruteForce>;  // calls the hooks below

public:
    static constexpr TechniqueGuide kGuide{
        .how = "Tests every pair of boxes once: the reference every other technique is checked against.",
        .complexity = "O(n^2) pair tests",
        .cost = "n^2/2 tests a step: 50 M at 10,000 entities, 0.4 s a step at 20,000.",
        .suits = "A few hundred entities, or to check another technique.",
        .source = "Andrew Petersen, \"Broad Phase Collision Detection Using Spatial Partitioning\"",
    };
    /// Brute force has no parameters.
    static constexpr std::span<const ParameterSpec> kParameters{};
    BruteForce() : Technique(kParameters) {}

    // Implementing interface of BroadPhase (see BroadPhase for documentation).
    void doUpdate(const BoxView& boxes) override;
    void findPairs(std::vector<Pair>& out) override;
    [[nodiscard]] bool pairsAreExact() const override { return true; }

protected:
    void applySettings(const Settings&) override {}
    QueryCost doQueryBox(const Aabb& box, std::vector<std::uint32_t>& out) override;
    QueryCost doQueryRay(const Segment& segment, std::vector<RayHit>& out) override;
    QueryCost doRaycastFirst(const Segment& segment, std::optional<RayHit>& hit) override;

private:
    BoxCopy m_copy;   ///< the last good update's coordinates
    BoxView m_boxes;  ///< that update's boxes, over the copy
};

}  // namespace ro

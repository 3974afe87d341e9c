// Compare: the techniques run beside the world's agree with the reference on every scenario,
// and a technique that drops or repeats a pair is caught at the tick it does so, with the pair.

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "app/compare.h"
#include "app/lab.h"
#include "broadphase/technique_base.h"
#include "ro/registry.h"
#include "ro/aabb.h"
#include "scenario/scenario.h"

namespace {

using ro::app::Compare;
using ro::app::Command;
using ro::app::Lab;

/// Brute force that gets one tick wrong on purpose: it drops its first overlapping pair, or
/// reports it twice.
class FaultyBrute final : public ro::Technique<FaultyBrute> {
    friend class ro::Technique<FaultyBrute>;

public:
    enum class Fault { Drop, Repeat };
    static inline Fault fault = Fault::Drop;
    static inline std::uint64_t faultyUpdate = 5;  ///< the update (1 = first) whose pairs are wrong

    FaultyBrute() : Technique({}) {}
    static std::unique_ptr<ro::BroadPhase> make() { return std::make_unique<FaultyBrute>(); }

    void findPairs(std::vector<ro::Pair>& out) override {
        out.clear();
        for (std::uint32_t a = 0; a < m_boxes.count; ++a)
            for (std::uint32_t b = a + 1; b < m_boxes.count; ++b)
                if (ro::overlaps(m_boxes.box(a), m_boxes.box(b))) out.push_back({a, b});
        if (m_updates != faultyUpdate || out.empty()) return;
        if (fault == Fault::Drop) out.erase(out.begin());
        else out.push_back(out.front());
    }
    [[nodiscard]] bool pairsAreExact() const override { return true; }

private:
    void applySettings(const ro::Settings&) override {}
    void doUpdate(const ro::BoxView& boxes) override {
        m_boxes = boxes;
        ++m_updates;
    }
    ro::QueryCost doQueryBox(const ro::Aabb&, std::vector<std::uint32_t>& out) override {
        out.clear();
        return {};
    }
    ro::QueryCost doQueryRay(const ro::Segment&, std::vector<ro::RayHit>& out) override {
        out.clear();
        return {};
    }
    ro::QueryCost doRaycastFirst(const ro::Segment&, std::optional<ro::RayHit>& hit) override {
        hit.reset();
        return {};
    }

    ro::BoxView m_boxes;
    std::uint64_t m_updates = 0;
};

const ro::TechniqueInfo kFaulty{"faulty", "Faulty brute force", {}, {}, &FaultyBrute::make, 0};

/// The sorted overlapping pairs of the scene's current boxes.
std::vector<ro::Pair> bruteOverlaps(const ro::BoxView& boxes) {
    std::vector<ro::Pair> out;
    for (std::uint32_t a = 0; a < boxes.count; ++a)
        for (std::uint32_t b = a + 1; b < boxes.count; ++b)
            if (ro::overlaps(boxes.box(a), boxes.box(b))) out.push_back({a, b});
    return out;
}

ro::Settings settingsFor(const ro::Scene& scene) {
    ro::Settings settings;
    settings.set("cell_size", std::max(1.0f, scene.largestSide()));
    return settings;
}

TEST(Compare, EveryTechniqueAgreesWithTheReferenceOnEveryScenario) {
    // 1,500 boxes are checked against brute force, 4,000 against the HSHG and the grid
    // (onecell's every pair overlaps: 1,000 of its boxes make half a million pairs).
    for (const std::uint32_t count : {1500u, 4000u}) {
        for (const ro::ScenarioInfo& s : ro::scenarios()) {
            const std::uint32_t n = s.kind == ro::ScenarioKind::OneCell ? count / 4 : count;
            ro::Scene scene(s.kind, n, ro::Motion::Varied, 3);
            Compare compare;
            for (const ro::TechniqueInfo& t : ro::techniques()) compare.setPicked(t, true);
            for (std::uint64_t tick = 1; tick <= 10; ++tick) {
                EXPECT_TRUE(compare.run(scene.boxes(), settingsFor(scene), tick).empty()) << s.name << " tick " << tick;
                scene.advance();
            }
            EXPECT_EQ(compare.referenceName(), n <= Compare::kBruteReferenceLimit ? "brute" : "hshg+grid");
            EXPECT_EQ(compare.referenceDisagreements(), 0u) << s.name;
            for (const Compare::Row& row : compare.rows()) {
                EXPECT_EQ(row.mismatchTicks, 0u) << s.name << " " << row.technique->id;
                EXPECT_EQ(row.ticks, 10u) << s.name << " " << row.technique->id;
            }
        }
    }
}

TEST(Compare, ADroppedPairIsReportedWithItsTickAndPair) {
    for (const std::uint32_t count : {1500u, 4000u}) {  // both references
        ro::Scene scene(ro::ScenarioKind::Dense, count, ro::Motion::Steady, 9);
        FaultyBrute::fault = FaultyBrute::Fault::Drop;
        FaultyBrute::faultyUpdate = 5;
        Compare compare;
        compare.setPicked(kFaulty, true);
        compare.setPicked(*ro::findTechnique("sap"), true);
        std::vector<ro::Pair> atFault;
        for (std::uint64_t tick = 1; tick <= 8; ++tick) {
            if (tick == 5) atFault = bruteOverlaps(scene.boxes());
            const auto mismatches = compare.run(scene.boxes(), settingsFor(scene), tick);
            if (tick == 5) {
                ASSERT_EQ(mismatches.size(), 1u);
                EXPECT_EQ(mismatches[0].first->technique, &kFaulty);
            } else {
                EXPECT_TRUE(mismatches.empty()) << "tick " << tick;
            }
            scene.advance();
        }
        ASSERT_FALSE(atFault.empty());
        const Compare::Row& faulty = compare.rows().back();  // registry order: not a registry row, last
        ASSERT_EQ(faulty.technique, &kFaulty);
        EXPECT_EQ(faulty.mismatchTicks, 1u);
        ASSERT_TRUE(faulty.firstMismatch);
        EXPECT_EQ(faulty.firstMismatch->tick, 5u);
        EXPECT_EQ(faulty.firstMismatch->pair, atFault.front());
        EXPECT_TRUE(faulty.firstMismatch->missing);
        EXPECT_EQ(compare.rows().front().mismatchTicks, 0u);  // sap
    }
}

TEST(Compare, ARepeatedPairIsAnExtraPair) {
    ro::Scene scene(ro::ScenarioKind::Uniform, 1000, ro::Motion::Steady, 2);
    FaultyBrute::fault = FaultyBrute::Fault::Repeat;
    FaultyBrute::faultyUpdate = 2;
    Compare compare;
    compare.setPicked(kFaulty, true);
    const std::vector<ro::Pair> first = bruteOverlaps(scene.boxes());
    ASSERT_FALSE(first.empty());
    EXPECT_TRUE(compare.run(scene.boxes(), settingsFor(scene), 1).empty());
    const auto mismatches = compare.run(scene.boxes(), settingsFor(scene), 2);
    ASSERT_EQ(mismatches.size(), 1u);
    EXPECT_EQ(mismatches[0].second.pair, first.front());
    EXPECT_FALSE(mismatches[0].second.missing);
}

TEST(Compare, AMismatchPausesTheLabAndNamesTheTechniqueAndPair) {
    FaultyBrute::fault = FaultyBrute::Fault::Drop;
    FaultyBrute::faultyUpdate = 4;
    Lab lab(*ro::findTechnique("grid"), 800, 5, {}, std::nullopt, ro::findScenario("dense"));
    lab.apply(Command::compared(kFaulty, true));  // its first update is the lab's first tick
    lab.apply(Command::compared(*ro::findTechnique("tree"), true));
    for (int frame = 0; frame < 10 && !lab.paused(); ++frame) lab.update(1.0 / 60.0, true);
    ASSERT_TRUE(lab.paused());
    ASSERT_TRUE(lab.compareAlarm());
    EXPECT_EQ(lab.compareAlarm()->technique, "faulty");
    EXPECT_EQ(lab.compareAlarm()->mismatch.tick, 4u);
    EXPECT_TRUE(lab.compareAlarm()->mismatch.missing);
    EXPECT_EQ(lab.world().tickCount(), 4u);
    // Resuming clears the alarm; the tree agreed all along.
    lab.apply(Command::togglePause());
    EXPECT_FALSE(lab.compareAlarm());
    EXPECT_EQ(lab.compare().rows().back().technique->id, "faulty");
    EXPECT_EQ(lab.compare().rows().front().mismatchTicks, 0u);
}

}  // namespace

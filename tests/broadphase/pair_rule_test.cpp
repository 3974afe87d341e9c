// Static entities, collision filters and moved lists, for every technique: the pairs must be
// exactly the reference's overlaps that the rule accepts (never two statics; each one's
// category in the other's mask), on random scenes, at several cell sizes, and on every step
// of a simulation updated through updateMoved().

#include <gtest/gtest.h>

#include <limits>

#include "ro/registry.h"
#include "broadphase/pair_rule.h"
#include "ro/rng.h"
#include "support/scenes.h"
#include "support/settings.h"

namespace ro {
namespace {

/// Boxes with a static flag and a filter each: what a world with layers hands over.
struct RuledBoxes {
    test::BoxSet boxes;
    std::vector<std::uint8_t> isStatic;
    std::vector<std::uint32_t> category, mask;

    [[nodiscard]] BoxView view(bool withFilters = true) const {
        BoxView v = boxes.view();
        v.isStatic = isStatic.data();
        if (withFilters) {
            v.category = category.data();
            v.mask = mask.data();
        }
        return v;
    }
};

/// `count` boxes in a square of side `side`, a few of them huge (the cells' oversized path),
/// a share `staticShare` static, each in one of four layers colliding with a random set of them.
RuledBoxes randomRuledBoxes(std::uint64_t seed, std::uint32_t count, float side, float staticShare) {
    Rng rng(seed);
    RuledBoxes r;
    for (std::uint32_t i = 0; i < count; ++i) {
        const float half = rng.below(40) == 0 ? rng.range(5.0f, 30.0f) : rng.range(0.2f, 1.5f);
        r.boxes.add(test::boxAt(rng.range(0.0f, side), rng.range(0.0f, side), half));
        r.isStatic.push_back(rng.unit() < staticShare ? 1 : 0);
        r.category.push_back(1u << rng.below(4));
        r.mask.push_back(static_cast<std::uint32_t>(rng.below(16)) | (rng.below(2) << 31));
    }
    return r;
}

/// The reference's overlaps, kept by the rule's definition written out once more.
std::set<Pair> expectedPairs(const BoxView& v) {
    std::set<Pair> kept;
    for (const Pair& p : test::referenceOverlaps(v)) {
        if (v.isStatic != nullptr && v.isStatic[p.a] != 0 && v.isStatic[p.b] != 0) continue;
        if (v.category != nullptr && ((v.category[p.a] & v.mask[p.b]) == 0 || (v.category[p.b] & v.mask[p.a]) == 0))
            continue;
        kept.insert(p);
    }
    return kept;
}

class PairRules : public ::testing::TestWithParam<std::string_view> {
protected:
    std::unique_ptr<BroadPhase> create() const { return findTechnique(GetParam())->create(); }
};

TEST_P(PairRules, StaticsAndFiltersMatchTheReferenceAtEveryCellSize) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const RuledBoxes ruled = randomRuledBoxes(seed, 400, 60.0f, 0.6f);
        for (const bool withFilters : {false, true}) {
            const BoxView view = ruled.view(withFilters);
            const std::set<Pair> expected = expectedPairs(view);
            ASSERT_FALSE(expected.empty());
            for (const float cell : {0.5f, 3.0f, 40.0f}) {
                SCOPED_TRACE("seed " + std::to_string(seed) + " cell " + std::to_string(cell) +
                             (withFilters ? " with filters" : " statics only"));
                auto technique = create();
                technique->configure(test::withCell(cell, Aabb{0, 0, 60, 60}));
                EXPECT_EQ(test::techniqueOverlaps(*technique, view), expected);
                EXPECT_EQ(test::techniqueOverlaps(*technique, view), expected);  // the structure reused
                EXPECT_EQ(technique->validate(), "");
            }
        }
    }
}

TEST_P(PairRules, TwoStaticsNeverPairOneDynamicPairsWithThemAll) {
    RuledBoxes r;
    for (std::uint32_t i = 0; i < 6; ++i) {
        r.boxes.add({0, 0, 10, 10});  // all on top of each other
        r.isStatic.push_back(i == 3 ? 0 : 1);
    }
    BoxView view = r.boxes.view();
    view.isStatic = r.isStatic.data();
    auto technique = create();
    EXPECT_EQ(test::techniqueOverlaps(*technique, view), (std::set<Pair>{{0, 3}, {1, 3}, {2, 3}, {3, 4}, {3, 5}}));
    r.isStatic[3] = 1;  // now every one is static
    EXPECT_EQ(test::techniqueOverlaps(*technique, view), std::set<Pair>{});
    view.isStatic = nullptr;  // no flags: everyone pairs again
    EXPECT_EQ(test::techniqueOverlaps(*technique, view).size(), 15u);
}

TEST_P(PairRules, FiltersChangedBetweenStepsTakeEffect) {
    RuledBoxes r = randomRuledBoxes(11, 300, 40.0f, 0.3f);
    auto technique = create();
    for (std::uint64_t step = 0; step < 6; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        Rng rng(100 + step);
        for (std::uint32_t i = 0; i < r.boxes.size(); ++i) {
            if (rng.below(3) == 0) r.mask[i] = rng.below(16);
            if (rng.below(5) == 0) r.isStatic[i] ^= 1;
        }
        EXPECT_EQ(test::techniqueOverlaps(*technique, r.view()), expectedPairs(r.view()));
        EXPECT_EQ(technique->validate(), "");
    }
}

/// The pairs after updateMoved, as a set, checked like techniqueOverlaps checks update's.
std::set<Pair> movedOverlaps(BroadPhase& technique, const BoxView& view, std::span<const std::uint32_t> moved) {
    technique.updateMoved(view, moved);
    std::vector<Pair> candidates;
    technique.findPairs(candidates);
    std::set<Pair> result;
    for (const Pair& p : candidates) {
        EXPECT_LT(p.a, p.b);
        EXPECT_LT(p.b, view.count);
        if (p.b >= view.count) continue;
        EXPECT_TRUE(result.insert(p).second) << "pair (" << p.a << ", " << p.b << ") reported twice";
    }
    std::erase_if(result, [&](const Pair& p) { return !overlaps(view.box(p.a), view.box(p.b)); });
    return result;
}

TEST_P(PairRules, EveryStepThroughMovedListsMatchesTheReference) {
    // A static field with a tenth of the boxes moving: some crawl, some jump across the field.
    RuledBoxes r = randomRuledBoxes(21, 500, 50.0f, 0.9f);
    auto technique = create();
    technique->configure(test::withCell(2.0f, Aabb{0, 0, 50, 50}));
    EXPECT_EQ(test::techniqueOverlaps(*technique, r.view()), expectedPairs(r.view()));
    Rng rng(22);
    std::vector<std::uint32_t> moved;
    for (int step = 0; step < 40; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        moved.clear();
        for (std::uint32_t i = 0; i < r.boxes.size(); ++i) {
            if (r.isStatic[i] || (step % 7 == 3)) continue;  // every seventh step nothing moves
            const bool jump = rng.below(20) == 0;
            const float dx = jump ? rng.range(-20.0f, 20.0f) : rng.range(-0.6f, 0.6f);
            const float dy = jump ? rng.range(-20.0f, 20.0f) : rng.range(-0.6f, 0.6f);
            r.boxes.minX[i] += dx, r.boxes.maxX[i] += dx, r.boxes.minY[i] += dy, r.boxes.maxY[i] += dy;
            moved.push_back(i);
        }
        EXPECT_EQ(movedOverlaps(*technique, r.view(), moved), expectedPairs(r.view()));
        EXPECT_EQ(technique->validate(), "");
    }
    // A full update may change the rule (a static wakes up); moved lists carry on after it.
    r.isStatic[0] = 0;
    EXPECT_EQ(test::techniqueOverlaps(*technique, r.view()), expectedPairs(r.view()));
    r.boxes.minX[0] += 30.0f, r.boxes.maxX[0] += 30.0f;
    const std::uint32_t first[] = {0};
    EXPECT_EQ(movedOverlaps(*technique, r.view(), first), expectedPairs(r.view()));
}

TEST_P(PairRules, UpdateMovedRefusesWhatItCannotTake) {
    RuledBoxes r = randomRuledBoxes(31, 20, 10.0f, 0.5f);
    auto technique = create();
    const std::uint32_t one[] = {1};
    EXPECT_THROW(technique->updateMoved(r.view(), one), std::invalid_argument);  // no full update yet
    const std::set<Pair> before = test::techniqueOverlaps(*technique, r.view());
    BoxView shorter = r.view();
    shorter.count = 19;
    EXPECT_THROW(technique->updateMoved(shorter, one), std::invalid_argument);
    const std::uint32_t outOfRange[] = {20};
    EXPECT_THROW(technique->updateMoved(r.view(), outOfRange), std::invalid_argument);
    // A moved list that is one run of indices is checked as a range, any other box by box:
    // a run past the count, a bad box inside a run or a scattered list, are refused alike.
    const std::uint32_t pastTheEnd[] = {18, 19, 20};
    EXPECT_THROW(technique->updateMoved(r.view(), pastTheEnd), std::invalid_argument);
    const std::uint32_t run[] = {0, 1, 2}, scattered[] = {7, 1, 2};
    const float good = r.boxes.minX[1], goodMaxY = r.boxes.maxY[1];
    for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        r.boxes.minX[1] = bad;
        EXPECT_THROW(technique->updateMoved(r.view(), one), std::invalid_argument);
        EXPECT_THROW(technique->updateMoved(r.view(), run), std::invalid_argument);
        EXPECT_THROW(technique->updateMoved(r.view(), scattered), std::invalid_argument);
    }
    r.boxes.minX[1] = good;
    r.boxes.maxY[1] = r.boxes.minY[1] - 1.0f;  // min > max
    EXPECT_THROW(technique->updateMoved(r.view(), run), std::invalid_argument);
    EXPECT_THROW(technique->updateMoved(r.view(), scattered), std::invalid_argument);
    r.boxes.maxY[1] = goodMaxY;
    BoxView halfFilter = r.view();
    halfFilter.mask = nullptr;
    EXPECT_THROW(technique->update(halfFilter), std::invalid_argument);
    // Every refusal left the technique as the last good update left it.
    r.boxes.minX[1] = good;
    EXPECT_EQ(movedOverlaps(*technique, r.view(), {}), before);
}

// A moved list that is one run of indices is checked over exactly its range: a bad box at
// either end is refused, and (where a technique reads only the moved boxes) a bad box just
// outside it is not the update's business.
TEST_P(PairRules, UpdateMovedChecksExactlyTheRunItIsGiven) {
    RuledBoxes r = randomRuledBoxes(37, 20, 10.0f, 0.5f);
    auto technique = create();
    EXPECT_EQ(test::techniqueOverlaps(*technique, r.view()), expectedPairs(r.view()));
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::uint32_t first[] = {0, 1, 2}, last[] = {17, 18, 19};
    for (const std::uint32_t bad : {0u, 2u, 17u, 19u}) {
        const float good = r.boxes.minX[bad];
        r.boxes.minX[bad] = nan;
        EXPECT_THROW(technique->updateMoved(r.view(), bad < 10 ? first : last), std::invalid_argument) << "box " << bad;
        r.boxes.minX[bad] = good;
    }
    if (!technique->exploitsMovedLists()) return;  // a full rebuild would read the boxes outside
    const std::uint32_t run[] = {2, 3, 4};
    const float before = r.boxes.minX[1], after = r.boxes.minX[5];
    r.boxes.minX[1] = r.boxes.minX[5] = nan;
    for (const std::uint32_t i : run) r.boxes.minX[i] += 0.5f, r.boxes.maxX[i] += 0.5f;
    EXPECT_NO_THROW(technique->updateMoved(r.view(), run));
    r.boxes.minX[1] = before, r.boxes.minX[5] = after;
    EXPECT_EQ(movedOverlaps(*technique, r.view(), {}), expectedPairs(r.view()));
    EXPECT_EQ(technique->validate(), "");
}

INSTANTIATE_TEST_SUITE_P(AllTechniques, PairRules, ::testing::ValuesIn(test::allTechniqueIds()),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace ro

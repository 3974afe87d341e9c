// Auto: its trial, its pick, and its answers through each (the answers are also checked with
// every other technique's in the conformance, property and query suites).

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <vector>

#include "broadphase/auto/auto.h"
#include "broadphase/brute/brute.h"
#include "ro/rng.h"
#include "support/scenes.h"

namespace ro {
namespace {

std::set<Pair> pairsOf(BroadPhase& technique) {
    std::vector<Pair> candidates;
    technique.findPairs(candidates);
    return {candidates.begin(), candidates.end()};
}

/// 2,000 boxes drifting in a 400 x 300 field, with ids from `firstId`.
test::Population driftingField(Rng& rng, std::uint32_t firstId) {
    test::Population population;
    population.nextId = firstId;
    for (int i = 0; i < 2000; ++i)
        population.add(test::boxAt(rng.range(5, 395), rng.range(5, 295), rng.range(0.5f, 3.0f)));
    return population;
}

void drift(test::Population& population, Rng& rng) {
    for (std::uint32_t i = 0; i < population.size(); ++i) {
        const float dx = rng.range(-0.3f, 0.3f), dy = rng.range(-0.3f, 0.3f);
        const BoxView b = population.boxes.view();
        population.set(i, {b.minX[i] + dx, b.minY[i] + dy, b.maxX[i] + dx, b.maxY[i] + dy});
    }
}

/// One step of both; the pairs must be the same set, and so must a box query's hits.
void expectSameStep(AutoPick& autoPick, BruteForce& brute, const test::Population& population) {
    autoPick.update(population.boxes.view());
    brute.update(population.boxes.view());
    ASSERT_EQ(pairsOf(autoPick), pairsOf(brute));
    std::vector<std::uint32_t> hits, expected;
    autoPick.queryBox({100, 100, 140, 130}, hits);
    brute.queryBox({100, 100, 140, 130}, expected);
    EXPECT_EQ(std::set<std::uint32_t>(hits.begin(), hits.end()), std::set<std::uint32_t>(expected.begin(), expected.end()));
    EXPECT_EQ(autoPick.validate(), "");
}

TEST(AutoPick, TrialsBothThenKeepsOneAndAnswersAsBruteForceThroughout) {
    AutoPick autoPick;
    BruteForce brute;
    Rng rng(7);
    test::Population population = driftingField(rng, 0);
    // The trial takes kTrialSteps steps, and up to kMaxCalmSteps more while no box has left
    // the HSHG's fat boxes; its count of steps left never rises.
    double left = AutoPick::kTrialSteps;
    for (std::uint32_t step = 0; step < 12; ++step) {
        expectSameStep(autoPick, brute, population);
        const Counters counters = autoPick.counters();
        if (step + 1 < AutoPick::kTrialSteps) {
            EXPECT_EQ(autoPick.pick(), AutoPick::Pick::Trial) << "step " << step;
        }
        if (autoPick.pick() == AutoPick::Pick::Trial) {
            ASSERT_LT(step + 1, AutoPick::kTrialSteps + AutoPick::kMaxCalmSteps) << "the trial did not end";
            const double now = counters.extra.find("trial_steps_left").value_or(-1.0);
            EXPECT_GE(now, 1.0) << "step " << step;
            EXPECT_LE(now, left) << "step " << step;
            left = now;
        } else {
            ASSERT_NE(autoPick.pick(), AutoPick::Pick::Trial) << "step " << step;
            EXPECT_EQ(counters.extra.find("uses_tree"), autoPick.pick() == AutoPick::Pick::Tree ? 1.0 : 0.0);
            EXPECT_EQ(autoPick.exploitsMovedLists(), autoPick.pick() == AutoPick::Pick::Tree);
        }
        drift(population, rng);
    }
}

TEST(AutoPick, ANewSceneOrNewParametersStartATrialAgain) {
    AutoPick autoPick;
    BruteForce brute;
    Rng rng(8);
    test::Population population = driftingField(rng, 0);
    // The boxes stand still: the trial waits its kMaxCalmSteps for one to leave its fat box.
    constexpr std::uint32_t kLongestTrial = AutoPick::kTrialSteps + AutoPick::kMaxCalmSteps;
    for (std::uint32_t step = 0; step < kLongestTrial; ++step) expectSameStep(autoPick, brute, population);
    ASSERT_NE(autoPick.pick(), AutoPick::Pick::Trial);

    // Every entity new (ids from 10,000): a new scene.
    test::Population next = driftingField(rng, 10'000);
    expectSameStep(autoPick, brute, next);
    EXPECT_EQ(autoPick.pick(), AutoPick::Pick::Trial);
    for (std::uint32_t step = 1; step < kLongestTrial; ++step) expectSameStep(autoPick, brute, next);
    ASSERT_NE(autoPick.pick(), AutoPick::Pick::Trial);

    // A tenth new is the same scene going on.
    for (int k = 0; k < 200; ++k) {
        next.removeAt(rng.below(next.size()));
        next.add(test::boxAt(rng.range(5, 395), rng.range(5, 295), 1.0f));
    }
    expectSameStep(autoPick, brute, next);
    EXPECT_NE(autoPick.pick(), AutoPick::Pick::Trial);

    Settings settings;
    settings.set(DynamicTree::kMarginParameter.key, 5.0);
    autoPick.configure(settings);
    expectSameStep(autoPick, brute, next);
    EXPECT_EQ(autoPick.pick(), AutoPick::Pick::Trial);
}

TEST(AutoPick, HandingOverKeepsEveryAnswer) {
    // What the watch does when a kept tree or sweep and prune turns out slow, at any point:
    // during the trial, and between an update and its pair finding (queries and pairs of that
    // same step). The HSHG takes over from either; sweep and prune from a tree on probation.
    for (const AutoPick::Pick to : {AutoPick::Pick::Hshg, AutoPick::Pick::Sap})
        for (const std::uint32_t handOverAt : {1u, 5u}) {
            AutoPick autoPick;
            BruteForce brute;
            Rng rng(9);
            test::Population population = driftingField(rng, 0);
            for (std::uint32_t step = 0; step < 8; ++step) {
                autoPick.update(population.boxes.view());
                brute.update(population.boxes.view());
                if (step == handOverAt) {
                    autoPick.handOverTo(to);
                    EXPECT_EQ(autoPick.pick(), to);
                    EXPECT_FALSE(autoPick.exploitsMovedLists());
                }
                ASSERT_EQ(pairsOf(autoPick), pairsOf(brute)) << "step " << step;
                EXPECT_EQ(autoPick.validate(), "");
                drift(population, rng);
            }
            EXPECT_EQ(autoPick.pick(), to) << "kept until the next scene";
        }
}

TEST(AutoPick, OnlyTheHshgOrSweepAndPruneTakeOver) {
    AutoPick autoPick;
    EXPECT_THROW(autoPick.handOverTo(AutoPick::Pick::Tree), std::invalid_argument);
    EXPECT_THROW(autoPick.handOverTo(AutoPick::Pick::Trial), std::invalid_argument);
}

/// A field of statics with 20 movers, updated with moved lists: the tree or sweep and prune
/// wins its trial by far.
struct StaticField {
    explicit StaticField(Rng& rng) : population(driftingField(rng, 0)), isStatic(population.size(), 1) {
        for (std::uint32_t i = 0; i < population.size(); i += 100) isStatic[i] = 0, moved.push_back(i);
    }
    [[nodiscard]] BoxView view(const test::BoxSet& boxes) const {
        BoxView view = boxes.view();
        view.isStatic = isStatic.data();
        return view;
    }
    void moveMovers(test::BoxSet& boxes) const {
        for (const std::uint32_t i : moved) boxes.minX[i] += 0.1f, boxes.maxX[i] += 0.1f;
    }
    /// Steps `autoPick` over `boxes` until its trial ends (at most 8 steps).
    void runTrial(AutoPick& autoPick, test::BoxSet& boxes) const {
        autoPick.update(view(boxes));
        for (std::uint32_t step = 0; step < 8 && autoPick.pick() == AutoPick::Pick::Trial; ++step) {
            moveMovers(boxes);
            autoPick.updateMoved(view(boxes), moved);
            (void)pairsOf(autoPick);
        }
    }
    test::Population population;
    std::vector<std::uint8_t> isStatic;
    std::vector<std::uint32_t> moved;
};

/// The plain HSHG: at 2,000 entities the coherent one costs about what the tree does on the
/// static field, and these test a kept tree or sweep and prune, so one of them must win.
Settings withoutCoherence() { return Settings(Settings{}.bounds, {{kCoherentParameter.key, 0.0}}); }

TEST(AutoPick, AHandOverAfterTheCallersArraysWereFreedBuildsOnTheKeptCopy) {
    // The caller's arrays are free once update() returns, so a later hand-over must build the
    // HSHG (or sweep and prune) on the kept technique's own copy of the last update's boxes.
    for (const AutoPick::Pick to : {AutoPick::Pick::Hshg, AutoPick::Pick::Sap}) {
        Rng rng(4);
        const StaticField field(rng);
        AutoPick autoPick;
        autoPick.configure(withoutCoherence());
        BruteForce brute;
        auto arrays = std::make_unique<test::BoxSet>(field.population.boxes);
        field.runTrial(autoPick, *arrays);
        // With the statics layer, sweep and prune's 20 movers cost about what the tree's do: the
        // trial keeps either, and a hand-over from each must build on its own copy.
        ASSERT_TRUE(autoPick.pick() == AutoPick::Pick::Tree || autoPick.pick() == AutoPick::Pick::Sap)
            << "the trial kept neither the tree nor sweep and prune on a static field";
        EXPECT_EQ(autoPick.probeStepsLeft(), 0u) << "only a tree on probation has its fallback run beside it";
        brute.update(field.view(*arrays));
        const std::set<Pair> expected = pairsOf(brute);
        for (auto* coordinates : {&arrays->minX, &arrays->minY, &arrays->maxX, &arrays->maxY})
            std::fill(coordinates->begin(), coordinates->end(), 7.0f);
        arrays.reset();
        autoPick.handOverTo(to);
        ASSERT_EQ(autoPick.pick(), to);
        EXPECT_EQ(pairsOf(autoPick), expected);
        EXPECT_EQ(autoPick.validate(), "");
    }
}

TEST(AutoPick, ATreeOnProbationHasItsFallbackRunBesideItForAFewSteps) {
    // 3,000 boxes of side 2 all moving 0.7 a step, fat margin 1: every fat box made at the
    // build runs out on the second step, so the tree reinserts none on its first step after the
    // build and every leaf on the first timed step, and loses its trial (several times the
    // others' time) in its first wave. It is kept on probation, and the trial's fastest runs on
    // beside it for kProbeSteps steps, timed, its pairs not the answer; a hand-over in those
    // steps to it takes the one running, to the other builds one.
    for (const AutoPick::Pick to : {AutoPick::Pick::Hshg, AutoPick::Pick::Sap})
        for (const bool handOver : {false, true}) {
            Rng rng(12);
            test::Population population;
            for (int i = 0; i < 3000; ++i) population.add(test::boxAt(rng.range(5, 245), rng.range(5, 245), 1.0f));
            const auto move = [&] {
                for (std::uint32_t i = 0; i < population.size(); ++i) {
                    const BoxView b = population.boxes.view();
                    population.set(i, {b.minX[i] + 0.7f, b.minY[i], b.maxX[i] + 0.7f, b.maxY[i]});
                }
            };
            AutoPick autoPick;
            autoPick.configure(Settings(Settings{}.bounds, {{DynamicTree::kMarginParameter.key, 1.0}}));
            for (std::uint32_t step = 0; step < 8 && (step == 0 || autoPick.pick() == AutoPick::Pick::Trial); ++step) {
                if (step > 0) move();
                autoPick.update(population.boxes.view());
                (void)pairsOf(autoPick);
            }
            ASSERT_EQ(autoPick.pick(), AutoPick::Pick::Tree) << "the tree was not kept on probation";
            ASSERT_EQ(autoPick.probeStepsLeft(), AutoPick::kProbeSteps);
            BruteForce brute;
            for (std::uint32_t step = 0; step < AutoPick::kProbeSteps; ++step) {
                move();
                autoPick.update(population.boxes.view());
                brute.update(population.boxes.view());
                if (handOver && step == 1) {
                    autoPick.handOverTo(to);
                    EXPECT_EQ(autoPick.probeStepsLeft(), 0u);
                }
                ASSERT_EQ(pairsOf(autoPick), pairsOf(brute)) << "step " << step;
                EXPECT_EQ(autoPick.validate(), "");
                if (!handOver || step < 1) {
                    EXPECT_EQ(autoPick.probeStepsLeft(), AutoPick::kProbeSteps - step - 1);
                }
            }
            EXPECT_EQ(autoPick.pick(), handOver ? to : AutoPick::Pick::Tree);
        }
}

}  // namespace
}  // namespace ro

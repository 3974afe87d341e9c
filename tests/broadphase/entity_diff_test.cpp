// EntityDiff against a reference written out with maps: which entities came, which went, and
// where each of last step's stands now, through steps of every kind the world makes.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#include "broadphase/entity_diff.h"
#include "broadphase/threads.h"
#include "ro/rng.h"

namespace ro {
namespace {

BoxView viewOf(const std::vector<std::uint32_t>& ids) {
    BoxView view;
    view.ids = ids.data();
    view.count = static_cast<std::uint32_t>(ids.size());
    return view;
}

/// Checks one track() from `before` to `now` against the definitions.
void expectDiff(const EntityDiff& diff, const std::vector<std::uint32_t>& before, const std::vector<std::uint32_t>& now) {
    std::map<std::uint32_t, std::uint32_t> indexNow;
    for (std::uint32_t i = 0; i < now.size(); ++i) indexNow[now[i]] = i;
    std::map<std::uint32_t, std::uint32_t> indexBefore;
    for (std::uint32_t i = 0; i < before.size(); ++i) indexBefore[before[i]] = i;

    std::vector<std::uint32_t> added, removed;
    for (std::uint32_t i = 0; i < now.size(); ++i)
        if (!indexBefore.contains(now[i])) added.push_back(i);
    for (std::uint32_t old = 0; old < before.size(); ++old) {
        const auto found = indexNow.find(before[old]);
        const std::uint32_t expected = found == indexNow.end() ? EntityDiff::kGone : found->second;
        ASSERT_EQ(diff.newIndex(old), expected) << "old index " << old;
        if (found == indexNow.end()) removed.push_back(before[old]);
    }
    EXPECT_EQ(diff.added(), added);
    EXPECT_EQ(diff.removed(), removed);
    EXPECT_EQ(diff.unchanged(), before == now);
}

TEST(EntityDiff, MatchesTheDefinitionsThroughChurnShufflesGrowthAndShrinking) {
    EntityDiff diff;
    Rng rng(21);
    std::vector<std::uint32_t> ids(500);
    std::iota(ids.begin(), ids.end(), 0u);
    std::uint32_t nextId = 500;
    std::vector<std::uint32_t> before;
    diff.track(viewOf(ids));
    for (int step = 0; step < 400; ++step) {
        before = ids;
        switch (step % 5) {
            case 0:  // nothing changed
                break;
            case 1:  // churn: swap-remove a few, append as many new
                for (int k = 0; k < 7 && !ids.empty(); ++k) {
                    const std::uint32_t i = rng.below(static_cast<std::uint32_t>(ids.size()));
                    ids[i] = ids.back();
                    ids.pop_back();
                    ids.push_back(nextId++);
                }
                break;
            case 2:  // a few entities trade places
                for (int k = 0; k < 5 && ids.size() > 1; ++k)
                    std::swap(ids[rng.below(static_cast<std::uint32_t>(ids.size()))],
                              ids[rng.below(static_cast<std::uint32_t>(ids.size()))]);
                break;
            case 3:  // growth past every count before, or a shrink to a few
                if (rng.below(2) == 0) {
                    for (int k = 0; k < 300; ++k) ids.push_back(nextId++);
                } else {
                    ids.resize(std::min<std::size_t>(ids.size(), 40));
                }
                break;
            case 4:  // a whole new order, with an id that went coming back
                std::shuffle(ids.begin(), ids.end(), std::mt19937(rng.below(1000)));
                if (!before.empty() && ids.size() > 3) ids.pop_back();
                break;
        }
        diff.track(viewOf(ids));
        expectDiff(diff, before, ids);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(EntityDiff, OnSeveralThreadsTheCompareInPartsGivesTheSameDiff) {
    // Past kMinParallelCount ids, track() with threads compares the ids in parts: the same
    // ids are unchanged, and a change in any one part (the last one's last id, or a trade of
    // places across two parts) is seen as on one thread.
    for (const int threads : {2, 7}) {
        SCOPED_TRACE(threads);
        PassArena passes(threads);
        EntityDiff diff;
        std::vector<std::uint32_t> ids(kMinParallelCount + 1000);
        std::iota(ids.begin(), ids.end(), 0u);
        diff.track(viewOf(ids), &passes);
        std::vector<std::uint32_t> before = ids;
        diff.track(viewOf(ids), &passes);
        expectDiff(diff, before, ids);
        ids.back() = 1u << 30;  // a new entity in the last place
        diff.track(viewOf(ids), &passes);
        expectDiff(diff, before, ids);
        before = ids;
        std::swap(ids[10], ids[ids.size() - 10]);
        diff.track(viewOf(ids), &passes);
        expectDiff(diff, before, ids);
        before = ids;
        diff.track(viewOf(ids), &passes);
        expectDiff(diff, before, ids);
    }
}

TEST(EntityDiff, EditsBetweenStepsAreTheBaseOfTheNextCompare) {
    // The tree takes entities one at a time (append, swapRemove) and tracks the next step
    // against the state as edited.
    EntityDiff diff;
    std::vector<std::uint32_t> ids{10, 11, 12, 13};
    diff.track(viewOf(ids));
    diff.swapRemove(1);  // 13 moves to index 1
    diff.append(20);
    std::vector<std::uint32_t> edited{10, 13, 12, 20};
    diff.track(viewOf(edited));
    EXPECT_TRUE(diff.unchanged());
    std::vector<std::uint32_t> next{10, 13, 12, 21};
    diff.track(viewOf(next));
    expectDiff(diff, edited, next);
}

}  // namespace
}  // namespace ro

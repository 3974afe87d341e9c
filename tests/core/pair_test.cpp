#include <gtest/gtest.h>

#include <algorithm>

#include "core/pair_sort.h"
#include "ro/pair.h"
#include "ro/rng.h"

namespace ro {
namespace {

TEST(Pair, MakePairPutsTheSmallerIndexFirst) {
    EXPECT_EQ(makePair(7, 3), (Pair{3, 7}));
    EXPECT_EQ(makePair(3, 7), (Pair{3, 7}));
}

TEST(Pair, CanonicalSortEqualsStdSort) {
    Rng rng(5);
    std::vector<Pair> scratch;
    std::vector<std::uint32_t> offsets;
    for (int round = 0; round < 20; ++round) {
        const std::uint32_t n = 2 + rng.below(500);
        std::vector<Pair> pairs;
        const std::uint32_t k = rng.below(3000);
        for (std::uint32_t i = 0; i < k; ++i) {
            const std::uint32_t a = rng.below(n - 1);
            pairs.push_back({a, a + 1 + rng.below(n - 1 - a)});
        }
        std::vector<Pair> expected = pairs;
        std::sort(expected.begin(), expected.end());
        sortPairsCanonical(pairs, n, scratch, offsets);
        ASSERT_EQ(pairs, expected) << "round " << round;
    }
}

}  // namespace
}  // namespace ro

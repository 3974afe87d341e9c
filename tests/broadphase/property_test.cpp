// Randomized property test: for every technique, thousands of random sequences of inserts,
// removes, moves, queries and pair finding, each step compared with brute force and validated.
// Fixed seeds; a failure prints the seed and the shortest failing sequence.

#include <gtest/gtest.h>

#include "support/operations.h"
#include "support/scenes.h"

namespace ro {
namespace {

class Property : public ::testing::TestWithParam<std::string_view> {};

TEST_P(Property, RandomOperationSequencesMatchBruteForce) {
    constexpr std::uint64_t kSequences = 2000;
    constexpr std::size_t kLength = 30;
    for (std::uint64_t seed = 1; seed <= kSequences; ++seed) {
        const test::Sequence sequence = test::randomSequence(GetParam(), seed, kLength);
        if (const std::string failure = test::runSequence(sequence); !failure.empty()) {
            const test::Sequence shortest = test::shrink(sequence);
            FAIL() << "seed " << seed << ": " << failure << "\nshortest failing sequence ("
                   << test::runSequence(shortest) << "):\n" << test::describe(shortest);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllTechniques, Property, ::testing::ValuesIn(test::allTechniqueIds()),
                         [](const auto& info) { return std::string(info.param); });

// The harness itself must notice a wrong answer: a sequence whose reference is fed different
// boxes cannot be built from outside, so check the pieces it relies on instead.
TEST(PropertyHarness, ShrinkKeepsAFailureAndDropsTheRest) {
    test::Sequence sequence{"no-such-technique", {}, {}};
    for (int k = 0; k < 5; ++k) sequence.operations.push_back({test::Operation::Kind::FindPairs, 0, {}});
    EXPECT_FALSE(test::runSequence(sequence).empty());
    EXPECT_TRUE(test::shrink(sequence).operations.empty());
}

TEST(PropertyHarness, SameSeedSameSequence) {
    EXPECT_EQ(test::describe(test::randomSequence("grid", 9, 20)), test::describe(test::randomSequence("grid", 9, 20)));
    EXPECT_NE(test::describe(test::randomSequence("grid", 9, 20)), test::describe(test::randomSequence("grid", 10, 20)));
}

}  // namespace
}  // namespace ro

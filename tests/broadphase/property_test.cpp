// Randomized property test: for every technique, thousands of random sequences of inserts,
// removes, moves, queries and pair finding, each step compared with brute force and validated.
// Fixed seeds; a failure prints the seed and the shortest failing sequence.

#include <gtest/gtest.h>

#include "broadphase/grid/grid.h"
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

/// A planted bug: the grid, but it never reports entity 0, in pairs or in point and box
/// queries (a point query is a box query of no size). The harness must catch it and shrink the sequence.
class DropsAnswers final : public Technique<DropsAnswers> {
    friend class Technique<DropsAnswers>;

public:
    DropsAnswers() : Technique(SpatialGrid::kParameters) {}
    void applySettings(const Settings& s) override { m_grid.configure(s); }
    void doUpdate(const BoxView& b) override { m_grid.update(b); }
    void findPairs(std::vector<Pair>& out) override {
        m_grid.findPairs(out);
        std::erase_if(out, [](const Pair& p) { return p.a == 0; });
    }

protected:
    QueryCost doQueryBox(const Aabb& b, std::vector<std::uint32_t>& out) override { return drop(m_grid.queryBox(b, out), out); }
    QueryCost doQueryRay(const Segment& s, std::vector<RayHit>& out) override { return m_grid.queryRay(s, out); }
    QueryCost doRaycastFirst(const Segment& s, std::optional<RayHit>& hit) override { return m_grid.raycastFirst(s, hit); }

private:
    static QueryCost drop(QueryCost cost, std::vector<std::uint32_t>& out) {
        std::erase(out, 0u);
        return cost;
    }
    SpatialGrid m_grid;
};

TEST(PropertyHarness, CatchesAPlantedBugAndShrinksIt) {
    const test::TechniqueFactory planted = [] { return std::make_unique<DropsAnswers>(); };
    std::uint64_t caught = 0;
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
        test::Sequence sequence = test::randomSequence("planted", seed, 30);
        sequence.withRules = false;  // filters would hide many of entity 0's pairs
        if (test::runSequence(sequence, planted).empty()) continue;
        ++caught;
        const test::Sequence shortest = test::shrink(sequence, planted);
        EXPECT_FALSE(test::runSequence(shortest, planted).empty());
        // Greedy: no single operation can be dropped. Picks are modulo the count, so dropping an
        // insert can retarget a later move; the shrunk sequence is short, not always minimal.
        EXPECT_LE(shortest.operations.size(), 12u) << test::describe(shortest);
        EXPECT_LT(shortest.operations.size(), sequence.operations.size());
    }
    EXPECT_GE(caught, 10u) << "random sequences should often expose the dropped entity";
}

/// A planted bug of another kind: the grid, told nothing of statics and filters.
class IgnoresRules final : public Technique<IgnoresRules> {
    friend class Technique<IgnoresRules>;

public:
    IgnoresRules() : Technique(SpatialGrid::kParameters) {}
    void applySettings(const Settings& s) override { m_grid.configure(s); }
    void doUpdate(const BoxView& b) override {
        BoxView plain = b;
        plain.isStatic = nullptr;
        plain.category = plain.mask = nullptr;
        m_grid.update(plain);
    }
    void findPairs(std::vector<Pair>& out) override { m_grid.findPairs(out); }

protected:
    QueryCost doQueryBox(const Aabb& b, std::vector<std::uint32_t>& out) override { return m_grid.queryBox(b, out); }
    QueryCost doQueryRay(const Segment& s, std::vector<RayHit>& out) override { return m_grid.queryRay(s, out); }
    QueryCost doRaycastFirst(const Segment& s, std::optional<RayHit>& hit) override { return m_grid.raycastFirst(s, hit); }

private:
    SpatialGrid m_grid;
};

TEST(PropertyHarness, CatchesATechniqueThatIgnoresStaticsAndFilters) {
    const test::TechniqueFactory planted = [] { return std::make_unique<IgnoresRules>(); };
    std::uint64_t caught = 0, ruled = 0;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        const test::Sequence sequence = test::randomSequence("planted", seed, 30);
        if (!sequence.withRules) {
            EXPECT_EQ(test::runSequence(sequence, planted), "") << "without rules it is the grid";
            continue;
        }
        ++ruled;
        caught += test::runSequence(sequence, planted).empty() ? 0 : 1;
    }
    EXPECT_GE(ruled, 15u);
    EXPECT_GE(caught, ruled / 4) << "a pair the rule refuses should show often in sequences with rules";
}

TEST(PropertyHarness, SameSeedSameSequence) {
    EXPECT_EQ(test::describe(test::randomSequence("grid", 9, 20)), test::describe(test::randomSequence("grid", 9, 20)));
    EXPECT_NE(test::describe(test::randomSequence("grid", 9, 20)), test::describe(test::randomSequence("grid", 10, 20)));
}

}  // namespace
}  // namespace ro

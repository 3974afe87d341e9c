// countOverlappingPairs against the pairs counted one by one: random scenes, touching edges,
// boxes stacked at one point, and statics (two statics never pair).

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/overlap_count.h"
#include "ro/rng.h"
#include "support/scenes.h"

namespace ro {
namespace {

std::uint64_t countedOneByOne(const BoxView& boxes) {
    std::uint64_t pairs = 0;
    for (std::uint32_t a = 0; a < boxes.count; ++a)
        for (std::uint32_t b = a + 1; b < boxes.count; ++b) {
            if (boxes.isStatic && boxes.isStatic[a] && boxes.isStatic[b]) continue;
            if (overlaps(boxes.box(a), boxes.box(b))) ++pairs;
        }
    return pairs;
}

TEST(OverlapCount, EqualsThePairsCountedOneByOne) {
    Rng rng(7);
    for (int scene = 0; scene < 40; ++scene) {
        test::BoxSet boxes;
        // Coordinates on a coarse lattice, so many boxes share edges and corners exactly.
        const auto n = 1 + rng.below(300);
        for (std::uint32_t i = 0; i < n; ++i) {
            const auto x = static_cast<float>(rng.below(40));
            const auto y = static_cast<float>(rng.below(40));
            boxes.add({x, y, x + static_cast<float>(1 + rng.below(6)), y + static_cast<float>(rng.below(6))});
        }
        std::vector<std::uint8_t> isStatic(n);
        for (auto& s : isStatic) s = rng.below(3) == 0;
        BoxView view = boxes.view();
        EXPECT_EQ(countOverlappingPairs(view), countedOneByOne(view)) << "scene " << scene;
        view.isStatic = isStatic.data();
        EXPECT_EQ(countOverlappingPairs(view), countedOneByOne(view)) << "scene " << scene << " with statics";
    }
}

TEST(OverlapCount, CountsACrowdAtOnePointWithoutListingIt) {
    test::BoxSet boxes;
    for (int i = 0; i < 20'000; ++i) boxes.add(test::boxAt(5.0f, 5.0f, 1.0f));
    EXPECT_EQ(countOverlappingPairs(boxes.view()), 20'000ull * 19'999 / 2);
}

TEST(OverlapCount, BoxesThatTouchOverlap) {
    test::BoxSet boxes;
    boxes.add({0, 0, 1, 1});
    boxes.add({1, 1, 2, 2});  // corner to corner
    boxes.add({2, 0, 3, 1});  // touches the second's corner
    boxes.add({3.5f, 0, 4, 1});  // alone
    EXPECT_EQ(countOverlappingPairs(boxes.view()), 2u);
    EXPECT_EQ(countOverlappingPairs(test::BoxSet{}.view()), 0u);
}

}  // namespace
}  // namespace ro

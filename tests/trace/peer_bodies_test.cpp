// PeerBodies: the peers' bodies follow the frames' ids. A body keeps its slot while it lives,
// wherever its box moves in the arrays; a gone body's slot is freed before a new body takes
// one; a body whose static flag or filters changed is made again.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "bench/peer_bodies.h"

namespace ro::bench {
namespace {

struct Frame {
    std::vector<std::uint32_t> ids;
    std::vector<std::uint8_t> isStatic;
    std::vector<float> zeros;
    BoxView view() {
        zeros.assign(ids.size(), 0.0f);
        BoxView v{zeros.data(), zeros.data(), zeros.data(), zeros.data(), ids.data(),
                  static_cast<std::uint32_t>(ids.size())};
        if (!isStatic.empty()) v.isStatic = isStatic.data();
        return v;
    }
};

std::vector<std::uint32_t> sorted(std::span<const std::uint32_t> values) {
    std::vector<std::uint32_t> out(values.begin(), values.end());
    std::sort(out.begin(), out.end());
    return out;
}

TEST(PeerBodies, SlotsFollowIdsThroughChurn) {
    PeerBodies bodies;
    Frame first{{10, 20, 30, 40}, {}, {}};
    bodies.update(first.view());
    EXPECT_EQ(bodies.created().size(), 4u);
    EXPECT_TRUE(bodies.destroyed().empty());
    EXPECT_TRUE(bodies.slotsAreIndices());

    bodies.update(first.view());
    EXPECT_TRUE(bodies.sameBodies());
    EXPECT_TRUE(bodies.created().empty());

    // 20 is gone; 40 swap-removed into its place; 50 is new and takes 20's freed slot.
    const std::uint32_t slot20 = bodies.slotOf(1), slot40 = bodies.slotOf(3);
    Frame second{{10, 40, 30, 50}, {}, {}};
    bodies.update(second.view());
    EXPECT_FALSE(bodies.sameBodies());
    EXPECT_EQ(sorted(bodies.destroyed()), std::vector<std::uint32_t>{slot20});
    EXPECT_EQ(sorted(bodies.created()), std::vector<std::uint32_t>{3});
    EXPECT_EQ(bodies.slotOf(1), slot40);
    EXPECT_EQ(bodies.slotOf(3), slot20);
    EXPECT_FALSE(bodies.slotsAreIndices());
    for (std::uint32_t i = 0; i < 4; ++i) EXPECT_EQ(bodies.indexOf(bodies.slotOf(i)), i);
    EXPECT_EQ(bodies.slotCount(), 4u);

    // Fewer bodies: slots stay, the arrays by slot keep their size.
    Frame third{{30, 50}, {}, {}};
    bodies.update(third.view());
    EXPECT_EQ(bodies.destroyed().size(), 2u);
    EXPECT_TRUE(bodies.created().empty());
    EXPECT_EQ(bodies.indexOf(bodies.slotOf(0)), 0u);
    EXPECT_EQ(bodies.indexOf(bodies.slotOf(1)), 1u);
}

TEST(PeerBodies, ABodyThatBecomesStaticIsMadeAgain) {
    PeerBodies bodies;
    Frame moving{{1, 2}, {0, 0}, {}};
    bodies.update(moving.view());
    Frame resting{{1, 2}, {0, 1}, {}};
    bodies.update(resting.view());
    EXPECT_FALSE(bodies.sameBodies());
    EXPECT_EQ(bodies.destroyed().size(), 1u);
    ASSERT_EQ(bodies.created().size(), 1u);
    EXPECT_EQ(bodies.created()[0], 1u);
}

TEST(PeerBodies, EmptyFramesComeAndGo) {
    PeerBodies bodies;
    Frame none{{}, {}, {}};
    bodies.update(none.view());
    EXPECT_TRUE(bodies.created().empty());
    Frame some{{5, 6}, {}, {}};
    bodies.update(some.view());
    EXPECT_EQ(bodies.created().size(), 2u);
    bodies.update(none.view());
    EXPECT_EQ(bodies.destroyed().size(), 2u);
}

}  // namespace
}  // namespace ro::bench

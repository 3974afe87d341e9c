// IdSlots and IdMap: ids of any value to small stable slots, memory that follows the live ids.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "core/id_map.h"
#include "core/id_slots.h"
#include "ro/rng.h"

namespace ro {
namespace {

TEST(IdMap, MatchesAStdMapThroughRandomSetsAndErasesAndShrinksAfterAPeak) {
    IdMap map;
    std::map<std::uint32_t, std::uint32_t> mirror;
    Rng rng(5);
    for (int op = 0; op < 200'000; ++op) {
        // A narrow id range makes collisions and backward shifts common.
        const std::uint32_t id = op < 100'000 ? rng.below(4096) * 0x10001u : rng.below(64);
        if (rng.unit() < 0.55f) {
            map.set(id, static_cast<std::uint32_t>(op));
            mirror[id] = static_cast<std::uint32_t>(op);
        } else {
            EXPECT_EQ(map.erase(id), mirror.erase(id) == 1);
        }
        if (op % 997 == 0) {
            for (const auto& [k, v] : mirror) ASSERT_EQ(map.find(k), v);
        }
        ASSERT_EQ(map.size(), mirror.size());
        if (op == 100'000) {  // the peak is over: the next phase keeps at most 64 ids
            for (const auto& [k, v] : mirror) ASSERT_TRUE(map.erase(k));
            mirror.clear();
        }
    }
    EXPECT_EQ(map.find(123456789u), IdMap::kAbsent);
    EXPECT_LT(map.bytesHeld(), 4096u) << "at most 64 live ids after a peak of 4,096";
}

TEST(IdSlots, SlotsAreStableSmallAndReusedOnlyInALaterUpdate) {
    IdSlots slots;
    std::vector<std::uint32_t> ids{4'000'000'000u, 7, 100'000'000u};
    slots.update(ids.data(), 3);
    EXPECT_EQ(slots.newIdCount(), 3u);
    const std::vector<std::uint32_t> first(slots.slots(), slots.slots() + 3);
    EXPECT_EQ(std::set<std::uint32_t>(first.begin(), first.end()), (std::set<std::uint32_t>{0, 1, 2}));
    // Swap-remove id 7 and add id 9 in the same update: 9 must not take 7's slot yet.
    ids = {4'000'000'000u, 100'000'000u, 9};
    slots.update(ids.data(), 3);
    EXPECT_EQ(slots.newIdCount(), 1u) << "9 is new; 100,000,000 only moved";
    EXPECT_EQ(slots.slots()[0], first[0]);
    EXPECT_EQ(slots.slots()[1], first[2]);
    EXPECT_NE(slots.slots()[2], first[1]);
    EXPECT_EQ(slots.slotLimit(), 4u);
    // From the next update on, the freed slot is handed out again.
    ids.push_back(11);
    slots.update(ids.data(), 4);
    EXPECT_EQ(slots.slots()[3], first[1]);
    EXPECT_EQ(slots.slotLimit(), 4u);
    slots.update(ids.data(), 4);
    EXPECT_EQ(slots.newIdCount(), 0u) << "the same ids again";
}

TEST(IdSlots, ARepeatedIdIsRefusedWithTheMappingUnchanged) {
    IdSlots slots;
    std::vector<std::uint32_t> ids{1, 2, 3, 4};
    slots.update(ids.data(), 4);
    const std::vector<std::uint32_t> before(slots.slots(), slots.slots() + 4);
    for (const std::vector<std::uint32_t>& bad : {std::vector<std::uint32_t>{1, 2, 3, 1},   // changed index repeats a kept one
                                                  std::vector<std::uint32_t>{4, 2, 3, 4},   // kept index repeated by a changed one
                                                  std::vector<std::uint32_t>{9, 2, 9, 4},   // a new id twice
                                                  std::vector<std::uint32_t>{2, 1, 3, 4, 2}}) {  // moved ids and a repeat
        EXPECT_THROW(slots.update(bad.data(), static_cast<std::uint32_t>(bad.size())), std::invalid_argument);
        EXPECT_EQ(std::vector<std::uint32_t>(slots.slots(), slots.slots() + slots.count()), before);
    }
    ids = {4, 3, 2, 1};  // a permutation keeps every slot with its id
    slots.update(ids.data(), 4);
    EXPECT_EQ(slots.slots()[0], before[3]);
    EXPECT_EQ(slots.slots()[3], before[0]);
}

TEST(IdSlots, AdoptedSlotsAreTheOutersAsTheyAreAndAnUpdateAfterThemStartsAfresh) {
    // A technique inside another takes the outer's slots as its own: copied (the outer's array
    // changes at its next update, before this one's), with the outer's limit and new ids.
    IdSlots outer;
    const std::vector<std::uint32_t> ids{900, 12, 7000, 5};
    outer.update(ids.data(), 4);
    IdSlots inner;
    std::vector<std::uint32_t> some{outer.slots()[3], outer.slots()[0]};  // a subset, as the statics layer hands over
    std::copy_n(some.data(), 2, inner.adopt(2, outer.slotLimit(), outer.newIdCount()));
    some = {99, 99};
    ASSERT_EQ(inner.count(), 2u);
    EXPECT_EQ(inner.slots()[0], outer.slots()[3]);
    EXPECT_EQ(inner.slots()[1], outer.slots()[0]);
    EXPECT_EQ(inner.slotLimit(), outer.slotLimit());
    EXPECT_EQ(inner.newIdCount(), 4u);
    EXPECT_THROW(inner.insert(1), std::logic_error);
    EXPECT_THROW(inner.remove(0), std::logic_error);
    EXPECT_THROW((void)inner.slotOf(0), std::logic_error);
    EXPECT_FALSE(inner.sameIds(some.data(), 0, 2)) << "no ids of its own to compare with";
    // An update of its own maps ids from scratch: every id is new, slots from 0.
    inner.update(ids.data(), 4);
    EXPECT_EQ(inner.newIdCount(), 4u);
    EXPECT_EQ(inner.slotLimit(), 4u);
    EXPECT_EQ(std::set<std::uint32_t>(inner.slots(), inner.slots() + 4), (std::set<std::uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(inner.slotOf(7000), inner.slots()[2]);
    inner.update(ids.data(), 4);
    EXPECT_EQ(inner.newIdCount(), 0u);
}

TEST(IdSlots, AChurnOfMillionsOfIdsKeepsTheSlotsAndMemoryAtTheLiveCount) {
    IdSlots slots;
    Rng rng(8);
    std::vector<std::uint32_t> ids;
    std::uint32_t next = 0;
    for (int i = 0; i < 2000; ++i) ids.push_back(next++);
    std::uint64_t warm = 0;
    for (int step = 0; step < 10'000; ++step) {  // 2 M ids issued
        for (int k = 0; k < 200; ++k) {
            const std::uint32_t i = rng.below(static_cast<std::uint32_t>(ids.size()));
            ids[i] = ids.back();
            ids.pop_back();
        }
        for (int k = 0; k < 200; ++k) ids.push_back(next++);
        slots.update(ids.data(), static_cast<std::uint32_t>(ids.size()));
        if (step == 10) warm = slots.bytesHeld();
    }
    EXPECT_LE(slots.slotLimit(), 2200u + 200u);
    EXPECT_LE(slots.bytesHeld(), warm + warm / 2);
    std::set<std::uint32_t> distinct(slots.slots(), slots.slots() + slots.count());
    EXPECT_EQ(distinct.size(), ids.size());
}

}  // namespace
}  // namespace ro

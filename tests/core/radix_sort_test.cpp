#include <gtest/gtest.h>

#include <algorithm>

#include "core/radix_sort.h"
#include "ro/rng.h"

namespace ro {
namespace {

struct Item {
    std::uint32_t key;
    std::uint32_t order;  ///< position before sorting, to check stability
    friend bool operator==(const Item&, const Item&) = default;
};

TEST(RadixSort, EqualsAStableSortForEveryKeyWidth) {
    Rng rng(9);
    std::vector<Item> scratch;
    for (const std::uint32_t bits : {1u, 5u, 11u, 12u, 13u, 22u, 24u, 25u, 32u}) {
        for (const std::uint32_t n : {0u, 1u, 2u, 1000u, 50000u}) {
            std::vector<Item> items;
            for (std::uint32_t i = 0; i < n; ++i) {
                const std::uint32_t key = static_cast<std::uint32_t>(rng.next() >> (64 - bits));
                items.push_back({key % 7 == 0 ? 0u : key, i});  // many equal keys too, all below 2^bits
            }
            std::vector<Item> expected = items;
            std::stable_sort(expected.begin(), expected.end(), [](const Item& a, const Item& b) { return a.key < b.key; });
            radixSort(items, scratch, bits, [](const Item& it) { return it.key; });
            ASSERT_EQ(items, expected) << bits << " bits, " << n << " items";
        }
    }
}

TEST(RadixSort, AllEqualKeysKeepTheirOrder) {
    std::vector<Item> items{{5, 0}, {5, 1}, {5, 2}};
    std::vector<Item> scratch;
    radixSort(items, scratch, 32, [](const Item& it) { return it.key; });
    EXPECT_EQ(items, (std::vector<Item>{{5, 0}, {5, 1}, {5, 2}}));
}

}  // namespace
}  // namespace ro

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/insertion_sort.h"
#include "ro/rng.h"

namespace ro {
namespace {

struct Item {
    float key;
    int order;  ///< position before sorting, to check stability
    friend bool operator==(const Item&, const Item&) = default;
};

bool byKey(const Item& a, const Item& b) { return a.key < b.key; }

TEST(InsertionSort, EqualsAStableSortAndCountsTheInversions) {
    Rng rng(5);
    for (const int n : {0, 1, 2, 50, 1000}) {
        std::vector<Item> items;
        for (int i = 0; i < n; ++i) items.push_back({static_cast<float>(rng.below(20)), i});  // many equal keys
        std::uint64_t inversions = 0;
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j) inversions += byKey(items[j], items[i]);
        std::vector<Item> expected = items;
        std::stable_sort(expected.begin(), expected.end(), byKey);
        EXPECT_EQ(insertionSort(items.data(), items.size(), byKey), inversions) << n << " items";
        EXPECT_EQ(items, expected) << n << " items";
    }
}

TEST(InsertionSort, StopsPastItsBudgetWithTheSameItems) {
    std::vector<Item> items;
    for (int i = 0; i < 100; ++i) items.push_back({static_cast<float>(100 - i), i});  // reversed: 4,950 inversions
    const std::uint64_t shifts = insertionSort(items.data(), items.size(), byKey, 200);
    EXPECT_GT(shifts, 200u);
    EXPECT_LT(shifts, 4950u);
    EXPECT_FALSE(std::is_sorted(items.begin(), items.end(), byKey));
    std::vector<int> orders;
    for (const Item& item : items) orders.push_back(item.order);
    std::sort(orders.begin(), orders.end());
    for (int i = 0; i < 100; ++i) ASSERT_EQ(orders[static_cast<std::size_t>(i)], i);
}

}  // namespace
}  // namespace ro

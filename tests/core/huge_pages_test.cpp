#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "core/alloc_counter.h"
#include "core/huge_pages.h"
#include "core/buffers.h"

namespace ro {
namespace {

using HugeVector = std::vector<std::uint32_t, HugePageAllocator<std::uint32_t>>;
constexpr std::size_t kHugePage = HugePageAllocator<std::uint32_t>::kHugePage;

TEST(HugePages, LargeArraysAreWholeAlignedHugePagesAndKeepTheirValues) {
    // On Linux without AddressSanitizer (whose checks need its own allocator's memory) large
    // arrays are mappings of whole huge pages; elsewhere they are ordinary memory.
    const bool mapped = detail::kHugePagesMapped;
    HugeVector values(300'000);  // 1.2 MB: past a quarter of a huge page
    std::iota(values.begin(), values.end(), 7u);
    EXPECT_TRUE(!mapped || reinterpret_cast<std::uintptr_t>(values.data()) % kHugePage == 0);
    // What the kernel backs, not the 1.2 MB asked.
    EXPECT_EQ(bytesHeld(values), mapped ? kHugePage : 300'000 * sizeof(std::uint32_t));
    values.resize(1'000'000);  // grows onto 2 huge pages, the values moved along
    EXPECT_TRUE(!mapped || reinterpret_cast<std::uintptr_t>(values.data()) % kHugePage == 0);
    EXPECT_EQ(bytesHeld(values), mapped ? 2 * kHugePage : values.capacity() * sizeof(std::uint32_t));
    for (std::uint32_t i = 0; i < 300'000; ++i) ASSERT_EQ(values[i], i + 7u);
}

TEST(HugePages, SmallArraysTakeOrdinaryMemory) {
    HugeVector values(1000);
    EXPECT_EQ(bytesHeld(values), 1000 * sizeof(std::uint32_t));
    values.assign(1000, 3u);
    EXPECT_EQ(std::accumulate(values.begin(), values.end(), 0u), 3000u);
}

TEST(HugePages, AllocationsAreCounted) {
    // The bench and the allocation tests count heap allocations through operator new: an
    // array on huge pages must not slip past them.
    ASSERT_TRUE(heapAllocationCountingActive());
    const std::uint64_t before = heapAllocationCount();
    HugeVector values(500'000);
    EXPECT_EQ(heapAllocationCount(), before + 1);
}

}  // namespace
}  // namespace ro

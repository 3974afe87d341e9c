#pragma once
/// An allocator for large arrays that a step reads at random, such as the tree's grid of
/// statics: it asks the kernel to back them with 2 MB pages. A query then costs its cache
/// misses alone, not a TLB miss and a page walk as well for each 4 KB page it lands on (the
/// other techniques and the rest of a program's step evict the TLB's entries as they evict
/// the caches).
///
/// On Linux, an array of at least a quarter of a huge page is a mapping of its own, rounded up
/// to whole huge pages, aligned to them and marked with madvise(MADV_HUGEPAGE) before it is
/// first touched: where transparent huge pages are "madvise" or "always" the kernel backs it
/// with huge pages, where "never" nothing changes. (Memory from malloc may have been touched
/// before, and its small pages stay.) Smaller arrays, other systems, and builds with
/// AddressSanitizer (whose checks need its own allocator's memory) get std::allocator's.
/// Each mapping counts as a heap allocation (core/alloc_counter.h), as operator new's do.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RO_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define RO_ADDRESS_SANITIZER 1
#endif

namespace ro {

namespace detail {
#if defined(__linux__) && !defined(RO_ADDRESS_SANITIZER)
inline constexpr bool kHugePagesMapped = true;
#else
inline constexpr bool kHugePagesMapped = false;
#endif
/// A fresh mapping of `bytes` (a multiple of 2 MB) aligned to 2 MB, marked for huge pages;
/// throws std::bad_alloc if the system refuses. Only where kHugePagesMapped.
void* mapHugePages(std::size_t bytes);
void unmapHugePages(void* memory, std::size_t bytes) noexcept;
}  // namespace detail

template <typename T>
struct HugePageAllocator {
    using value_type = T;
    static constexpr std::size_t kHugePage = std::size_t{2} << 20;

    HugePageAllocator() = default;
    template <typename U>
    HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor): allocators convert

    [[nodiscard]] T* allocate(std::size_t n) {
        if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
        const std::size_t bytes = n * sizeof(T);
        if (!onHugePages(bytes)) return std::allocator<T>{}.allocate(n);
        return static_cast<T*>(detail::mapHugePages(roundedUp(bytes)));
    }
    void deallocate(T* memory, std::size_t n) noexcept {
        const std::size_t bytes = n * sizeof(T);
        if (!onHugePages(bytes)) return std::allocator<T>{}.deallocate(memory, n);
        detail::unmapHugePages(memory, roundedUp(bytes));
    }
    friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) noexcept { return true; }

    /// Whether an array of `bytes` goes on huge pages, and the bytes it then takes.
    static constexpr bool onHugePages(std::size_t bytes) { return detail::kHugePagesMapped && bytes >= kHugePage / 4; }
    static constexpr std::size_t roundedUp(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
};

/// Heap bytes a buffer on huge pages holds: whole huge pages (the kernel backs all of one).
template <typename T>
[[nodiscard]] std::uint64_t bytesHeld(const std::vector<T, HugePageAllocator<T>>& v) {
    const std::size_t bytes = v.capacity() * sizeof(T);
    return HugePageAllocator<T>::onHugePages(bytes) ? HugePageAllocator<T>::roundedUp(bytes) : bytes;
}

}  // namespace ro

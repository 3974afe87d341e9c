#include "core/huge_pages.h"

#include "core/alloc_counter.h"

#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ro::detail {

#if defined(__linux__) && !defined(RO_ADDRESS_SANITIZER)

namespace {
constexpr std::size_t kHugePage = HugePageAllocator<char>::kHugePage;
}

void* mapHugePages(std::size_t bytes) {
    // A huge page more than asked, then the ends trimmed, leaves a mapping aligned to 2 MB.
    void* mapped = mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(mapped);
    const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > start) munmap(mapped, aligned - start);
    if (const std::uintptr_t tail = start + bytes + kHugePage - (aligned + bytes); tail > 0)
        munmap(reinterpret_cast<void*>(aligned + bytes), tail);
    // A hint: refused (THP "never", an old kernel), the pages are simply small.
    static_cast<void>(madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE));
    if (heapAllocationCountingActive()) countHeapAllocation();
    return reinterpret_cast<void*>(aligned);
}

void unmapHugePages(void* memory, std::size_t bytes) noexcept { munmap(memory, bytes); }

#else

// Never called (onHugePages is false here); defined so that the allocator links everywhere.
void* mapHugePages(std::size_t) { throw std::bad_alloc(); }
void unmapHugePages(void*, std::size_t) noexcept {}

#endif

}  // namespace ro::detail

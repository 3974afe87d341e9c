#include "core/alloc_counter.h"

namespace ro {
namespace {
// Defined here and used only through the functions below: an `extern thread_local` read from
// other files goes through a wrapper that UBSan saw return null.
thread_local std::uint64_t t_heapAllocations = 0;
}  // namespace

namespace detail {
std::atomic<bool> g_allocHookLinked{false};
void countHeapAllocation() noexcept { ++t_heapAllocations; }
}  // namespace detail

std::uint64_t heapAllocationCount() noexcept { return t_heapAllocations; }

}  // namespace ro

#include "core/alloc_counter.h"

namespace ro::detail {
std::atomic<std::uint64_t> g_heapAllocations{0};
std::atomic<bool> g_allocHookLinked{false};
}  // namespace ro::detail

#include "core/alloc_counter.h"

namespace ro::detail {
thread_local std::uint64_t t_heapAllocations = 0;
std::atomic<bool> g_allocHookLinked{false};
}  // namespace ro::detail

#pragma once
/// Counting heap allocations, to prove steady-state steps allocate nothing.
/// The library itself never replaces operator new: a program opts in by linking the
/// `ro_alloc_hook` object library (the app, the bench and the tests do).

#include <atomic>
#include <cstdint>

namespace ro {

namespace detail {
extern std::atomic<std::uint64_t> g_heapAllocations;
extern std::atomic<bool> g_allocHookLinked;
}  // namespace detail

/// Heap allocations made so far by this program (0 forever if the hook is not linked).
[[nodiscard]] inline std::uint64_t heapAllocationCount() {
    return detail::g_heapAllocations.load(std::memory_order_relaxed);
}

/// True when the program links the counting operator new, so counts are meaningful.
[[nodiscard]] inline bool heapAllocationCountingActive() {
    return detail::g_allocHookLinked.load(std::memory_order_relaxed);
}

}  // namespace ro

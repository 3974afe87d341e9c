#pragma once
/// Counting heap allocations, to prove steady-state steps allocate nothing.
/// The library itself never replaces operator new: a program opts in by linking the
/// `ro_alloc_hook` object library (the app, the bench and the tests do).

#include <atomic>
#include <cstdint>

namespace ro {

namespace detail {
extern std::atomic<bool> g_allocHookLinked;
/// Counts one allocation of the calling thread (the hook calls it).
void countHeapAllocation() noexcept;
}  // namespace detail

/// Heap allocations made so far by the calling thread (0 forever if the hook is not linked).
/// Per thread: a step counts its own, not those of a worker running beside it (the app's sweeps).
[[nodiscard]] std::uint64_t heapAllocationCount() noexcept;

/// True when the program links the counting operator new, so counts are meaningful.
[[nodiscard]] inline bool heapAllocationCountingActive() {
    return detail::g_allocHookLinked.load(std::memory_order_relaxed);
}

}  // namespace ro

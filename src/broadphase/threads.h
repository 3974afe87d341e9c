#pragma once
// The parameter "threads", shared by the techniques that find pairs in parallel.

#include <atomic>
#include <cstdint>
#include <memory>

#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "ro/parameters.h"

namespace ro {

// The distribution's oneTBB is not built with the thread sanitizer, which so cannot see its
// joins: every write of a worker that the caller reads after a parallel_for is reported as
// a race. Under it the techniques take the serial path; the thread tests (Release and
// address sanitizer builds) hold the parallel one to it, pair for pair.
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kUnderThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kUnderThreadSanitizer = true;
#else
inline constexpr bool kUnderThreadSanitizer = false;
#endif
#else
inline constexpr bool kUnderThreadSanitizer = false;
#endif

/// Below this many boxes (or a pass's items) a pass stays on the caller's thread, in every
/// technique that takes "threads": a task's start and the parts' join would cost more than
/// they save (at 5,000-10,000 boxes two threads made the suite's large pyramid, spinner and
/// smash 13-25 % slower in the grid and the HSHG).
inline constexpr std::uint32_t kMinParallelCount = 16384;

/// A task arena of `threads` threads, for the passes over every box that are memory-bound and
/// cheap a box (checks, compares, marks): run() splits [0, count) into one equal part a
/// thread. An arena of its own rather than tbb::global_control: `threads` bounds this pass.
class PassArena {
public:
    explicit PassArena(int threads) : threads(threads), m_arena(threads) {}
    const int threads;

    /// pass(begin, end, part) over [0, count), in `threads` equal parts (part 0 first).
    template <typename Pass>
    void run(std::uint32_t count, Pass&& pass) {
        const auto parts = static_cast<std::size_t>(threads);
        const auto first = [&](std::size_t part) { return static_cast<std::uint32_t>(std::uint64_t{count} * part / parts); };
        m_arena.execute([&] {
            tbb::parallel_for(std::size_t{0}, parts, [&](std::size_t part) { pass(first(part), first(part + 1), part); });
        });
    }

private:
    tbb::task_arena m_arena;
};

/// pass(begin, end, part) over [0, count): in parts on `arena`'s threads from
/// kMinParallelCount items, else once on the caller's thread (part 0).
template <typename Pass>
void inParts(PassArena* arena, std::uint32_t count, Pass&& pass) {
    if (arena == nullptr || count < kMinParallelCount) {
        pass(std::uint32_t{0}, count, std::size_t{0});
        return;
    }
    arena->run(count, pass);
}

/// Whether holds(begin, end) is true of every part of [0, count), cut as inParts cuts them.
template <typename Holds>
[[nodiscard]] bool inEveryPart(PassArena* arena, std::uint32_t count, Holds&& holds) {
    std::atomic<bool> failed{false};
    inParts(arena, count, [&](std::uint32_t begin, std::uint32_t end, std::size_t) {
        if (!holds(begin, end)) failed.store(true, std::memory_order_relaxed);
    });
    return !failed.load(std::memory_order_relaxed);
}

/// Fits a technique's parallel state (a task arena and per-thread buffers) to the parameter
/// "threads": 0 means the hardware's count, and one thread keeps no state at all, so the
/// serial path stays the one that runs. `Parallel` is built from a thread count and keeps it.
template <class Parallel>
void fitParallel(std::unique_ptr<Parallel>& parallel, const Settings& settings) {
    const std::uint32_t threads = settings.integer(kThreadsParameter);
    int concurrency = threads == 0 ? tbb::info::default_concurrency() : static_cast<int>(threads);
    if (kUnderThreadSanitizer) concurrency = 1;
    if (concurrency <= 1)
        parallel.reset();
    else if (!parallel || parallel->threads != concurrency)
        parallel = std::make_unique<Parallel>(concurrency);
}

}  // namespace ro

#pragma once
// The parameter "threads", shared by the techniques that find pairs in parallel.

#include <cstdint>
#include <memory>

#include <oneapi/tbb/info.h>

#include "ro/parameters.h"

namespace ro {

/// Fits a technique's parallel state (a task arena and per-thread buffers) to the parameter
/// "threads": 0 means the hardware's count, and one thread keeps no state at all, so the
/// serial path stays the one that runs. `Parallel` is built from a thread count and keeps it.
template <class Parallel>
void fitParallel(std::unique_ptr<Parallel>& parallel, const Settings& settings) {
    const std::uint32_t threads = settings.integer(kThreadsParameter);
    const int concurrency = threads == 0 ? tbb::info::default_concurrency() : static_cast<int>(threads);
    if (concurrency <= 1)
        parallel.reset();
    else if (!parallel || parallel->threads != concurrency)
        parallel = std::make_unique<Parallel>(concurrency);
}

}  // namespace ro

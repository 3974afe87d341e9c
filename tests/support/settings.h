#pragma once
/// Settings as most suites configure them: a cell size and the region the boxes live in.

#include <cstdint>
#include <limits>
#include <string_view>

#include "ro/broadphase.h"

namespace ro::test {

[[nodiscard]] inline Settings withCell(float cell, const Aabb& bounds = Settings{}.bounds) {
    return Settings(bounds, {{kCellSizeParameter.key, cell}});
}

/// Settings with a cell size and a hash table size (0: automatic).
[[nodiscard]] inline Settings withCellAndTable(float cell, std::uint32_t buckets) {
    return Settings(Settings{}.bounds, {{kCellSizeParameter.key, cell}, {"hash_buckets", buckets}});
}

/// One of the technique's own counters (ExtraCounters) by key; NaN when it has none of that name.
[[nodiscard]] inline double extra(const Counters& counters, std::string_view key) {
    return counters.extra.find(key).value_or(std::numeric_limits<double>::quiet_NaN());
}

}  // namespace ro::test

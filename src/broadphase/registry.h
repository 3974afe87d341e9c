#pragma once
/// The explicit table of techniques that the panel, the tests and the bench enumerate.
/// (An explicit table, not self-registration: static initialisers in a static library
/// are silently dropped by the linker.)

#include <memory>
#include <span>
#include <string_view>

#include "broadphase/broadphase.h"

namespace ro {

/// One row of the registry.
struct TechniqueInfo {
    std::string_view id;     ///< command-line name, e.g. "grid"
    std::string_view label;  ///< what the panel shows
    std::string_view cost;   ///< complexity, e.g. "O(n + k)"
    std::string_view seed;   ///< which source article describes it
    std::unique_ptr<BroadPhase> (*create)();
};

/// Every technique, in panel order. The first row is the brute-force reference.
[[nodiscard]] std::span<const TechniqueInfo> techniques();

/// The row with this id, or nullptr.
[[nodiscard]] const TechniqueInfo* findTechnique(std::string_view id);

}  // namespace ro

#pragma once
/// The explicit table of techniques that the panel, the tests and the bench enumerate.
/// (An explicit table, not self-registration: static initialisers in a static library
/// are silently dropped by the linker.)

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "ro/broadphase.h"

namespace ro {

/// One row of the registry.
struct TechniqueInfo {
    std::string_view id;     ///< command-line name, e.g. "grid"
    std::string_view label;  ///< what the panel shows
    TechniqueGuide guide;    ///< how it works, its cost, what it suits, its source (the class's kGuide)
    std::span<const ParameterSpec> parameters;  ///< its parameters, declared in its folder (the class's kParameters)
    std::unique_ptr<BroadPhase> (*create)();
    /// The most entities it finishes a step with in reasonable time, or 0 for no limit. The app
    /// refuses more and the bench leaves it out above it: brute force's n^2 / 2 tests outgrow
    /// a frame long before millions.
    std::uint32_t maxEntities = 0;
};

/// Every technique, in panel order. The first row is the brute-force reference.
[[nodiscard]] std::span<const TechniqueInfo> techniques();

/// The row with this id, or nullptr.
[[nodiscard]] const TechniqueInfo* findTechnique(std::string_view id);
/// A new instance of the technique with this id (as findTechnique(id)->create()); throws
/// std::invalid_argument naming the ids there are if none has it, so a misspelt name in a
/// program is an error that says what to write, not a null pointer.
[[nodiscard]] std::unique_ptr<BroadPhase> createTechnique(std::string_view id);

}  // namespace ro

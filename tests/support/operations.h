#pragma once
// Random operation sequences on one technique, each step checked against brute force.
// Shared by the property test (fixed seeds, shrinking) and the libFuzzer target (fuzzer bytes),
// so neither depends on GoogleTest.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ro/broadphase.h"

namespace ro::test {

/// One operation. Coordinates lie on a lattice of half units, scaled and moved per sequence
/// (so float rounding happens, far from the origin too) and edges touch often; query
/// segments often start or end on cell corners. `pick` chooses an entity as pick % count,
/// so a sequence stays valid when the shrinker drops operations.
struct Operation {
    enum class Kind : std::uint8_t {
        Insert, Remove, Move, FindPairs, QueryPoint, QueryBox, QueryRay, RaycastFirst, Configure
    };
    Kind kind = Kind::FindPairs;
    std::uint32_t pick = 0;
    Aabb box;  ///< Insert and Move: the new box; QueryBox: the query; QueryPoint: (minX, minY);
               ///< QueryRay and RaycastFirst: from (minX, minY) to (maxX, maxY)
    Settings settings;  ///< Configure: the new settings
};

/// What a sequence runs with: technique, settings, operations.
struct Sequence {
    std::string_view technique;
    Settings settings;
    std::vector<Operation> operations;
    /// Each entity gets a static flag and a filter drawn from its id (a quarter static, four
    /// layers), and a move that follows a move or a query reaches the technique as a moved
    /// list (updateMoved), and before a quarter of the moves every box creeps a little (moved
    /// lists of every box): half the sequences.
    bool withRules = false;
};

/// Reads as `insert [1, 2.5, 4, 6]`, `query-ray (0, 0) -> (8, 3)`, ...
[[nodiscard]] std::string describe(const Operation& op);
[[nodiscard]] std::string describe(const Sequence& sequence);

/// A random sequence of `length` operations (fixed by the seed) for one technique.
[[nodiscard]] Sequence randomSequence(std::string_view technique, std::uint64_t seed, std::size_t length);

/// A sequence decoded from arbitrary bytes (the fuzzer's input); every byte string is valid.
[[nodiscard]] Sequence sequenceFromBytes(std::span<const std::uint8_t> bytes);

/// Runs the sequence. After every operation the technique is updated, validated, and its pairs
/// (and the operation's query, if any, before and after finding pairs) compared with brute
/// force on the same boxes; after a third of the moves the pairs are not asked for, so the
/// next update follows an update. Returns the first difference, with the operation's
/// position, or an empty string.
[[nodiscard]] std::string runSequence(const Sequence& sequence);

/// Makes the technique under test; by default the registry row named by the sequence.
using TechniqueFactory = std::function<std::unique_ptr<BroadPhase>()>;

/// runSequence on a technique from `create` (the harness's own tests plant wrong ones).
[[nodiscard]] std::string runSequence(const Sequence& sequence, const TechniqueFactory& create);

/// The shortest failing sequence found by dropping operations one at a time while it still fails.
[[nodiscard]] Sequence shrink(Sequence failing, const TechniqueFactory& create = {});

}  // namespace ro::test

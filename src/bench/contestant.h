#pragma once
/// What the bench times: one of ro's techniques, or a peer library's broad phase, behind one
/// small interface. Each frame a contestant takes in the moved boxes and produces every
/// overlapping pair (closed intervals) the boxes' rule accepts (no two statics, filters),
/// whatever it does inside.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "broadphase/pair_rule.h"
#include "ro/registry.h"

namespace ro::bench {

/// Figures of the last frame; a peer leaves unset what its library does not tell.
struct FrameFigures {
    std::uint64_t candidates = 0;           ///< pairs the broad phase proposed
    std::optional<std::uint64_t> tests;     ///< pair tests made to find them
    std::optional<std::uint64_t> bytes;     ///< heap memory held by the structure
};

/// The dense indices of the boxes that moved since the last frame, when the scene knows them
/// (a field of statics); nothing when any box may have moved, or ids came and went.
using MovedList = std::optional<std::span<const std::uint32_t>>;

class Contestant {
public:
    virtual ~Contestant() = default;
    /// Takes in this frame's boxes (the first call builds from scratch) and fills `overlaps`
    /// with every overlapping pair the rule accepts, each once, a < b, in any order. A
    /// contestant told what moved may touch only those, as its engine would.
    virtual void step(const BoxView& boxes, MovedList moved, std::vector<Pair>& overlaps) = 0;
    [[nodiscard]] virtual FrameFigures figures() const = 0;
};

/// Keeps the candidates whose boxes overlap and that the boxes' rule accepts: the exact test
/// every contestant ends with, unless its technique's pairs are exact already
/// (BroadPhase::pairsAreExact).
void keepOverlapping(const BoxView& boxes, const std::vector<Pair>& candidates, std::vector<Pair>& out);

/// One of ro's techniques from the registry, configured with `settings`.
[[nodiscard]] std::unique_ptr<Contestant> makeTechniqueContestant(const TechniqueInfo& technique,
                                                                  const Settings& settings);

}  // namespace ro::bench

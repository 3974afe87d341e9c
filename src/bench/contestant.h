#pragma once
/// What the bench times: one of ro's techniques, or a peer library's broad phase, behind one
/// small interface. Each frame a contestant takes in the moved boxes and produces every
/// overlapping pair (closed intervals), whatever it does inside.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broadphase/registry.h"

namespace ro::bench {

/// Figures of the last frame; a peer leaves unset what its library does not tell.
struct FrameFigures {
    std::uint64_t candidates = 0;           ///< pairs the broad phase proposed
    std::optional<std::uint64_t> tests;     ///< pair tests made to find them
    std::optional<std::uint64_t> bytes;     ///< heap memory held by the structure
};

class Contestant {
public:
    virtual ~Contestant() = default;
    /// Takes in this frame's boxes (the first call builds from scratch) and fills `overlaps`
    /// with every overlapping pair, each once, a < b, in any order.
    virtual void step(const BoxView& boxes, std::vector<Pair>& overlaps) = 0;
    [[nodiscard]] virtual FrameFigures figures() const = 0;
};

/// Keeps the candidates whose boxes overlap: the exact AABB test every contestant ends with,
/// unless its technique's pairs are exact already (BroadPhase::pairsAreExact).
void keepOverlapping(const BoxView& boxes, const std::vector<Pair>& candidates, std::vector<Pair>& out);

/// One of ro's techniques from the registry, configured with `settings`.
[[nodiscard]] std::unique_ptr<Contestant> makeTechniqueContestant(const TechniqueInfo& technique,
                                                                  const Settings& settings);

}  // namespace ro::bench

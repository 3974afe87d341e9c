#pragma once
/// The rule of which overlapping pairs a step reports, read where every technique emits a pair.

#include <cstdint>

#include "ro/broadphase.h"

namespace ro {

/// Which overlapping pairs a step reports: never two static entities (no engine wants them),
/// and, with filters, a pair only when each one's category is in the other's mask (Box2D's
/// b2Filter). Every technique applies it where it emits a pair, brute force included.
struct PairRule {
    const std::uint8_t* isStatic = nullptr;
    const std::uint32_t* category = nullptr;
    const std::uint32_t* mask = nullptr;

    PairRule() = default;
    explicit PairRule(const BoxView& boxes) : isStatic(boxes.isStatic), category(boxes.category), mask(boxes.mask) {}
    /// False when every pair passes: the emitting loops then skip the test altogether.
    [[nodiscard]] bool active() const { return isStatic != nullptr || category != nullptr; }
    [[nodiscard]] bool accepts(std::uint32_t a, std::uint32_t b) const {
        if (isStatic != nullptr && isStatic[a] != 0 && isStatic[b] != 0) return false;
        return category == nullptr || ((category[a] & mask[b]) != 0 && (category[b] & mask[a]) != 0);
    }
    [[nodiscard]] bool accepts(Pair p) const { return accepts(p.a, p.b); }
};

}  // namespace ro

#pragma once
// Hostile programs for the World and for a technique fed raw boxes: sizes tiny and huge,
// coordinates far from the origin, inverted and non-finite boxes, ids large and reused,
// settings out of range. Decoded from bytes, so the libFuzzer target and a seeded test share
// them. Each program checks as it runs: a bad value is refused with std::invalid_argument
// and changes nothing; whatever is accepted steps to finite positions, and every technique's
// overlaps equal brute force's on the same boxes.

#include <cstdint>
#include <span>
#include <string>

namespace ro::test {

/// Runs a World program (adds, removes, ticks, settings, technique switches) decoded from
/// `bytes`; returns the first broken promise, or an empty string.
[[nodiscard]] std::string runWorldProgram(std::span<const std::uint8_t> bytes);

/// Feeds a technique frames of raw boxes and ids decoded from `bytes`; returns the first
/// broken promise (a bad frame taken, a good one refused, pairs unlike brute force's), or "".
[[nodiscard]] std::string runRawFrames(std::span<const std::uint8_t> bytes);

}  // namespace ro::test

#pragma once
/// A small, fast, seedable random generator (SplitMix64): the same seed gives the same
/// numbers on every platform, which std::uniform_*_distribution does not promise.

#include <cstdint>

namespace ro {

class Rng {
public:
    explicit Rng(std::uint64_t seed) : m_state(seed) {}
    /// The whole state: Rng(state()) continues the same sequence (a saved scene does).
    [[nodiscard]] std::uint64_t state() const { return m_state; }

    /// The next 64 random bits.
    std::uint64_t next() {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, 1).
    float unit() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }
    /// Uniform in [lo, hi).
    float range(float lo, float hi) { return lo + (hi - lo) * unit(); }
    /// Uniform integer in [0, bound).
    std::uint32_t below(std::uint32_t bound) {
        return static_cast<std::uint32_t>((next() >> 32) * bound >> 32);
    }

private:
    std::uint64_t m_state;
};

}  // namespace ro

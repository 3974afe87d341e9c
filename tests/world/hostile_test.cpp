// The fuzzer's hostile programs (support/hostile.h), run from seeded random bytes so every
// CI run covers them even without the fuzzer.

#include <gtest/gtest.h>

#include <vector>

#include "ro/rng.h"
#include "support/hostile.h"

namespace ro {
namespace {

std::vector<std::uint8_t> randomBytes(std::uint64_t seed, std::size_t count) {
    Rng rng(seed);
    std::vector<std::uint8_t> bytes(count);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng.below(256));
    return bytes;
}

TEST(Hostile, WorldProgramsKeepEveryPromise) {
    for (std::uint64_t seed = 1; seed <= 1500; ++seed)
        ASSERT_EQ(test::runWorldProgram(randomBytes(seed, 1500)), "") << "seed " << seed;
}

TEST(Hostile, RawFramesAreRefusedOrAnsweredExactly) {
    for (std::uint64_t seed = 1; seed <= 2000; ++seed)
        ASSERT_EQ(test::runRawFrames(randomBytes(seed, 400)), "") << "seed " << seed;
}

}  // namespace
}  // namespace ro

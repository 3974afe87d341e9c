// libFuzzer target. The first byte picks the program the rest decodes to:
//  0: a technique and a sequence of inserts, removes, moves and queries on a lattice, every
//     step compared with brute force and validated, as in the property test;
//  1: a World program with hostile values (tiny, huge, far, non-finite sizes and positions,
//     settings out of range, technique switches), every tick checked (support/hostile.h);
//  2: raw frames of boxes and ids (inverted, non-finite, huge ids, repeated ids) fed to a
//     technique: bad frames refused, good ones equal to brute force.
// Any broken promise aborts with what broke.

#include <cstdio>
#include <cstdlib>

#include "support/hostile.h"
#include "support/operations.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::span<const std::uint8_t> rest{data + 1, size - 1};
    std::string failure;
    switch (data[0] % 3) {
    case 0: {
        const ro::test::Sequence sequence = ro::test::sequenceFromBytes(rest);
        failure = ro::test::runSequence(sequence);
        if (!failure.empty()) failure += "\n" + ro::test::describe(sequence);
        break;
    }
    case 1: failure = ro::test::runWorldProgram(rest); break;
    default: failure = ro::test::runRawFrames(rest); break;
    }
    if (!failure.empty()) {
        std::fprintf(stderr, "%s\n", failure.c_str());
        std::abort();
    }
    return 0;
}

// libFuzzer target: fuzzer bytes pick a technique, its settings and a sequence of inserts,
// removes, moves and queries; every step is compared with brute force and validated, as in
// the property test. Any difference aborts with the decoded sequence.

#include <cstdio>
#include <cstdlib>

#include "support/operations.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const ro::test::Sequence sequence = ro::test::sequenceFromBytes({data, size});
    if (const std::string failure = ro::test::runSequence(sequence); !failure.empty()) {
        std::fprintf(stderr, "%s\n%s", failure.c_str(), ro::test::describe(sequence).c_str());
        std::abort();
    }
    return 0;
}

#!/usr/bin/env bash
# Set-up command 2: install what is missing, build, and run every test: in a Release build,
# then in a build with AddressSanitizer and UndefinedBehaviorSanitizer, then the app's sweep
# worker under ThreadSanitizer, then the two libFuzzer targets (the broad phase; the scene
# and replay readers) for 30 s each (RO_FUZZ_SECONDS) under AddressSanitizer and
# UndefinedBehaviorSanitizer.
#
# The sanitizer suite runs every test but the Xvfb walks labelled "interaction" (they check
# how clicks and drags are handled while ticks are slow, which the Release suite does) and the
# runs labelled "large", which repeat smaller tests' code at many points or counts.
# Under the sanitizers each takes several times as long; app_e2e_xvfb and the headless app
# tests still take the window, the panel, the plots, scene files and replays through them.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

build_suite() {  # name, extra CMake flags...
  local dir="build/$1"
  shift
  echo "=== build $dir"
  # Tests and app are switched on explicitly: a cache left by another configure must not
  # quietly drop them, and ctest fails rather than pass on zero tests.
  cmake -S . -B "$dir" -G Ninja -DRO_BUILD_TESTS=ON -DRO_BUILD_APP=ON "$@"
  cmake --build "$dir" -j2
}
run_tests() {  # name, ctest flags...
  local dir="build/$1"
  shift
  echo "=== test $dir $*"
  ctest --test-dir "$dir" -j2 --output-on-failure --no-tests=error "$@"
}

build_suite release -DCMAKE_BUILD_TYPE=Release
run_tests release

# The sanitizer builds keep line tables only (-g1): a report names the file and line, and
# the builds take far less time than with full debug information.
debug_lines=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")
build_suite sanitize "${debug_lines[@]}" -DRO_SANITIZE=address,undefined
run_tests sanitize -LE "interaction|large"

# The app's only threads: the sweeps' oneTBB worker beside the window. The app alone is built.
echo "=== build build/tsan (ThreadSanitizer: the app's sweep worker)"
cmake -S . -B build/tsan -G Ninja "${debug_lines[@]}" -DRO_SANITIZE=thread \
  -DRO_BUILD_TESTS=ON -DRO_BUILD_APP=ON -DRO_BUILD_BENCH=OFF
cmake --build build/tsan -j2 --target ro_demo
run_tests tsan -R '^app_plots_headless$'

echo "=== build build/fuzz (clang, libFuzzer, address,undefined)"
CXX=clang++ cmake -S . -B build/fuzz -G Ninja "${debug_lines[@]}" -DRO_SANITIZE=address,undefined \
  -DRO_BUILD_FUZZ=ON -DRO_BUILD_TESTS=OFF -DRO_BUILD_APP=OFF -DRO_BUILD_BENCH=OFF
cmake --build build/fuzz -j2 --target ro_fuzz ro_json_fuzz
echo "=== fuzz ${RO_FUZZ_SECONDS:-30} s"
corpus="$(mktemp -d)"
json_corpus="$(mktemp -d)"
trap 'rm -rf "$corpus" "$json_corpus"' EXIT
build/fuzz/tests/fuzz/ro_fuzz -max_total_time="${RO_FUZZ_SECONDS:-30}" -timeout=10 -print_final_stats=1 "$corpus"
echo "=== JSON fuzz ${RO_FUZZ_SECONDS:-30} s (seeds: tests/fuzz/json_seeds)"
# New inputs go to the first directory; the committed seeds are only read.
build/fuzz/tests/fuzz/ro_json_fuzz -max_total_time="${RO_FUZZ_SECONDS:-30}" -timeout=10 -print_final_stats=1 \
  "$json_corpus" tests/fuzz/json_seeds
echo "=== all tests passed (Release, address,undefined sanitizers, thread sanitizer, and the fuzzers)"

#!/usr/bin/env bash
# Set-up command 2: install what is missing, build, and run every test twice: in a Release
# build, then in a build with AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

run_suite() {  # name, extra CMake flags...
  local dir="build/$1"
  shift
  echo "=== build $dir"
  # Tests and app are switched on explicitly: a cache left by another configure must not
  # quietly drop them, and ctest fails rather than pass on zero tests.
  cmake -S . -B "$dir" -G Ninja -DRO_BUILD_TESTS=ON -DRO_BUILD_APP=ON "$@"
  cmake --build "$dir" -j2
  echo "=== test $dir"
  ctest --test-dir "$dir" -j2 --output-on-failure --no-tests=error
}

run_suite release -DCMAKE_BUILD_TYPE=Release
run_suite sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRO_SANITIZE=address,undefined
echo "=== all tests passed (Release and address,undefined sanitizers)"

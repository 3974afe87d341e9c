#!/usr/bin/env bash
# The library as another project uses it: install the build's ro package into a temporary
# prefix, configure examples/ on its own against it (find_package(ro CONFIG REQUIRED)),
# build both examples with warnings as errors, and run them (each checks its own answers).
# A header missing from the install, a wrong include path, a header of ro's that takes a
# project's own header of the same name, or a broken package file fails here.
# usage: examples.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 source=$2 work=$3
fail() { echo "FAIL [package_examples]: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" || fail "cmake --install: $(cat "$work/install.log")"
[[ -f $work/prefix/include/ro/broadphase.h && -f $work/prefix/include/ro/registry.h && -f $work/prefix/include/ro/world.h ]] ||
    fail "the public headers are not installed under include/ro"
[[ -f $work/prefix/share/doc/ro/LICENSE ]] || fail "the LICENSE is not installed to share/doc/ro"
grep -q '^# SPDX-License-Identifier: MIT$' "$work"/prefix/lib*/cmake/ro/roConfig.cmake ||
    fail "roConfig.cmake has no SPDX licence line"
# Private headers stay private: no technique's own header is installed.
[[ -z $(find "$work/prefix" -name 'hshg.h' -o -name 'tree.h' -o -name 'grid.h') ]] || fail "a technique's private header was installed"
# A project with headers of its own named as ro's ("world.h", "core/id_slots.h", ...), first
# on its include path: ro's headers must never take them.
for header in $(cd "$work/prefix/include/ro" && ls) core/aabb.h core/id_slots.h world/world.h; do
    mkdir -p "$work/consumer/$(dirname "$header")"
    echo "#error \"the project's own $header was taken for ro's\"" >"$work/consumer/$header"
done
cmake -S "$source/examples" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_CXX_FLAGS="${CXXFLAGS:-} -I$work/consumer" \
    >"$work/configure.log" 2>&1 || fail "configuring the examples: $(cat "$work/configure.log")"
cmake --build "$work/build" >"$work/build.log" 2>&1 || fail "building the examples: $(cat "$work/build.log")"
"$work/build/example_technique" || fail "example_technique exited $?"
"$work/build/example_world" || fail "example_world exited $?"
echo "ok [package_examples]: installed, found with find_package(ro), both examples built (beside a project's own world.h, core/, ... headers) and ran"

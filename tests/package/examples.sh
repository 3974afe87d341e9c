#!/usr/bin/env bash
# The library as another project uses it: install the build's ro package into a temporary
# prefix, configure examples/ on its own against it (find_package(ro CONFIG REQUIRED)),
# build the examples with warnings as errors, and run them (each checks its own answers).
# A header missing from the install, a private one installed, a header that does not compile
# alone, a wrong include path, a header of ro's that takes a project's own header of the
# same name, or a broken package file fails here.
# usage: examples.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 source=$2 work=$3
fail() { echo "FAIL [package_examples]: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" || fail "cmake --install: $(cat "$work/install.log")"
[[ -f $work/prefix/include/ro/broadphase.h && -f $work/prefix/include/ro/registry.h && -f $work/prefix/include/ro/world.h &&
    -f $work/prefix/include/ro/version.h && -f $work/prefix/include/ro/trace.h ]] ||
    fail "the public headers are not installed under include/ro"
[[ -f $work/prefix/share/doc/ro/LICENSE ]] || fail "the LICENSE is not installed to share/doc/ro"
grep -q '^# SPDX-License-Identifier: MIT$' "$work"/prefix/lib*/cmake/ro/roConfig.cmake ||
    fail "roConfig.cmake has no SPDX licence line"
# The installed headers are the user's API only: no technique's header, none of the shared
# machinery, no bench scenario, and no technique hook or id slot named in them.
for private in hshg.h tree.h grid.h technique_base.h pair_rule.h id_slots.h id_map.h buffers.h box_helpers.h \
    swept_boxes.h scenario.h load_scene.h; do
    [[ -z $(find "$work/prefix" -name "$private") ]] || fail "the private header $private was installed"
done
if grep -nE '\bdo(Update|UpdateMoved|QueryBox|QueryRay|RaycastFirst)\b|idSlots|IdSlots|IdMap|resizeWithHeadroom|clampedCell|__builtin_' \
    "$work"/prefix/include/ro/*.h; then
    fail "an installed header names what only techniques need (above)"
fi
[[ -z $(find "$work/prefix/include/ro" -mindepth 1 -type d) ]] || fail "a header is installed under a subfolder of include/ro: one spelling each"
# Each installed header compiles alone: included first in a translation unit of its own.
for header in "$work"/prefix/include/ro/*.h; do
    name=$(basename "$header")
    printf '#include <ro/%s>\n' "$name" >"$work/alone_${name%.h}.cpp"
    "${CXX:-c++}" -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -I"$work/prefix/include" \
        "$work/alone_${name%.h}.cpp" 2>"$work/alone_${name%.h}.log" || fail "<ro/$name> does not compile alone: $(cat "$work/alone_${name%.h}.log")"
done
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
(cd "$work/build" && ./example_trace) || fail "example_trace exited $?"
echo "ok [package_examples]: installed (the public headers alone, each compiling on its own), found with find_package(ro), the examples built (beside a project's own world.h, core/, ... headers) and ran"

#!/usr/bin/env bash
# Set-up command 1: install what is missing, build Release, launch the app.
# Arguments are passed to the app, e.g. scripts/run.sh --technique hash --entities 20000
# It shares build/release with scripts/test.sh and builds only the app target.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build/release -j2 --target ro_demo
exec build/release/src/app/ro_demo "$@"

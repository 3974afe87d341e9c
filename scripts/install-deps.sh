#!/usr/bin/env bash
# Installs the Debian packages the project needs, and only those that are missing.
# Everything third-party comes from Debian's archive; nothing is downloaded from elsewhere.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config  # toolchain
  libsdl2-dev libimgui-dev libstb-dev           # the app's window, panel and PNG screenshots
  libfmt-dev libcli11-dev nlohmann-json3-dev    # formatted output, command-line flags, JSON
  libtbb-dev                                    # the app's sweeps run on a oneTBB worker
  libgtest-dev                                  # unit tests
  libbox2d-dev libbullet-dev libchipmunk-dev    # ro_bench's peers (it builds without them)
  gnuplot-nox                                   # ro_bench --plot
  python3 python3-jsonschema                    # scripts/perf-tables.sh, the docs checks, scene.schema.json
  clang libclang-rt-14-dev                      # the libFuzzer target
  xvfb xauth xdotool                            # end-to-end tests in a real X11 window
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "Installing missing Debian packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "error: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"

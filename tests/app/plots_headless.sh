#!/usr/bin/env bash
# The Plots window headless: --plots parameter=KEY sweeps that parameter to the end (the run
# lasts until every point is measured, whatever --frames says), and --plots-screenshot writes
# the window alone, smaller than the whole frame.
# usage: plots_headless.sh RO_DEMO OUT_DIR
set -euo pipefail

demo=$1 out=$2
fail() { echo "FAIL [plots headless]: $*" >&2; exit 1; }
mkdir -p "$out"
export SDL_VIDEODRIVER=offscreen SDL_RENDER_VSYNC=0
png="$out/plots_parameter.png"
rm -f "$png"

line=$("$demo" --technique grid --scenario uniform --entities 3000 --plots parameter=cell_size --frames 2 \
       --plots-screenshot "$png" | tail -n 1)
field() { tr ' ' '\n' <<<"$line" | sed -n "s/^$1=//p"; }
[[ $(field sweep_planned) == 12 ]] || fail "expected 12 planned points: $line"
[[ $(field sweep_points) == 12 && $(field sweep_running) == 0 ]] || fail "the run ended before the sweep: $line"
(( $(field frame) > 2 )) || fail "the sweep took no frame of its own: $line"
# The world paused for the sweep and resumed after it.
[[ $(field paused) == 0 ]] || fail "the world stayed paused after the sweep: $line"

[[ $(head -c 8 "$png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "$png is not a PNG"
width=$((16#$(od -An -tx1 -j16 -N4 "$png" | tr -d ' \n')))
height=$((16#$(od -An -tx1 -j20 -N4 "$png" | tr -d ' \n')))
(( width > 300 && width < 1280 && height > 200 && height < 800 )) ||
    fail "the Plots window's image is ${width}x${height}: not the window alone"
echo "parameter sweep: $(field sweep_points) points in $(field frame) frames; window image ${width}x${height}"

# Started paused, the world stays paused after the sweep: the sweep resumes only what it paused.
line=$("$demo" --paused --entities 2000 --plots parameter=cell_size --frames 2 | tail -n 1)
[[ $(field sweep_points) == 12 ]] || fail "the paused run's sweep did not end: $line"
[[ $(field paused) == 1 && $(field steps) == 0 ]] || fail "--paused did not hold through the sweep: $line"
echo "--paused holds through a sweep"

# The scaling sweep of the grid and the HSHG, to a small largest count: every planned
# point measured on the worker while the window goes on drawing. Under ThreadSanitizer
# (scripts/test.sh's thread build) this is the test of the worker and the window's hand-over.
line=$("$demo" --entities 2000 --compare grid,hshg --plots scaling --sweep-max 20000 --frames 2 | grep "steps=" | tail -n 1)
planned=$(field sweep_planned)
(( planned > 0 )) && [[ $(field sweep_points) == "$planned" && $(field sweep_running) == 0 ]] ||
    fail "the scaling sweep did not measure all of its points: $line"
echo "scaling sweep: $planned points"

# The same on the person's own scenes: a trace tiled to whole copies, and a loaded scene file's
# snapshot. The worker reads only its own copies (the trace file, the snapshot), which the
# thread build checks here. The trace: 6 frames of 60 boxes drifting right, as CSV.
trace="$out/plots_own.csv"
awk 'BEGIN { print "frame,id,min_x,min_y,max_x,max_y,static"
             for (f = 0; f < 6; ++f) for (i = 0; i < 60; ++i) {
                 x = (i % 10) * 3 + f * 0.5; y = int(i / 10) * 3
                 printf "%d,%d,%g,%g,%g,%g,0\n", f, i, x, y, x + 2.5, y + 2.5 } }' >"$trace"
line=$("$demo" --trace "$trace" --plots scaling --sweep-max 20000 --frames 2 | grep "steps=" | tail -n 1)
planned=$(field sweep_planned)
(( planned > 0 )) && [[ $(field sweep_points) == "$planned" && $(field sweep_running) == 0 ]] ||
    fail "the scaling sweep of a trace did not measure all of its points: $line"
echo "scaling sweep of a trace: $planned points"
scene="$(dirname "$0")/../../examples/minimal_scene.json"
line=$("$demo" --load "$scene" --plots scaling --sweep-max 5000 --frames 2 | grep "steps=" | tail -n 1)
planned=$(field sweep_planned)
(( planned > 0 )) && [[ $(field sweep_points) == "$planned" && $(field sweep_running) == 0 ]] ||
    fail "the scaling sweep of a loaded scene did not measure all of its points: $line"
echo "scaling sweep of a loaded scene: $planned points"

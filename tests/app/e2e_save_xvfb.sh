#!/usr/bin/env bash
# End to end under Xvfb: the panel's Save never replaces a file it did not write without asking.
#   - Save over someone's ro_scene.json opens "Replace the file?"; Cancel leaves the file as it was;
#   - Save, then Replace, writes the scene;
#   - Save again to the file this run wrote asks nothing.
# usage: e2e_save_xvfb.sh RO_DEMO WORK_DIR
set -euo pipefail

demo=$1 work=$2 name=e2e_save_xvfb
source "$(dirname "$(readlink -f "$0")")/e2e_common.sh"

click() { xdotool mousemove --window "$wid" "$1" "$2" click "$3"; settle; }
cd "$work"  # the panel's Save writes ro_scene.json in the working directory
echo '{"entities": [{"x": 100, "y": 100, "w": 20, "h": 20}]}' >ro_scene.json
cp ro_scene.json theirs.json

unset SDL_VIDEODRIVER
export SDL_RENDER_VSYNC=0
start_app --entities 300 --seed 5 --report-every 5
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 10

# The random mix's panel for the grid (1280x800): "Scene file, record, replay" at y=356; open,
# its Save button at (224, 376). The question is centred: Replace at (541, 427), Cancel (602, 427).
click 110 356 1
click 224 376 1
cmp -s ro_scene.json theirs.json || fail "Save replaced a file it did not write without asking"
click 602 427 1
cmp -s ro_scene.json theirs.json || fail "Cancel: the file was replaced"
echo "Save over another file asks; Cancel keeps it"

click 224 376 1
click 541 427 1
grep -q '"format": "ro-broadphase-lab scene"' ro_scene.json || fail "Replace did not write the scene"
grep -q '"count": 300' ro_scene.json || fail "Replace wrote another scene: $(head -c 300 ro_scene.json)"
echo "Replace writes the scene"

echo 'a marker' >ro_scene.json  # the file this run wrote: saving there again asks nothing
click 224 376 1
grep -q '"format": "ro-broadphase-lab scene"' ro_scene.json || fail "a second Save to the same file did not write it"
echo "a second Save to the file this run wrote: no question"
quit_with_q

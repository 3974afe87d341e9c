#!/usr/bin/env bash
# End to end under Xvfb: presets, compare and record/replay as a person uses them.
#   - the session is recorded (--record): clicks in the world, a right click, Tab;
#   - ticking two compare checkboxes gives two compare rows (compared=2 in the counters line);
#   - a click on the "orbit" preset button changes the scene (scene=orbit, same count);
#   - Q writes the recording; replayed headless under two other techniques, it ends in the
#     recorded state (matched=1).
# usage: e2e_scenes_xvfb.sh RO_DEMO WORK_DIR
set -euo pipefail

demo=$1 work=$2 name=e2e_scenes_xvfb
source "$(dirname "$(readlink -f "$0")")/e2e_common.sh"

click() { xdotool mousemove --window "$wid" "$1" "$2" click "$3"; settle; }
recording="$work/e2e_session.json"
rm -f "$recording"

unset SDL_VIDEODRIVER
export SDL_RENDER_VSYNC=0
start_app --entities 300 --seed 5 --report-every 5 --record "$recording"
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 10

# --- compare: two checkboxes, two rows --------------------------------------------------------------
# The random mix's panel for the grid (1280x800): the Compare checkboxes' row
# "brute grid hash hshg" is at y=652, "sap sweep tree quadtree" at y=675 (recording holds
# "Scene file, record, replay" open).
click 83 652 1
[[ $(value compared) == 1 ]] || fail "the grid compare checkbox: compared=$(value compared), expected 1"
click 17 675 1
[[ $(value compared) == 2 ]] || fail "two compare checkboxes: compared=$(value compared), expected 2"
echo "compare: $(value compared) rows"

# --- inputs that change the world, recorded with their ticks ---------------------------------------
count=$(value entities)
# In the world, between the panel and the right column.
click 600 420 1
click 800 470 1
[[ $(value entities) == $((count + 2)) ]] || fail "two clicks: entities=$(value entities), expected $((count + 2))"
xdotool mousemove --window "$wid" 560 520 key Escape
settle
click 560 520 1
click 560 520 3
[[ $(value entities) == $((count + 2)) ]] || fail "a click and a right click there: entities=$(value entities)"
xdotool key Escape
settle
echo "recorded: clicks, a right click; $(value entities) entities"

# --- a preset button changes the scene, and the world keeps stepping under compare ------------------
entities=$(value entities)
click 28 319 1
[[ $(value scene) == orbit ]] || fail "the orbit button: scene=$(value scene)"
[[ $(value entities) == "$entities" ]] || fail "the preset changed the count: $(value entities), expected $entities"
steps=$(value steps)
settle
(( $(value steps) > steps )) || fail "the world stopped stepping after the preset: $(latest)"
[[ $(value compared) == 2 ]] || fail "the preset dropped the compare rows: $(latest)"
xdotool key Tab
settle
[[ $(value technique) == hash ]] || fail "Tab did not switch to the next technique: $(latest)"
echo "preset: scene=$(value scene), $(value entities) entities, compared=$(value compared), technique $(value technique)"

quit_with_q
[[ -s $recording ]] || fail "Q did not write the recording $recording"

# --- the recording replays to the same state under other techniques --------------------------------
for technique in sap quadtree; do
    line=$(SDL_VIDEODRIVER=offscreen "$demo" --replay "$recording" --technique "$technique" --frames 100000 \
           --report-every 100000 | grep '^replay=') || fail "replay under $technique failed"
    [[ $line == *" finished=1 matched=1"* ]] || fail "replay under $technique: $line"
    echo "$line"
done
# Cut short by --frames, nothing is compared: it must not read as a mismatch.
line=$(SDL_VIDEODRIVER=offscreen "$demo" --replay "$recording" --frames 5 --report-every 100000 | grep '^replay=') ||
    fail "a replay cut short failed"
[[ $line == *" finished=0 matched=-" ]] || fail "a replay cut short: $line"

# --- Stop in the panel writes the recording to the file --record named ------------------------------
# (it wrote the panel's default, ro_replay.json, and the named file never came)
stopped="$work/e2e_stopped.json"
rm -f "$stopped"
start_app --entities 300 --seed 5 --report-every 5 --record "$stopped"
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 10
click 700 500 1
# Recording holds "Scene file, record, replay" open: Stop is at (224, 399).
click 224 399 1
[[ -s $stopped ]] || fail "Stop did not write the recording to --record's $stopped"
grep -q '"inputs"' "$stopped" || fail "$stopped holds no inputs"
quit_with_q
echo "Stop wrote $stopped ($(stat -c %s "$stopped") bytes)"
echo "ok [$name]"

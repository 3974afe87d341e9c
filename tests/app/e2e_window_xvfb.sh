#!/usr/bin/env bash
# End to end under Xvfb: the window keeps its promise when a tick is slow, and the camera and
# the HUD do what they say.
#   - brute force at 15,000 entities (112 million pair tests a tick): a quick Ctrl+click on the
#     Entities slider still opens its text field, a slider drag still changes the entity
#     count, and a click on the technique combo and a pick still switch technique;
#   - Tab cycles through every technique twice in a row;
#   - the wheel zooms around the cursor (the world point under it stays under it), a middle
#     drag pans by the drag, F fits the world again;
#   - while paused, a count typed into the slider's text field updates the HUD's candidates and
#     overlaps at once (the steps do not move), to the overlaps brute force finds on the new
#     population.
# usage: e2e_window_xvfb.sh RO_DEMO WORK_DIR
set -euo pipefail

demo=$1 work=$2 name=e2e_window
source "$(dirname "$(readlink -f "$0")")/e2e_common.sh"

mapfile -t ids < <("$demo" --list-techniques)
(( ${#ids[@]} >= 3 )) || fail "expected at least 3 techniques, got ${#ids[@]}"

unset SDL_VIDEODRIVER
export SDL_RENDER_VSYNC=0
start_app --technique brute --entities 15000 --seed 2 --report-every 1
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 3
[[ $(value video_driver) == x11 ]] || fail "video_driver=$(value video_driver), expected x11"

# --- a slow tick: brute force tests every pair of 15,000 ---------------------------------------------
wait_until tests "v == 15000 * 14999 / 2" "brute force at 15,000 should test every pair"
echo "slow tick: ms_pairs=$(value ms_pairs) fps=$(value fps) sim_rate=$(value sim_rate)"

# The Entities slider (panel at 0,0; x from 8 to 177, logarithmic; at y=202 whatever the
# technique: its parameters sit in a block of fixed height). A quick Ctrl+click on it, then a count typed:
# ImGui 1.86 read Ctrl from SDL's state after every queued event, so in a slow frame the chord
# reached it as a plain click, which set the count where the click was.
xdotool mousemove --window "$wid" 90 202 keydown ctrl click 1 keyup ctrl key ctrl+a type 14000
xdotool key Return
wait_until entities "v == 14000" "a quick Ctrl+click and 14000 typed at a slow tick did not set the count"
echo "quick Ctrl+click at a slow tick: entities 15000 -> 14000, typed"
# One drag leftwards inside one xdotool call, as a person drags while the app is slow.
xdotool mousemove --window "$wid" 140 202 mousedown 1 mousemove --window "$wid" 110 202 \
    mousemove --window "$wid" 85 202 mouseup 1
wait_until entities "v < 14000" "the slider drag did not change the count"
dragged=$(value entities)
echo "slider drag at a slow tick: entities 14000 -> $dragged"

# The technique combo (y=61) and its second row, Spatial grid (y=103), in one call.
xdotool mousemove --window "$wid" 120 61 click 1 sleep 0.05 mousemove --window "$wid" 60 103 click 1
wait_until technique "v == \"grid\"" "the combo pick at a slow tick did not switch to grid"
echo "combo pick at a slow tick: technique=grid"

# --- Tab cycles through every technique, twice ------------------------------------------------------
xdotool mousemove --window "$wid" 700 600
n=${#ids[@]}
current=$(value technique)
for (( k = 1; k <= 2 * n; ++k )); do
    xdotool key Tab
    # The next id in registry order after the current one.
    for (( i = 0; i < n; ++i )); do [[ ${ids[$i]} == "$current" ]] && break; done
    want=${ids[$(( (i + 1) % n ))]}
    wait_until technique "v == \"$want\"" "Tab press $k from $current"
    current=$want
done
echo "Tab: $((2 * n)) presses cycled through all $n techniques twice"

# --- the camera ------------------------------------------------------------------------------------
# World point under the cursor (px, py): ((px - view_x) / view_scale, (py - view_y) / view_scale).
world_at() { awk -v px="$1" -v py="$2" -v s="$(value view_scale)" -v ox="$(value view_x)" -v oy="$(value view_y)" \
    'BEGIN { printf "%.4f %.4f", (px - ox) / s, (py - oy) / s }'; }
xdotool mousemove --window "$wid" 800 500
settle
read -r wx wy <<<"$(world_at 800 500)"
scale=$(value view_scale)
xdotool click 4
wait_until zoom "v > 1.2" "the wheel did not zoom in"
settle
read -r zx zy <<<"$(world_at 800 500)"
awk -v a="$wx" -v b="$zx" -v c="$wy" -v d="$zy" -v s="$(value view_scale)" \
    'BEGIN { exit !((a - b) ^ 2 + (c - d) ^ 2 < (0.5 / s) ^ 2) }' ||
    fail "the world point under the cursor moved: ($wx, $wy) -> ($zx, $zy)"
echo "wheel: zoom $(value zoom), scale $scale -> $(value view_scale), point under the cursor stays ($wx, $wy)"
# Three notches in one call (several reach the app within one frame): the point still stays.
zoom=$(value zoom)
xdotool click --repeat 3 --delay 0 4
wait_until zoom "v > $zoom * 1.9" "three more wheel notches did not zoom in"
settle
read -r zx zy <<<"$(world_at 800 500)"
awk -v a="$wx" -v b="$zx" -v c="$wy" -v d="$zy" -v s="$(value view_scale)" \
    'BEGIN { exit !((a - b) ^ 2 + (c - d) ^ 2 < (0.5 / s) ^ 2) }' ||
    fail "after three notches at once the world point under the cursor moved: ($wx, $wy) -> ($zx, $zy)"
echo "three notches at once: zoom $(value zoom), the point under the cursor stays"

x0=$(value view_x) y0=$(value view_y)
xdotool mousedown 2 mousemove --window "$wid" 900 450 mouseup 2
settle
awk -v a="$x0" -v b="$(value view_x)" -v c="$y0" -v d="$(value view_y)" \
    'BEGIN { exit !(b - a > 99 && b - a < 101 && c - d > 49 && c - d < 51) }' ||
    fail "a middle drag of (+100, -50) px moved the view from ($x0, $y0) to ($(value view_x), $(value view_y))"
echo "middle drag: view ($x0, $y0) -> ($(value view_x), $(value view_y))"
xdotool key f
wait_until zoom "v == 1" "F did not fit the world"
echo "F: zoom back to $(value zoom)"

# --- paused: a count change shows the new population's pairs at once ---------------------------------
xdotool key Escape
wait_until paused "v == 1" "Esc did not pause"
steps=$(value steps)
before=$(value overlaps)
# Ctrl+click turns the slider into a text field: type the count and Return, in one call.
xdotool mousemove --window "$wid" 90 202 keydown ctrl click 1 keyup ctrl key ctrl+a type 4000
xdotool key Return
wait_until entities "v == 4000" "typing 4000 into the Entities field while paused did not set the count"
settle
count=$(value entities) candidates=$(value candidates) overlaps=$(value overlaps) technique=$(value technique)
[[ $(value steps) == "$steps" ]] || fail "steps moved while paused: $steps -> $(value steps)"
[[ $overlaps != "$before" ]] || fail "overlaps stayed at $before after the count went to $count"
# Brute force on the same (paused) population: the HUD's overlaps must be the reference's.
# (Tab from the current technique to brute force, counting the presses.)
for (( i = 0; i < n; ++i )); do [[ ${ids[$i]} == "$technique" ]] && break; done
for (( k = i; k % n != 0; ++k )); do xdotool key Tab; sleep 0.1; done
wait_until technique "v == \"brute\"" "could not Tab to brute force"
settle
[[ $(value overlaps) == "$overlaps" ]] ||
    fail "paused at $count entities: $technique shows overlaps=$overlaps, brute force $(value overlaps)"
echo "paused count change: $count entities, $technique candidates=$candidates overlaps=$overlaps = brute force's"

quit_with_q
echo "ok [e2e_window]"

#!/usr/bin/env bash
# End to end under Xvfb: a preset slider that makes a new scene on release. Dragging the
# static preset's Moving slider from 1% to the right gives more movers (the counters line's
# static= drops) once the mouse is released. It once applied the value it had before the
# drag (the lab's own, read every frame), so a drag changed nothing; the Layers slider
# shares the code. Then the preset buttons stay under the pointer: a second click on
# "uniform" picked from the random mix keeps uniform (the random mix's sizes row went, the
# buttons moved up a row, and the second click picked bullets). And a click in onecell's
# square keeps the person's zoom.
# usage: e2e_sliders_xvfb.sh RO_DEMO WORK_DIR
set -euo pipefail

demo=$1 work=$2 name=e2e_sliders_xvfb
source "$(dirname "$(readlink -f "$0")")/e2e_common.sh"

drag() {  # x0 y x1: press at (x0, y), move in steps to (x1, y), release
    xdotool mousemove --window "$wid" "$1" "$2" mousedown 1
    for x in $(seq "$1" $(( ($3 - $1) / 4 )) "$3"); do xdotool mousemove --window "$wid" "$x" "$2"; sleep 0.05; done
    xdotool mouseup 1
    settle
}

unset SDL_VIDEODRIVER
export SDL_RENDER_VSYNC=0
# The static preset under the tree (1280x800): the Moving slider's grab at 1% is at x=67,
# y=397 (whatever the technique: its parameters sit in a block of fixed height).
start_app --scenario static --technique tree --entities 2000 --report-every 5
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 10
before=$(value static)
[[ $before == 1980 ]] || fail "the static preset at 1%: static=$before, expected 1980"
drag 67 397 130
after=$(value static)
(( after < before )) || fail "dragging Moving to the right: static=$after, expected fewer than $before"
echo "moving: static $before -> $after"
quit_with_q

# The random mix's panel for the grid: the first row of preset buttons at y=296, uniform at x=88.
start_app --technique grid --entities 500 --report-every 5
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 10
xdotool mousemove --window "$wid" 88 296 click 1
settle
[[ $(value scene) == uniform ]] || fail "the uniform button: scene=$(value scene)"
xdotool click 1
settle
[[ $(value scene) == uniform ]] || fail "a second click where uniform was: scene=$(value scene)"
echo "preset buttons: two clicks on uniform, scene=$(value scene)"
quit_with_q

# onecell opens zoomed out (its boxes would cover the window hundreds of times over); the
# person zooms in with the wheel, and a click that adds a box keeps that zoom (a changed
# count once zoomed out again at every click).
start_app --scenario onecell --entities 300 --report-every 5
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 10
opened=$(value zoom)
awk -v z="$opened" 'BEGIN { exit !(z < 1) }' || fail "onecell at 300 opened at zoom $opened, expected under 1"
# The middle of the world's rectangle: the square's middle, and it stays under the cursor.
read -r wx wy ww wh <<<"$(world_rect)"
xdotool mousemove --window "$wid" $((wx + ww / 2)) $((wy + wh / 2)) click 4 click 4 click 4
settle
zoomed=$(value zoom)
awk -v a="$opened" -v b="$zoomed" 'BEGIN { exit !(b > a) }' || fail "the wheel did not zoom in: $opened -> $zoomed"
xdotool click 1
settle
[[ $(value entities) == 301 ]] || fail "a click in the square: entities=$(value entities), expected 301"
[[ $(value zoom) == "$zoomed" ]] || fail "a click undid the zoom: $zoomed -> $(value zoom)"
echo "onecell: opened at zoom $opened, wheel to $zoomed, kept after a click ($(value entities) entities)"
# A count typed into the Entities field (y=202) makes the scene anew in a world
# sized for it, its square in the middle: the zoomed view follows it (it stayed where the old
# square was, and every box was off screen).
# A Tab right behind the Return is the app's (next technique): ImGui still read the field as
# open for a frame, and the Tab was lost.
xdotool mousemove --window "$wid" 90 202 keydown ctrl click 1 keyup ctrl key ctrl+a type 2000
xdotool key Return Tab
wait_until entities "v == 2000" "typing 2000 into onecell's Entities field did not set the count"
settle
[[ $(value off_screen) == 0 ]] || fail "onecell at 2000 after a zoom: $(value off_screen) entities off screen"
[[ $(value technique) == hash ]] || fail "Tab right after Return: technique=$(value technique), expected hash"
echo "onecell: 2000 typed after the zoom, zoom $(value zoom), none off screen; Tab behind Return: $(value technique)"
quit_with_q
echo "ok [$name]"

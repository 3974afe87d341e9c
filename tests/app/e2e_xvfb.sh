#!/usr/bin/env bash
# End to end in a real X11 window under Xvfb, driven by xdotool as a person would:
#   - the app runs on the x11 video driver (not a silent offscreen fallback);
#   - a left click in the world adds exactly one entity, a click on the panel or HUD none;
#   - Esc pauses (steps stop), Esc resumes; while paused a right click removes the entity
#     that a left click just added at the same spot;
#   - Q quits with exit code 0.
# The app prints its counters line every 5 frames (--report-every); every check polls that
# output with a deadline instead of sleeping for a fixed time.
# usage: e2e_xvfb.sh RO_DEMO WORK_DIR
set -euo pipefail

demo=$1 work=$2 name=e2e_xvfb
source "$(dirname "$(readlink -f "$0")")/e2e_common.sh"

# Left or right click at window coordinates ($1 $2), button $3.
click() { xdotool mousemove --window "$wid" "$1" "$2" click "$3"; settle; }

expect_entities() {
    local got
    got=$(value entities)
    [[ $got == "$1" ]] || fail "$2: entities=$got, expected $1"
}

# --- start -----------------------------------------------------------------------------------
unset SDL_VIDEODRIVER
export SDL_RENDER_VSYNC=0
start_app --entities 50 --seed 3 --report-every 5

wid=$(find_window) ||
    fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 10
driver=$(value video_driver)
[[ $driver == x11 ]] || fail "video_driver=$driver, expected x11 (a real window)"
echo "window $wid, driver $driver: $(latest)"

# --- clicks in the world add exactly one entity each ------------------------------------------
# Window 1280x800: the panel is the column x < 364, the HUD and the legend the column x >= 980;
# the world (1600 x 1000) is fitted between them, y from about 208 to 592.
check_apart "at start"
count=$(value entities)
for point in "640 400" "820 480" "960 520" "400 260"; do
    click $point 1
    count=$((count + 1))
    expect_entities "$count" "left click at ($point)"
done
echo "4 world clicks: entities=$count"

# --- clicks on the panel and the HUD add nothing -------------------------------------------------
click 200 9 1
expect_entities "$count" "click on the panel's title bar"
click 1180 150 1
expect_entities "$count" "click on the HUD"
# A press on an empty part of the panel that moves into the world before the app's next frame
# (one xdotool call) adds nothing either: the press position decides, not the pointer's.
xdotool mousemove --window "$wid" 200 300 mousedown 1 mousemove --window "$wid" 640 400 mouseup 1
settle
expect_entities "$count" "press on the panel, release in the world"
echo "panel and HUD clicks: entities=$count"

# --- Esc pauses: steps stop; a click adds one, a right click there removes it ---------------------
xdotool mousemove --window "$wid" 700 450 key Escape
settle
[[ $(value paused) == 1 ]] || fail "Esc did not pause: $(latest)"
steps=$(value steps)
settle
settle
[[ $(value steps) == "$steps" ]] || fail "steps went from $steps to $(value steps) while paused"
click 700 450 1
expect_entities $((count + 1)) "left click while paused"
click 700 450 3
expect_entities "$count" "right click on the entity just added"
echo "paused at steps=$steps; add + remove while paused: entities=$count"

# --- Esc again resumes ---------------------------------------------------------------------------
xdotool key Escape
settle
[[ $(value paused) == 0 ]] || fail "second Esc did not resume: $(latest)"
settle
(( $(value steps) > steps )) || fail "steps did not increase after resuming: $(latest)"
echo "resumed: steps=$(value steps)"

# --- Q quits with exit 0 ------------------------------------------------------------------------
quit_with_q
echo "ok [e2e_xvfb]: quit with exit code 0"

#!/usr/bin/env bash
# End to end under Xvfb: a trace played from the panel, and Compare's verdict acted on.
#   - a bad trace typed into the Trace field and loaded says why, and the scene stays
#     (scene=random, the same count);
#   - a good one plays (scene=trace, trace_frame moves on);
#   - Compare's "all" ranks every technique and the counters line names the verdict's pick;
#   - paused (the ranking holds still), with another technique in the world, "Use NAME" in
#     the Compare window's corner makes the pick the world's technique.
# usage: e2e_trace_xvfb.sh RO_DEMO MAKE_TRACE WORK_DIR
set -euo pipefail

demo=$1 make_trace=$2 work=$3 name=e2e_trace_xvfb
source "$(dirname "$(readlink -f "$0")")/e2e_common.sh"

click() { xdotool mousemove --window "$wid" "$1" "$2" click "$3"; settle; }
# Types $1 into the Trace path field (replacing what it holds) and presses Load trace.
load_trace() {
    click 90 342 1  # the field takes the keyboard from the next frame on
    # Held over a few frames: ImGui 1.86 has no input queue, a press and release within one
    # frame is never seen.
    xdotool keydown ctrl keydown a sleep 0.2 keyup a keyup ctrl type "$1"
    settle
    click 30 272 1  # the section's title: the field lets go of the mouse and the keyboard
    local said
    said=$(grep -cE '^(playing|not loaded)' "$out" || true)
    click 225 342 1
    # About one walk in ten on a loaded machine, this click on Load trace has left no line (the
    # failing window showed the path typed and the button hovered); not yet understood. A second
    # click, said aloud, keeps the walk about what it checks: what a load says and does.
    local deadline=$((SECONDS + 5))
    while (( $(grep -cE '^(playing|not loaded)' "$out" || true) == said )); do
        if (( SECONDS >= deadline )); then
            echo "note: Load trace left no line within 5 s; clicking it again" >&2
            click 225 342 1
            break
        fi
        sleep 0.05
    done
}

good="$work/e2e_trace.trace" bad="$work/e2e_bad_trace.csv"
"$make_trace" "$good" 300 60 0 statics >/dev/null || fail "make_trace could not write $good"
printf 'frame,id,min_x,min_y,max_x,max_y,static\n0,1,0,0,1,1,0\n1,1,5,0,2,1,0\n' >"$bad"

cd "$work"  # where F12 writes its screenshot
unset SDL_VIDEODRIVER
export SDL_RENDER_VSYNC=0
start_app --entities 300 --seed 5 --report-every 5
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 10
[[ $(value video_driver) == x11 ]] || fail "not a real window: $(latest)"

# --- a bad trace: its message, and the scene as it was -------------------------------------------
# The panel at 1280x800: the Scene section's last button, "trace...", at (280, 319) opens the
# trace row below the presets: the path field at (90, 342), Load trace at (225, 342).
click 280 319 1
load_trace "$bad"
grep -q "not loaded, the scene is unchanged: trace '$bad': frame 1" "$out" ||
    fail "no message for the inverted box: $(grep -i trace "$out" | grep -v steps= | tail -n 2)"
[[ $(value scene) == random && $(value entities) == 300 ]] || fail "a bad trace changed the scene: $(latest)"
echo "bad trace: $(grep 'not loaded' "$out" | tail -n 1)"

# --- a good one plays ---------------------------------------------------------------------------
load_trace "$good"
wait_until scene 'v == "trace"' "Load trace did not start the trace"
[[ $(value trace_frames) == 300 ]] || fail "trace_frames=$(value trace_frames), expected 300"
first=$(value trace_frame)
wait_until trace_frame "v > $first + 5 || v < $first" "the trace does not play"
echo "playing: $(grep '^playing' "$out" | tail -n 1), frame $(value trace_frame)"

# --- Compare all: a verdict ---------------------------------------------------------------------
# With a trace playing (and the line of what Load trace did), Compare's "all" is at (265, 681).
click 265 681 1
(( $(value compared) >= 5 )) || fail "Compare all: compared=$(value compared)"
wait_until verdict 'v != ""' "no verdict in the counters line"
echo "verdict: $(value verdict) over $(value compared) techniques"

# --- Use NAME: the world takes the pick ---------------------------------------------------------
xdotool mousemove --window "$wid" 640 300 key Escape  # paused: no new tick moves the ranking
wait_until paused 'v == 1' "Esc did not pause"
settle
for attempt in 1 2 3; do
    [[ $(value verdict) != "$(value technique)" ]] && break
    xdotool key Tab  # another technique in the world, so that the button has something to do
    settle
    settle
done
pick=$(value verdict)
[[ $pick != "$(value technique)" ]] || fail "the world runs the pick already after three Tabs: $(latest)"
# The button sits at the top right of the Compare window, in the right column.
read -r use_x use_y <<<"$(ui_at compare 200 36)"
click "$use_x" "$use_y" 1
# As Load trace above: about one walk in ten on a loaded machine this click left the button
# hovered and nothing done (the saved window shows it so). A second click, said aloud.
if [[ $(value technique) != "$pick" ]]; then
    echo "note: Use $pick left technique=$(value technique); clicking it again" >&2
    click "$use_x" "$use_y" 1
fi
[[ $(value technique) == "$pick" ]] || fail "Use $pick: technique=$(value technique), verdict=$(value verdict)"
echo "use: technique=$(value technique)"

# F12: the window as it is now, in the work directory, for a person to look at.
xdotool key F12
settle
quit_with_q
echo "ok [$name]"

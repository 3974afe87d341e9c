#!/usr/bin/env bash
# End to end under Xvfb: the Plots window as a person uses it.
#   - the panel's Plots checkbox opens the window; a click on its Scaling tab shows that tab;
#   - "Run scaling sweep" starts the sweep (sweep_running=1 in the counters line) and pauses the
#     world; a click on a Compare checkbox meanwhile takes effect while the sweep still runs;
#   - the sweep runs to its end (every planned point measured), and the world resumes;
#   - Save CSV writes the sweep's points in ro_bench's columns, Save PNG the window's image;
#   - the Parameter tab sweeps the grid's cell size, and a click on its curve sets that value.
# usage: e2e_plots_xvfb.sh RO_DEMO WORK_DIR
set -euo pipefail

demo=$1 work=$2 name=e2e_plots_xvfb
source "$(dirname "$(readlink -f "$0")")/e2e_common.sh"

click() { xdotool mousemove --window "$wid" "$1" "$2" click 1; settle; }

unset SDL_VIDEODRIVER
export SDL_RENDER_VSYNC=0
cd "$work"  # Save CSV and Save PNG write to the working directory
rm -f ro_scaling.csv ro_scaling.png
# Grid, HSHG and tree compared; the sweep goes to a million entities, so it lasts long enough for a
# click in the middle of it (several seconds).
start_app --entities 2000 --seed 3 --compare grid,hshg,tree --report-every 2
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 10

# The random mix's panel for the grid (1280x800): the Plots checkbox at y=688, under the
# Compare checkboxes. The Plots window opens as a strip along the bottom, its top where its
# content puts it: points in it are read from ui_rects, as offsets from its top-left corner
# (tabs 37 px down).
click 17 688
check_apart "Plots open"
click $(ui_at plots 96 37)  # the Scaling tab
steps=$(value steps)
click $(ui_at plots 68 60)  # Run scaling sweep
wait_until sweep_running 'v == 1' "Run scaling sweep did not start a sweep" 20
sweep_start_frame=$(value frame)
[[ $(value paused) == 1 ]] || fail "the world did not pause for the sweep: $(latest)"
planned=$(value sweep_planned)
(( planned == 30 )) || fail "expected 30 points (3 techniques x 10 counts), planned $planned"
echo "sweep started: $planned points planned"

# A click on the panel while the sweep runs: the hash's Compare checkbox (y=589).
xdotool mousemove --window "$wid" 143 589 click 1
wait_until compared 'v == 4' "the Compare checkbox clicked during the sweep" 60
line=$(grep "compared=4" "$out" | head -n 1)
[[ $line == *" sweep_running=1 "* ]] || fail "the click took effect only after the sweep: $line"
echo "a panel click during the sweep: compared=4 at sweep point $(tr ' ' '\n' <<<"$line" | sed -n 's/^sweep_points=//p') of $planned"

wait_until sweep_running 'v == 0' "the sweep did not end" 240
# The window kept drawing while the worker measured: points of a million entities take
# seconds each (the tree's build about 14 s). A window blocked by the worker would draw next to
# no frames; one that keeps drawing draws far more than two a point, whatever the machine's speed.
frames=$(( $(value frame) - sweep_start_frame ))
(( frames >= 2 * planned )) || fail "the window drew $frames frames during the sweep of $planned points"
echo "the window drew $frames frames during the sweep"
[[ $(value sweep_points) == "$planned" ]] || fail "the sweep ended with $(value sweep_points) of $planned points"
settle
[[ $(value paused) == 0 ]] || fail "the world did not resume after the sweep: $(latest)"
(( $(value steps) > steps )) || fail "the world is not stepping after the sweep: $(latest)"
echo "sweep done: $(value sweep_points) points; the world runs again (steps=$(value steps))"

# Save CSV and Save PNG, at the bottom of the Scaling tab: the strip scrolls down to them
# (the wheel over it), and they sit then just above its bottom edge.
read -r px py pw ph <<<"$(ui_rect plots)"
xdotool mousemove --window "$wid" $((px + pw / 2)) $((py + ph / 2)) click --repeat 10 --delay 30 5
settle
click $((px + 37)) $((py + ph - 18))
click $((px + 110)) $((py + ph - 18))
[[ -s ro_scaling.csv ]] || fail "Save CSV wrote no ro_scaling.csv"
[[ $(head -n 1 ro_scaling.csv) == "scenario,technique,parameter,value,n,ms_median,candidates,pair_tests,bytes" ]] ||
    fail "ro_scaling.csv header: $(head -n 1 ro_scaling.csv)"
rows=$(tail -n +2 ro_scaling.csv | wc -l)
(( rows == planned )) || fail "ro_scaling.csv has $rows rows, expected $planned"
[[ $(head -c 8 ro_scaling.png | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "ro_scaling.png is not a PNG"
echo "exports: ro_scaling.csv ($rows rows), ro_scaling.png ($(stat -c %s ro_scaling.png) bytes)"

# --- a parameter sweep, and a click on its curve sets that value -------------------------------------
# The Parameter tab (offset 166), its "Sweep it" (217): the grid's cell size over 0.05 .. 10000
# in 12 log steps; the sixth value, 12.84, is drawn at offset (257, 140) in the ms plot. The
# strip scrolls back to its top first.
read -r px py pw ph <<<"$(ui_rect plots)"
xdotool mousemove --window "$wid" $((px + pw / 2)) $((py + ph / 2)) click --repeat 10 --delay 30 4
settle
click $(ui_at plots 166 37)
click $(ui_at plots 217 60)
wait_until sweep_planned 'v == 12' "Sweep it did not start the cell size sweep" 20
wait_until sweep_running 'v == 0' "the parameter sweep did not end" 120
settle
click $(ui_at plots 257 140)
wait_until cell_size 'v > 12.8 && v < 12.9' "a click on the curve at 12.84 did not set the cell size" 10
echo "a click on the parameter curve set cell_size=$(value cell_size)"

quit_with_q
echo "ok [$name]"

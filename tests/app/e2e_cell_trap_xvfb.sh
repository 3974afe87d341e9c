#!/usr/bin/env bash
# End to end under Xvfb: the manual-cell trap. A cell of 30 set by hand at 122 entities (the
# grid) must not survive a count of 1,000,000 typed into the panel's Entities slider (boxes
# of about 2 each in hundreds of cells' crowd: ticks of seconds): the counters line shows the
# cell refit below 30 / 8, and the notice says the hand-set cell no longer fits.
# No time and no rate is checked: the cell and the notice are what the fix is.
# usage: e2e_cell_trap_xvfb.sh RO_DEMO WORK_DIR
set -euo pipefail

demo=$1 work=$2 name=e2e_cell_trap_xvfb
source "$(dirname "$(readlink -f "$0")")/e2e_common.sh"

unset SDL_VIDEODRIVER
export SDL_RENDER_VSYNC=0
start_app --technique grid --entities 122 --cell-size 30 --seed 5 --report-every 1
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 5
[[ $(value video_driver) == x11 ]] || fail "not a real window: $(latest)"
[[ $(value cell_size) == 30 ]] || fail "the cell set by --cell-size is not 30: $(latest)"

# Ctrl+click on the Entities slider makes it a text field; the count is typed, Enter applies it.
read -r sx sy <<<"$(ui_at panel 90 202)"
xdotool mousemove --window "$wid" "$sx" "$sy" keydown ctrl click 1 keyup ctrl
settle
# Held over a few frames: ImGui 1.86 has no input queue, a press and release within one
# frame is never seen.
xdotool keydown ctrl keydown a sleep 0.2 keyup a keyup ctrl type 1000000
xdotool key Return
wait_until entities "v == 1000000" "the count typed into the Entities slider" 120
wait_frame $(( $(value frame) + 2 ))
awk -v c="$(value cell_size)" 'BEGIN { exit !(c > 0 && c < 30 / 8) }' ||
    fail "the cell of 30 set by hand was kept at a million entities: cell_size=$(value cell_size)"
grep -q '^notice: .*cell size 30 set by hand no longer fits' "$out" ||
    fail "no notice that the hand-set cell was refit: $(grep '^notice' "$out" || echo none)"
echo "1,000,000 entities: cell_size=$(value cell_size), $(grep '^notice' "$out" | tail -n 1)"

quit_with_q
echo "ok [$name]"

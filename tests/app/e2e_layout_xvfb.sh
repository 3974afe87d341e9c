#!/usr/bin/env bash
# End to end under Xvfb (1280x800): the docked layout.
#   - the world's rectangle (world_view) and the windows (ui_rects) never overlap: at start
#     (the legend shown), with Compare open, with the Plots open, both, and each closed again,
#     and with the right column folded by the HUD's arrow (the world then grows);
#   - F fits the whole world inside the world's rectangle;
#   - a click in the world adds an entity, a click on the legend or in the Plots none;
#   - after each Tab (every technique in turn) the panel's buttons are where they were: a click
#     on Pause pauses, a second resumes, and a click on the Structure checkbox toggles it.
# usage: e2e_layout_xvfb.sh RO_DEMO WORK_DIR
set -euo pipefail

demo=$1 work=$2 name=e2e_layout_xvfb
source "$(dirname "$(readlink -f "$0")")/e2e_common.sh"

click() { xdotool mousemove --window "$wid" "$1" "$2" click 1; settle; }

mapfile -t ids < <("$demo" --list-techniques)
unset SDL_VIDEODRIVER
export SDL_RENDER_VSYNC=0
start_app --entities 300 --seed 5 --report-every 2
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 10
[[ $(value video_driver) == x11 ]] || fail "not a real window: $(latest)"

# --- at start: panel, HUD and legend, apart from the world -------------------------------------------
check_apart "at start"
[[ -n $(ui_rect legend) ]] || fail "the legend is not shown at start: $(value ui_rects)"
read -r lx ly lw lh <<<"$(ui_rect legend)"
(( ly + 60 < 800 )) || fail "the legend starts below the window: $(ui_rect legend)"
read -r wx wy ww wh <<<"$(world_rect)"
echo "start: world_view=$(value world_view) ui_rects=$(value ui_rects)"

# --- F fits the world inside its rectangle -------------------------------------------------------------
xdotool mousemove --window "$wid" $((wx + ww / 2)) $((wy + wh / 2)) click 4 click 4
wait_until zoom "v > 1.2" "the wheel over the world did not zoom"
xdotool key f
wait_until zoom "v == 1" "F did not fit the world"
# The world is 1600 x 1000: its corners on screen must lie in world_view.
awk -v s="$(value view_scale)" -v ox="$(value view_x)" -v oy="$(value view_y)" -v x="$wx" -v y="$wy" -v w="$ww" -v h="$wh" \
    'BEGIN { exit !(ox >= x - 0.5 && oy >= y - 0.5 && ox + 1600 * s <= x + w + 0.5 && oy + 1000 * s <= y + h + 0.5) }' ||
    fail "after F the world (scale $(value view_scale) at $(value view_x),$(value view_y)) is not inside world_view $(value world_view)"
echo "F: the whole world inside world_view"

# --- clicks: the world adds, the legend does not --------------------------------------------------------
count=$(value entities)
click $((wx + ww / 2)) $((wy + wh / 2))
[[ $(value entities) == $((count + 1)) ]] || fail "a click in the middle of the world: entities=$(value entities)"
click $((lx + lw / 2)) $((ly + lh - 20))
[[ $(value entities) == $((count + 1)) ]] || fail "a click on the legend added an entity"
echo "clicks: the world adds, the legend does not"

# --- Compare and Plots, open and closed --------------------------------------------------------------
# The panel's Compare "all" and "none" and its Plots checkbox (the random mix, no file row open).
all_x=265 all_y=589 none_x=84 none_y=635 plots_x=17 plots_y=688
click $all_x $all_y
wait_until compared "v >= 5" "Compare all"
settle
[[ -n $(ui_rect compare) ]] || fail "Compare is not shown with $(value compared) compared: $(value ui_rects)"
check_apart "Compare open"
click $plots_x $plots_y
settle
[[ -n $(ui_rect plots) ]] || fail "the Plots checkbox did not open the Plots: $(value ui_rects)"
check_apart "Compare and Plots open"
read -r px py pw ph <<<"$(ui_rect plots)"
count=$(value entities)
click $((px + pw / 2)) $((py + ph - 30))
[[ $(value entities) == "$count" ]] || fail "a click in the Plots added an entity"
click $none_x $none_y
settle
[[ -z $(ui_rect compare) ]] || fail "Compare is still shown with none compared: $(value ui_rects)"
check_apart "Plots open, Compare closed"
click $plots_x $plots_y
settle
[[ -z $(ui_rect plots) ]] || fail "the Plots did not close: $(value ui_rects)"
check_apart "both closed"
echo "Compare and Plots opened and closed: apart from the world every time"

# --- the right column folds, and the world takes the room -----------------------------------------------
read -r hx hy hw hh <<<"$(ui_rect hud)"
click $((hx + 10)) $((hy + 9))  # the HUD's collapse arrow
settle
read -r fx fy fw fh <<<"$(world_rect)"
(( fw > ww )) || fail "folding the right column did not widen the world: $(value world_view), before $wx,$wy,$ww,$wh"
[[ -z $(ui_rect legend) ]] || fail "the legend is shown in a folded column: $(value ui_rects)"
check_apart "the right column folded"
read -r hx hy hw hh <<<"$(ui_rect hud)"
click $((hx + 10)) $((hy + 9))
settle
[[ $(value world_view) == "$wx,$wy,$ww,$wh" ]] || fail "unfolded, world_view=$(value world_view), expected $wx,$wy,$ww,$wh"
echo "the right column folds (world width $ww -> $fw) and unfolds"

# --- Tab: the panel's buttons stay where they were -------------------------------------------------------
panel=$(value ui_rects | tr ';' '\n' | grep '^panel:')
pause_x=53 pause_y=493 structure_x=17 structure_y=541
xdotool mousemove --window "$wid" $((wx + ww / 2)) $((wy + 40))
for (( k = 0; k < ${#ids[@]}; ++k )); do
    technique=$(value technique)
    click $pause_x $pause_y
    [[ $(value paused) == 1 ]] || fail "$technique: a click on Pause at ($pause_x, $pause_y) did not pause: $(latest)"
    click $pause_x $pause_y
    [[ $(value paused) == 0 ]] || fail "$technique: a second click on Resume did not resume: $(latest)"
    cells=$(value cells)
    click $structure_x $structure_y
    [[ $(value cells) == 0 ]] || fail "$technique: the Structure checkbox did not hide the cells (cells=$(value cells), was $cells)"
    click $structure_x $structure_y
    [[ $(value ui_rects | tr ';' '\n' | grep '^panel:') == "$panel" ]] || fail "$technique: the panel moved: $(value ui_rects)"
    check_apart "$technique"
    xdotool key Tab
    wait_until technique "v != \"$technique\"" "Tab from $technique"
    settle
    echo "$technique: Pause, Resume and Structure where they were"
done

quit_with_q
echo "ok [$name]"

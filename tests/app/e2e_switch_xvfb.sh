#!/usr/bin/env bash
# End to end under Xvfb: a person pauses the world, then picks every technique in turn from
# the panel's combo box with mouse clicks. After each pick the HUD's counters line must name
# the picked technique, and on the same paused frame the true overlaps, the point query's
# hits, the ray query's hits and its first hit must equal those of the technique before it:
# the technique changes which candidates are examined, never the answer.
# usage: e2e_switch_xvfb.sh RO_DEMO WORK_DIR
set -euo pipefail

demo=$1 work=$2 name=e2e_switch
source "$(dirname "$(readlink -f "$0")")/e2e_common.sh"

mapfile -t ids < <("$demo" --list-techniques)
(( ${#ids[@]} >= 3 )) || fail "expected at least 3 techniques, got ${#ids[@]}"

unset SDL_VIDEODRIVER
# Paused from the start: every technique sees the same boxes. Seed 5 puts an entity under
# the query point (640, 430) and about twenty along the ray.
export SDL_RENDER_VSYNC=0
start_app --entities 1500 --seed 5 --technique "${ids[0]}" --paused --report-every 2 \
    --query-point 640,430 --query-ray 80,60,1520,940
wid=$(find_window) ||
    fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_frame 6
[[ $(value technique) == "${ids[0]}" ]] || fail "started with $(value technique), expected ${ids[0]}"
[[ $(value video_driver) == x11 ]] || fail "video_driver=$(value video_driver), expected x11"
steps=$(value steps)
overlaps=$(value overlaps) point=$(value point_hits) ray=$(value query_hits) first=$(value first_hit)
(( overlaps > 0 && point > 0 && ray > 0 )) || fail "the scene should have overlaps and ray hits: $(latest)"
echo "start ${ids[0]}: overlaps=$overlaps point_hits=$point ray_hits=$ray first_hit=$first"

# The combo box is the first widget of the panel (the left column, at 0,0); its popup lists
# the techniques in registry order, one line of 13 px text + 4 px spacing each.
combo_x=120 combo_y=61 first_item_y=86 item_step=17
# Each technique once, in an order where every pick is a real change.
for (( k = 1; k <= ${#ids[@]}; ++k )); do
    index=$(( k % ${#ids[@]} ))
    want=${ids[$index]}
    xdotool mousemove --window "$wid" $combo_x $combo_y click 1
    settle
    xdotool mousemove --window "$wid" $combo_x $(( first_item_y + item_step * index )) click 1
    settle
    # Move the cursor off the world (onto the panel), so only the fixed point query runs.
    xdotool mousemove --window "$wid" 5 795
    settle
    line=$(latest)
    [[ $(value technique) == "$want" ]] || fail "picked item $index, expected technique $want, HUD says $(value technique)"
    [[ $(value steps) == "$steps" ]] || fail "$want: steps changed while paused ($steps -> $(value steps))"
    [[ $(value overlaps) == "$overlaps" ]] || fail "$want: overlaps=$(value overlaps), previous technique $overlaps"
    [[ $(value point_hits) == "$point" ]] || fail "$want: point_hits=$(value point_hits), previous $point"
    [[ $(value query_hits) == "$ray" ]] || fail "$want: ray hits=$(value query_hits), previous $ray"
    [[ $(value first_hit) == "$first" ]] || fail "$want: first_hit=$(value first_hit), previous $first"
    echo "picked $want: candidates=$(value candidates) overlaps=$(value overlaps) ray visited=$(value query_visited) tests=$(value query_tests)"
done

quit_with_q
echo "ok [e2e_switch]: ${#ids[@]} techniques picked by clicks, same answers on the same paused frame"

#!/usr/bin/env bash
# End to end under Xvfb: what a person sees of fast movers and of a million entities.
#   - The bullets preset, swept boxes off: misses are counted (missed_total > 0) and drawn (the
#     miss marks' colour is in an F12 screenshot); the bullets are drawn in their own colour.
#   - The same with swept boxes on: no miss counted, none drawn.
#   - A million entities: the density view is drawn (view=density) and the screenshot holds
#     the ramp's colours, not the shapes view's.
# Colours are found anywhere in the window (png_stats --colour), so the test does not depend
# on where the panel and the HUD sit; the legend, if open, holds one swatch of each (256 px).
# usage: e2e_movers_xvfb.sh RO_DEMO PNG_STATS WORK_DIR
set -euo pipefail

demo=$1 stats=$2 work=$3 name=e2e_movers
source "$(dirname "$(readlink -f "$0")")/e2e_common.sh"
cd "$work"  # where F12 writes its screenshot

unset SDL_VIDEODRIVER
export SDL_RENDER_VSYNC=0
# palette.h: kMissMark, kFastMover.
miss=255,60,255 mover=190,255,60
# More than a legend swatch (16 x 16 px) and its neighbours' edges.
swatch=400

# F12, then prints the new screenshot's path (at most 20 s).
screenshot() {
    local before deadline=$((SECONDS + 20)) png
    before=$(ls ro_lab_*.png 2>/dev/null | wc -l)
    xdotool key --window "$wid" F12
    while :; do
        png=$(ls -t ro_lab_*.png 2>/dev/null | head -n 1)
        if [[ -n $png ]] && (( $(ls ro_lab_*.png | wc -l) > before )); then
            sleep 0.5  # written in one go, but give the file system a moment
            echo "$png"
            return 0
        fi
        (( SECONDS < deadline )) || fail "no screenshot within 20 s of F12"
        sleep 0.1
    done
}
pixels() { "$stats" "$1" "--colour=$2" | tr ' ' '\n' | sed -n 's/^colour_pixels=//p'; }

rm -f ro_lab_*.png
# Each F12 names its file by the second: one screenshot per app run below.

# --- bullets, swept boxes off ------------------------------------------------------------------
start_app --scenario bullets --entities 10000 --overlays grid --report-every 2
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
[[ $(value video_driver) == x11 ]] || fail "video_driver=$(value video_driver), expected x11"
wait_until missed_total 'v > 100' "the bullets should tunnel through boxes"
(( $(value miss_marks) > 0 )) || fail "missed_total=$(value missed_total) but no miss marked: $(latest)"
png=$(screenshot)
marks=$(pixels "$png" $miss) movers=$(pixels "$png" $mover)
(( marks > swatch )) || fail "missed_total=$(value missed_total) but $marks pixels of the miss colour in $png"
(( movers > swatch )) || fail "only $movers pixels of the fast movers' colour in $png"
echo "swept boxes off: missed_total=$(value missed_total), $marks miss-mark pixels, $movers fast-mover pixels ($png)"
mv "$png" bullets_missed.png
quit_with_q

# --- bullets, swept boxes on: nothing missed, nothing marked -------------------------------------
start_app --scenario bullets --entities 10000 --overlays grid --swept-boxes --report-every 2
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_until steps 'v >= 60' "the bullets scene should run"
[[ $(value missed_total) == 0 ]] || fail "swept boxes on, still missed_total=$(value missed_total)"
[[ $(value miss_marks) == 0 ]] || fail "swept boxes on, nothing missed, yet miss_marks=$(value miss_marks)"
png=$(screenshot)
marks=$(pixels "$png" $miss) movers=$(pixels "$png" $mover)
(( marks <= swatch )) || fail "swept boxes on: nothing missed, yet $marks pixels of the miss colour in $png"
(( movers > swatch )) || fail "swept boxes on: only $movers pixels of the fast movers' colour in $png"
echo "swept boxes on: missed_total=0, $marks miss-mark pixels, $movers fast-mover pixels"
mv "$png" bullets_swept.png
quit_with_q

# --- a million entities: the density view -------------------------------------------------------
start_app --entities 1000000 --paused --report-every 1
wid=$(find_window) || fail "no window named 'Ro Broadphase Lab' within 30 s"
wait_until frame 'v >= 3' "a million entities should draw" 120
[[ $(value view) == density ]] || fail "a million entities under a pixel, view=$(value view): $(latest)"
png=$(screenshot)
# The shapes view's box colour (palette.h kBox) stays for the legend's swatch alone.
boxes=$(pixels "$png" 86,182,214)
(( boxes <= swatch )) || fail "view=density, yet $boxes pixels of the shapes view's box colour in $png"
echo "1,000,000 entities: view=density, $boxes box-colour pixels"
mv "$png" density_million.png
quit_with_q

echo "ok [e2e_movers]: misses counted and drawn, none with swept boxes; the density view at a million"

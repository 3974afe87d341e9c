#!/usr/bin/env bash
# Headless run of one technique (SDL_VIDEODRIVER=offscreen): the app must exit 0, print a
# counters line with steps equal to the frames run and the ray query's figures, and write a
# screenshot that is not blank.
# usage: headless.sh RO_DEMO PNG_STATS TECHNIQUE OUT_DIR
set -euo pipefail

demo=$1 stats=$2 technique=$3 out=$4
frames=120
entities=500
fail() { echo "FAIL [headless $technique]: $*" >&2; exit 1; }

mkdir -p "$out"
png="$out/headless_$technique.png"
log="$out/headless_$technique.out"
err="$out/headless_$technique.err"
rm -f "$png"

rc=0
"$demo" --technique "$technique" --entities "$entities" --frames "$frames" --screenshot "$png" \
    --overlays grid,pairs --query-ray 100,100,1500,900 >"$log" 2>"$err" || rc=$?
[[ $rc -eq 0 ]] || fail "exit code $rc, stderr: $(cat "$err")"

line=$(grep 'steps=' "$log" | tail -n 1 || true)
[[ -n $line ]] || fail "no counters line on stdout: $(cat "$log")"
value() { tr ' ' '\n' <<<"$line" | sed -n "s/^$1=//p"; }
for key in technique entities steps candidates tests overlaps contacts ms_broad ms_pairs ms_narrow \
           ms_integrate ms_draw bytes allocs fps video_driver paused query query_hits query_visited query_tests \
           first_hit pairs pairs_shown; do
    [[ -n $(value "$key") ]] || fail "counters line lacks $key=: $line"
done
[[ $(value technique) == "$technique" ]] || fail "technique=$(value technique), expected $technique"
[[ $(value entities) == "$entities" ]] || fail "entities=$(value entities), expected $entities"
[[ $(value steps) == "$frames" ]] || fail "steps=$(value steps), expected $frames (one tick per frame)"
[[ $(value paused) == 0 ]] || fail "paused=$(value paused)"
[[ $(value query) == ray ]] || fail "query=$(value query), expected ray"
(( $(value query_tests) >= $(value query_hits) )) || fail "the ray reported more hits than it tested: $line"
# Under the budget every candidate pair gets its line (the whole world is on screen).
[[ $(value pairs_shown) == "$(value pairs)" ]] || fail "pair lines shown $(value pairs_shown) of $(value pairs)"

[[ -s $png ]] || fail "no screenshot at $png"
# Only the world below the panel and left of the HUD counts (window 1280x800: the panel covers
# x < 340, y < 480, the HUD x > 1070, y < 340): the UI alone must not pass for a drawn world.
stats_line=$("$stats" "$png" 360 490 700 300) || fail "png_stats could not read $png"
colours=$(tr ' ' '\n' <<<"$stats_line" | sed -n 's/^colours=//p')
busy=$(tr ' ' '\n' <<<"$stats_line" | sed -n 's/^non_background=//p')
(( colours >= 4 )) || fail "the world region has only $colours colours ($stats_line)"
awk -v f="$busy" 'BEGIN { exit !(f > 0.05) }' || fail "the world region is nearly blank ($stats_line)"
echo "ok [headless $technique]: $line | $stats_line"

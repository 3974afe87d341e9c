#!/usr/bin/env bash
# Headless (offscreen, software renderer), no assertion on time:
#   - a scene of large entities drawn through the raster and through geometry lights the same
#     pixels (circles are polygons in geometry and true discs in the raster: a few rim pixels
#     may differ, at most 3% of the lit ones);
#   - a million entities with the structure overlay give a PNG that is not blank, and the
#     counters line says every entity went through the raster.
# usage: draw_paths.sh RO_DEMO PNG_STATS PNG_DIFF OUT_DIR
set -euo pipefail

demo=$1 stats=$2 diff=$3 out=$4
fail() { echo "FAIL [draw_paths]: $*" >&2; exit 1; }
mkdir -p "$out"
export SDL_VIDEODRIVER=offscreen SDL_RENDER_DRIVER=software

for path in raster geometry; do
    "$demo" --entities 60 --seed 4 --half-extents 15,40 --paused --frames 1 --draw-path "$path" \
        --screenshot "$out/paths_$path.png" >"$out/paths_$path.out" ||
        fail "the $path run failed: $(cat "$out/paths_$path.out")"
done
grep -q 'drawn_raster=60 drawn_geometry=0' "$out/paths_raster.out" || fail "raster run: $(cat "$out/paths_raster.out")"
grep -q 'drawn_raster=0 drawn_geometry=60' "$out/paths_geometry.out" || fail "geometry run: $(cat "$out/paths_geometry.out")"
# The world's rectangle as the counters line gives it: the UI around it differs (its timings).
view=$(tr ' ' '\n' <"$out/paths_raster.out" | sed -n 's/^world_view=//p')
[[ -n $view ]] || fail "no world_view in: $(cat "$out/paths_raster.out")"
IFS=, read -r vx vy vw vh <<<"$view"
line=$("$diff" "$out/paths_raster.png" "$out/paths_geometry.png" "$vx" "$vy" "$vw" "$vh") || fail "png_diff failed"
lit=$(tr ' ' '\n' <<<"$line" | sed -n 's/^lit=//p')
share=$(tr ' ' '\n' <<<"$line" | sed -n 's/^differ_share=//p')
(( lit > 20000 )) || fail "too few entity pixels to compare: $line"
awk -v s="$share" 'BEGIN { exit !(s <= 0.03) }' || fail "the raster and geometry paths differ: $line"
echo "raster vs geometry, 60 large entities: $line"

"$demo" --entities 1000000 --paused --frames 1 --overlays grid --technique hshg \
    --screenshot "$out/million.png" >"$out/million.out" || fail "the 1M run failed: $(cat "$out/million.out")"
grep -q 'drawn_raster=1000000 ' "$out/million.out" || fail "1M: not every entity rasterized: $(cat "$out/million.out")"
line=$("$stats" "$out/million.png" 440 380 840 420) || fail "png_stats could not read the 1M PNG"
colours=$(tr ' ' '\n' <<<"$line" | sed -n 's/^colours=//p')
busy=$(tr ' ' '\n' <<<"$line" | sed -n 's/^non_background=//p')
(( colours >= 8 )) || fail "1M: only $colours colours ($line)"
awk -v f="$busy" 'BEGIN { exit !(f > 0.3) }' || fail "1M: the world is nearly blank ($line)"
echo "1M with the structure overlay: $line"

# A raster frame with entities large enough for geometry (mixed: boxes of side 1 and 10-40)
# and an overlay's lines: every entity goes into the raster, under the AABB outlines, which
# show inside the big boxes' blob. The big boxes drawn as geometry after the raster covered
# them, and the blob's inside was one colour.
"$demo" --scenario mixed --entities 2000 --frames 3 --overlays bounds --screenshot "$out/mixed_bounds.png" \
    >"$out/mixed_bounds.out" || fail "the mixed run failed: $(cat "$out/mixed_bounds.out")"
grep -qE 'drawn_raster=[1-9][0-9]* drawn_geometry=0 ' "$out/mixed_bounds.out" ||
    fail "mixed: expected every entity in the raster: $(cat "$out/mixed_bounds.out")"
line=$("$stats" "$out/mixed_bounds.png" 560 150 350 400) || fail "png_stats could not read the mixed PNG"
busy=$(tr ' ' '\n' <<<"$line" | sed -n 's/^non_background=//p')
awk -v f="$busy" 'BEGIN { exit !(f > 0.05) }' || fail "mixed: no AABB outline inside the big boxes ($line)"
echo "mixed with AABBs, inside the big boxes: $line"
echo "ok [draw_paths]"

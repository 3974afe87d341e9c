#!/usr/bin/env bash
# Prints the README's draw-time table: ro_demo's drawing time per frame (ms_draw: entities and
# overlays, UI excluded) at 1k, 10k, 100k and 1M entities, each overlay off and on, on SDL's
# software renderer under the offscreen driver and in a real X window (Xvfb), and under Xvfb
# with SDL's default renderer. Each cell is the median of 30 running frames (hshg technique,
# 1280x800). A figure, not a test: the machine's load moves it.
# usage: scripts/draw-table.sh [RO_DEMO]
set -euo pipefail

# One cell: scripts/draw-table.sh --cell RO_DEMO N OVERLAY (the environment picks the driver
# and the renderer); the script calls itself this way inside xvfb-run.
if [[ ${1:-} == --cell ]]; then
    args=(--technique hshg --entities "$3" --frames 40 --report-every 1)
    [[ $4 != none ]] && args+=(--overlays "$4")
    SDL_RENDER_VSYNC=0 timeout 900 "$2" "${args[@]}" 2>/dev/null | tail -n 30 | tr ' ' '\n' |
        sed -n 's/^ms_draw=//p' | sort -n | sed -n 15p
    exit 0
fi

demo=${1:-build/release/src/app/ro_demo}
[[ -x $demo ]] || { echo "error: $demo not built (scripts/run.sh builds it)" >&2; exit 1; }
command -v xvfb-run >/dev/null || { echo "error: xvfb-run not found (scripts/install-deps.sh)" >&2; exit 1; }
self=$(readlink -f "$0")
xvfb=(xvfb-run -a -s "-screen 0 1280x800x24")

echo "| entities | overlay | offscreen, software | Xvfb, software | Xvfb, default renderer |"
echo "|---:|---|---:|---:|---:|"
for n in 1000 10000 100000 1000000; do
    for overlay in none grid pairs bounds; do
        off=$(SDL_VIDEODRIVER=offscreen SDL_RENDER_DRIVER=software "$self" --cell "$demo" "$n" "$overlay")
        x11=$(env -u SDL_VIDEODRIVER SDL_RENDER_DRIVER=software "${xvfb[@]}" bash "$self" --cell "$demo" "$n" "$overlay")
        gl=$(env -u SDL_VIDEODRIVER -u SDL_RENDER_DRIVER "${xvfb[@]}" bash "$self" --cell "$demo" "$n" "$overlay")
        printf "| %s | %s | %s | %s | %s |\n" "$n" "$overlay" "$off" "$x11" "$gl"
    done
done

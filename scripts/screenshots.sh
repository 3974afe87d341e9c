#!/usr/bin/env bash
# Regenerates the screenshots under assets/ that the README links: the first image, one per
# technique (each with its structure overlay and one of the query tools), the presets, a
# million entities and the plots. Headless (no display needed); every image is the app's own
# last frame, the command that made it printed beside it.
set -euo pipefail
cd "$(dirname "$0")/.."

cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j2 --target ro_demo
demo=build/release/src/app/ro_demo
export SDL_VIDEODRIVER=offscreen SDL_RENDER_VSYNC=0

shot() {  # name, then ro_demo flags
    local name=$1
    shift
    echo "assets/$name.png: ro_demo $*"
    "$demo" "$@" --frames 90 --screenshot "assets/$name.png" >/dev/null
}

# The README's first image, with the command under it.
echo "assets/screenshot.png: ro_demo --technique grid --entities 1500 --frames 90 --overlays grid,pairs"
"$demo" --technique grid --entities 1500 --frames 90 --overlays grid,pairs --screenshot assets/screenshot.png >/dev/null

# The query tools, as a person would use them: hover (point), shift-drag (box), ctrl-drag (ray).
ray="--query-ray 120,880,1500,140"
box="--query-box 700,300,1100,650"
point="--query-point 820,520"

shot technique-brute    --technique brute    --entities 600  --overlays pairs $point
shot technique-grid     --technique grid     --entities 3000 --overlays grid $box
shot technique-hash     --technique hash     --entities 3000 --overlays grid,pairs $point
shot technique-hshg     --technique hshg     --entities 300  --half-extents 1,40 --overlays grid $ray
shot technique-sap      --technique sap      --entities 2000 --overlays grid $box
shot technique-sweep    --technique sweep    --entities 2000 --overlays grid $ray
shot technique-tree     --technique tree     --entities 1200 --overlays grid $ray
shot technique-quadtree --technique quadtree --entities 2000 --overlays grid $box

# The four presets of the workloads that decide a real choice (README "Presets").
shot preset-static  --scenario static  --entities 100000 --technique tree
shot preset-bullets --scenario bullets --entities 10000  --technique hshg --overlays pairs --zoom 2
shot preset-rain    --scenario rain    --entities 10000  --technique hshg
shot preset-layers  --scenario layers  --entities 10000  --technique hshg --zoom 3

# A million entities with the structure overlay: the whole world, then 24x zoomed in. Three
# frames: every one of them ticks a million entities.
echo "assets/million.png: ro_demo --technique hshg --entities 1000000 --frames 3 --overlays grid"
"$demo" --technique hshg --entities 1000000 --frames 3 --overlays grid --screenshot assets/million.png >/dev/null
echo "assets/million-zoom.png: ro_demo --technique hshg --entities 1000000 --frames 3 --overlays grid,pairs --zoom 24"
"$demo" --technique hshg --entities 1000000 --frames 3 --overlays grid,pairs --zoom 24 \
    --screenshot assets/million-zoom.png >/dev/null

# Choosing for your scene (README): every technique on the same frames of one preset, the compare
# table with the history plot, then a scaling sweep and a parameter sweep, each plot as the Plots
# window's own image (its Save PNG).
plots() {  # name of the plot image, then ro_demo flags
    local name=$1
    shift
    echo "assets/$name.png: ro_demo $* --plots-screenshot assets/$name.png"
    "$demo" "$@" --plots-screenshot "assets/$name.png" >/dev/null
}
echo "assets/compare.png: ro_demo --scenario clustered --entities 10000 --compare all --plots history --frames 300"
plots plot-history --scenario clustered --entities 10000 --compare all --plots history --frames 300 \
    --screenshot assets/compare.png
plots plot-scaling --scenario clustered --entities 10000 --compare all --plots scaling --frames 2
plots plot-parameter --technique grid --scenario uniform --entities 20000 --plots parameter=cell_size --frames 2

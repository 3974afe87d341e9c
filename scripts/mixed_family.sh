#!/usr/bin/env bash
# The mixed family's grid (README, Performance): at each point, ro's techniques and the chosen
# peers run on the same frames, and one markdown row says how Auto (the default) and the best
# ro technique compare with the best ro technique and the best peer.
#   scripts/mixed_family.sh                      # 18 points at 100,000 boxes, 300 frames after 3
#   N=10000 FRAMES=20 scripts/mixed_family.sh    # a quick look
#   JSON=docs/targets-mixed.json CHECK=1 scripts/mixed_family.sh   # also every point's rows as one JSON
#                                                # list, every frame checked against the reference
# The tree's fat boxes take about 70 frames to run out, so a short run flatters it (and the
# peers' trees): keep FRAMES in the hundreds for figures to quote.
set -euo pipefail
bench=${RO_BENCH:-build/release/src/bench/ro_bench}
n=${N:-100000} frames=${FRAMES:-300} warmup=${WARMUP:-3}
# Chipmunk's tree and hash were the best peers at every point of a 10-frame run with all of
# them; Box2D's tree, Bullet's DBVT and Chipmunk's sweep take up to 0.6 s a frame here.
peers=${PEERS-chipmunk-tree,chipmunk-hash}  # PEERS= (empty): ro's techniques alone
techniques=${TECHNIQUES:-grid,hshg,sap,sweep,tree,quadtree,auto}
fractions=${FRACTIONS:-0.1 0.3 0.5} sizes=${SIZES:-10:40 20:100} spacings=${SPACINGS:-1.5 4 8}
json=${JSON:-} check=${CHECK:+--check}
[[ -x $bench ]] || { echo "mixed_family.sh: no $bench (build first, or set RO_BENCH)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "| point F:MIN:MAX:SPACING | auto ms | best ro | its ms | auto / best ro | best peer | its ms | best ro / best peer |"
echo "|---|---:|---|---:|---:|---|---:|---:|"
points=0
for f in $fractions; do for s in $sizes; do for sp in $spacings; do
    point=$f:$s:$sp
    points=$((points + 1))
    "$bench" --scenario mixed --mixed "$point" --n "$n" --technique "$techniques" ${peers:+--peer "$peers"} \
        --frames "$frames" --warmup "$warmup" --csv "$work/rows.csv" --json "$work/$points.json" $check >/dev/null
    # Columns: technique (4), peer (5), mean_ms (7).
    awk -F, -v point="$point" 'NR > 1 {
        if ($5 == "true") { if (peer == "" || $7 < peerMs) { peer = $4; peerMs = $7 } }
        else {
            if ($4 == "auto") autoMs = $7
            else if (best == "" || $7 < bestMs) { best = $4; bestMs = $7 }
        }
    } END {
        printf "| %s | %.2f | %s | %.2f | %.2fx | ", point, autoMs, best, bestMs, autoMs / bestMs
        if (peer == "") print "- | - | - |"
        else printf "%s | %.2f | %.3fx |\n", peer, peerMs, bestMs / peerMs
    }' "$work/rows.csv"
done; done; done
if [[ -n $json ]]; then
    python3 - "$json" "$work" "$points" <<'PY'
import json, sys
out, work, points = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = []
for i in range(1, points + 1):
    with open(f"{work}/{i}.json") as f:
        rows += json.load(f)
with open(out, "w") as f:
    json.dump(rows, f, indent=2)
    f.write("\n")
PY
    echo "mixed_family.sh: wrote $json ($points points)" >&2
fi

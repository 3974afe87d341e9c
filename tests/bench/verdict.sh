#!/usr/bin/env bash
# The verdict at the end of a scene's output, and alone with --verdict: the ranking is sorted
# by mean cost with ratios to the first row, the sentence names the fastest of ro's techniques
# (never a peer) and says why from the scene's measured make-up, and the JSON form agrees.
# Which technique wins is the machine's to say: nothing here asserts a winner or a time.
# usage: verdict.sh RO_BENCH
set -euo pipefail

bench=$1
fail() { echo "FAIL [verdict]: $*" >&2; exit 1; }

out=$("$bench" --scenario static --n 2000 --technique grid,hshg,tree --peers --frames 10 --warmup 2)
ranking=$(sed -n '/^ranked by mean ms a frame/,/^$/p' <<<"$out" | grep -E '^ +[0-9]+\. ')
(( $(wc -l <<<"$ranking") >= 3 )) || fail "no ranking of the contestants: $out"
# Sorted by mean, the first at 1.00x.
awk '{ mean = $3 + 0; if (NR > 1 && mean < last) bad = 1; last = mean } END { exit bad }' <<<"$ranking" ||
    fail "the ranking is not sorted by mean: $ranking"
[[ $(head -n 1 <<<"$ranking" | awk '{ print $5 }') == 1.00x ]] || fail "the first row is not at 1.00x: $ranking"
pick=$(grep -oE '^For this scene pick [a-z]+' <<<"$out" | awk '{ print $5 }')
[[ $pick == grid || $pick == hshg || $pick == tree ]] || fail "the verdict picks '$pick', not one of ours that ran: $out"
first_ours=$(grep -v '(peer)' <<<"$ranking" | head -n 1 | awk '{ print $2 }')
[[ $pick == "$first_ours" ]] || fail "the verdict picks $pick, the fastest of ours is $first_ours"
sentence=$(grep '^For this scene pick' <<<"$out")
[[ $sentence == *"Why: 2000 boxes, 99 % static"* ]] || fail "the why does not describe the static scene: $sentence"

only=$("$bench" --scenario static --n 2000 --technique grid,hshg,tree --frames 10 --warmup 2 --verdict)
(( $(wc -l <<<"$only") == 2 )) || fail "--verdict printed more than the sentence and its JSON: $only"
grep -q '^For this scene pick ' <<<"$only" || fail "--verdict printed no verdict: $only"
json=$(sed -n 's/^verdict-json: //p' <<<"$only")
python3 - "$json" <<'PY' || fail "the verdict's JSON does not agree with its sentence: $json"
import json, sys
v = json.loads(sys.argv[1])
assert v["scene"] == "static" and v["n"] == 2000
assert v["sentence"].startswith("For this scene pick " + v["pick"])
means = [r["mean_ms"] for r in v["ranking"]]
assert means == sorted(means) and v["ranking"][0]["ratio_to_fastest"] == 1.0
assert abs(v["scene_profile"]["static_share"] - 0.99) < 1e-9
PY
echo "verdict: picks $pick, ranking sorted, --verdict's sentence and JSON agree"

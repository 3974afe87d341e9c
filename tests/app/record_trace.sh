#!/usr/bin/env bash
# ro_demo --record-trace: the world's boxes as each tick begins and once at exit, as a trace
# ro_bench replays with every answer checked; churn (the rain preset) is in it, each frame holds
# the entities alive then; a bad use exits 2 with one message.
# usage: record_trace.sh RO_DEMO RO_BENCH EXPECT_USAGE_ERROR OUT_DIR
set -euo pipefail
demo=$1 bench=$2 expect=$3 out=$4
fail() { echo "FAIL [record trace]: $*" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out/rain.csv" "$out/mixed.trace"

"$demo" --scenario rain --entities 800 --frames 40 --record-trace "$out/rain.csv" >"$out/rain.out" ||
    fail "--record-trace exited $?"
steps=$(grep -oE ' steps=[0-9]+' "$out/rain.out" | tail -n 1 | cut -d= -f2)
[[ $(head -n 1 "$out/rain.csv") == frame,id,min_x,min_y,max_x,max_y,static* ]] || fail "not a trace's CSV header"
frames=$(tail -n +2 "$out/rain.csv" | cut -d, -f1 | sort -un | wc -l)
# 40 frames of one tick each, and the state at exit.
[[ $frames -eq 41 ]] || fail "$frames frames written for 40 ticks and the exit (steps=$steps)"
first=$(awk -F, '$1 == "0"' "$out/rain.csv" | wc -l)
[[ $first -eq 800 ]] || fail "the first frame holds $first boxes, not the 800 entities"
# The rain's drops go at the bottom and new ones come: ids of the first frame are gone by the last.
python3 - "$out/rain.csv" <<'PY' || fail "no churn in the rain's recording"
import csv, sys
frames = {}
for row in csv.DictReader(open(sys.argv[1])):
    frames.setdefault(int(row["frame"]), set()).add(int(row["id"]))
first, last = frames[min(frames)], frames[max(frames)]
assert first - last and last - first, (len(first - last), len(last - first))
PY
"$bench" --trace "$out/rain.csv" --check --technique grid,sap,tree,hshg >"$out/bench.out" 2>&1 ||
    fail "ro_bench on the recording exited $?: $(cat "$out/bench.out")"
grep -q "check: every frame of every run matched the reference" "$out/bench.out" || fail "$(cat "$out/bench.out")"
echo "rain: 41 frames, churn, every technique checked by ro_bench"

# The binary encoding, with statics declared (the static preset).
"$demo" --scenario static --entities 2000 --frames 5 --record-trace "$out/static.trace" >/dev/null ||
    fail "--record-trace (binary) exited $?"
"$bench" --trace "$out/static.trace" --check --technique grid,tree >"$out/bench_static.out" 2>&1 ||
    fail "ro_bench on the static recording exited $?: $(cat "$out/bench_static.out")"
echo "static: a binary recording checked by ro_bench"

bash "$expect" "--trace plays a trace's boxes" "$demo" --trace "$out/static.trace" --record-trace "$out/again.trace" --frames 1
bash "$expect" "--record-trace: cannot write" "$demo" --record-trace "$out/no/such/dir/x.trace" --frames 1
bash "$expect" "--record-trace expects a file name" "$demo" --record-trace "{empty}" --frames 1
echo "bad uses: refused with one message"

#!/usr/bin/env bash
# ro_bench's sweeps on a trace: --sweep-n tiles it to whole copies of its largest frame
# (the n column is a multiple of it, each count once), --sweep-param runs on it as recorded,
# and the flags that make a scene of their own, or a second trace, are refused.
# No time is compared with anything.
# usage: bench_trace_sweep.sh RO_BENCH RO_MAKE_TRACE WORK_DIR
set -euo pipefail
bench=$1 make=$2 work=$3
fail() { echo "FAIL [bench_trace_sweep]: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
"$make" "$work/pile.trace" 10 300 0 statics >/dev/null
"$make" "$work/other.trace" 10 100 0 >/dev/null

# One copy first: its n is the most boxes in a frame. Then 4 and 10 copies (10 asked twice:
# once exactly, once a little below, rounded to the same copies).
"$bench" --trace "$work/pile.trace" --sweep-n --n 1 --technique grid >"$work/one.csv" 2>"$work/err.txt" ||
    fail "--sweep-n --n 1 exited $?: $(cat "$work/err.txt")"
most=$(tail -n 1 "$work/one.csv" | cut -d, -f5)
[[ $most -gt 0 ]] || fail "one copy has no boxes: $(cat "$work/one.csv")"
"$bench" --trace "$work/pile.trace" --sweep-n --n "$((4 * most)),$((10 * most)),$((10 * most - most / 3))" \
    --technique grid,sap >"$work/sweep_n.csv" 2>"$work/err.txt" || fail "--sweep-n exited $?: $(cat "$work/err.txt")"
python3 - "$work/sweep_n.csv" "$most" <<'PY' || fail "the scaling sweep on a trace: $(cat "$work/sweep_n.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
most = int(sys.argv[2])
assert {r["scenario"] for r in rows} == {"pile"}, rows
for technique in ("grid", "sap"):
    ns = [int(r["n"]) for r in rows if r["technique"] == technique]
    assert ns == [4 * most, 10 * most], (technique, ns)
for r in rows:
    assert float(r["ms_median"]) > 0 and int(r["candidates"]) > 0, r
PY
echo "--sweep-n on a trace: 1, 4 and 10 copies of its $most boxes"

"$bench" --trace "$work/pile.trace" --sweep-param cell_size=2:40:3 --technique grid,hash \
    >"$work/sweep_param.csv" 2>"$work/err.txt" || fail "--sweep-param exited $?: $(cat "$work/err.txt")"
python3 - "$work/sweep_param.csv" <<'PY' || fail "the parameter sweep on a trace: $(cat "$work/sweep_param.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6, rows
assert {r["parameter"] for r in rows} == {"cell_size"} and {r["technique"] for r in rows} == {"grid", "hash"}, rows
assert len({r["n"] for r in rows}) == 1, rows
PY
echo "--sweep-param on a trace: 3 cell sizes for grid and hash, at the trace's own count"

expect=$(dirname "$0")/../support/expect_usage_error.sh
bash "$expect" "a sweep runs on one trace" "$bench" --trace "$work/pile.trace,$work/other.trace" --sweep-n
bash "$expect" "--scenario makes a scene of its own" "$bench" --trace "$work/pile.trace" --sweep-n --scenario uniform
bash "$expect" "--n makes a scene of its own: it does not apply to --trace (but to a sweep" \
    "$bench" --trace "$work/pile.trace" --n 1000
echo "a second trace, --scenario, and --n without a sweep: refused"

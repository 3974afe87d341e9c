#!/usr/bin/env bash
# ro_bench --trace-suite tumbler: the first run records the scene into the cache and runs it
# with --check; the second reuses the cached file (not written again) and gives the same
# answers. No time is compared with anything.
# usage: trace_suite.sh RO_BENCH WORK_DIR
set -euo pipefail
bench=$1 work=$2
fail() { echo "FAIL [trace_suite]: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
cache="$work/cache"

run() {  # run N: the suite's tumbler, 8 frames, checked
    "$bench" --trace-suite tumbler --suite-frames 8 --warmup 2 --trace-cache "$cache" --check --peers \
        --csv "$work/rows$1.csv" >"$work/out$1.txt" 2>"$work/err$1.txt" || fail "run $1 exited $?: $(cat "$work/err$1.txt")"
    grep -q "check: every frame of every run matched the reference" "$work/out$1.txt" || fail "run $1: no check line"
}

run 1
trace=$(find "$cache" -name tumbler.trace)
[[ -n $trace && $(dirname "$trace") == "$cache"/box2d-v*-8f ]] || fail "no cached tumbler.trace in a box2d-vN-8f folder"
grep -q "recording box2d tumbler" "$work/err1.txt" || fail "run 1 did not say it recorded: $(cat "$work/err1.txt")"
before=$(stat -c %Y.%s "$trace")
sleep 1

run 2
grep -q "reusing $trace" "$work/err2.txt" || fail "run 2 did not reuse the cache: $(cat "$work/err2.txt")"
grep -q "recording" "$work/err2.txt" && fail "run 2 recorded again"
[[ $(stat -c %Y.%s "$trace") == "$before" ]] || fail "the cached trace was written again"

# The rows: scene tumbler, every check ok, the same pairs in both runs.
answers() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                     { print $col["scenario"], $col["technique"], $col["overlaps"], $col["check"] }' "$1"; }
answers "$work/rows1.csv" | awk '$1 != "tumbler" || ($4 != "ok" && !($2 == "brute" && $4 == "unchecked")) { bad = 1 }
                                 END { exit bad }' || fail "a row not of tumbler, or not ok: $(answers "$work/rows1.csv")"
diff <(answers "$work/rows1.csv") <(answers "$work/rows2.csv") >/dev/null || fail "the two runs' answers differ"
# --frames without --suite-frames: 1 built + --warmup + --frames recorded, in a folder of its own.
"$bench" --trace-suite tumbler --frames 3 --warmup 2 --trace-cache "$cache" >"$work/out3.txt" 2>"$work/err3.txt" ||
    fail "run 3 exited $?: $(cat "$work/err3.txt")"
ls "$cache"/box2d-v*-6f/tumbler.trace >/dev/null 2>&1 || fail "--frames 3 --warmup 2 did not record 6 frames: $(ls -R "$cache")"

echo "ok [trace_suite]: recorded $trace, reused it, every row checked"

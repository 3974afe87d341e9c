#!/usr/bin/env bash
# ro_demo --trace headless: a good trace plays to its end under Compare (every technique's
# pairs checked against the reference every frame: a mismatch exits 1) and prints the verdict;
# bad traces exit 2 with the reader's message naming the file, before any window.
# usage: trace_headless.sh RO_DEMO MAKE_TRACE WORK_DIR
set -euo pipefail

demo=$1 make_trace=$2 work=$3
fail() { echo "FAIL [trace_headless]: $*" >&2; exit 1; }
mkdir -p "$work"
export SDL_VIDEODRIVER=offscreen SDL_RENDER_VSYNC=0

good="$work/headless.trace"
"$make_trace" "$good" 40 200 0 statics >/dev/null || fail "make_trace could not write $good"
rc=0
out=$("$demo" --trace "$good" --frames 39 --compare brute,grid,sap,hshg,quadtree 2>&1) || rc=$?
[[ $rc -eq 0 ]] || fail "the good trace: exit $rc: $out"
line=$(grep 'steps=' <<<"$out" | tail -n 1)
[[ $line == *" scene=trace "* && $line == *" trace_frame=40 trace_frames=40"* ]] ||
    fail "not at the trace's last frame: $line"
grep -q '^verdict: For this scene pick ' <<<"$out" || fail "no verdict line: $out"
[[ $(grep -c 'mismatch_ticks=0 ' <<<"$out") == 5 ]] || fail "a compared technique disagreed: $out"

# Bad traces: exit 2, the message names the file and what is wrong.
header='frame,id,min_x,min_y,max_x,max_y,static'
printf '%s\n0,1,0,0,1,1,0\n0,1,2,2,3,3,0\n' "$header" >"$work/twice.csv"
printf '%s\n0,1,0,0,nan,1,0\n' "$header" >"$work/nan.csv"
printf 'not a trace\n' >"$work/magic.trace"
head -c 500 "$good" >"$work/truncated.trace"
for bad in twice.csv nan.csv magic.trace truncated.trace missing.trace; do
    rc=0
    err=$("$demo" --trace "$work/$bad" --frames 5 2>&1 >/dev/null) || rc=$?
    [[ $rc -eq 2 ]] || fail "$bad: exit $rc, expected 2 ($err)"
    [[ $err == "ro_demo: --trace: trace '$work/$bad'"* ]] || fail "$bad: the message does not name the file: $err"
    echo "$bad: $err"
done
echo "ok [trace_headless]"

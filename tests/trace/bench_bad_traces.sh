#!/usr/bin/env bash
# ro_bench --trace on bad traces, written here: each refused before any run with one message
# on stderr naming the file and where (frame, line or box), nothing on stdout, exit 2
# (tests/support/expect_usage_error.sh). The library's tests cover each defect in detail.
# usage: bench_bad_traces.sh RO_BENCH RO_MAKE_TRACE WORK_DIR SOURCE_DIR
set -euo pipefail
bench=$1 make=$2 work=$3 source=$4
expect="$source/tests/support/expect_usage_error.sh"
rm -rf "$work" && mkdir -p "$work"
header="frame,id,min_x,min_y,max_x,max_y,static"
"$make" "$work/good.trace" 6 50 1 statics >/dev/null
"$make" "$work/one_frame.trace" 1 50 0 >/dev/null

# Little-endian 32-bit words, as printf escapes.
word() { printf "\\\\x%02x\\\\x%02x\\\\x%02x\\\\x%02x" $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
magic='\x89ROTRACE'

head -c 200 "$work/good.trace" >"$work/truncated.trace"
printf 'PK\x03\x04 not a trace' >"$work/zip.trace"
printf "$magic$(word 2)$(word 0)" >"$work/version2.trace"
printf "$magic$(word 1)$(word 0)$(word 10000001)" >"$work/over_limit.trace"
printf '%s\n0,1,0,0,1,1,0\n0,2,0,nan,1,1,0\n' "$header" >"$work/nan.csv"
printf '%s\n0,1,0,0,1,1,0\n1,1,3,0,1,1,0\n' "$header" >"$work/inverted.csv"
printf '%s\n0,1,0,0,1,1,0\n0,1,2,2,3,3,0\n' "$header" >"$work/duplicate.csv"
printf '%s\n1,1,0,0,1,1,0\n0,1,0,0,1,1,0\n' "$header" >"$work/out_of_order.csv"
printf '%s\n0,1,0,0,1,1\n' "$header" >"$work/short_row.csv"
printf 'x,y,w,h\n1,2,3,4\n' >"$work/not_ours.csv"

cases=(
    "$work/truncated.trace': frame 0|truncated: 50 boxes need 1050 bytes"
    "$work/zip.trace': not a binary trace|wrong magic"
    "$work/version2.trace': version 2|and this reader reads version 1"
    "$work/over_limit.trace': frame 0: 10000001 boxes|over the limit of 10000000"
    "$work/nan.csv': frame 0, line 3 (id 2)|not a finite number"
    "$work/inverted.csv': frame 1, line 3 (id 1)|min_x 3.000000 > max_x 1.000000"
    "$work/duplicate.csv': frame 0, line 3 (id 1)|appears twice"
    "$work/out_of_order.csv': frame 0, line 3|frames out of order"
    "$work/short_row.csv': line 2|6 fields, expected 7"
    "$work/not_ours.csv': line 1|the header must be"
    "$work/missing.trace': cannot open|cannot open the file"
    "$work/one_frame.trace': 1 frame|a run needs 2 at least"
)
for case in "${cases[@]}"; do
    where=${case%%|*} text=${case#*|}
    file=${where%%\'*}
    bash "$expect" "trace '$where" "$bench" --trace "$file" --peers --check >/dev/null
    bash "$expect" "$text" "$bench" --trace "$work/good.trace,$file" >/dev/null
done
# What makes a scene of its own does not mix with a trace; the trace must hold the frames asked for.
bash "$expect" "--scenario makes a scene of its own" "$bench" --trace "$work/good.trace" --scenario uniform >/dev/null
bash "$expect" "--n makes a scene of its own" "$bench" --trace "$work/good.trace" --n 100 >/dev/null
bash "$expect" "has 6 frames: fewer than 1 built + --warmup 1 + --frames 10" "$bench" --trace "$work/good.trace" \
    --warmup 1 --frames 10 >/dev/null
bash "$expect" "--warmup 5 leaves none to measure" "$bench" --trace "$work/good.trace" --warmup 5 >/dev/null
bash "$expect" "--trace lists" "$bench" --trace "$work/good.trace,$work/good.trace" >/dev/null
bash "$expect" "--trace was given an empty value" "$bench" --trace "" >/dev/null
echo "ok [bench_bad_traces]: ${#cases[@]} bad traces and 6 bad command lines, each refused with its message"

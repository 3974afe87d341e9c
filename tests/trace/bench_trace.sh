#!/usr/bin/env bash
# ro_bench --trace on traces written now by ro_make_trace (churn, statics, filters; binary and
# CSV): --check passes for every technique and peer, and each row's overlaps a frame equal the
# count ro_make_trace made the plain way, every pair tested; the CSV and binary encodings of
# the same frames give the same answers; --passes, --csv and --json work on traces.
# No time is compared with anything.
# usage: bench_trace.sh RO_BENCH RO_MAKE_TRACE WORK_DIR
set -euo pipefail
bench=$1 make=$2 work=$3
fail() { echo "FAIL [bench_trace]: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
warmup=2

# name frames bodies options...
expected_filters=$("$make" "$work/filters.trace" 14 400 $warmup statics filters)
expected_plain=$("$make" "$work/plain.trace" 12 300 $warmup)
expected_csv=$("$make" "$work/plain_csv.csv" 12 300 $warmup)
"$make" "$work/statics.csv" 14 400 $warmup statics >"$work/expected_statics"
expected_statics=$(<"$work/expected_statics")
[[ $expected_plain == "$expected_csv" ]] || fail "ro_make_trace wrote different frames to .trace and .csv"

"$bench" --trace "$work/filters.trace,$work/plain.trace,$work/plain_csv.csv,$work/statics.csv" --warmup $warmup \
    --check --peers --passes 2 --csv "$work/rows.csv" --json "$work/rows.json" >"$work/out.txt" 2>"$work/err.txt" ||
    fail "ro_bench exited $?: $(cat "$work/err.txt")"
grep -q "check: every frame of every run matched the reference" "$work/out.txt" || fail "no check line: $(cat "$work/out.txt")"
python3 -c "import json,sys; rows=json.load(open(sys.argv[1])); assert len(rows) > 0" "$work/rows.json" ||
    fail "rows.json is not a list of rows"

# Every row of every trace: its scene is the file's name, its overlaps the plain count, its
# check ok (the reference's own row says unchecked).
declare -A expected=([filters]=$expected_filters [plain]=$expected_plain [plain_csv]=$expected_csv
                     [statics]=$expected_statics)
rows=0
while IFS=, read -r scene motion technique peer overlaps check passes; do
    [[ -n ${expected[$scene]+x} ]] || fail "a row of scene '$scene', not a trace's name"
    [[ $motion == trace ]] || fail "$scene $technique: motion '$motion'"
    [[ $overlaps == "${expected[$scene]}" ]] ||
        fail "$scene $technique: $overlaps overlaps a frame, and the plain count is ${expected[$scene]}"
    [[ $check == ok || ($technique == brute && $check == unchecked) ]] || fail "$scene $technique: check '$check'"
    [[ $passes == 2 ]] || fail "$scene $technique: $passes passes"
    rows=$((rows + 1))
done < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                 { print $col["scenario"] "," $col["motion"] "," $col["technique"] "," $col["peer"] "," \
                         $col["overlaps"] "," $col["check"] "," $col["passes"] }' "$work/rows.csv")
techniques=$("$bench" --list | awk '/^techniques/ { t = 1; next } /^peers/ { t = 0 } t && /^  [a-z]/ { n++ } END { print n }')
(( rows >= 4 * techniques )) || fail "$rows rows for 4 traces and $techniques techniques"
peers=$(awk -F, 'NR > 1 && $5 == "true"' "$work/rows.csv" | wc -l)

# The same frames in both encodings: every contestant's answers alike.
diff <(awk -F, '$1 == "plain" { print $4, $11, $12 }' "$work/rows.csv") \
     <(awk -F, '$1 == "plain_csv" { print $4, $11, $12 }' "$work/rows.csv") >/dev/null ||
    fail "the CSV and binary encodings of the same frames gave different candidates or overlaps"
echo "ok [bench_trace]: $rows rows ($peers of peers) on 4 traces, every one checked and equal to the plain count"

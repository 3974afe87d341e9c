#!/usr/bin/env bash
# One engine's scene recorded by ro_record, then run by ro_bench --trace --check with the
# peers: every technique's and every peer's pairs equal the reference's on every frame, and
# the engine's own broad phase is among the peers checked. No time is compared with anything.
# usage: record_check.sh RO_RECORD RO_BENCH WORK_DIR ENGINE SCENE SCALE
set -euo pipefail
record=$1 bench=$2 work=$3 engine=$4 scene=$5 scale=$6
fail() { echo "FAIL [record_check $engine $scene]: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
trace="$work/${engine}_$scene.trace"

"$record" --engine "$engine" --scene "$scene" --frames 20 --scale "$scale" --out "$trace" >"$work/record.txt" ||
    fail "ro_record exited $?"
[[ -s $trace ]] || fail "no trace written"
compgen -G "$trace.partial*" >/dev/null && fail "a .partial file was left"

rc=0
"$bench" --trace "$trace" --warmup 2 --check --peers --csv "$work/rows.csv" >"$work/out.txt" 2>"$work/err.txt" || rc=$?
[[ $rc -eq 0 ]] || fail "ro_bench exited $rc: $(cat "$work/err.txt")"
grep -q "check: every frame of every run matched the reference" "$work/out.txt" || fail "no check line: $(cat "$work/out.txt")"

# Every row: the trace's scene, its check ok (the reference's own row says unchecked).
rows=0 peers=0 own=0
while IFS=, read -r name technique peer check; do
    [[ $name == "${engine}_$scene" ]] || fail "a row of scene '$name'"
    [[ $check == ok || ($technique == brute && $check == unchecked) ]] || fail "$technique: check '$check'"
    rows=$((rows + 1))
    [[ $peer == true ]] && peers=$((peers + 1))
    [[ $peer == true && $technique == "$engine"-* ]] && own=$((own + 1))
done < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                 { print $col["scenario"] "," $col["technique"] "," $col["peer"] "," $col["check"] }' "$work/rows.csv")
techniques=$("$bench" --list | awk '/^techniques/ { t = 1; next } /^peers/ { t = 0 } t && /^  [a-z]/ { n++ } END { print n }')
(( rows >= techniques + 1 )) || fail "$rows rows for $techniques techniques and the peers"
(( own >= 1 )) || fail "no row of $engine's own broad phase among the $peers peers"
echo "ok [record_check $engine $scene]: $rows rows ($peers peers, $own of $engine), every one checked"

#!/usr/bin/env bash
# Before a run's frames, ro_bench says on stdout what it is starting: one line per contestant,
# before the table of its scene, so a long run is never silent (stderr may not be a terminal).
# usage: starting_lines.sh RO_BENCH
set -euo pipefail

bench=$1
fail() { echo "FAIL [starting lines]: $*" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT

"$bench" --technique grid,hshg --n 200,300 --frames 2 --warmup 0 --passes 2 >"$out" 2>/dev/null ||
    fail "exit status $?"
starts=$(grep -c '^starting ' "$out" || true)
[[ $starts -eq 8 ]] || fail "expected 8 starting lines (2 techniques x 2 counts x 2 passes), got $starts: $(cat "$out")"
for n in 200 300; do
    table=$(grep -n "^uniform (steady motion), n = $n\$" "$out" | cut -d: -f1)
    [[ -n $table ]] || fail "no table for n=$n: $(cat "$out")"
    for technique in grid hshg; do
        for pass in 1 2; do
            line=$(grep -n "^starting uniform (steady) n=$n pass $pass/2: $technique\\b" "$out" | cut -d: -f1)
            [[ -n $line ]] || fail "no starting line for $technique at n=$n, pass $pass: $(cat "$out")"
            ((line < table)) || fail "the starting line of $technique at n=$n comes after its table"
        done
    done
done
echo "ok [starting lines]:"
grep '^starting ' "$out"

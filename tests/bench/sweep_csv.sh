#!/usr/bin/env bash
# ro_bench's sweeps print CSV whose columns parse (the app's plots export the same ones), and
# brute force's pair tests in a scaling sweep are n(n-1)/2 at each n.
# usage: sweep_csv.sh RO_BENCH OUT_DIR
set -euo pipefail

bench=$1 out=$2
fail() { echo "FAIL [sweep csv]: $*" >&2; exit 1; }
mkdir -p "$out"
header='scenario,technique,parameter,value,n,ms_median,candidates,pair_tests,bytes'

"$bench" --sweep-n --technique brute,grid,hshg --n 100,400,1600,3000 --csv "$out/sweep_n.csv" >"$out/sweep_n.out"
cmp -s "$out/sweep_n.csv" "$out/sweep_n.out" || fail "--csv and stdout differ"
[[ $(head -n 1 "$out/sweep_n.csv") == "$header" ]] || fail "header: $(head -n 1 "$out/sweep_n.csv")"
rows=$(tail -n +2 "$out/sweep_n.csv" | wc -l)
[[ $rows -eq 12 ]] || fail "expected 12 rows (3 techniques x 4 counts), got $rows"
# Every row: 9 fields; numbers where numbers belong.
awk -F, 'NR > 1 && (NF != 9 || $4 !~ /^[0-9.e+-]+$/ || $5 !~ /^[0-9]+$/ || $6 !~ /^[0-9.]+$/ ||
         $7 !~ /^[0-9]+$/ || $8 !~ /^[0-9]+$/ || $9 !~ /^[0-9]+$/) { print "bad row " NR ": " $0; bad = 1 }
         END { exit bad }' "$out/sweep_n.csv" || fail "a row does not parse"
awk -F, 'NR > 1 && $2 == "brute" { n = $5; if ($8 != n * (n - 1) / 2) { print "n=" n ": pair_tests=" $8; bad = 1 }; seen++ }
         END { exit bad || seen != 4 }' "$out/sweep_n.csv" || fail "brute force's pair tests are not n(n-1)/2"
# The techniques agree on what they found: the same candidates for the exact ones (brute, hshg).
awk -F, 'NR > 1 && ($2 == "brute" || $2 == "hshg") { c[$5] = c[$5] "," $7 } END { for (n in c) { split(substr(c[n], 2), v, ","); if (v[1] != v[2]) { print n ": " c[n]; bad = 1 } } exit bad }' \
    "$out/sweep_n.csv" || fail "brute force and the HSHG found different pairs"
echo "sweep-n: $rows rows, brute force's tests are n(n-1)/2"

"$bench" --sweep-param cell_size=0.5:8:5 --technique grid,hash,sap --n 5000 >"$out/sweep_param.csv"
[[ $(head -n 1 "$out/sweep_param.csv") == "$header" ]] || fail "param header"
rows=$(awk -F, 'NR > 1 && $3 == "cell_size"' "$out/sweep_param.csv" | wc -l)
[[ $rows -eq 10 ]] || fail "expected 10 rows (grid and hash, 5 values; sap has no cell size), got $rows"
awk -F, 'NR > 1 { v[$4] = 1 } END { exit !(v[0.5] && v[8]) }' "$out/sweep_param.csv" || fail "the ends 0.5 and 8 are missing"
echo "sweep-param: $rows rows"

# A sweep measures each scene in its own region: the grid is given the scene's bounds, so at
# 100,000 entities (a region far larger than the default one) it tests about one pair per
# entity, where a grid clamped to the default region tested thirty (2,988,513).
"$bench" --sweep-n --technique grid --n 5000,100000 >"$out/sweep_grid.csv"
awk -F, 'NR > 1 { if ($8 >= 2 * $5) { print "n=" $5 ": pair_tests=" $8; bad = 1 } seen++ } END { exit bad || seen != 2 }' \
    "$out/sweep_grid.csv" || fail "the grid tested more than 2 pairs per entity: not in the scene's region?"
echo "sweep-n grid at 100,000: $(awk -F, 'NR == 3 { print $8 }' "$out/sweep_grid.csv") pair tests"

#!/usr/bin/env bash
# `ro_demo --compare all --frames 200` on every preset: one line per technique, each with
# 200 ticks and no mismatch, and exit 0; and a scenario's scene name in the counters line.
# usage: compare_presets.sh RO_DEMO OUT_DIR
set -euo pipefail

demo=$1 out=$2
fail() { echo "FAIL [compare presets]: $*" >&2; exit 1; }
mkdir -p "$out"
techniques=$("$demo" --list-techniques | wc -l)

for preset in random $("$demo" --list-scenarios); do
    # onecell's every pair overlaps: 300 boxes make 45,000 pairs a tick for each technique.
    count=1000
    [[ $preset == onecell ]] && count=300
    args=(--compare all --frames 200 --entities $count)
    [[ $preset == random ]] || args+=(--scenario "$preset")
    log="$out/compare_$preset.out"
    rc=0
    "$demo" "${args[@]}" >"$log" 2>"$out/compare_$preset.err" || rc=$?
    [[ $rc -eq 0 ]] || fail "$preset: exit $rc: $(cat "$out/compare_$preset.err") $(grep -v 'mismatch_ticks=0 ' "$log")"
    grep -q "scene=$preset " "$log" || fail "$preset: the counters line does not name the scene"
    rows=$(grep -c '^compare=' "$log")
    [[ $rows -eq $techniques ]] || fail "$preset: $rows compare lines, expected $techniques"
    wrong=$(grep '^compare=' "$log" | grep -v ' ticks=200 ' || true)
    [[ -z $wrong ]] || fail "$preset: a technique ran fewer than 200 ticks: $wrong"
    wrong=$(grep '^compare=' "$log" | grep -v ' mismatch_ticks=0 reference_disagreements=0' || true)
    [[ -z $wrong ]] || fail "$preset: $wrong"
    echo "$preset: $rows techniques, 200 ticks, no mismatch ($SECONDS s)"
done

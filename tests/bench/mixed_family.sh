#!/usr/bin/env bash
# The mixed family (--mixed F:MIN:MAX:SPACING): --check passes on every point of a grid of it at
# 10,000 boxes, for every technique and peer; the rows name the point; and without --mixed,
# mixed is the fixed mix it always was (the same pairs as --mixed's default point does not
# promise: its big boxes sit elsewhere).
# usage: mixed_family.sh RO_BENCH
set -euo pipefail

bench=$1
fail() { echo "FAIL [mixed family]: $*" >&2; exit 1; }
points=0
for fraction in 0 0.25 0.5; do
    for sizes in 10:40 20:100; do
        for spacing in 1.5 8; do
            point="$fraction:$sizes:$spacing"
            out=$("$bench" --scenario mixed --mixed "$point" --n 10000 --frames 3 --warmup 1 --check --peers 2>&1) ||
                fail "--mixed $point: exit $?: $(tail -n 5 <<<"$out")"
            grep -q "^mixed:$point (steady motion), n = 10000" <<<"$out" || fail "--mixed $point: no table for the point"
            grep -q 'every frame of every run matched the reference' <<<"$out" || fail "--mixed $point: not checked"
            points=$((points + 1))
        done
    done
done
echo "--check passed on $points points of the mixed family at 10,000"

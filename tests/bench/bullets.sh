#!/usr/bin/env bash
# Fast movers (--motion bullets and the bullets scene): --check passes with and without
# --swept for every technique and peer; without swept boxes every contestant misses the
# same collisions (more than none), with them none.
# usage: bullets.sh RO_BENCH
set -euo pipefail

bench=$1
fail() { echo "FAIL [bullets]: $*" >&2; exit 1; }
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
# The missed_per_frame column (the last) of every row, one per line.
missed() { tail -n +2 "$csv" | awk -F, '{print $NF}'; }
for swept in "" --swept; do
    for run in "--motion bullets --scenario uniform,clustered,mixed,dense" "--scenario bullets"; do
        # shellcheck disable=SC2086
        out=$("$bench" $run $swept --n 300,3000 --frames 6 --warmup 1 --check --peers --csv "$csv" 2>&1) ||
            fail "$run $swept: exit $?: $(tail -n 5 <<<"$out")"
        grep -q 'every frame of every run matched the reference' <<<"$out" || fail "$run $swept: not checked"
        [[ -n "$(missed)" ]] || fail "$run $swept: no rows"
        if [[ -n $swept ]]; then
            bad=$(missed | grep -vc '^0$' || true)
            [[ $bad -eq 0 ]] || fail "$run --swept: $bad rows missed collisions: $(missed | sort -u | tr '\n' ' ')"
        else
            zero=$(missed | grep -c '^0$' || true)
            [[ $zero -eq 0 ]] || fail "$run: $zero rows missed nothing: the scene should have tunnelling"
        fi
    done
done
echo "bullets: checked with and without swept boxes; swept boxes missed nothing"

#!/usr/bin/env bash
# ro_bench's table has the "vs peer" column and its footnote only when a peer ran: without a
# peer there is no ratio to show.
# usage: table_peers.sh RO_BENCH
set -euo pipefail

bench=$1
fail() { echo "FAIL [table peers]: $*" >&2; exit 1; }
run=(--technique grid,hshg --n 500 --frames 3 --warmup 1)

alone=$("$bench" "${run[@]}")
grep -q '^grid ' <<<"$alone" || fail "no grid row without peers: $alone"
if grep -q 'vs peer' <<<"$alone"; then fail "a 'vs peer' column without peers: $alone"; fi
if grep -q 'a peer;' <<<"$alone"; then fail "the peers' footnote without peers: $alone"; fi

with=$("$bench" "${run[@]}" --peers)
grep -q 'vs peer' <<<"$with" || fail "no 'vs peer' column with --peers: $with"
grep -q '^box2d-tree\*' <<<"$with" || fail "no box2d row with --peers: $with"
grep -q 'a peer;' <<<"$with" || fail "no footnote with --peers: $with"
echo "the peer column shows only with peers"

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
# The peers are compiled in when their Debian packages are found (scripts/install-deps.sh
# installs them); a build without them runs no peer, and then shows no column either.
if grep -q '^[a-z0-9-]*\* ' <<<"$with"; then
    grep -q 'vs peer' <<<"$with" || fail "no 'vs peer' column with peers: $with"
    grep -q 'a peer;' <<<"$with" || fail "no footnote with peers: $with"
    echo "the peer column shows only with peers ($(grep -c '^[a-z0-9-]*\* ' <<<"$with") peer rows)"
else
    if grep -q 'vs peer' <<<"$with"; then fail "a 'vs peer' column, and no peer in this build: $with"; fi
    echo "no peer compiled in: no peer column"
fi

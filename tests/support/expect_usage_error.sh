#!/usr/bin/env bash
# A bad command line must print ONE message on stderr, nothing on stdout, and exit with 2.
# usage: expect_usage_error.sh EXPECTED_TEXT PROGRAM ARGS...   (EXPECTED_TEXT: part of the message)
# RO_EXPECT_TIMEOUT (seconds, default 20) only guards against a hang; a case that reads a
# large file on a loaded machine sets more.
# An argument spelled {empty} is passed as an empty string (CMake drops empty list items).
set -euo pipefail

expected=$1 program=$2
shift 2
args=()
for arg in "$@"; do
    if [[ $arg == "{empty}" ]]; then args+=(""); else args+=("$arg"); fi
done
fail() { echo "FAIL [$(basename "$program") ${args[*]@Q}]: $*" >&2; exit 1; }
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

rc=0
timeout "${RO_EXPECT_TIMEOUT:-20}" "$program" "${args[@]}" >"$out" 2>"$err" || rc=$?
[[ $rc -eq 2 ]] || fail "exit code $rc, expected 2; stderr: $(<"$err")"
lines=$(wc -l <"$err")
[[ $lines -eq 1 ]] || fail "expected one line on stderr, got $lines: $(<"$err")"
[[ ! -s $out ]] || fail "stdout should be empty: $(<"$out")"
grep -qF -- "$expected" "$err" || fail "stderr lacks '$expected': $(<"$err")"
echo "ok: $(<"$err")"

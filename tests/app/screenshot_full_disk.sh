#!/usr/bin/env bash
# A screenshot whose writing fails (a full disk: a .png name linked to /dev/full, which the
# check before the first frame cannot tell from a good file) must exit 1 and name the file.
# usage: screenshot_full_disk.sh RO_DEMO OUT_DIR
set -euo pipefail

demo=$1 out=$2
fail() { echo "FAIL [screenshot on a full disk]: $*" >&2; exit 1; }
mkdir -p "$out"
png="$out/full_disk.png"
ln -sfn /dev/full "$png"
rc=0
SDL_VIDEODRIVER=offscreen "$demo" --frames 1 --screenshot "$png" >/dev/null 2>"$out/full_disk.err" || rc=$?
[[ $rc -eq 1 ]] || fail "exit status $rc, expected 1; stderr: $(cat "$out/full_disk.err")"
grep -qF "'$png'" "$out/full_disk.err" || fail "stderr does not name '$png': $(cat "$out/full_disk.err")"
echo "ok [screenshot on a full disk]: $(grep -F "'$png'" "$out/full_disk.err")"

#!/usr/bin/env bash
# A stop signal ends a busy ro_demo at once, with the signal's conventional status (128 + signal).
# ro_demo runs brute force at its limit (about 0.5 s a step here, so the signal lands in a step
# or between two) for far more frames than the test waits; once it has reported its first frame,
# the signal is sent and the program must be gone within 3 s with the status.
# usage: stop_signal.sh RO_DEMO SIGNAL(TERM|INT) OUT_DIR
set -euo pipefail

demo=$1 signal=$2 out=$3
case $signal in
    TERM) expected=143 ;;
    INT) expected=130 ;;
    *) echo "unknown signal $signal" >&2; exit 1 ;;
esac
fail() { echo "FAIL [stop on SIG$signal]: $*" >&2; exit 1; }

mkdir -p "$out"
log="$out/stop_$signal.out"
err="$out/stop_$signal.err"
# A log left by an earlier run could be read before the shell below truncates it: gone first.
rm -f "$log" "$err"
# A job started in the background of a non-interactive shell ignores SIGINT; `set -m` gives it
# its own process group, where SIGINT keeps its default disposition.
set -m
SDL_VIDEODRIVER=offscreen "$demo" --technique brute --entities 20000 --frames 100000 --report-every 1 \
    >"$log" 2>"$err" &
pid=$!
set +m
trap 'kill -KILL $pid 2>/dev/null || true' EXIT

for ((i = 0; i < 300; ++i)); do
    grep -q '^frame=1 ' "$log" && break
    kill -0 $pid 2>/dev/null || fail "ro_demo ended before its first frame: $(cat "$err")"
    sleep 0.1
done
grep -q '^frame=1 ' "$log" || fail "no first frame after 30 s"

kill -s "$signal" $pid
sent=$(date +%s.%N)
for ((i = 0; i < 30; ++i)); do
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
done
kill -0 $pid 2>/dev/null && fail "still running 3 s after SIG$signal"
rc=0
wait $pid || rc=$?
took=$(awk -v a="$sent" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
[[ $rc -eq $expected ]] || fail "exit status $rc, expected $expected (stderr: $(cat "$err"))"
echo "ok [stop on SIG$signal]: status $rc after ${took} s, $(grep -c '^frame=' "$log") frames"

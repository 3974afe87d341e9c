#!/usr/bin/env bash
# Hostile paths and files given to ro_demo, one case a run: each is refused with exit 2 and one
# message (or, for an output that fails while written, exit 1), and none hangs or crashes.
# Every file is made here; `timeout` only guards against a hang.
# usage: hostile_files.sh RO_DEMO EXPECT_USAGE_ERROR OUT_DIR CASE
set -euo pipefail

demo=$1 expect=$2 out=$3 case=$4
fail() { echo "FAIL [hostile $case]: $*" >&2; exit 1; }
dir="$out/hostile_$case"
rm -rf "$dir"
mkdir -p "$dir"
export SDL_VIDEODRIVER=offscreen

scene="$dir/scene.json"
saveScene() { "$demo" --entities 200 --frames 2 --save "$scene" >/dev/null || fail "--save of a good scene exited $?"; }
# A recorded replay with a few inputs (a count change among them).
recordReplay() { "$demo" --entities 200 --frames 3 --record "$dir/replay.json" >/dev/null || fail "--record exited $?"; }

case $case in
    nested_load | nested_replay)  # 1: 100,000 nested arrays in an otherwise ignored key
        { printf '{"junk": '; head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'
          printf ', "a": 1}'; } >"$dir/deep.json"
        flag=--load; [[ $case == nested_replay ]] && flag=--replay
        bash "$expect" 'nested too deep' "$demo" "$flag" "$dir/deep.json" --frames 1 || fail "not refused"
        ;;
    load_dev_zero)  # 2: a device that never ends
        bash "$expect" 'not a regular file' "$demo" --load /dev/zero --frames 1 || fail "not refused"
        ;;
    load_too_large)  # 2: over the size limit (a sparse file: no disk used)
        truncate -s 2G "$dir/huge.json"
        bash "$expect" 'bytes, more than' "$demo" --replay "$dir/huge.json" --frames 1 || fail "not refused"
        ;;
    load_long_array)  # 2: an ignored key of 3 million items is refused while parsed
        awk 'BEGIN { printf "{\"junk\": ["; for (i = 0; i < 3000000; ++i) printf "0,"; printf "0], \"a\": 1}" }' >"$dir/long.json"
        RO_EXPECT_TIMEOUT=180 bash "$expect" 'more than 2000000 items' "$demo" --load "$dir/long.json" --frames 1 || fail "not refused"
        rm -f "$dir/long.json"
        ;;
    load_too_many_boxes)  # a minimal scene of more boxes than the app loads: refused at the one too many
        awk 'BEGIN { printf "{\"entities\": ["; for (i = 0; i < 2000001; ++i) printf "{\"x\":%d,\"y\":0,\"w\":1,\"h\":1},", i % 1000
                     printf "{\"x\":0,\"y\":0,\"w\":1,\"h\":1}]}" }' >"$dir/boxes.json"
        RO_EXPECT_TIMEOUT=180 bash "$expect" "'entities' has more than 2000000 boxes" "$demo" --load "$dir/boxes.json" --frames 1 || fail "not refused"
        rm -f "$dir/boxes.json"
        ;;
    fifo_load | fifo_replay | fifo_save | fifo_record | fifo_screenshot)  # 3: a FIFO blocks nobody
        flag=--${case#fifo_}
        path="$dir/fifo.json"; [[ $flag == --screenshot ]] && path="$dir/fifo.png"
        mkfifo "$path"
        bash "$expect" 'FIFO' "$demo" "$flag" "$path" --frames 1 || fail "not refused"
        ;;
    save_symlink | record_symlink)  # 7: a symlink stays a symlink; its target gets the file
        flag=--${case%_symlink}
        echo old >"$dir/target.json"
        ln -s target.json "$dir/link.json"
        timeout 60 "$demo" --entities 100 --frames 2 "$flag" "$dir/link.json" >/dev/null || fail "exited $?"
        [[ -L $dir/link.json ]] || fail "the symlink was replaced by a file"
        grep -q '"format": "ro-broadphase-lab' "$dir/target.json" || fail "the symlink's target was not written"
        ;;
    save_device | record_device)  # 7: a character device is written through, never replaced
        flag=--${case%_device}
        mknod "$dir/null" c 1 3 2>/dev/null || { echo "skipped: mknod is not allowed here"; exit 0; }
        timeout 60 "$demo" --entities 100 --frames 2 "$flag" "$dir/null" >/dev/null || fail "exited $?"
        [[ -c $dir/null ]] || fail "the device node was replaced by a regular file"
        ;;
    save_full | record_full)  # 7: a write that fails (a full disk) exits 1 and names the path
        flag=--${case%_full}
        ln -s /dev/full "$dir/full.json"
        rc=0
        timeout 60 "$demo" --entities 100 --frames 2 "$flag" "$dir/full.json" >/dev/null 2>"$dir/err" || rc=$?
        [[ $rc -eq 1 ]] || fail "exit status $rc, expected 1; stderr: $(cat "$dir/err")"
        [[ -L $dir/full.json ]] || fail "the symlink to /dev/full was replaced by a file"
        grep -qF "$dir/full.json" "$dir/err" || fail "stderr does not name the path: $(cat "$dir/err")"
        ;;
    stop_during_load)  # 8: SIGTERM ends a long load at once, not after the parse
        # A valid scene with an ignored key of 14 lists of 1.9 million numbers (about 53 MB),
        # which takes many seconds to parse in any build.
        saveScene
        { printf '{"junk": ['
          awk 'BEGIN { for (k = 0; k < 14; ++k) { printf "["; for (i = 0; i < 1900000; ++i) printf "0,"; printf "0]," } }'
          printf '[]],'; tail -c +2 "$scene"; } >"$dir/slow.json"
        "$demo" --load "$dir/slow.json" --frames 1 >"$dir/out" 2>"$dir/err" &
        pid=$!
        trap 'kill -KILL $pid 2>/dev/null || true' EXIT
        sleep 1
        kill -0 $pid 2>/dev/null || fail "ended before the signal: $(cat "$dir/err")"
        kill -TERM $pid
        for ((i = 0; i < 30; ++i)); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
        kill -0 $pid 2>/dev/null && fail "still loading 3 s after SIGTERM"
        rc=0; wait $pid || rc=$?
        rm -f "$dir/slow.json"  # 53 MB
        [[ $rc -eq 143 ]] || fail "exit status $rc, expected 143; stderr: $(cat "$dir/err")"
        grep -q 'stopped by a signal while reading' "$dir/err" || fail "stderr does not say the load stopped: $(cat "$dir/err")"
        ;;
    *) fail "unknown case" ;;
esac
echo "ok [hostile $case]"

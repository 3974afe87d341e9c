# Sourced by the Xvfb end-to-end scripts. Expects: name (the test's tag), demo, work, and the
# script's own arguments in "$@". Re-runs the calling script inside xvfb-run once, then
# defines out/err files, fail, cleanup, and the helpers that read the app's counters line
# (printed with --report-every) and wait on it with a deadline instead of fixed sleeps.

if [[ -z ${RO_E2E_INSIDE_XVFB:-} ]]; then
    command -v xvfb-run >/dev/null || { echo "FAIL: xvfb-run not found (apt-get install xvfb)" >&2; exit 1; }
    command -v xdotool >/dev/null || { echo "FAIL: xdotool not found (apt-get install xdotool)" >&2; exit 1; }
    export RO_E2E_INSIDE_XVFB=1
    exec xvfb-run -a -s "-screen 0 1280x800x24" bash "$(readlink -f "$0")" "$@"
fi

mkdir -p "$work"
out="$work/$name.out"
err="$work/$name.err"
pid=""
fail() {
    echo "FAIL [$name]: $*" >&2
    # What the window showed: F12 writes ro_lab_*.png into the app's working directory.
    if [[ -n ${wid:-} && -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
        xdotool key --window "$wid" F12 2>/dev/null && sleep 1 && echo "--- screenshot: $(ls -t ro_lab_*.png 2>/dev/null | head -n 1)" >&2
    fi
    echo "--- last app output:" >&2
    tail -n 3 "$out" >&2 || true
    echo "--- app stderr:" >&2
    cat "$err" >&2 || true
    exit 1
}
cleanup() { if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then kill "$pid"; fi; }
trap cleanup EXIT

# Latest counters line, and one key's value in it.
latest() { grep 'steps=' "$out" | tail -n 1 || true; }
value() { latest | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# Waits (at most 20 s) until the app has reported frame >= $1.
wait_frame() {
    local deadline=$((SECONDS + 20)) frame
    while :; do
        frame=$(value frame)
        [[ -n $frame ]] && (( frame >= $1 )) && return 0
        kill -0 "$pid" 2>/dev/null || fail "the app exited while waiting for frame $1"
        (( SECONDS < deadline )) || fail "timed out waiting for frame $1"
        sleep 0.05
    done
}
# Waits (at most $4 s, 30 by default) until key $1 of the latest report satisfies the awk
# test $2 (on v); $3 says what failed otherwise.
wait_until() {
    local deadline=$((SECONDS + ${4:-30})) v
    while :; do
        v=$(value "$1")
        [[ -n $v ]] && awk -v v="$v" "BEGIN { exit !($2) }" && return 0
        kill -0 "$pid" 2>/dev/null || fail "the app exited while waiting for $1 ($2)"
        (( SECONDS < deadline )) || fail "timed out waiting for $1 to satisfy '$2' (it is '$v'): $3"
        sleep 0.05
    done
}
# Lets the app run ten more frames (several reports), so it has seen a whole press and release.
settle() { wait_frame $(( $(value frame) + 10 )); }

# Starts the app ("$@": its flags; "$demo" and the env are the caller's) writing to $out and
# $err, and sets $pid once it has printed its first counters line. Waits first until the X
# server answers. A CI run once saw SDL find no display all the same and fall back to its
# offscreen driver; the app now refuses that with "no display", and is started again (3 tries).
start_app() {
    local deadline=$((SECONDS + 20)) attempt
    until xdotool getdisplaygeometry >/dev/null 2>&1; do
        (( SECONDS < deadline )) || fail "the X server on DISPLAY=${DISPLAY:-unset} does not answer"
        sleep 0.1
    done
    for attempt in 1 2 3; do
        # Emptied before the start: the wait below must not read an earlier run's lines.
        : >"$out"
        : >"$err"
        "$demo" "$@" >"$out" 2>"$err" &
        pid=$!
        deadline=$((SECONDS + 30))
        while ! grep -q 'steps=' "$out"; do
            if ! kill -0 "$pid" 2>/dev/null; then
                wait "$pid" || true
                pid=""
                break
            fi
            (( SECONDS < deadline )) || fail "no counters line within 30 s of starting the app"
            sleep 0.05
        done
        [[ -n $pid ]] && return 0
        grep -q 'no display' "$err" || fail "the app exited while starting"
        echo "start_app: try $attempt found no display: $(cat "$err")" >&2
        sleep 1
    done
    fail "the app found no display in 3 tries"
}

# Prints the id of the app's window once it exists (at most 30 s). The search is
# retried rather than left to `xdotool search --sync`: a window that SDL creates and destroys
# while starting can vanish between xdotool's listing and its property read, and xdotool then
# dies of BadWindow at once instead of waiting.
find_window() {
    local deadline=$((SECONDS + 30)) id
    while (( SECONDS < deadline )); do
        id=$(xdotool search --onlyvisible --name "Ro Broadphase Lab" 2>/dev/null | head -n 1) || true
        # Once seen a CI run find no "visible" window in 10 s while the app drew 380 frames:
        # after 5 s, any window of that name will do.
        if [[ -z $id ]] && (( deadline - SECONDS < 25 )); then
            id=$(xdotool search --name "Ro Broadphase Lab" 2>/dev/null | tail -n 1) || true
        fi
        [[ -n $id ]] && { echo "$id"; return 0; }
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
    done
    echo "find_window: DISPLAY=${DISPLAY:-unset}; windows named so: $(xdotool search --name 'Ro Broadphase Lab' 2>&1 | tr '\n' ' ')" >&2
    return 1
}

# Presses Q and expects the app to exit 0 within 10 s.
quit_with_q() {
    xdotool key q
    local deadline=$((SECONDS + 10)) rc=0
    while kill -0 "$pid" 2>/dev/null; do
        (( SECONDS < deadline )) || fail "the app did not quit within 10 s of pressing Q"
        sleep 0.05
    done
    wait "$pid" || rc=$?
    pid=""
    [[ $rc -eq 0 ]] || fail "exit code $rc after Q, expected 0"
}

# The layout as the latest counters line reports it. ui_rect NAME prints the ImGui window's
# "x y w h" (nothing when it is not shown); world_rect the world's.
ui_rect() { value ui_rects | tr ';' '\n' | sed -n "s/^$1://p" | tr ',' ' '; }
world_rect() { value world_view | tr ',' ' '; }
# A point of window NAME at offset ($2, $3) from its top-left corner, as "x y".
ui_at() { read -r x y _ _ <<<"$(ui_rect "$1")"; [[ -n $x ]] || fail "no window '$1' in ui_rects: $(value ui_rects)"; echo "$((x + $2)) $((y + $3))"; }
# Fails ($1 says when) unless the world's rectangle and every window shown are pairwise apart,
# and the world's rectangle is not empty.
check_apart() {
    local line
    line="world:$(value world_view);$(value ui_rects)"
    awk -v rects="$line" 'BEGIN {
        n = split(rects, item, ";")
        for (i = 1; i <= n; ++i) { split(item[i], kv, ":"); name[i] = kv[1]; split(kv[2], r, ","); x[i] = r[1]; y[i] = r[2]; w[i] = r[3]; h[i] = r[4] }
        if (w[1] < 50 || h[1] < 50) { print "the world has no room: " item[1]; exit 1 }
        for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j)
            if (x[i] < x[j] + w[j] && x[j] < x[i] + w[i] && y[i] < y[j] + h[j] && y[j] < y[i] + h[i]) {
                print name[i] " overlaps " name[j] ": " item[i] " / " item[j]; exit 1 }
    }' || fail "$1: windows overlap: $line"
}

#!/usr/bin/env bash
# What ro_bench writes is checked to the last byte, and a path is only ever a path.
# usage: write_errors.sh RO_BENCH OUT_DIR CASE
#   csv_full, json_full, plot_full: --csv/--json/--plot to a full disk (/dev/full) must exit 1
#       with a message naming the path;
#   csv_fifo, json_fifo, sweep_csv_fifo: a FIFO as the path exits 2 at once;
#   plot_path_not_code: a --plot path holding quotes and semicolons, in a gnuplot command
#       if it reached the script, must run nothing and the PNG must land at exactly that path.
set -euo pipefail

bench=$1 out=$2 case=$3
fail() { echo "FAIL [$case]: $*" >&2; exit 1; }
dir="$out/write_errors_$case"
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
case $case in
    csv_full | json_full | plot_full)
        flag=--${case%_full}
        path=/dev/full
        if [[ $flag == --plot ]]; then
            ln -s /dev/full full.png  # --plot wants a .png name
            path=full.png
        fi
        rc=0
        # One row: a short file that fits the stream's buffer fails only when it is closed.
        "$bench" --n 100 --frames 1 --warmup 0 --technique grid "$flag" "$path" >stdout 2>stderr || rc=$?
        [[ $rc -eq 1 ]] || fail "exit status $rc, expected 1; stderr: $(cat stderr)"
        grep -qF "'$path'" stderr || fail "stderr does not name '$path': $(cat stderr)"
        echo "ok [$case]: $(grep -F "'$path'" stderr)"
        ;;
    csv_fifo | json_fifo | sweep_csv_fifo)  # a FIFO is refused at once, never opened (that blocks)
        flag=--${case%_fifo}
        args=(--n 100 --frames 1 --warmup 0 --technique grid)
        [[ $case == sweep_csv_fifo ]] && { flag=--csv; args+=(--sweep-n); }
        mkfifo rows
        rc=0
        timeout 20 "$bench" "${args[@]}" "$flag" rows >stdout 2>stderr || rc=$?
        [[ $rc -eq 2 ]] || fail "exit status $rc, expected 2; stderr: $(cat stderr)"
        grep -q "a FIFO" stderr || fail "stderr does not say it is a FIFO: $(cat stderr)"
        echo "ok [$case]: $(cat stderr)"
        ;;
    plot_path_not_code)
        path="x'; system('touch PWNED'); set output 'y.png"
        rc=0
        "$bench" --n 100,200 --frames 2 --warmup 0 --technique grid,hshg --plot "$path" >stdout 2>stderr || rc=$?
        [[ ! -e PWNED ]] || fail "the path ran as gnuplot code: PWNED was created"
        [[ $rc -eq 0 ]] || fail "exit status $rc; stderr: $(cat stderr)"
        [[ -s $path ]] || fail "no PNG at the exact path given; directory: $(ls -A)"
        [[ $(head -c 8 "$path" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "'$path' is not a PNG"
        others=$(ls -A | grep -vxF -e "$path" -e stdout -e stderr || true)
        [[ -z $others ]] || fail "files other than the plot were written: $others"
        echo "ok [$case]: $(stat -c %s "$path")-byte PNG at the path given, nothing run"
        ;;
    *) fail "unknown case" ;;
esac

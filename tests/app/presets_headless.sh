#!/usr/bin/env bash
# The presets of the workloads that decide a choice, headless, through the counters line:
# bullets miss collisions until swept boxes are on (--swept-boxes, the panel's checkbox), and
# time of impact then finds the impacts; the static preset's still boxes are static entities;
# the layers preset's filters drop pairs; rain keeps its count while it replaces its drops.
# usage: presets_headless.sh RO_DEMO
set -euo pipefail

demo=$1
fail() { echo "FAIL [presets headless]: $*" >&2; exit 1; }
export SDL_VIDEODRIVER=offscreen SDL_RENDER_VSYNC=0
run() { "$demo" --entities 10000 --frames 30 "$@" | tail -n 1; }
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }

line=$(run --scenario bullets)
[[ $(field "$line" scene) == bullets ]] || fail "not the bullets scene: $line"
(( $(field "$line" missed) > 0 )) || fail "bullets without swept boxes missed nothing: $line"
line=$(run --scenario bullets --swept-boxes --time-of-impact)
[[ $(field "$line" missed) == 0 ]] || fail "swept boxes still missed collisions: $line"
(( $(field "$line" swept_extra) > 0 )) || fail "swept boxes added no pairs: $line"
(( $(field "$line" impacts) > 0 )) || fail "time of impact found no impact: $line"

line=$(run --scenario static)
[[ $(field "$line" static) == 9900 ]] || fail "the static preset should have 9,900 static entities of 10,000: $line"

uniform=$(field "$(run --scenario uniform)" overlaps)
layers=$(field "$(run --scenario layers)" overlaps)
(( layers > 0 && layers < uniform )) || fail "layers should keep some of uniform's $uniform overlaps, kept $layers"

line=$(run --scenario rain --technique hshg)
[[ $(field "$line" entities) == 10000 && $(field "$line" allocs) == 0 ]] || fail "rain: $line"
echo "bullets missed then none; static 9,900; layers kept $layers of $uniform overlaps; rain steady"

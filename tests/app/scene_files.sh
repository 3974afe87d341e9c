#!/usr/bin/env bash
# Scene files from the command line: --save, then --load and --save again, gives the identical
# file; a dozen bad files each exit 2 with one message that says what is wrong.
# usage: scene_files.sh RO_DEMO EXPECT_USAGE_ERROR OUT_DIR
set -euo pipefail

demo=$1 expect=$2 out=$3
fail() { echo "FAIL [scene files]: $*" >&2; exit 1; }
mkdir -p "$out"
first="$out/scene_first.json" second="$out/scene_second.json"
rm -f "$first" "$second"

"$demo" --scenario mixed --entities 3000 --frames 30 --save "$first" >/dev/null || fail "--save exited $?"
# Paused: no tick runs, so what is saved again is what was loaded.
"$demo" --load "$first" --paused --frames 2 --save "$second" >"$out/scene_load.out" || fail "--load exited $?"
cmp -s "$first" "$second" || fail "save, load, save again gave another file"
grep -q 'scene=mixed .*entities=3000 ' "$out/scene_load.out" || fail "the loaded scene is not the saved one: $(cat "$out/scene_load.out")"
echo "save, load, save: identical ($(wc -c <"$first") bytes)"

# The command line's technique wins over the file's.
"$demo" --load "$first" --technique sap --paused --frames 1 | grep -q 'technique=sap ' || fail "--technique did not override"

bad() {  # NAME EXPECTED_TEXT SED_EXPRESSION: the good file, edited, must be refused
    local file="$out/scene_bad_$1.json"
    sed -e "$3" "$first" >"$file"
    bash "$expect" "$2" "$demo" --load "$file" --frames 1 || fail "bad file '$1'"
}
bad version 'version 7 is not supported' 's/"version": 1,/"version": 7,/'
bad format 'not a scene file' 's/"ro-broadphase-lab scene"/"a shopping list"/'
bad missing_field "missing field 'entities.x'" '/^  "x": \[/d'
bad misspelt_field "'world.tickhz' is not a world setting" 's/"tick_hz"/"tickhz"/'
bad nan 'not JSON' 's/"speed": 1.0,/"speed": NaN,/'
bad infinite 'number overflow' 's/"speed": 1.0,/"speed": 1e999,/'
bad negative_size "'sizes' must have 0 < min_half" 's/"min_half": [0-9.e-]*,/"min_half": -1.0,/'
bad negative_entity "entity 0 has a size of -4" 's/"half_w": \[[0-9.e-]*,/"half_w": [-4.0,/'
bad too_many 'at most 2000000 entities' 's/"count": 3000,/"count": 3000000,/'
bad unknown_technique "unknown technique 'warp'" 's/"technique": "grid",/"technique": "warp",/'
bad unknown_preset "unknown preset 'snow'" 's/"preset": "mixed",/"preset": "snow",/'
bad wrong_type "'seed' must be a whole number" 's/"seed": 1,/"seed": "one",/'
bad short_column "'entities.x' must be an array of 3000 numbers" 's/"x": \[[0-9.e-]*,/"x": [/'
bad far_away 'entity position x must be between' 's/"x": \[[0-9.e-]*,/"x": [1e30,/'
printf 'not json at all {' >"$out/scene_garbage.json"
bash "$expect" 'not JSON' "$demo" --load "$out/scene_garbage.json" --frames 1 || fail "garbage"
bash "$expect" 'cannot open the file' "$demo" --load "$out/no_such_scene.json" --frames 1 || fail "missing file"
echo "bad files: each refused with exit 2 and one message"

# The minimal form: only the boxes (docs/scene.schema.json); Auto, the default, steps on them.
minimal="$(dirname "$0")/../../examples/minimal_scene.json"
"$demo" --load "$minimal" --paused --frames 1 >"$out/scene_minimal.out" || fail "the minimal scene: exit $?"
grep -q 'technique=auto .*entities=4 ' "$out/scene_minimal.out" || fail "the minimal scene: $(cat "$out/scene_minimal.out")"
grep -q ' overlaps=2 ' "$out/scene_minimal.out" || fail "the minimal scene's two overlaps: $(cat "$out/scene_minimal.out")"
echo "the minimal scene loads: 4 boxes, 2 overlapping pairs"

# The schema in docs/ takes what the lab writes and the minimal example, and refuses a box of no width.
root="$(dirname "$0")/../.."
python3 "$root/tests/app/check_scene_schema.py" "$root/docs/scene.schema.json" "$first" "$minimal" ||
    fail "docs/scene.schema.json refuses a scene the lab reads"
echo '{"entities": [{"x": 1, "y": 1, "w": 0, "h": 1}]}' >"$out/scene_zero_width.json"
if python3 "$root/tests/app/check_scene_schema.py" "$root/docs/scene.schema.json" "$out/scene_zero_width.json" 2>/dev/null; then
    fail "docs/scene.schema.json takes a box of no width"
fi
bash "$expect" "'entities[0]' has a size of 0 x 1" "$demo" --load "$out/scene_zero_width.json" --frames 1 ||
    fail "the reader took a box of no width"
echo "docs/scene.schema.json: the lab's file and the minimal example valid, a box of no width refused by both"

#!/usr/bin/env bash
# Writes the performance tables of README.md and docs/*.md from ro_bench's JSON files, so that
# no figure in them is typed by hand.
#
#   scripts/perf-tables.sh [FILE.md ...]           rewrite the tables in place (default: README.md docs/*.md)
#   scripts/perf-tables.sh --check [FILE.md ...]   regenerate into a temporary copy and diff; exit 1 on a difference
#   scripts/perf-tables.sh --record BENCH.json --command "ro_bench ..." [--commit REV] [--machine TEXT] [--note TEXT]
#                                                  write BENCH.meta.json: where and how BENCH.json was made
#
# A table lives between two comments, and everything between them is this script's output:
#
#   <!-- perf-table: docs/bench-steady.json view=detail scenario=uniform n=100000 -->
#   ...
#   <!-- /perf-table -->
#
# The JSON path is relative to the repository root. ro_bench's JSON (--json) is a list of rows
# (src/bench/output.cpp) and says nothing of the commit or the machine, so each BENCH.json has a
# sidecar BENCH.meta.json with "commit", "machine" and "command" (and an optional "note"); every
# table says them. Views (the keys after the path):
#
#   view=detail scenario=S n=N [motion=M]   every contestant of one scene: times, ratio to the best peer, counters
#   view=scaling scenario=S [motion=M]      mean ms per frame of every contestant at each n of the file
#   view=scenes n=N [motion=M]              mean ms per frame of ro's techniques (columns) in each scenario (rows)
#   view=techniques n=N rows=FILE.tsv       one row per technique: the prose of FILE.tsv (id, what it is, when
#                                           to pick it, scenario) and its mean ms per frame in that scenario
#   view=traces                             every contestant (rows) on every trace (columns, motion=trace):
#                                           mean ms per frame and the ratio to the fastest on that trace
#   view=suite_targets                      per trace: ro's best against the best peer, the tree against
#                                           Box2D's, auto against ro's best, each with its target
#   view=static_targets [moving=M]          per technique: 1 % moving (steady) against every box moving
#                                           (motion M, default varied) in scenario static
#   view=thread_targets                     per technique@Nt row: its mean against the same technique @1t;
#                                           the target marked on the fastest's
#   view=mixed_targets                      per point of the mixed family (scenario mixed:F:MIN:MAX:SPACING):
#                                           auto against ro's best, and ro's best against the best peer
#   view=versus technique=T against=C       per trace: technique T against contestant C (a peer reads
#                                           "box2d-tree (peer)"; write the spaces as _)
#
# Needs bash and python3 (standard library only).
set -euo pipefail
cd "$(dirname "$0")/.."

generate() {  # [--out DIR] FILE.md...
  python3 - "$@" <<'PY'
import json, os, re, sys

args = sys.argv[1:]
out_dir = None
if args[:1] == ["--out"]:
    out_dir, args = args[1], args[2:]

OPEN = re.compile(r"^<!-- perf-table: (\S+)((?: [a-z_]+=\S+)*) -->\s*$")
CLOSE = "<!-- /perf-table -->"


class Bad(Exception):
    pass


def fmt_ms(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_count(v):
    return "-" if v is None else f"{int(round(v)):,}"


def fmt_ratio(v):
    if v is None:
        return "-"
    return f"{v:.3f}x" if v < 1 else f"{v:.2f}x" if v < 10 else f"{v:.1f}x" if v < 100 else f"{v:,.0f}x"


def fmt_mb(v):
    return "-" if not v else f"{v / 1e6:.1f}"


def fmt_allocs(v):
    return "-" if v is None else "0" if v == 0 else f"{v:.2f}"


def load(path):
    if not os.path.isfile(path):
        raise Bad(f"{path}: no such file")
    with open(path) as f:
        rows = json.load(f)
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise Bad(f"{path}: not a list of ro_bench rows")
    meta_path = re.sub(r"\.json$", "", path) + ".meta.json"
    if not os.path.isfile(meta_path):
        raise Bad(f"{path}: no {meta_path} (write it with scripts/perf-tables.sh --record)")
    with open(meta_path) as f:
        meta = json.load(f)
    for key in ("commit", "machine", "command"):
        if not meta.get(key):
            raise Bad(f"{meta_path}: no '{key}'")
    return rows, meta


def contestant(r):
    return r["technique"] + (" (peer)" if r.get("peer") else "")


def select(rows, opts, *keys):
    chosen = rows
    motion = opts.get("motion", "steady")
    chosen = [r for r in chosen if r.get("motion") == motion]
    for key in keys:
        if key not in opts:
            raise Bad(f"view={opts['view']} needs {key}=")
        want = opts[key]
        chosen = [r for r in chosen if str(r.get(key)) == want]
    if not chosen:
        raise Bad(f"no rows for {' '.join(f'{k}={v}' for k, v in opts.items())}")
    return chosen


def passes_text(rows):
    passes = sorted({r.get("passes", 1) for r in rows})
    if passes == [1]:
        return "one pass"
    return " or ".join(str(p) for p in passes) + " passes, each frame the median of its passes'"


def checks_text(rows):
    checks = {r.get("check") for r in rows}
    if "failed" in checks:
        return "a row marked failed did not match the reference"
    # Brute force's rows are the reference itself, never checked.
    unchecked = [r for r in rows if r.get("check") != "ok" and r.get("technique") != "brute"]
    if "ok" in checks and not unchecked:
        return "every frame of every row checked (ok) matched the reference's pairs"
    if "ok" in checks:
        ok = sum(1 for r in rows if r.get("check") == "ok")
        return (f"every frame of the {ok} rows checked (ok) matched the reference's pairs; "
                f"{len(unchecked)} rows were not checked")
    return "not checked against a reference"


def header(cols, right_from=1):
    return ["| " + " | ".join(cols) + " |",
            "|" + "|".join("---" if i < right_from else "---:" for i in range(len(cols))) + "|"]


def view_detail(rows, opts):
    chosen = sorted(select(rows, opts, "scenario", "n"), key=lambda r: r["mean_ms"])
    any_peer = any(r.get("peer") for r in chosen)
    cols = ["contestant", "mean ms", "median ms", "p99 ms", "max ms", "build ms"]
    cols += ["vs best peer"] if any_peer else []
    cols += ["candidates", "overlaps", "pair tests", "MB held", "allocs a frame", "check"]
    lines = header(cols)
    best = min(r["mean_ms"] for r in chosen if r.get("check") != "failed")
    for r in chosen:
        name = f"**{contestant(r)}**" if r["mean_ms"] == best else contestant(r)
        cells = [name, fmt_ms(r["mean_ms"]), fmt_ms(r["median_ms"]), fmt_ms(r["p99_ms"]), fmt_ms(r["max_ms"]),
                 fmt_ms(r["build_ms"])]
        cells += [fmt_ratio(r.get("ratio_to_best_peer"))] if any_peer else []
        cells += [fmt_count(r["candidates"]), fmt_count(r["overlaps"]), fmt_count(r.get("tests")),
                  fmt_mb(r.get("bytes")), fmt_allocs(r.get("allocs_per_frame")),
                  {"ok": "ok", "failed": "failed"}.get(r.get("check"), "-")]
        lines.append("| " + " | ".join(cells) + " |")
    r0 = chosen[0]
    what = (f"{r0['scenario']} scene, {r0['motion']} motion, n = {int(r0['n']):,}, sorted by mean ms per frame "
            f"(the fastest in bold). A frame is the update plus every overlap pair. *vs best peer*: the row's mean "
            f"over the best peer's mean. Candidates and overlaps are means per frame; pair tests and MB held "
            f"(10^6 bytes) are the last frame's; *allocs a frame*: heap allocations (peers allocate with malloc, "
            f"which is not counted: -). *check*: ok when every frame's pairs matched the reference's, - for the "
            f"reference itself or an unchecked run.") if any_peer else (
            f"{r0['scenario']} scene, {r0['motion']} motion, n = {int(r0['n']):,}, sorted by mean ms per frame "
            f"(the fastest in bold). A frame is the update plus every overlap pair. Candidates and overlaps are "
            f"means per frame; pair tests and MB held (10^6 bytes) are the last frame's. *check*: ok when every "
            f"frame's pairs matched the reference's, - for the reference itself or an unchecked run.")
    return what, lines, chosen


def view_scaling(rows, opts):
    chosen = select(rows, opts, "scenario")
    counts = sorted({int(r["n"]) for r in chosen})
    names = []
    for r in chosen:
        if contestant(r) not in names:
            names.append(contestant(r))
    names.sort(key=lambda name: name.endswith("(peer)"))
    mean = {(contestant(r), int(r["n"])): r["mean_ms"] for r in chosen}
    lines = header(["contestant"] + [f"n = {n:,}" for n in counts])
    best = {n: min(v for (c, m), v in mean.items() if m == n) for n in counts}
    for name in names:
        cells = []
        for n in counts:
            v = mean.get((name, n))
            text = fmt_ms(v) if v is not None else "-"
            cells.append(f"**{text}**" if v is not None and v == best[n] else text)
        lines.append("| " + " | ".join([name] + cells) + " |")
    r0 = chosen[0]
    what = (f"{r0['scenario']} scene, {r0['motion']} motion: mean ms per frame (update plus every overlap pair) at "
            f"each count, the fastest in bold; - where a contestant was left out at that count.")
    return what, lines, chosen


def view_scenes(rows, opts):
    chosen = [r for r in select(rows, opts, "n") if not r.get("peer")]
    scenarios, techniques = [], []
    for r in chosen:
        if r["scenario"] not in scenarios:
            scenarios.append(r["scenario"])
        if r["technique"] not in techniques:
            techniques.append(r["technique"])
    mean = {(r["scenario"], r["technique"]): r["mean_ms"] for r in chosen}
    lines = header(["scene"] + techniques)
    for s in scenarios:
        best = min(v for (sc, _), v in mean.items() if sc == s)
        cells = []
        for t in techniques:
            v = mean.get((s, t))
            text = fmt_ms(v) if v is not None else "-"
            cells.append(f"**{text}**" if v is not None and v == best else text)
        lines.append("| " + " | ".join([s] + cells) + " |")
    what = (f"Mean ms per frame (update plus every overlap pair) at n = {int(opts['n']):,}, "
            f"{opts.get('motion', 'steady')} motion; the fastest of each scene in bold.")
    return what, lines, chosen


def view_techniques(rows, opts, rows_path):
    chosen = [r for r in select(rows, opts, "n") if not r.get("peer")]
    by = {(r["scenario"], r["technique"]): r for r in chosen}
    lines = header(["technique", "what it is", "pick it when", "mean ms per frame (scene)"], right_from=3)
    if not os.path.isfile(rows_path):
        raise Bad(f"{rows_path}: no such file")
    used = []
    with open(rows_path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 4:
                raise Bad(f"{rows_path}:{number}: expected 4 tab-separated fields, got {len(parts)}")
            tid, what, when, scenario = parts
            r = by.get((scenario, tid))
            if r is None:
                raise Bad(f"{rows_path}:{number}: no row for {tid} in {scenario} at n={opts['n']}")
            fastest = min((x for x in chosen if x["scenario"] == scenario), key=lambda x: x["mean_ms"])
            times = r["mean_ms"] / fastest["mean_ms"]
            rank = "the fastest" if r is fastest else f"{fmt_ratio(times)} the fastest"
            figure = f"{fmt_ms(r['mean_ms'])} ({scenario}; {rank})"
            lines.append(f"| `{tid}` | {what} | {when} | {figure} |")
            used.append(r)
    what = (f"The figure: mean ms per frame (update plus every overlap pair) at n = {int(opts['n']):,} in the "
            f"scene named, and how it compares with the fastest technique there.")
    return what, lines, used


def view_traces(rows, opts):
    chosen = [r for r in rows if r.get("motion") == "trace"]
    if not chosen:
        raise Bad("no rows of traces (motion trace)")
    scenes, names = [], []
    for r in chosen:
        if r["scenario"] not in scenes:
            scenes.append(r["scenario"])
        if contestant(r) not in names:
            names.append(contestant(r))
    names.sort(key=lambda name: name.endswith("(peer)"))
    by = {(r["scenario"], contestant(r)): r for r in chosen}
    count = {r["scenario"]: int(r["n"]) for r in chosen}
    lines = header(["contestant"] + [f"{s} (n = {count[s]:,})" for s in scenes])
    fastest = {s: min(r["mean_ms"] for r in chosen if r["scenario"] == s and r.get("check") != "failed")
               for s in scenes}
    for name in names:
        cells = []
        for s in scenes:
            r = by.get((s, name))
            if r is None:
                cells.append("-")
            elif r.get("check") == "failed":
                cells.append("failed")
            else:
                text = f"{fmt_ms(r['mean_ms'])} ({fmt_ratio(r['mean_ms'] / fastest[s])})"
                cells.append(f"**{text}**" if r["mean_ms"] == fastest[s] else text)
        lines.append("| " + " | ".join([name] + cells) + " |")
    what = ("Mean ms per frame (update plus every overlap pair) on each trace, and in brackets the ratio to the "
            "fastest contestant on that trace, in bold; n is the most boxes in a frame; - where a contestant was "
            "left out.")
    return what, lines, chosen

RO_TECHNIQUES = ("grid", "hash", "hshg", "sap", "sweep", "tree", "quadtree")


def view_versus(rows, opts):
    mine, theirs = opts["technique"], opts["against"].replace("_", " ")
    chosen = [r for r in rows if r.get("motion") == "trace" and contestant(r) in (mine, theirs)
              and r.get("check") != "failed"]
    scenes = list(dict.fromkeys(r["scenario"] for r in chosen))  # in the file's order
    if not scenes:
        raise Bad(f"no rows of traces with {mine} or {theirs}")
    by = {(r["scenario"], contestant(r)): r for r in chosen}
    lines = header(["scene", "boxes", mine, theirs, f"{mine} / {theirs}"])
    for s in scenes:
        a, b = by.get((s, mine)), by.get((s, theirs))
        n = int((a or b)["n"])
        lines.append("| " + " | ".join([
            s, f"{n:,}", fmt_ms(a["mean_ms"]) if a else "-", fmt_ms(b["mean_ms"]) if b else "-",
            fmt_ratio(a["mean_ms"] / b["mean_ms"]) if a and b else "-"]) + " |")
    what = f"Mean ms per frame of {mine} and {theirs} on each trace of the suite, in the same run."
    return what, lines, chosen


def target_cell(ratio, limit):
    return f"{fmt_ratio(ratio)} ({'met' if ratio <= limit else '**not met**'})"


def view_suite_targets(rows, opts):
    chosen = [r for r in rows if r.get("motion") == "trace" and r.get("check") != "failed"]
    if not chosen:
        raise Bad("no rows of traces (motion trace)")
    scenes = list(dict.fromkeys(r["scenario"] for r in chosen))  # in the file's order
    lines = header(["scene", "n", "ro's best", "best peer", "ro / peer (target 0.5x)",
                    "tree / box2d-tree (target 1.0x)", "auto / ro's best (target 1.2x)"], right_from=1)
    for s in scenes:
        here = [r for r in chosen if r["scenario"] == s]
        ro = [r for r in here if not r.get("peer") and r["technique"] in RO_TECHNIQUES]
        peers = [r for r in here if r.get("peer")]
        by = {contestant(r): r for r in here}
        if not ro or not peers:
            raise Bad(f"{s}: the targets need ro's techniques and the peers (--peers)")
        best = min(ro, key=lambda r: r["mean_ms"])
        peer = min(peers, key=lambda r: r["mean_ms"])
        tree, box2d, auto = by.get("tree"), by.get("box2d-tree (peer)"), by.get("auto")
        lines.append("| " + " | ".join([
            s, f"{int(here[0]['n']):,}",
            f"{best['technique']} {fmt_ms(best['mean_ms'])}", f"{peer['technique']} {fmt_ms(peer['mean_ms'])}",
            target_cell(best["mean_ms"] / peer["mean_ms"], 0.5),
            target_cell(tree["mean_ms"] / box2d["mean_ms"], 1.0) if tree and box2d else "-",
            target_cell(auto["mean_ms"] / best["mean_ms"], 1.2) if auto else "-"]) + " |")
    what = ("Each scene of the suite against the three targets of the real-physics suite: ro's best technique "
            "(brute force and auto aside) against the best peer, ro's tree against Box2D's, and auto against ro's "
            "best; mean ms per frame in the same run.")
    return what, lines, chosen


def view_static_targets(rows, opts):
    chosen = [r for r in rows if r["scenario"] == opts.get("scenario", "static") and not r.get("peer")
              and r.get("check") != "failed" and r["technique"] != "brute"]
    moving = opts.get("moving", "varied")
    few = {r["technique"]: r for r in chosen if r.get("motion") == "steady"}
    every = {r["technique"]: r for r in chosen if r.get("motion") == moving}
    names = [t for t in few if t in every]
    if not names:
        raise Bad(f"the static targets need rows of motion steady and {moving} for the same techniques")
    lines = header(["technique", "1 % moving, statics declared", f"every box moving ({moving})",
                    "ratio (target 0.15x)"])
    for t in names:
        ratio = few[t]["mean_ms"] / every[t]["mean_ms"]
        lines.append(f"| {t} | {fmt_ms(few[t]['mean_ms'])} | {fmt_ms(every[t]['mean_ms'])} | {target_cell(ratio, 0.15)} |")
    n = int(next(iter(few.values()))["n"])
    what = (f"The static field at n = {n:,}: each technique's mean ms per frame with 1 % of the boxes moving and "
            f"the rest declared static, against its own with every box moving, in the same run.")
    return what, lines, [r for r in chosen if r["technique"] in names]


def view_thread_targets(rows, opts):
    chosen = [r for r in rows if "@" in r["technique"] and r.get("check") != "failed"]
    if not chosen:
        raise Bad("no rows of --threads (technique@Nt)")
    one = {r["technique"].split("@")[0]: r for r in chosen if r["technique"].endswith("@1t")}
    several = [r for r in chosen if not r["technique"].endswith("@1t") and r["technique"].split("@")[0] in one]
    # The target is the best technique's: the fastest on several threads is marked, the others show their ratio.
    fastest = min(several, key=lambda r: r["mean_ms"])["technique"] if several else None
    lines = header(["technique", "1 thread", "threads", "ratio (target 0.6x, the fastest's)"])
    for r in several:
        base, threads = r["technique"].split("@")
        ratio = r["mean_ms"] / one[base]["mean_ms"]
        cell = target_cell(ratio, 0.6) if r["technique"] == fastest else fmt_ratio(ratio)
        lines.append(f"| {base} | {fmt_ms(one[base]['mean_ms'])} | {threads[:-1]}: {fmt_ms(r['mean_ms'])} | {cell} |")
    n = int(chosen[0]["n"])
    what = (f"{chosen[0]['scenario']} at n = {n:,}: mean ms per frame on one thread and on more, the same pairs "
            f"(checked), in the same run; the target is the fastest technique's.")
    return what, lines, chosen


def view_mixed_targets(rows, opts):
    chosen = [r for r in rows if r["scenario"].startswith("mixed:") and r.get("check") != "failed"]
    if not chosen:
        raise Bad("no rows of mixed family points (scenario mixed:F:MIN:MAX:SPACING)")
    points = list(dict.fromkeys(r["scenario"] for r in chosen))  # in the file's order
    lines = header(["point F:MIN:MAX:SPACING", "auto", "ro's best", "auto / ro's best (target 1.2x)",
                    "best peer", "ro's best / peer"])
    for p in points:
        here = [r for r in chosen if r["scenario"] == p]
        ro = [r for r in here if not r.get("peer") and r["technique"] in RO_TECHNIQUES]
        peers = [r for r in here if r.get("peer")]
        auto = next((r for r in here if r["technique"] == "auto" and not r.get("peer")), None)
        if not ro or auto is None:
            raise Bad(f"{p}: the target needs auto and ro's techniques")
        best = min(ro, key=lambda r: r["mean_ms"])
        peer = min(peers, key=lambda r: r["mean_ms"]) if peers else None
        lines.append("| " + " | ".join([
            p.split(":", 1)[1], fmt_ms(auto["mean_ms"]), f"{best['technique']} {fmt_ms(best['mean_ms'])}",
            target_cell(auto["mean_ms"] / best["mean_ms"], 1.2),
            f"{peer['technique']} {fmt_ms(peer['mean_ms'])}" if peer else "-",
            fmt_ratio(best["mean_ms"] / peer["mean_ms"]) if peer else "-"]) + " |")
    n = int(chosen[0]["n"])
    what = (f"The mixed family at n = {n:,} (a share F of big boxes with sides MIN to MAX, spaced SPACING mean "
            f"sides apart): Auto's mean ms per frame against ro's best technique's, and ro's best against the "
            f"best peer run, in the same ro_bench run for each point.")
    return what, lines, chosen


def render(spec, page):
    m = OPEN.match(spec)
    json_path = m.group(1)
    opts = dict(kv.split("=", 1) for kv in m.group(2).split())
    view = opts.get("view")
    rows, meta = load(json_path)
    if view == "detail":
        what, table, used = view_detail(rows, opts)
    elif view == "scaling":
        what, table, used = view_scaling(rows, opts)
    elif view == "scenes":
        what, table, used = view_scenes(rows, opts)
    elif view == "techniques":
        if "rows" not in opts:
            raise Bad("view=techniques needs rows=FILE.tsv")
        what, table, used = view_techniques(rows, opts, opts["rows"])
    elif view == "traces":
        what, table, used = view_traces(rows, opts)
    elif view == "suite_targets":
        what, table, used = view_suite_targets(rows, opts)
    elif view == "static_targets":
        what, table, used = view_static_targets(rows, opts)
    elif view == "thread_targets":
        what, table, used = view_thread_targets(rows, opts)
    elif view == "mixed_targets":
        what, table, used = view_mixed_targets(rows, opts)
    elif view == "versus":
        if "technique" not in opts or "against" not in opts:
            raise Bad("view=versus needs technique= and against=")
        what, table, used = view_versus(rows, opts)
    else:
        raise Bad(f"unknown view '{view}' (detail, scaling, scenes, techniques, traces, suite_targets, "
                  f"static_targets, thread_targets, mixed_targets, versus)")
    link = os.path.relpath(json_path, os.path.dirname(page) or ".")
    provenance = (f"*Generated by `scripts/perf-tables.sh` from [{os.path.basename(json_path)}]({link}); do not edit. "
                  f"Measured at commit `{meta['commit'][:7]}` on {meta['machine']}; {passes_text(used)}; "
                  f"{checks_text(used)}.*")
    if meta.get("note"):
        provenance += f" *{meta['note']}*"
    out = ["", provenance, "", what, ""] + table + ["", "```sh", meta["command"], "```", ""]
    return out


def process(page, index):
    with open(page) as f:
        lines = f.read().split("\n")
    out, i, tables = [], 0, 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        if line.startswith("<!-- perf-table:"):
            if not OPEN.match(line):
                raise Bad(f"{page}:{i + 1}: malformed marker: {line}")
            j = i + 1
            while j < len(lines) and lines[j].strip() != CLOSE:
                if lines[j].startswith("<!-- perf-table:"):
                    raise Bad(f"{page}:{j + 1}: a table opens before the one at line {i + 1} is closed")
                j += 1
            if j == len(lines):
                raise Bad(f"{page}:{i + 1}: no {CLOSE} after this marker")
            try:
                out.extend(render(line, page))
            except Bad as e:
                raise Bad(f"{page}:{i + 1}: {e}")
            out.append(lines[j])
            tables += 1
            i = j + 1
            continue
        if line.strip() == CLOSE:
            raise Bad(f"{page}:{i + 1}: {CLOSE} without its opening marker")
        i += 1
    # --out: the k-th page goes to DIR/k.md, whatever its path (the links are made for `page`).
    target = os.path.join(out_dir, f"{index}.md") if out_dir else page
    with open(target, "w") as f:
        f.write("\n".join(out))
    return tables


try:
    total = 0
    for index, page in enumerate(args):
        total += process(page, index)
    print(f"perf-tables: {total} table(s) in {len(args)} file(s)", file=sys.stderr)
except (Bad, json.JSONDecodeError, OSError) as e:
    print(f"perf-tables: {e}", file=sys.stderr)
    sys.exit(2)
PY
}

record() {  # BENCH.json, then --command/--commit/--machine/--note
  python3 - "$@" <<'PY'
import json, os, platform, re, subprocess, sys
args = sys.argv[1:]
bench, args = args[0], args[1:]
opts = {}
while args:
    key = args.pop(0)
    if key not in ("--command", "--commit", "--machine", "--note") or not args:
        sys.exit(f"perf-tables --record: unexpected '{key}' (--command, --commit, --machine, --note, each with a value)")
    opts[key[2:]] = args.pop(0)
if not os.path.isfile(bench):
    sys.exit(f"perf-tables --record: {bench}: no such file")
if "command" not in opts:
    sys.exit("perf-tables --record: --command is required: the ro_bench command that wrote the file")
if "commit" not in opts:
    opts["commit"] = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
if "machine" not in opts:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = re.search(r"model name\s*:\s*(.*)", f.read()).group(1).strip()
    except (OSError, AttributeError):
        pass
    system = platform.platform()
    try:
        with open("/etc/os-release") as f:
            system = re.search(r'PRETTY_NAME="?([^"\n]*)', f.read()).group(1)
    except (OSError, AttributeError):
        pass
    opts["machine"] = f"{os.cpu_count()} cores of {model}, {system}"
meta = re.sub(r"\.json$", "", bench) + ".meta.json"
with open(meta, "w") as f:
    json.dump({k: opts[k] for k in ("commit", "machine", "command", "note") if k in opts}, f, indent=2)
    f.write("\n")
print(f"perf-tables: wrote {meta}", file=sys.stderr)
PY
}

mode=write
case "${1:-}" in
  --check) mode=check; shift ;;
  --record) shift; [ $# -ge 1 ] || { echo "perf-tables --record: give BENCH.json" >&2; exit 2; }; record "$@"; exit ;;
  -h|--help) sed -n '2,/^# Needs/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
if [ $# -eq 0 ]; then
  set -- README.md docs/*.md
fi

if [ "$mode" = write ]; then
  generate "$@"
  exit
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
generate --out "$tmp" "$@"
status=0
index=0
for page in "$@"; do
  diff -u --label "$page (committed)" --label "$page (regenerated)" "$page" "$tmp/$index.md" || status=1
  index=$((index + 1))
done
if [ $status -ne 0 ]; then
  echo "perf-tables --check: the tables above differ from what the JSON gives; run scripts/perf-tables.sh" >&2
else
  echo "perf-tables --check: every table is as the JSON gives it" >&2
fi
exit $status

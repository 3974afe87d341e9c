#!/usr/bin/env bash
# The documentation checks (CTest: docs_*). Run from anywhere; no build needed.
#   tests/docs/check_docs.sh readme     README.md: at most 500 lines, and no "session", no "issue"
#                                       followed by a number, no commit hash in its prose
#   tests/docs/check_docs.sh links      every relative link and image in README.md and docs/*.md
#                                       names a file that exists (#anchors are not checked)
#   tests/docs/check_docs.sh tables     scripts/perf-tables.sh --check: every table is as its JSON gives it
#   tests/docs/check_docs.sh all        the three
#   tests/docs/check_docs.sh self-test  plants a fault of each kind in a copy and expects each check to fail
# ROOT (default: the repository this script is in) names the tree to check.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${ROOT:-$(cd "$here/../.." && pwd)}"
max_lines=500

check_readme() {
  python3 - "$root/README.md" "$max_lines" <<'PY'
import re, sys
path, limit = sys.argv[1], int(sys.argv[2])
lines = open(path, encoding="utf-8").read().split("\n")
if lines and lines[-1] == "":
    lines.pop()
problems = []
if len(lines) > limit:
    problems.append(f"README.md has {len(lines)} lines, more than {limit}: move detail into docs/")
# Prose: everything outside fenced code blocks and outside the tables scripts/perf-tables.sh
# writes (those say the commit they were measured at, as they must).
session = re.compile(r"\bsessions?\b", re.I)
issue = re.compile(r"\bissues?\s*(?:#|no\.?\s*|number\s*)?\d+", re.I)
# 7 to 40 hex digits with at least one digit and one letter: a commit hash, not a count or a word.
commit = re.compile(r"(?<![0-9A-Za-z_])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![0-9A-Za-z_])")
fence, generated = None, False
for number, line in enumerate(lines, 1):
    stripped = line.strip()
    if generated:
        if stripped == "<!-- /perf-table -->":
            generated = False
        continue
    if fence:
        if stripped.startswith(fence):
            fence = None
        continue
    m = re.match(r"(`{3,}|~{3,})", stripped)
    if m:
        fence = m.group(1)
        continue
    if stripped.startswith("<!-- perf-table:"):
        generated = True
        continue
    for name, pattern in (("'session'", session), ("'issue <number>'", issue), ("a commit hash", commit)):
        found = pattern.search(line)
        if found:
            problems.append(f"README.md:{number}: {name} in prose ({found.group(0)!r}): {line.strip()[:100]}")
for p in problems:
    print(p)
if problems:
    sys.exit(1)
print(f"README.md: {len(lines)} lines, no session, issue number or commit hash in its prose")
PY
}

check_links() {
  python3 - "$root" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
pages = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
inline = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
reference = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
html = re.compile(r"<(?:img|a)\s[^>]*(?:src|href)=\"([^\"]+)\"", re.I)
problems, checked = [], 0
for page in pages:
    fence = None
    for number, line in enumerate(open(page, encoding="utf-8"), 1):
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence):
                fence = None
            continue
        m = re.match(r"(`{3,}|~{3,})", stripped)
        if m:
            fence = m.group(1)
            continue
        text = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        targets = inline.findall(text) + html.findall(text)
        m = reference.match(text)
        if m:
            targets.append(m.group(1))
        for target in targets:
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
                continue  # a URL, a mailto, or an anchor in the same page
            path = target.split("#", 1)[0].split("?", 1)[0]
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path))
            checked += 1
            if not os.path.exists(resolved):
                problems.append(f"{os.path.relpath(page, root)}:{number}: '{target}' does not exist "
                                f"({os.path.relpath(resolved, root)})")
for p in problems:
    print(p)
if problems:
    sys.exit(1)
print(f"{checked} relative links and images in {len(pages)} pages, every one exists")
PY
}

check_tables() {
  (cd "$root" && bash scripts/perf-tables.sh --check)
}

self_test() {
  # Each check must fail on a copy with one planted fault, and pass on the copy before it.
  local tmp status=0
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp/tree"
  (cd "$root" && tar cf - LICENSE assets examples scripts) | (cd "$tmp/tree" && tar xf -)
  fresh() {  # README.md and docs/ as committed, the rest copied once above
    rm -rf "$tmp/tree/docs" "$tmp/tree/README.md"
    (cd "$root" && tar cf - README.md docs) | (cd "$tmp/tree" && tar xf -)
  }
  expect_fail() {  # what, check
    if ROOT="$tmp/tree" bash "$0" "$2" >"$tmp/out" 2>&1; then
      echo "self-test: '$2' passed with $1 planted"; status=1
    else
      echo "self-test: '$2' fails with $1 planted: $(tail -n 1 "$tmp/out")"
    fi
  }
  fresh
  if ! ROOT="$tmp/tree" bash "$0" all >"$tmp/out" 2>&1; then
    cat "$tmp/out"; echo "self-test: the unplanted copy fails"; return 1
  fi
  fresh; printf '\nSee [the missing page](docs/no-such-page.md).\n' >>"$tmp/tree/README.md"
  expect_fail "a broken link in README.md" links
  fresh; printf '\n![missing](../assets/no-such-image.png)\n' >>"$tmp/tree/docs/app.md"
  expect_fail "a missing image in docs/app.md" links
  fresh; for _ in $(seq 1 $((max_lines + 1))); do echo; done >>"$tmp/tree/README.md"
  expect_fail "a README of more than $max_lines lines" readme
  fresh; printf '\nFixed in the third session.\n' >>"$tmp/tree/README.md"
  expect_fail "'session' in the prose" readme
  fresh; printf '\nAs issue 43 asks.\n' >>"$tmp/tree/README.md"
  expect_fail "'issue 43' in the prose" readme
  fresh; printf '\nSince commit 54c1fc2 it is faster.\n' >>"$tmp/tree/README.md"
  expect_fail "a commit hash in the prose" readme
  fresh; python3 - "$tmp/tree/docs/performance.md" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
# A hand edit of the first figure of the first generated table.
start = text.index("<!-- perf-table:")
m = re.compile(r"\| (\d+\.\d+) \|").search(text, start)
text = text[:m.start(1)] + "9" + text[m.start(1) + 1:]
open(path, "w").write(text)
PY
  expect_fail "a hand-edited figure in docs/performance.md" tables
  return $status
}

case "${1:-all}" in
  readme) check_readme ;;
  links) check_links ;;
  tables) check_tables ;;
  all) check_readme && check_links && check_tables ;;
  self-test) self_test ;;
  *) echo "usage: $0 readme|links|tables|all|self-test" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Time and size of changesets (issue 11): a library with N distinct photos (default 1,000,
# copies of Samples/storm.jpg made distinct by a JPEG COM segment) all moved into one share
# with a read-write participant; then the share's first changeset for the participant (the
# whole zone with its originals) and its `share accept` into an empty library, and the
# incremental changeset after 10 edits (5 tag adds, 5 ratings) with its `sync --apply`.
#
# Usage: Benchmarks/sync.sh [--photos N] [--photos-bin PATH] [--keep DIR]
# Needs: python3 (standard library only), a built photos binary (default .build/release).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=1000
bin="$here/../.build/release/photos"
keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --photos) n=$2; shift 2 ;;
        --photos-bin) bin=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        *) echo "sync.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ -x "$bin" ] || { echo "sync.sh: no photos binary at $bin (swift build -c release)" >&2; exit 69; }
work=${keep:-$(mktemp -d)}
mkdir -p "$work"
[ -z "$keep" ] && trap 'rm -rf "$work"' EXIT
python3 - "$here/../Samples/storm.jpg" "$work/in" "$n" <<'PY'
import os, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, 'rb').read()
os.makedirs(out, exist_ok=True)
for i in range(n):
    text = b'photos-sync-bench-%d' % i
    seg = b'\xff\xfe' + (len(text) + 2).to_bytes(2, 'big') + text
    open(os.path.join(out, 'p%05d.jpg' % i), 'wb').write(data[:2] + seg + data[2:])
PY
owner="$work/owner" peer="$work/peer"
export PHOTOS_OWNER=owner@example.org
"$bin" --library "$owner" import -q "$work/in"
names=$("$bin" --library "$owner" list --json | python3 -c 'import sys, json; print(" ".join(json.loads(l)["uniqueName"] for l in sys.stdin))')
# shellcheck disable=SC2086
"$bin" --library "$owner" share create -q --title Bench $names
share=$("$bin" --library "$owner" share list --json | python3 -c 'import sys, json; print(json.loads(sys.stdin.readline())["id"])')
"$bin" --library "$owner" share invite -q "$share" ann@example.org --permission read-write
measure() { # label, command...
    local label=$1; shift
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    printf '%-40s %8.2f s\n' "$label" "$(echo "$end - $start" | bc)"
}
size() { du -sb "$1" | cut -f1; }
measure "share export, ${n}-photo share (full)" "$bin" --library "$owner" share export "$share" --for ann@example.org -o "$work/full"
printf '%-40s %10d bytes (database %d)\n' "  size" "$(size "$work/full")" "$(size "$work/full/changeset.sqlite")"
measure "share accept (apply, full)" "$bin" --library "$peer" share accept "$work/full"
# The participant's changeset back tells the owner what it has applied.
"$bin" --library "$peer" share export -q "$share" -o "$work/back"
"$bin" --library "$owner" sync --apply "$work/back" -q
set -- $names
for i in 1 2 3 4 5; do
    eval "p=\${$i}"
    "$bin" --library "$owner" tag add -q "Edit$i" "$p"
    eval "p=\${$((i + 5))}"
    "$bin" --library "$owner" rate -q "$p" $((i % 5 + 1))
done
measure "share export after 10 edits" "$bin" --library "$owner" share export "$share" --for ann@example.org -o "$work/incremental"
printf '%-40s %10d bytes (database %d)\n' "  size" "$(size "$work/incremental")" "$(size "$work/incremental/changeset.sqlite")"
measure "sync --apply (incremental)" "$bin" --library "$peer" sync --apply "$work/incremental"
"$bin" --library "$peer" verify -q && echo "participant verify: clean"

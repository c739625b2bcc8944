#!/usr/bin/env bash
# Benchmarks of `photos list --template` and `photos export --per-tag` (issue 32 items 5, 6):
# a library of the corpus JPEGs (../shared/corpus, malformed/ left out, files under 3 MB), each
# twice (the copy with one byte appended, so ~200 distinct photos), imported by
# ann@example.org; every 2nd photo tagged Sea, every 3rd Places/France, the first 40 Beach, the
# next 40 in a share "Paris 2024". Then, with /usr/bin/time (wall seconds, peak RSS):
#   1. list --template '{author} {share} {name}' (one insert-author query per 500 photos, one
#      share-title query) against list --template '{name}' and the default table;
#   2. export --per-tag --template '{tag}/{name}' into an empty DEST, then again with --update,
#      against a plain export.
#
# Usage: Benchmarks/list-template.sh WORK_DIR [--photos-bin PATH] [--database CONNINFO] [--corpus DIR]
# (--database: an empty PostgreSQL database for the catalog; --corpus: default ../shared/corpus
# beside the repository.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:?usage: list-template.sh WORK_DIR [--photos-bin PATH] [--database CONNINFO]}
shift
bin="$here/../.build/debug/photos" database="" corpus="$here/../../shared/corpus"
while [ $# -gt 0 ]; do
    case "$1" in
        --photos-bin) bin=$2; shift 2 ;;
        --database) database=$2; shift 2 ;;
        --corpus) corpus=$2; shift 2 ;;
        *) echo "list-template.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ -d "$corpus" ] || { echo "list-template.sh: no corpus at $corpus (--corpus DIR)" >&2; exit 66; }
rm -rf "$work"
mkdir -p "$work/in"
i=0
while IFS= read -r f; do
    i=$((i + 1))
    cp "$f" "$work/in/p$i.jpg"
    cp "$f" "$work/in/q$i.jpg"
    printf 'x' >>"$work/in/q$i.jpg"
done < <(find "$corpus" \( -iname '*.jpg' -o -iname '*.jpeg' \) -size -3M -not -path '*/malformed/*' | sort)
lib="$work/lib"
if [ -n "$database" ]; then "$bin" --library "$lib" init -q --database "$database"; fi
"$bin" --library "$lib" --owner ann@example.org import -q "$work/in" 2>/dev/null || true
ids=$("$bin" --library "$lib" list --json | python3 -c 'import json,sys; [print(json.loads(l)["uniqueName"]) for l in sys.stdin]')
echo "photos: $(echo "$ids" | wc -l)"
echo "$ids" | awk 'NR % 2 == 1' | "$bin" --library "$lib" tag add -q Sea -
echo "$ids" | awk 'NR % 3 == 1' | "$bin" --library "$lib" tag add -q Places/France -
echo "$ids" | awk 'NR <= 40' | "$bin" --library "$lib" tag add -q Beach -
echo "$ids" | awk 'NR > 40 && NR <= 80' | "$bin" --library "$lib" share create -q --title "Paris 2024" -

echo "== 1. list"
for run in 1 2 3; do
    /usr/bin/time -f "list --template '{author} {share} {name}': %e s, %M KB peak RSS" \
        "$bin" --library "$lib" list --template '{author} {share} {name}' >"$work/list.txt"
done
/usr/bin/time -f "list --template '{name}': %e s, %M KB peak RSS" "$bin" --library "$lib" list --template '{name}' >/dev/null
/usr/bin/time -f "list (default table): %e s, %M KB peak RSS" "$bin" --library "$lib" list >/dev/null
echo "lines: $(wc -l <"$work/list.txt")"

echo "== 2. export --per-tag"
for run in 1 2 3; do
    rm -rf "$work/out"
    /usr/bin/time -f "export --per-tag: %e s, %M KB peak RSS" \
        "$bin" --library "$lib" export "$work/out" --per-tag --template '{tag}/{name}' --json
done
/usr/bin/time -f "export --per-tag --update: %e s, %M KB peak RSS" \
    "$bin" --library "$lib" export "$work/out" --per-tag --template '{tag}/{name}' --update --json
rm -rf "$work/plain"
/usr/bin/time -f "export (plain): %e s, %M KB peak RSS" "$bin" --library "$lib" export "$work/plain" --json

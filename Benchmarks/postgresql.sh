#!/usr/bin/env bash
# Benchmarks/postgresql.sh - `photos import` into a PostgreSQL catalog against SQLite, and
# several importers at once into one PostgreSQL catalog (issue 12).
#
# Usage: Benchmarks/postgresql.sh --database CONNINFO [CORPUS_DIR] [--jobs N] [--reps N]
#                                 [--importers "2 4"] [--photos PATH]
#
# CONNINFO: a libpq connection string of a server this script may create and drop schemas
# on (each run gets a fresh schema, `options=-csearch_path=…`). Needs psql
# (postgresql-client), python3 and a built photos binary (swift build -c release).
# Prints, per case, the best of --reps runs: seconds and images per second.
# - sqlite / postgresql: one `photos import --jobs N` of CORPUS_DIR (default
#   ../shared/corpus/bench) into a new library;
# - K importers: K `photos import --jobs N` processes at once into one new PostgreSQL
#   library, each of its own copy of CORPUS_DIR made distinct (a JPEG COM segment), so none
#   is a duplicate; images per second counts all K copies.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
corpus="$root/../shared/corpus/bench"
photos="$root/.build/release/photos"
database=
jobs=2
reps=3
importers="2 4"

die() { echo "postgresql.sh: $*" >&2; exit 64; }
while (($#)); do
  case $1 in
    --database) database=${2-}; shift 2 ;;
    --jobs) jobs=${2-}; shift 2 ;;
    --reps) reps=${2-}; shift 2 ;;
    --importers) importers=${2-}; shift 2 ;;
    --photos) photos=${2-}; shift 2 ;;
    -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) corpus=$1; shift ;;
  esac
done
[[ -n $database ]] || die "--database CONNINFO is required"
[[ -x $photos ]] || die "no photos binary at $photos (swift build -c release)"
[[ -d $corpus ]] || die "no corpus folder $corpus"

work=$(mktemp -d)
schemas=()
cleanup() {
  for s in "${schemas[@]}"; do psql "$database" -qXc "DROP SCHEMA IF EXISTS $s CASCADE" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

images=$(find "$corpus" -maxdepth 1 -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) | wc -l)

# A fresh schema; prints the connection string that selects it.
new_schema() {
  local s="photos_bench_$RANDOM$RANDOM"
  psql "$database" -qXc "CREATE SCHEMA $s" >/dev/null
  schemas+=("$s")
  if [[ $database == *://* ]]; then
    [[ $database == *\?* ]] && echo "$database&options=-csearch_path%3D$s" || echo "$database?options=-csearch_path%3D$s"
  else
    echo "$database options='-csearch_path=$s'"
  fi
}

# K distinct copies of the corpus: copy k has a COM segment naming k after each JPEG's SOI.
make_copies() {
  python3 - "$corpus" "$work/copies" "$1" <<'PY'
import os, sys
src, dst, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(k):
    d = os.path.join(dst, str(i)); os.makedirs(d, exist_ok=True)
    for name in sorted(os.listdir(src)):
        data = open(os.path.join(src, name), 'rb').read()
        if data[:2] == b'\xff\xd8':
            c = f'copy {i}'.encode(); data = data[:2] + b'\xff\xfe' + (len(c) + 2).to_bytes(2, 'big') + c + data[2:]
        open(os.path.join(d, name), 'wb').write(data)
PY
}

best() { sort -n | head -n 1; }
seconds() { local t0=$(date +%s.%N); "$@" >/dev/null; local t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }

printf '%-22s %8s %10s\n' case seconds images/s
for backend in sqlite postgresql; do
  times=()
  for ((r = 0; r < reps; r++)); do
    lib="$work/lib-$backend-$r"
    if [[ $backend == postgresql ]]; then "$photos" init --database "$(new_schema)" "$lib" >/dev/null; fi
    times+=("$(seconds "$photos" import --library "$lib" --jobs "$jobs" "$corpus")")
    rm -rf "$lib"
  done
  t=$(printf '%s\n' "${times[@]}" | best)
  printf '%-22s %8.2f %10.1f\n' "$backend" "$t" "$(echo "$images / $t" | bc -l)"
done

max=0; for k in $importers; do ((k > max)) && max=$k; done
make_copies "$max"
for k in $importers; do
  times=()
  for ((r = 0; r < reps; r++)); do
    lib="$work/lib-many-$k-$r"
    "$photos" init --database "$(new_schema)" "$lib" >/dev/null
    t0=$(date +%s.%N)
    pids=()
    for ((i = 0; i < k; i++)); do
      "$photos" import --library "$lib" --jobs "$jobs" "$work/copies/$i" >/dev/null & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc -l)")
    rm -rf "$lib"
  done
  t=$(printf '%s\n' "${times[@]}" | best)
  printf '%-22s %8.2f %10.1f\n' "$k importers (pg)" "$t" "$(echo "$k * $images / $t" | bc -l)"
done

#!/usr/bin/env bash
# Times the maintenance commands on a synthetic 100,000-photo library (see make-library.sh):
# dedupe-tags --all, purge of the 10,000-photo share, history compact of a million changes,
# list --tag, verify --quick and stats. Each repetition runs on a fresh copy of the library,
# so destructive commands measure the same work every time. Prints the median, min and max
# seconds, the median CPU seconds (user+sys: steadier than wall time on a loaded machine) and
# the peak RSS of each command, and the load average before and after.
#
# Usage: Benchmarks/maintenance.sh [--reps N] [--photos N] [--photos-bin PATH] [--library DIR]
#   --library DIR  reuse a library made earlier by make-library.sh (default: build one in a
#                  temporary folder, removed at exit)
# Needs: python3, /usr/bin/time (Debian package `time`), a built photos binary.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reps=3 photos_n=100000 bin="$here/../.build/release/photos" lib=""
while [ $# -gt 0 ]; do
    case "$1" in
        --reps) reps=$2; shift 2 ;;
        --photos) photos_n=$2; shift 2 ;;
        --photos-bin) bin=$2; shift 2 ;;
        --library) lib=$2; shift 2 ;;
        *) echo "maintenance.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ -x "$bin" ] || { echo "maintenance.sh: no photos binary at $bin (swift build -c release)" >&2; exit 69; }
[ -x /usr/bin/time ] || { echo "maintenance.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 69; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$lib" ]; then
    lib="$work/source"
    "$here/make-library.sh" "$lib" --photos "$photos_n" --photos-bin "$bin"
fi
share0=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT id FROM share WHERE title = 'Share 0'\").fetchone()[0])" "$lib/photos.sqlite")

commands=(
    "dedupe-tags --all"
    "purge --share $share0"
    "history compact --keep-days 90 --force"
    "list --tag tag-00000"
    "verify --quick"
    "stats"
)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
printf '%-44s %9s %9s %9s %9s %12s\n' command "median s" "min s" "max s" "CPU s" "peak RSS KB"
for cmd in "${commands[@]}"; do
    times=() cpus=() rss=0
    for ((r = 1; r <= reps; r++)); do
        rm -rf "$work/copy"
        cp -a "$lib" "$work/copy"
        sync
        # shellcheck disable=SC2086
        # (verify exits 1 when it finds problems: still a completed run.)
        /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$bin" --library "$work/copy" --quiet $cmd > /dev/null || true
        read -r t m u s < <(tail -1 "$work/time")
        times+=("$t")
        cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')")
        [ "$m" -gt "$rss" ] && rss=$m
    done
    sorted=$(printf '%s\n' "${times[@]}" | sort -g)
    median=$(printf '%s\n' "$sorted" | awk -v n="$reps" 'NR == int((n + 1) / 2)')
    cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | awk -v n="$reps" 'NR == int((n + 1) / 2)')
    printf '%-44s %9s %9s %9s %9s %12s\n' "${cmd/$share0/<10,000-photo share>}" "$median" "$(head -1 <<<"$sorted")" "$(tail -1 <<<"$sorted")" "$cpu" "$rss"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

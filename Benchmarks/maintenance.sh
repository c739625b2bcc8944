#!/usr/bin/env bash
# Times the maintenance commands on a synthetic 100,000-photo library (see make-library.sh):
# dedupe-tags --all, purge of the 10,000-photo share, history compact of a million changes,
# list --tag, verify --quick and stats. Each repetition of a destructive command (dedupe-tags,
# purge, history compact) runs on a fresh copy of the library, so it measures the same work every
# time (the catalog copied; ExternalData hard-linked, so purge's removals leave the source's
# originals); the read-only ones run on the library itself. Prints the median, min and max
# seconds, the median CPU seconds (user+sys: steadier than wall time on a loaded machine) and
# the peak RSS of each command, and the load average before and after.
#
# No timed command pays for the set-up or the write-back of another one. Untimed, before each
# destructive run, the copy is made and then written out (`sync`; on PostgreSQL a `CHECKPOINT`
# first: CREATE DATABASE … TEMPLATE copies a multi-GB catalog through shared buffers and WAL);
# after each destructive run the copy is removed (its folder, its database) and the server and
# the kernel write back what it dirtied (`CHECKPOINT`, `sync`). Without that the read-only
# commands timed after them (list, verify, stats) ran while the server's checkpointer and the
# kernel wrote back the last copy's gigabytes, a cost a user's read-only command would not
# pay (verify --quick on 1,000,000 photos in PostgreSQL: 11.0 s in the script, 9.2 s alone).
# Nothing is pre-run to warm a cache: the copy's pages still evict the source's from the
# server's shared buffers, and the page cache holds what the earlier runs read, as a user's would.
#
# Usage: Benchmarks/maintenance.sh [--reps N] [--photos N] [--photos-bin PATH] [--library DIR]
#   --library DIR  reuse a library made earlier by make-library.sh (default: build one in a
#                  temporary folder, removed at exit). A PostgreSQL library (make-library.sh
#                  --database) is copied for each destructive run with CREATE DATABASE …
#                  TEMPLATE (the source database must have no other sessions; needs psql and
#                  the right to create databases), the copy dropped at exit.
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
conn= copy_db=
# The server's write-back of everything dirtied so far (PostgreSQL docs, CHECKPOINT: needs
# superuser or pg_checkpoint), then the kernel's (sync). Untimed.
write_back() {
    if [ -n "$conn" ]; then
        psql "$conn dbname=postgres" -qXc "CHECKPOINT" >/dev/null ||
            echo "maintenance.sh: CHECKPOINT refused (needs superuser or pg_checkpoint): timings may include write-back" >&2
    fi
    sync
}
cleanup() {
    [ -n "$copy_db" ] && psql "$conn dbname=postgres" -qXc "DROP DATABASE IF EXISTS $copy_db" >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
if [ -z "$lib" ]; then
    lib="$work/source"
    "$here/make-library.sh" "$lib" --photos "$photos_n" --photos-bin "$bin"
fi
if [ -f "$lib/catalog.postgresql" ]; then
    command -v psql >/dev/null || { echo "maintenance.sh: needs psql for a PostgreSQL library" >&2; exit 69; }
    conn=$(grep -v '^#' "$lib/catalog.postgresql" | grep -m1 .)
    source_db=$(psql "$conn" -XAtc "SELECT current_database()")
    copy_db="${source_db}_maintenance_copy"
    share0=$(psql "$conn" -XAtc "SELECT id FROM share WHERE title = 'Share 0'")
else
    share0=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT id FROM share WHERE title = 'Share 0'\").fetchone()[0])" "$lib/photos.sqlite")
fi

# A fresh copy of the library in $work/copy: the catalog copied, ExternalData hard-linked.
fresh_copy() {
    rm -rf "$work/copy"
    mkdir "$work/copy"
    (cd "$lib" && find . -mindepth 1 -maxdepth 1 ! -name ExternalData -exec cp -a {} "$work/copy/" \;)
    [ -d "$lib/ExternalData" ] && cp -al "$lib/ExternalData" "$work/copy/ExternalData"
    if [ -n "$conn" ]; then
        PGOPTIONS=--client-min-messages=warning psql "$conn dbname=postgres" -qXc "DROP DATABASE IF EXISTS $copy_db" >/dev/null
        psql "$conn dbname=postgres" -qXc "CREATE DATABASE $copy_db TEMPLATE $source_db" >/dev/null
        printf '%s\n' "$conn dbname='$copy_db'" > "$work/copy/catalog.postgresql"
    fi
    write_back
}

# The copy removed after its destructive run (folder and database), and what it dirtied
# written back, so that the next timed command starts on a server at rest.
drop_copy() {
    rm -rf "$work/copy"
    if [ -n "$conn" ]; then
        PGOPTIONS=--client-min-messages=warning psql "$conn dbname=postgres" -qXc "DROP DATABASE IF EXISTS $copy_db" >/dev/null
    fi
    write_back
}

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
        target=$lib destructive=
        case $cmd in dedupe-tags* | purge* | "history compact"*) fresh_copy; target=$work/copy destructive=1 ;; esac
        # shellcheck disable=SC2086
        # (verify exits 1 when it finds problems: still a completed run.)
        /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$bin" --library "$target" --quiet $cmd > /dev/null || true
        [ -n "$destructive" ] && drop_copy
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

#!/usr/bin/env bash
# Times the position and place commands of issue 26 on a synthetic library (make-library.sh):
# every photo gets a random position (uniform on the sphere, so the poles and the antimeridian
# are crossed), a GeoNames-format file of populated places is written (default 200,000 rows:
# the size of cities500.txt), then each command below runs --reps times: `places load` of that
# file, `list --near` (a 5 km circle and a 50 km one), `list --bbox` (a 1°×1° box and one across
# the antimeridian), `list --place` (the most populous place's radius) and `list --json --near`
# with the places loaded (each photo's place named: one index query per position). Prints the
# median, min and max seconds, the median CPU seconds and the peak RSS of each, and the count of
# photos each list printed (the same on every run).
#
# Usage: Benchmarks/places.sh [--reps N] [--photos N] [--places N] [--photos-bin PATH]
#                             [--library DIR] [--database CONNINFO] [--originals K]
#   --library DIR  reuse a library made by an earlier run (positions already set);
#   --database CONNINFO  build the library's catalog in PostgreSQL (make-library.sh --database);
#   --originals K  K original files shared by the rows (SQLite only; make-library.sh --originals):
#                  quicker to build at 1,000,000 photos, and nothing here reads an original.
# Needs: python3, /usr/bin/time (Debian package `time`), psql for PostgreSQL, a built photos
# binary (swift build -c release).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reps=3 photos_n=100000 places_n=200000 bin="$here/../.build/release/photos" lib="" database="" originals=()
while [ $# -gt 0 ]; do
    case "$1" in
        --reps) reps=$2; shift 2 ;;
        --photos) photos_n=$2; shift 2 ;;
        --places) places_n=$2; shift 2 ;;
        --photos-bin) bin=$2; shift 2 ;;
        --library) lib=$2; shift 2 ;;
        --database) database=$2; shift 2 ;;
        --originals) originals=(--originals "$2"); shift 2 ;;
        *) echo "places.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ -x "$bin" ] || { echo "places.sh: no photos binary at $bin (swift build -c release)" >&2; exit 69; }
[ -x /usr/bin/time ] || { echo "places.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 69; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Random positions, uniform on the sphere (latitude = asin(2u - 1)), seeded: the same library
# for the same --photos. SQLite by python3's sqlite3; PostgreSQL by psql, in one UPDATE.
set_positions() {
    if [ -f "$lib/catalog.postgresql" ]; then
        conn=$(grep -v '^#' "$lib/catalog.postgresql" | grep -m1 .)
        psql "$conn" -qXc "SELECT setseed(0.26);
            UPDATE photo SET latitude_e7 = round(degrees(asin(2 * random() - 1)) * 1e7)::bigint,
                             longitude_e7 = round((360 * random() - 180) * 1e7)::bigint; ANALYZE photo;" >/dev/null
    else
        python3 - "$lib/photos.sqlite" <<'PY'
import math, random, sqlite3, sys
random.seed(26)
db = sqlite3.connect(sys.argv[1])
ids = [r[0] for r in db.execute("SELECT id FROM photo")]
db.executemany(
    "UPDATE photo SET latitude_e7 = ?, longitude_e7 = ? WHERE id = ?",
    [(round(math.degrees(math.asin(2 * random.random() - 1)) * 1e7), round((360 * random.random() - 180) * 1e7), i)
     for i in ids])
db.commit()
db.execute("ANALYZE")
PY
    fi
}
if [ -z "$lib" ]; then
    lib="$work/library"
    if [ -n "$database" ]; then
        "$here/make-library.sh" "$lib" --photos "$photos_n" --photos-bin "$bin" --database "$database"
    else
        "$here/make-library.sh" "$lib" --photos "$photos_n" --photos-bin "$bin" "${originals[@]}"
    fi
    set_positions
fi

# The places: GeoNames' geoname table (19 tab-separated fields), populations Zipf-like, one
# named "Bigtown" (the most populous, near 43.6, 1.44) for --place.
python3 - "$work/cities.txt" "$places_n" <<'PY'
import math, random, sys
random.seed(500)
with open(sys.argv[1], "w") as f:
    for i in range(1, int(sys.argv[2]) + 1):
        if i == 1:
            name, lat, lon, pop = "Bigtown", 43.6, 1.44, 2_000_000
        else:
            name = "Place %d" % i
            lat, lon = math.degrees(math.asin(2 * random.random() - 1)), 360 * random.random() - 180
            pop = int(2_000_000 / i ** 0.9)
        f.write("\t".join([str(i), name, name, "", "%.5f" % lat, "%.5f" % lon, "P", "PPL", "FR", "", "76",
                           "", "", "", str(pop), "", "0", "Europe/Paris", "2024-01-01"]) + "\n")
PY

commands=(
    "places load $work/cities.txt"
    "list --near 43.6,1.44,5"
    "list --near 43.6,1.44,50"
    "list --bbox 43,1,44,2"
    "list --bbox -10,179,10,-179"
    "list --place Bigtown"
    "--json list --near 43.6,1.44,50"
)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
printf '%-40s %9s %9s %9s %9s %12s %8s\n' command "median s" "min s" "max s" "CPU s" "peak RSS KB" photos
for cmd in "${commands[@]}"; do
    times=() cpus=() rss=0 lines=0
    for ((r = 1; r <= reps; r++)); do
        # shellcheck disable=SC2086
        /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$bin" --library "$lib" $cmd > "$work/out" 2> /dev/null || true
        read -r t m u s < <(tail -1 "$work/time")
        times+=("$t")
        cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')")
        [ "$m" -gt "$rss" ] && rss=$m
        lines=$(grep -c -v '^UNIQUENAME' "$work/out" || true)
    done
    sorted=$(printf '%s\n' "${times[@]}" | sort -g)
    median=$(printf '%s\n' "$sorted" | awk -v n="$reps" 'NR == int((n + 1) / 2)')
    cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | awk -v n="$reps" 'NR == int((n + 1) / 2)')
    printf '%-40s %9s %9s %9s %9s %12s %8s\n' "${cmd/$work\//}" "$median" "$(head -1 <<<"$sorted")" \
        "$(tail -1 <<<"$sorted")" "$cpu" "$rss" "$lines"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

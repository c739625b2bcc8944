#!/usr/bin/env bash
# Benchmarks/throughput.sh - MB/s of `photos verify` (full SHA-256 check) against
# `sha256sum`, and of `photos export` against `cp`, on the same files and the same cores.
#
# Usage: Benchmarks/throughput.sh [CORPUS_DIR] [--copies K] [--reps N] [--jobs N]
#                                 [--photos PATH] [--before PATH] [--export-only] [--check-hashes]
#                                 [--keep]
#
# CORPUS_DIR (default ../shared/corpus/bench) is imported K times (default 4; each copy made
# byte-distinct: a COM segment after a JPEG's SOI, a tEXt chunk after a PNG's IHDR) into a
# fresh library; then, per repetition (interleaved, page cache warm, `sync` before each):
#   verify  photos --library LIB verify --jobs J --quiet
#   sha256  find LIB/ExternalData -type f | xargs -P J -n ceil(files/J) sha256sum
#   export  photos --library LIB export --jobs J --sidecar none --quiet DEST   (new DEST)
#   cp      find LIB/ExternalData -type f | xargs -P J -n ceil(files/J) cp -t DEST; sync -f DEST
#   cp-nosync  the same cp without the `sync -f`
# (export makes its files durable with syncfs before recording them, so cp is followed by
# `sync -f`, the same syncfs(2); cp-nosync is the unfair peer that leaves its bytes in the
# page cache). --export-only skips verify and sha256; --before PATH adds an `export-before`
# pass of another photos binary (the same export command) to each repetition; --check-hashes
# adds an `export-hashes` pass (`photos export --check-hashes`: SHA-256 of every original
# checked while it is copied, the default before issue 15's kernel copy). Prints median/min/max seconds, MB/s of the originals' bytes,
# CPU seconds (user+sys of every process, /usr/bin/time) and the photos/peer ratios.
# Needs: python3, /usr/bin/time (Debian package `time`), coreutils, findutils, a built photos.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
corpus="$root/../shared/corpus/bench" copies=4 reps=3 jobs=$(nproc) photos="$root/.build/release/photos" keep=0
exportonly=0 before= hashes=0
die() { echo "throughput.sh: $*" >&2; exit 64; }
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer, got '$2'"; }
while (($#)); do
  case $1 in
    --copies) posint "$1" "${2-}"; copies=$2; shift 2 ;;
    --reps) posint "$1" "${2-}"; reps=$2; shift 2 ;;
    --jobs) posint "$1" "${2-}"; jobs=$2; shift 2 ;;
    --photos) [[ -n ${2-} ]] || die "--photos needs a path"; photos=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --export-only) exportonly=1; shift ;;
    --check-hashes) hashes=1; shift ;;
    --before) [[ -x ${2-} ]] || die "--before needs a photos binary"; before=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) corpus=$1; shift ;;
  esac
done
[[ -x $photos ]] || { echo "throughput.sh: no photos binary at $photos (swift build -c release)" >&2; exit 69; }
[[ -x /usr/bin/time ]] || { echo "throughput.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 69; }
[[ -d $corpus ]] || die "corpus directory not found: $corpus"
photos=$(cd "$(dirname "$photos")" && pwd)/$(basename "$photos")

work=$(mktemp -d "${TMPDIR:-/tmp}/photos-throughput.XXXXXX")
cleanup() { if ((keep)); then echo "kept $work" >&2; else rm -rf "$work"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- stage and import
python3 - "$corpus" "$work/in" "$copies" <<'PY'
import os, struct, sys, zlib
src, dst, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(dst)
n = 0
for dirpath, _, names in os.walk(src):
    for name in sorted(names):
        with open(os.path.join(dirpath, name), 'rb') as f:
            d = f.read()
        for k in range(copies):
            text = b'photos throughput copy %d' % k
            if d[:3] == b'\xff\xd8\xff':
                out = d[:2] + b'\xff\xfe' + struct.pack('>H', len(text) + 2) + text + d[2:]
            elif d[:8] == b'\x89PNG\r\n\x1a\n':
                body = b'tEXt' + b'Comment\x00' + text
                chunk = struct.pack('>I', len(body) - 4) + body + struct.pack('>I', zlib.crc32(body))
                out = d[:33] + chunk + d[33:]
            else:
                break
            n += 1
            with open(os.path.join(dst, '%d-%s' % (k, name)), 'wb') as f:
                f.write(out)
print('staged %d files' % n, file=sys.stderr)
PY
lib="$work/lib"
"$photos" --library "$lib" import --jobs "$jobs" --quiet "$work/in" || true
store="$lib/ExternalData"
files=$(find "$store" -type f | wc -l)
bytes=$(find "$store" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
[[ $files -gt 0 ]] || die "nothing imported from $corpus"
per=$(((files + jobs - 1) / jobs))
echo "originals: $files files, $((bytes / 1000000)) MB; jobs $jobs; reps $reps; $(nproc) cores" >&2
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# ---------------------------------------------------------------- passes
# Each pass runs under /usr/bin/time (wall, user, sys of the whole process tree).
run() { # name command...
  local name=$1; shift
  sync
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
    # verify exits 1 when it finds problems: a completed pass, flagged below.
    [[ $name == verify ]] || { cat "$work/err" >&2; die "$name failed"; }
    echo "throughput.sh: verify reported problems (see $work/err)" >&2
  }
  read -r t u s <"$work/time"
  echo "$name $t $(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')" >>"$work/results"
}
find "$store" -type f -exec cat {} + >/dev/null # warm the page cache
for ((r = 1; r <= reps; r++)); do
  if ((!exportonly)); then
    run verify "$photos" --library "$lib" verify --jobs "$jobs" --quiet
    run sha256 bash -c 'find "$1" -type f -print0 | xargs -0 -P "$2" -n "$3" sha256sum' _ "$store" "$jobs" "$per"
  fi
  rm -rf "$work/out"
  run export "$photos" --library "$lib" export --jobs "$jobs" --sidecar none --quiet "$work/out"
  if ((hashes)); then
    rm -rf "$work/out"
    run export-hashes "$photos" --library "$lib" export --jobs "$jobs" --sidecar none --check-hashes --quiet "$work/out"
  fi
  if [[ -n $before ]]; then
    rm -rf "$work/out"
    run export-before "$before" --library "$lib" export --jobs "$jobs" --sidecar none --quiet "$work/out"
  fi
  rm -rf "$work/cp"; mkdir "$work/cp"
  run cp bash -c 'find "$1" -type f -print0 | xargs -0 -P "$2" -n "$3" cp -t "$4" && sync -f "$4"' _ \
    "$store" "$jobs" "$per" "$work/cp"
  rm -rf "$work/cp"; mkdir "$work/cp"
  run cp-nosync bash -c 'find "$1" -type f -print0 | xargs -0 -P "$2" -n "$3" cp -t "$4"' _ \
    "$store" "$jobs" "$per" "$work/cp"
  echo "load average after rep $r: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done

# ---------------------------------------------------------------- table
python3 - "$work/results" "$bytes" <<'PY'
import statistics, sys
rows, total = {}, int(sys.argv[2])
for line in open(sys.argv[1]):
    name, t, cpu = line.split()
    rows.setdefault(name, []).append((float(t), float(cpu)))
med = {n: statistics.median(t for t, _ in v) for n, v in rows.items()}
print('%-13s %9s %7s %7s %8s %8s' % ('pass', 'median s', 'min s', 'max s', 'MB/s', 'CPU s'))
for n in ['verify', 'sha256', 'export-before', 'export-hashes', 'export', 'cp', 'cp-nosync']:
    if n not in rows:
        continue
    v = rows[n]
    print('%-13s %9.2f %7.2f %7.2f %8.1f %8.2f' % (
        n, med[n], min(t for t, _ in v), max(t for t, _ in v), total / 1e6 / med[n],
        statistics.median(c for _, c in v)))
if 'verify' in med:
    print('verify / sha256sum: %.2fx of its MB/s (target >= 0.8)' % (med['sha256'] / med['verify']))
print('export / cp + sync: %.2fx of its MB/s (target >= 0.8)' % (med['cp'] / med['export']))
print('export / cp alone:  %.2fx of its MB/s (cp leaves its bytes unsynced)' % (med['cp-nosync'] / med['export']))
if 'export-hashes' in med:
    print('export --check-hashes / cp + sync: %.2fx; / cp alone: %.2fx' % (
        med['cp'] / med['export-hashes'], med['cp-nosync'] / med['export-hashes']))
if 'export-before' in med:
    print('export-before / cp + sync: %.2fx; / cp alone: %.2fx' % (
        med['cp'] / med['export-before'], med['cp-nosync'] / med['export-before']))
PY

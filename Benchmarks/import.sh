#!/usr/bin/env bash
# Benchmarks/import.sh - time `photos import` against public thumbnailers on the same
# files and the same number of cores.
#
# Usage: Benchmarks/import.sh [CORPUS_DIR] [--reps N] [--jobs N] [--photos PATH]
#                             [--copies K] [--subset all|jpeg|progressive|baseline|png]
#                             [--batch N] [--skip-photos] [--keep]
#
# Installs nothing. Needs (Debian packages): graphicsmagick (gm), libvips-tools
# (vipsthumbnail), libjpeg-turbo-progs (djpeg), time (/usr/bin/time), python3,
# coreutils/findutils, and a built photos binary (swift build -c release).
# See Benchmarks/README.md for what is measured and how to read the output.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

corpus="$root/../shared/corpus/bench"
reps=3
jobs=$(nproc)
photos="$root/.build/release/photos"
copies=1
subset=all
batch=1
skip_photos=0
keep=0

usage() { sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "import.sh: $*" >&2; exit 64; }
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer, got '$2'"; }

corpus_set=0
while (($#)); do
  case $1 in
    --reps) posint "$1" "${2-}"; reps=$2; shift 2 ;;
    --jobs) posint "$1" "${2-}"; jobs=$2; shift 2 ;;
    --photos) [[ -n ${2-} ]] || die "--photos needs a path"; photos=$2; shift 2 ;;
    --copies) posint "$1" "${2-}"; copies=$2; shift 2 ;;
    --subset)
      case ${2-} in all|jpeg|progressive|baseline|png) subset=$2 ;; *) die "--subset all|jpeg|progressive|baseline|png" ;; esac
      shift 2 ;;
    --batch) posint "$1" "${2-}"; batch=$2; shift 2 ;;
    --skip-photos) skip_photos=1; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; (($#)) && { corpus=$1; corpus_set=1; shift; } ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) ((corpus_set)) && die "only one CORPUS_DIR"; corpus=$1; corpus_set=1; shift ;;
  esac
done

# ---------------------------------------------------------------- requirements
missing=()
need() { command -v "$1" >/dev/null 2>&1 || missing+=("$1 (apt package: $2)"); }
need gm graphicsmagick
need vipsthumbnail libvips-tools
need djpeg libjpeg-turbo-progs
[[ -x /usr/bin/time ]] || missing+=("/usr/bin/time (apt package: time)")
need python3 python3
need xargs findutils
need sync coreutils
if ((${#missing[@]})); then
  echo "import.sh: missing tools:" >&2
  printf '  %s\n' "${missing[@]}" >&2
  echo "install with: apt-get install graphicsmagick libvips-tools libjpeg-turbo-progs time python3" >&2
  exit 69
fi
if ((!skip_photos)); then
  if [[ ! -x $photos ]]; then
    echo "import.sh: photos binary not found at $photos" >&2
    echo "  build it with:  (cd $root && swift build -c release)" >&2
    echo "  or pass --photos PATH, or --skip-photos to time only the peers" >&2
    exit 69
  fi
  photos=$(cd "$(dirname "$photos")" && pwd)/$(basename "$photos")
fi
[[ -d $corpus ]] || die "corpus directory not found: $corpus"
corpus=$(cd "$corpus" && pwd)

# ---------------------------------------------------------------- work area
work=$(mktemp -d "${TMPDIR:-/tmp}/photos-bench.XXXXXX")
cleanup() { if ((keep)); then echo "kept $work" >&2; else rm -rf "$work"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# Stage the files once: the subset filter picks by content, --copies K makes K
# byte-distinct copies (still valid JPEG/PNG) so a SHA-256 duplicate check keeps them.
# Every tool then reads the same staged files from the same filesystem.
in="$work/in"
mkdir -p "$in"
python3 - "$corpus" "$in" "$subset" "$copies" >"$work/stage.log" <<'PY'
import os, struct, sys, zlib

src, dst, subset, copies = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def kind(d):
    """png | progressive | baseline | None; walks JPEG markers up to the first SOS,
    so an EXIF thumbnail (inside APP1) cannot fool it."""
    if d[:8] == b'\x89PNG\r\n\x1a\n':
        return 'png'
    if d[:3] != b'\xff\xd8\xff':
        return None
    i = 2
    while i + 4 <= len(d):
        if d[i] != 0xFF:
            return None
        m = d[i + 1]
        if m == 0xFF:                      # fill byte
            i += 1; continue
        if m == 0x01 or 0xD0 <= m <= 0xD8:  # standalone markers
            i += 2; continue
        if m in (0xDA, 0xD9):
            return None                    # SOS/EOI before any SOF
        if m in (0xC2, 0xC6, 0xCA, 0xCE):
            return 'progressive'
        if m in (0xC0, 0xC1, 0xC3, 0xC5, 0xC7, 0xC9, 0xCB, 0xCD):
            return 'baseline'              # sequential (baseline or extended)
        i += 2 + struct.unpack('>H', d[i + 2:i + 4])[0]
    return None

def jpeg_copy(d, n):
    # COM segment right after SOI: FF FE, 2-byte length (includes itself), text.
    text = b'photos benchmark copy %d' % n
    return d[:2] + b'\xff\xfe' + struct.pack('>H', len(text) + 2) + text + d[2:]

def png_copy(d, n):
    # tEXt chunk right after IHDR (IHDR is always first: 8 sig + 4 len + 4 type + 13 + 4 crc).
    ihdr_end = 8 + 8 + struct.unpack('>I', d[8:12])[0] + 4
    body = b'tEXt' + b'Comment\x00photos benchmark copy %d' % n
    chunk = struct.pack('>I', len(body) - 4) + body + struct.pack('>I', zlib.crc32(body) & 0xFFFFFFFF)
    return d[:ihdr_end] + chunk + d[ihdr_end:]

counts = {}
for dirpath, dirnames, filenames in os.walk(src):
    dirnames.sort()
    for fn in sorted(filenames):
        p = os.path.join(dirpath, fn)
        if not os.path.isfile(p):
            continue
        with open(p, 'rb') as f:
            d = f.read()
        k = kind(d)
        if k is None:
            counts['skipped'] = counts.get('skipped', 0) + 1
            continue
        if subset == 'jpeg' and k == 'png' or subset not in ('all', 'jpeg') and k != subset:
            counts['filtered'] = counts.get('filtered', 0) + 1
            continue
        rel = os.path.relpath(p, src).replace(os.sep, '__')
        base, ext = os.path.splitext(rel)
        for n in range(1, copies + 1):
            if copies == 1:
                out, name = d, rel
            else:
                out = png_copy(d, n) if k == 'png' else jpeg_copy(d, n)
                name = '%s_c%03d%s' % (base, n, ext)
            with open(os.path.join(dst, name), 'wb') as f:
                f.write(out)
            counts[k] = counts.get(k, 0) + 1
print(' '.join('%s=%d' % kv for kv in sorted(counts.items())))
PY
stage_summary=$(cat "$work/stage.log")
mapfile -t files < <(cd "$in" && find . -maxdepth 1 -type f -printf '%f\n' | LC_ALL=C sort)
nfiles=${#files[@]}
((nfiles > 0)) || die "no JPEG/PNG files selected from $corpus (subset=$subset)"
printf '%s\n' "${files[@]}" >"$work/list"
bytes=$(du -sb "$in" | cut -f1)

# ---------------------------------------------------------------- the tools
# Each function runs one complete pass over the staged files into $1 (a fresh, empty
# output directory) and appends one line "peakRSS_KB user_s sys_s" per process to $2.
T=(/usr/bin/time -f "%M %U %S" -a -o)

run_photos() {
  local out=$1 rss=$2 rc=0
  "${T[@]}" "$rss" "$photos" --library "$out/library" import --jobs "$jobs" --quiet "$in" \
    >"$out/.stdout" 2>"$out/.stderr" || rc=$?
  # 0 = all imported, 1 = some files failed: both are a completed run.
  ((rc == 0 || rc == 1)) || { echo "photos exited $rc; stderr:" >&2; tail -5 "$out/.stderr" >&2; return "$rc"; }
}

run_gm() {
  local out=$1 rss=$2
  (cd "$in" && xargs -a "$work/list" -d '\n' -n "$batch" -P "$jobs" \
    "${T[@]}" "$rss" gm mogrify -output-directory "$out" -size 120x120 -thumbnail 120x120 -format jpg)
}

run_vips() {
  local out=$1 rss=$2
  (cd "$in" && xargs -a "$work/list" -d '\n' -n "$batch" -P "$jobs" \
    "${T[@]}" "$rss" vipsthumbnail -s 120x120 -o "$out/%s.jpg")
}

# Floor: decode every JPEG at 1/8 scale (the cheapest real decode) and write a copy
# of every file with fsync - roughly the least any importer that reads each image
# and stores something durable has to pay.
run_floor() {
  local out=$1 rss=$2
  # shellcheck disable=SC2016
  (cd "$in" && xargs -a "$work/list" -d '\n' -n "$batch" -P "$jobs" \
    "${T[@]}" "$rss" bash -c '
      out=$1; shift
      for f; do
        magic=; LC_ALL=C read -r -n 3 magic <"$f" || true
        if [[ $magic == $'"'"'\xff\xd8\xff'"'"' ]]; then
          djpeg -scale 1/8 -outfile /dev/null "./$f"
        fi
        cp -- "$f" "$out/$f" && sync -- "$out/$f"
      done' floor "$out")
}

tools=()
((skip_photos)) || tools+=(photos)
tools+=(gm vips floor)
declare -A label=(
  [photos]="photos import --jobs $jobs"
  [gm]="gm mogrify -thumbnail (xargs -P $jobs)"
  [vips]="vipsthumbnail -s 120x120 (xargs -P $jobs)"
  [floor]="floor: djpeg 1/8 + cp + fsync (xargs -P $jobs)"
)
declare -A cmd=(
  [photos]="photos --library TMPLIB import --jobs $jobs --quiet DIR"
  [gm]="gm mogrify -output-directory OUT -size 120x120 -thumbnail 120x120 -format jpg FILE"
  [vips]="vipsthumbnail -s 120x120 -o OUT/%s.jpg FILE"
  [floor]="djpeg -scale 1/8 -outfile /dev/null FILE (JPEGs); cp FILE OUT/ && sync OUT/FILE"
)

echo "corpus : $corpus"
echo "staged : $nfiles files, $((bytes / 1024)) KiB ($stage_summary; subset=$subset, copies=$copies)"
echo "setup  : reps=$reps jobs=$jobs batch=$batch (files per peer invocation) cores=$(nproc)"
((skip_photos)) && echo "photos : skipped (--skip-photos)" || echo "photos : $photos"
echo "tools  : gm $(gm version | head -1 | awk '{print $2}'), $(vipsthumbnail --version), $(djpeg -version 2>&1 | head -1 | sed 's/ (build.*//')"
echo

cat "$in"/* >/dev/null   # warm the page cache so the first tool is not charged for it

read -r load1 _ </proc/loadavg
if python3 -c "import sys; sys.exit(0 if float('$load1') > 0.5 else 1)"; then
  echo "warning: load average $load1 before start: other processes are using the CPU, so"
  echo "         wall times will be noisy; compare the CPU-seconds column, or rerun when idle."
  echo
fi

declare -A times status
declare -A note
for t in "${tools[@]}"; do times[$t]=""; status[$t]=ok; note[$t]=""; done

for ((r = 1; r <= reps; r++)); do
  for t in "${tools[@]}"; do
    out="$work/out.$t.$r"
    rm -rf "$out"; mkdir -p "$out"
    sync
    t0=$EPOCHREALTIME
    rc=0
    : >"$work/rss.$t.$r"
    "run_$t" "$out" "$work/rss.$t.$r" 2>>"$work/err.$t" || rc=$?
    t1=$EPOCHREALTIME
    secs=$(python3 -c "print('%.3f' % ($t1 - $t0))")
    if [[ $t == photos ]]; then
      # Untimed, best effort: how many rows the library holds (photos exits 1 when
      # some files failed, which still counts as a completed run).
      n=$("$photos" --library "$out/library" list --json 2>/dev/null | grep -c . || true)
      [[ $n == "$nfiles" ]] || note[$t]="library rows ${n:-?}/$nfiles"
    else
      n=$(find "$out" -maxdepth 1 -type f ! -name '.*' | wc -l)
    fi
    if ((rc != 0)); then
      status[$t]="rc=$rc"
      echo "  $t failed (exit $rc); last lines of its stderr:" >&2
      tail -n 5 "$work/err.$t" | sed 's/^/    /' >&2
    fi
    if [[ $t != photos ]] && ((n != nfiles)); then status[$t]="outputs=$n/$nfiles"; fi
    times[$t]+="$secs "
    read -r load1 _ </proc/loadavg
    printf 'rep %d/%d  %-7s %8.3f s  load %s  %s\n' "$r" "$reps" "$t" "$secs" "$load1" "${status[$t]}${note[$t]:+ (${note[$t]})}"
    ((keep)) || rm -rf "$out"
  done
done
echo

# ---------------------------------------------------------------- report
python3 - "$nfiles" "$bytes" "$jobs" "$reps" "$work" "${tools[@]}" <<PY
import statistics, sys
nfiles, nbytes, jobs, reps, work = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
tools = sys.argv[6:]
times = {$(for t in "${tools[@]}"; do printf "'%s': [%s], " "$t" "$(echo "${times[$t]}" | xargs | tr ' ' ',')"; done)}
status = {$(for t in "${tools[@]}"; do printf "'%s': '%s', " "$t" "${status[$t]}${note[$t]:+ (${note[$t]})}"; done)}
label = {$(for t in "${tools[@]}"; do printf "'%s': '''%s''', " "$t" "${label[$t]}"; done)}
cmd = {$(for t in "${tools[@]}"; do printf "'%s': '''%s''', " "$t" "${cmd[$t]}"; done)}
def usage(t):
    """(peak RSS KB over every process of every rep, [CPU seconds user+sys per rep])"""
    peak, cpu = 0, []
    for r in range(1, reps + 1):
        tot = 0.0
        for line in open('%s/rss.%s.%d' % (work, t, r)):
            f = line.split()
            if len(f) == 3 and f[0].isdigit():
                peak = max(peak, int(f[0]))
                tot += float(f[1]) + float(f[2])
        cpu.append(tot)
    return peak, cpu
row = {}
print('%-46s %9s %9s %9s %10s %8s %8s %12s  %s' % ('tool', 'median s', 'min s', 'max s', 'images/s', 'MB/s', 'CPU s', 'peak RSS KB', 'status'))
for t in tools:
    ts = times[t]
    med = statistics.median(ts)
    ips = nfiles / med if med > 0 else float('inf')
    mbs = nbytes / 1e6 / med if med > 0 else float('inf')
    peak, cpu = usage(t)
    cmed = statistics.median(cpu)
    row[t] = (med, ips, peak, cmed)
    print('%-46s %9.3f %9.3f %9.3f %10.1f %8.1f %8.2f %12d  %s' % (label[t], med, min(ts), max(ts), ips, mbs, cmed, peak, status[t]))
print()
print('CPU s   = median over reps of user+sys seconds of all processes of one pass (less')
print('          sensitive to other load on the machine than wall time).')
print('peak RSS = largest maximum-resident-set of any one process (/usr/bin/time %M);')
print('          for photos the one whole process, for peers the worst single invocation.')
print()
if 'photos' in row:
    pm, pips, prss, pcpu = row['photos']
    print('%-12s %22s %22s %18s %16s' % ('photos/peer', 'time ratio (<1 faster)', 'images/s ratio (>1)', 'CPU-s ratio', 'peak RSS ratio'))
    for t in tools:
        if t == 'photos':
            continue
        m, ips, r, c = row[t]
        print('%-12s %22.2f %22.2f %18s %16s' % (t, pm / m, pips / ips, ('%.2f' % (pcpu / c)) if c else 'n/a', ('%.2f' % (prss / r)) if r else 'n/a'))
else:
    print('photos/peer ratios: n/a (photos skipped)')
print()
print('tsv\ttool\tfiles\tbytes\tjobs\treps\tmedian_s\tmin_s\tmax_s\timages_per_s\tcpu_s\tpeak_rss_kb\tstatus\ttimes_s\tcommand')
for t in tools:
    med, ips, peak, cmed = row[t]
    print('tsv\t%s\t%d\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t%d\t%s\t%s\t%s' % (
        t, nfiles, nbytes, jobs, reps, med, min(times[t]), max(times[t]), ips, cmed, peak, status[t],
        ','.join('%.3f' % x for x in times[t]), cmd[t]))
PY

for t in "${tools[@]}"; do [[ ${status[$t]} == ok ]] || exit 1; done
exit 0

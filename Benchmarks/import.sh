#!/usr/bin/env bash
# Benchmarks/import.sh - time `photos import` against public thumbnailers on the same
# files and the same number of cores.
#
# Usage: Benchmarks/import.sh [CORPUS_DIR | --tree bench|small|many] [--reps N] [--jobs N]
#                             [--photos PATH] [--copies K]
#                             [--subset all|jpeg|progressive|baseline|png]
#                             [--batch N] [--skip-photos] [--fsync-cost] [--keep]
#                             [--baseline PATH] [--into LIBRARY] [--skip-peers]
#
# --into LIBRARY also times the same import into a fresh copy of LIBRARY (copied before each
# pass, untimed; e.g. a 1,000,000-photo library from make-library.sh) as tool "into", and
# prints its images/s against the import into an empty library. --skip-peers times photos only.
# --baseline PATH times a second photos binary (a build of an earlier commit) in the same
# reps as tool "before", so a change is measured back to back against the same peer runs.
# Installs nothing. Needs (Debian packages): graphicsmagick (gm), libvips-tools
# (vipsthumbnail), libjpeg-turbo-progs (djpeg), time (/usr/bin/time), python3,
# coreutils/findutils, and a built photos binary (swift build -c release). Optional:
# python3-pil (the Pillow peer; --tree small|many generate their trees with it),
# strace (--fsync-cost). See Benchmarks/README.md for what is measured and how.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

corpus="$root/../shared/corpus/bench"
reps=3
jobs=$(nproc)
photos="$root/.build/release/photos"
copies=1
subset=all
batch=
skip_photos=0
keep=0
tree=
fsync_cost=0
baseline=
into=
skip_peers=0
cache=${PHOTOS_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/photos-bench}

usage() { sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
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
    --tree)
      case ${2-} in bench|small|many) tree=$2 ;; *) die "--tree bench|small|many" ;; esac
      shift 2 ;;
    --fsync-cost) fsync_cost=1; shift ;;
    --baseline) [[ -n ${2-} ]] || die "--baseline needs a path"; baseline=$2; shift 2 ;;
    --into) [[ -n ${2-} ]] || die "--into needs a library folder"; into=$2; shift 2 ;;
    --skip-photos) skip_photos=1; shift ;;
    --skip-peers) skip_peers=1; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; (($#)) && { corpus=$1; corpus_set=1; shift; } ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) ((corpus_set)) && die "only one CORPUS_DIR"; corpus=$1; corpus_set=1; shift ;;
  esac
done

[[ -n $tree && $corpus_set == 1 ]] && die "give either CORPUS_DIR or --tree, not both"
if [[ -n $into ]]; then
  [[ -d $into ]] || die "--into: no library folder at $into"
  into=$(cd "$into" && pwd)
  ((skip_photos)) && die "--into times photos: not with --skip-photos"
fi
# On the generated trees per-file peer processes would time process start-up, not
# thumbnailing (vipsthumbnail alone starts in ~30 ms of CPU; gm ~6 ms): --tree small|many
# hand the peers 100 files per process unless --batch says otherwise.
[[ -z $batch ]] && { [[ $tree == small || $tree == many ]] && batch=100 || batch=1; }

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
# Pillow: the first python3 that imports PIL (Debian's python3-pil is for /usr/bin/python3).
pillow_py=
for py in /usr/bin/python3 python3; do
  if "$py" -c 'import PIL' >/dev/null 2>&1; then pillow_py=$(command -v "$py"); break; fi
done
if [[ -n $tree && $tree != bench && -z $pillow_py ]]; then
  echo "import.sh: --tree $tree generates its photos with Pillow: apt-get install python3-pil" >&2
  exit 69
fi
if ((fsync_cost)) && ! command -v strace >/dev/null 2>&1; then
  echo "import.sh: --fsync-cost counts system calls with strace: apt-get install strace" >&2
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
# ---------------------------------------------------------------- generated trees
# small: 2,000 photos of 640x480 (smooth colour fields with shapes and grain, JPEG q80,
# about 18 KB each); many: 50,000 tiny JPEGs (16x16, under 1 KB) in 50 folders. Both are
# generated once from a fixed seed into $cache (PHOTOS_BENCH_CACHE, default
# ~/.cache/photos-bench) and reused: same seed and Pillow/libjpeg version, same bytes.
generate_tree() {
  local kind=$1 dir=$2
  [[ -f $dir/.complete ]] && return 0
  echo "generating the $kind tree into $dir (once)..." >&2
  rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
  "$pillow_py" - "$kind" "$dir.tmp" <<'PY'
import os, random, sys
from PIL import Image, ImageDraw, ImageFilter
kind, out = sys.argv[1], sys.argv[2]
rng = random.Random(15)          # issue 15; change the folder name (v1) if this changes
if kind == 'small':
    for i in range(2000):
        base = Image.new('RGB', (8, 6))
        base.putdata([tuple(rng.randrange(256) for _ in range(3)) for _ in range(48)])
        im = base.resize((640, 480), Image.BICUBIC)
        d = ImageDraw.Draw(im)
        for _ in range(6):
            x, y = rng.randrange(640), rng.randrange(480)
            r = rng.randrange(20, 160)
            d.ellipse((x - r, y - r, x + r, y + r), fill=tuple(rng.randrange(256) for _ in range(3)))
        im = im.filter(ImageFilter.GaussianBlur(2))
        grain = Image.frombytes('L', (640, 480), rng.randbytes(640 * 480)).point(lambda v: v // 32)
        im.paste(Image.new('RGB', (640, 480), (16, 16, 16)), mask=grain)
        sub = os.path.join(out, 'd%02d' % (i // 100))
        os.makedirs(sub, exist_ok=True)
        im.save(os.path.join(sub, 'img%05d.jpg' % i), quality=80)
else:
    for i in range(50000):
        px = rng.randbytes(16 * 16 * 3)
        px = i.to_bytes(3, 'big') + px[3:]  # pixel 0 holds the index: every file differs
        im = Image.frombytes('RGB', (16, 16), px)
        sub = os.path.join(out, 'd%02d' % (i // 1000))
        os.makedirs(sub, exist_ok=True)
        im.save(os.path.join(sub, 'tiny%05d.jpg' % i), quality=90)
PY
  touch "$dir.tmp/.complete"
  rm -rf "$dir"; mv "$dir.tmp" "$dir"
}
case $tree in
  small) corpus="$cache/small-640x480-2000-v1"; generate_tree small "$corpus" ;;
  many) corpus="$cache/many-16x16-50000-v1"; generate_tree many "$corpus" ;;
esac
[[ -d $corpus ]] || die "corpus directory not found: $corpus"
corpus=$(cd "$corpus" && pwd)

# ---------------------------------------------------------------- work area
# Every pass writes into its own folder, kept until the run ends: no pass deletes files while
# others are timed. On ext4 without a journal (this project's benchmark VM) allocating an inode
# skips every free inode of its block group deleted in the last 5 s, or 305 s once the block of
# the inode table holding it is dirty, rescanning the group from its start for each new file
# (fs/ext4/ialloc.c: find_inode_bit, recently_deleted): deleting one pass's 2,000 outputs cost
# the next tool's pass up to 1.5 s of kernel time (Benchmarks/README.md).
work=$(mktemp -d "${TMPDIR:-/tmp}/photos-bench.XXXXXX")
fs_dev=$(stat -c %d "$work" 2>/dev/null || true)
for j in /sys/fs/ext4/*/journal_task; do
  [[ -r $j && $(cat "$j" 2>/dev/null) == "<none>" ]] || continue
  dev=$(basename "$(dirname "$j")")
  if [[ -e /dev/$dev && $(stat -L -c '%t:%T' "/dev/$dev" 2>/dev/null) == \
    "$(printf '%x:%x' $(((fs_dev >> 8) & 0xfff)) $((fs_dev & 0xff)))" ]]; then
    echo "note: $work is on ext4 without a journal ($dev): files deleted on it in the last five"
    echo "      minutes (a previous run's clean-up) slow every tool's file creation; wait five"
    echo "      minutes after deleting many files, or set TMPDIR to a journaled file system."
    echo
  fi
done
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
    # Bytes after EOI: another SHA-256 and another image-data hash (a COM segment or a tEXt
    # chunk is metadata, and import takes a file differing only there for the same photo).
    return d + b'photos benchmark copy %d' % n

def png_copy(d, n):
    # Bytes after IEND, for the same reason.
    return d + b'photos benchmark copy %d' % n

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
  local out=$1 rss=$2 rc=0 binary=${3:-$photos}
  "${T[@]}" "$rss" "$binary" --library "$out/library" import --jobs "$jobs" --quiet "$in" \
    >"$out/.stdout" 2>"$out/.stderr" || rc=$?
  # 0 = all imported, 1 = some files failed: both are a completed run.
  ((rc == 0 || rc == 1)) || { echo "photos exited $rc; stderr:" >&2; tail -5 "$out/.stderr" >&2; return "$rc"; }
}

# GraphicsMagick parallelises one image over OpenMP threads (one per core by default). With
# several gm processes at once (xargs -P) those threads oversubscribe the cores and make gm
# up to ten times slower on small files, which flatters photos: one thread per process when
# J > 1, as a user running gm in parallel would set it.
gm_env=()
((jobs > 1)) && gm_env=(env OMP_NUM_THREADS=1)

run_gm() {
  local out=$1 rss=$2
  (cd "$in" && xargs -a "$work/list" -d '\n' -n "$batch" -P "$jobs" \
    "${gm_env[@]}" "${T[@]}" "$rss" gm mogrify -output-directory "$out" -size 120x120 -thumbnail 120x120 -format jpg)
}

run_vips() {
  local out=$1 rss=$2
  (cd "$in" && xargs -a "$work/list" -d '\n' -n "$batch" -P "$jobs" \
    "${T[@]}" "$rss" vipsthumbnail -s 120x120 -o "$out/%s.jpg")
}

# Pillow: J processes (multiprocessing), each opening a file, asking the JPEG decoder for a
# reduced size first (Image.draft: libjpeg DCT scaling, like photos and gm's -size), then
# Image.thumbnail((120, 120)) and a JPEG save. One pass = one python3 process tree.
run_pillow() {
  local out=$1 rss=$2
  (cd "$in" && "${T[@]}" "$rss" "$pillow_py" - "$out" "$jobs" "$work/list" <<'PY'
import multiprocessing, os, sys
from PIL import Image
out, jobs, listing = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def thumb(name):
    with Image.open(name) as im:
        if im.format == 'JPEG':
            im.draft('RGB', (120, 120))
        im.thumbnail((120, 120))
        if im.mode != 'RGB':
            im = im.convert('RGB')
        im.save(os.path.join(out, name + '.jpg'), quality=85)
    return 1
names = [l for l in open(listing).read().split('\n') if l]
with multiprocessing.Pool(jobs) as pool:
    done = sum(pool.imap_unordered(thumb, names, chunksize=8))
sys.exit(0 if done == len(names) else 1)
PY
  )
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

run_before() { run_photos "$1" "$2" "$baseline"; }

# --into: the same import into a copy of LIBRARY, which prepare_into makes (untimed) before
# the pass: cp -a of the folder (catalog, WAL if any, originals), then sync.
# The copy hard-links the library's originals (cp -al: import never rewrites an existing
# original) and copies the catalog, so no pass frees thousands of inodes (see "work area").
prepare_into() {
  mkdir -p "$1/library" &&
    for f in "$into"/* "$into"/.[!.]*; do
      [[ -e $f ]] || continue
      if [[ -d $f ]]; then cp -al "$f" "$1/library/"; else cp -a "$f" "$1/library/"; fi
    done && sync
}
run_into() { run_photos "$1" "$2"; }
# Rows in a SQLite catalog (best effort: needs the sqlite3 shell; empty when unknown).
catalog_rows() {
  [[ -f $1/photos.sqlite ]] && command -v sqlite3 >/dev/null 2>&1 || return 0
  sqlite3 -readonly "$1/photos.sqlite" 'SELECT count(*) FROM photo' 2>/dev/null || true
}
into_rows=
[[ -n $into ]] && into_rows=$(catalog_rows "$into")

tools=()
((skip_photos)) || tools+=(photos)
[[ -n $into ]] && tools+=(into)
[[ -n $baseline ]] && tools+=(before)
if ((!skip_peers)); then
  tools+=(gm vips)
  [[ -n $pillow_py ]] && tools+=(pillow)
  tools+=(floor)
fi
gm_threads="OpenMP default"
((jobs > 1)) && gm_threads="OMP_NUM_THREADS=1"
declare -A label=(
  [photos]="photos import --jobs $jobs"
  [before]="photos (--baseline) import --jobs $jobs"
  [into]="photos import --jobs $jobs into --into"
  [gm]="gm mogrify -thumbnail (xargs -P $jobs, $gm_threads)"
  [pillow]="Pillow draft+thumbnail ($jobs processes)"
  [vips]="vipsthumbnail -s 120x120 (xargs -P $jobs)"
  [floor]="floor: djpeg 1/8 + cp + fsync (xargs -P $jobs)"
)
declare -A cmd=(
  [photos]="photos --library TMPLIB import --jobs $jobs --quiet DIR"
  [before]="$baseline --library TMPLIB import --jobs $jobs --quiet DIR"
  [into]="photos --library COPY_OF_$into import --jobs $jobs --quiet DIR"
  [gm]="${gm_env[*]:+${gm_env[*]} }gm mogrify -output-directory OUT -size 120x120 -thumbnail 120x120 -format jpg FILE"
  [pillow]="python3 multiprocessing.Pool($jobs): Image.open; draft('RGB',(120,120)) for JPEG; thumbnail((120,120)); save OUT/FILE.jpg"
  [vips]="vipsthumbnail -s 120x120 -o OUT/%s.jpg FILE"
  [floor]="djpeg -scale 1/8 -outfile /dev/null FILE (JPEGs); cp FILE OUT/ && sync OUT/FILE"
)

echo "corpus : $corpus"
echo "staged : $nfiles files, $((bytes / 1024)) KiB ($stage_summary; subset=$subset, copies=$copies)"
echo "setup  : reps=$reps jobs=$jobs batch=$batch (files per peer invocation) cores=$(nproc)"
((skip_photos)) && echo "photos : skipped (--skip-photos)" || echo "photos : $photos"
[[ -n $into ]] && echo "into   : $into (${into_rows:-?} photos, $(du -sh "$into" | cut -f1)), copied before each pass (untimed)"
((skip_peers)) && echo "peers  : skipped (--skip-peers)"
echo "tools  : gm $(gm version | head -1 | awk '{print $2}') ($gm_threads), $(vipsthumbnail --version), $(djpeg -version 2>&1 | head -1 | sed 's/ (build.*//')${pillow_py:+, Pillow $("$pillow_py" -c 'import PIL; print(PIL.__version__)')}"
[[ -z $pillow_py ]] && echo "pillow : skipped (no python3 with PIL; apt-get install python3-pil)"
echo

find "$in" -type f -exec cat {} + >/dev/null   # warm the page cache so the first tool is not charged for it

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
    [[ $t == into ]] && prepare_into "$out"
    sync
    t0=$EPOCHREALTIME
    rc=0
    : >"$work/rss.$t.$r"
    "run_$t" "$out" "$work/rss.$t.$r" 2>>"$work/err.$t" || rc=$?
    t1=$EPOCHREALTIME
    secs=$(python3 -c "print('%.3f' % ($t1 - $t0))")
    if [[ $t == into ]]; then
      # Untimed: listing a million rows would take longer than the pass.
      n=$(catalog_rows "$out/library")
      [[ -z $n || -z $into_rows ]] || ((n == into_rows + nfiles)) || note[$t]="library rows $n, expected $((into_rows + nfiles))"
    elif [[ $t == photos || $t == before ]]; then
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
    if [[ $t != photos && $t != before && $t != into ]] && ((n != nfiles)); then status[$t]="outputs=$n/$nfiles"; fi
    times[$t]+="$secs "
    read -r load1 _ </proc/loadavg
    printf 'rep %d/%d  %-7s %8.3f s  load %s  %s\n' "$r" "$reps" "$t" "$secs" "$load1" "${status[$t]}${note[$t]:+ (${note[$t]})}"
    # Each pass's outputs stay until the run ends (see "work area"); only the --into copy's
    # catalog (one large file, one inode) goes now, to bound the disk the run needs.
    [[ $t == into ]] && ((!keep)) && rm -f "$out/library/"photos.sqlite*
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
        if t in ('before', 'into'):
            print('%-12s %22.2f %22.2f %18s %16s' % ('(%s)' % t, pm / m, pips / ips, ('%.2f' % (pcpu / c)) if c else 'n/a', ('%.2f' % (prss / r)) if r else 'n/a'))
            continue
        print('%-12s %22.2f %22.2f %18s %16s' % (t, pm / m, pips / ips, ('%.2f' % (pcpu / c)) if c else 'n/a', ('%.2f' % (prss / r)) if r else 'n/a'))
    if 'before' in row:
        bm, bips, brss, bcpu = row['before']
        print()
        print('%-12s %22s %22s %18s %16s' % ('before/peer', 'time ratio (<1 faster)', 'images/s ratio (>1)', 'CPU-s ratio', 'peak RSS ratio'))
        for t in tools:
            if t in ('photos', 'before', 'into'):
                continue
            m, ips, r, c = row[t]
            print('%-12s %22.2f %22.2f %18s %16s' % (t, bm / m, bips / ips, ('%.2f' % (bcpu / c)) if c else 'n/a', ('%.2f' % (brss / r)) if r else 'n/a'))
    if 'into' in row:
        im, iips, irss, icpu = row['into']
        print()
        print('into LIBRARY / empty library: images/s ratio %.2f (target >= 0.9), CPU-s ratio %.2f, peak RSS ratio %.2f'
              % (iips / pips, icpu / pcpu if pcpu else float('nan'), irss / prss if prss else float('nan')))
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

# ---------------------------------------------------------------- fsync cost
# One more (untimed) photos import into a fresh library under `strace -f -c`, counting the
# calls that wait for the disk. On a spinning disk or a NAS one of them costs ~10 ms.
if ((fsync_cost && !skip_photos)); then
  out="$work/out.fsync"
  rm -rf "$out"; mkdir -p "$out"
  strace -f -c -o "$work/strace.txt" -e trace=fsync,fdatasync,syncfs,sync,sync_file_range,msync \
    "$photos" --library "$out/library" import --jobs "$jobs" --quiet "$in" >/dev/null 2>&1 || true
  echo
  python3 - "$work/strace.txt" "$nfiles" <<'PY'
import sys
calls = {}
for line in open(sys.argv[1]):
    f = line.split()
    # strace -c rows: % time, seconds, usecs/call, calls, [errors], syscall
    if len(f) >= 5 and f[-1].isidentifier() and f[-1] != 'total' and f[0].replace('.', '', 1).isdigit():
        calls[f[-1]] = int(f[3])
n = int(sys.argv[2])
# photos calls sync_file_range(2) only with SYNC_FILE_RANGE_WRITE (start write-back of a deferred
# original, no wait, nothing made durable): listed apart, not counted among the waiting calls.
started = calls.pop('sync_file_range', 0)
total = sum(calls.values())
print('fsync-cost: one photos import of %d files made %d calls that wait for the disk (strace -f -c):' % (n, total))
for name in ('fsync', 'fdatasync', 'syncfs', 'sync', 'msync'):
    if calls.get(name):
        print('  %-16s %8d' % (name, calls[name]))
if n:
    print('  per file: %.2f; per batch of 64 files: %.1f' % (total / n, 64 * total / n))
if started:
    print('  and %d sync_file_range (write-back started, no wait: one per original written)' % started)
PY
fi

for t in "${tools[@]}"; do [[ ${status[$t]} == ok ]] || exit 1; done
exit 0

#!/usr/bin/env bash
# Benchmarks/formats.sh - time `photos import` of HEIC/AVIF/WebP files against vipsthumbnail
# and the format's own decoder on the same files and cores (issue 13).
#
# Usage: Benchmarks/formats.sh DIR [--reps N] [--jobs N] [--photos PATH] [--kind tiffgif]
#   DIR holds .heic/.heif/.avif or .webp files (one format per run reads best). Make a set
#   from the bench corpus with e.g.
#     for f in ../shared/corpus/bench/*.jpg; do heif-enc -q 50 -o heic/$(basename "$f" .jpg).heic "$f"; done
#     for f in ../shared/corpus/bench/*.jpg; do cwebp -quiet -q 75 "$f" -o webp/$(basename "$f" .jpg).webp; done
#
# Peers (xargs -P JOBS, one process per file): vipsthumbnail -s 120x120 (libvips with
# libheif/libwebp), and the full decode of the format's own tool: heif-convert to Y4M (raw YCbCr, no encode)
# (libheif-examples; Debian has no heif-thumbnailer) or dwebp -ppm (webp). photos must be a
# build that imports these formats. Prints the median wall time of N reps per tool.
# Needs: libvips-tools, libheif-examples, webp, time, coreutils/findutils.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# ---------------------------------------------------------------------------------------------
# JPEG XL (issue 24 item 5). The RAW, TIFF and GIF parts are other sections of this script.
#   Benchmarks/formats.sh --jxl DIR [--reps N] [--jobs N] [--photos PATH]
# DIR holds .jxl files; make a set from the bench corpus, e.g.
#   for f in ../shared/corpus/bench/*.jpg; do cjxl -q 90 --lossless_jpeg=0 "$f" jxl/$(basename "$f" .jpg).jxl; done
# (the pixel decode) or without --lossless_jpeg=0 (recompressed JPEGs: the reconstruction path).
# Peers, one process per file (xargs -P JOBS): vipsthumbnail -s 120x120 and gm convert -thumbnail
# 120x120 when they read JPEG XL (Debian 12's libvips 8.14 and GraphicsMagick 1.4 are built without
# it: each is then reported "does not read JPEG XL" and skipped), and djxl to PPM (libjxl's own full
# decode, no resize) as the floor. Medians of N reps; peak RSS (GNU time %M) of one
# `photos import --jobs 1` of the folder.
# ---------------------------------------------------------------------------------------------
jxl_bench() {
  local dir=${1:?usage: Benchmarks/formats.sh --jxl DIR [--reps N] [--jobs N] [--photos PATH]}; shift
  local reps=3 jobs photos="$here/../.build/release/photos"
  jobs=$(nproc)
  while (($#)); do
    case $1 in
      --reps) reps=$2; shift 2 ;;
      --jobs) jobs=$2; shift 2 ;;
      --photos) photos=$2; shift 2 ;;
      *) echo "formats.sh: unknown option $1" >&2; exit 64 ;;
    esac
  done
  command -v djxl >/dev/null || { echo "formats.sh: missing djxl (libjxl-tools)" >&2; exit 69; }
  [[ -x $photos ]] || { echo "formats.sh: no photos binary at $photos" >&2; exit 69; }
  jxl_work=$(mktemp -d); trap 'rm -rf "$jxl_work"' EXIT
  local work=$jxl_work
  mapfile -t jxl_files < <(find "$dir" -maxdepth 1 -type f -iname '*.jxl' | sort)
  ((${#jxl_files[@]})) || { echo "formats.sh: no .jxl files in $dir" >&2; exit 66; }
  echo "JPEG XL files: ${#jxl_files[@]} in $dir, $(du -sk "$dir" | cut -f1) KiB; jobs $jobs; reps $reps"
  local probe=${jxl_files[0]}
  local peers=(photos djxl)
  if vipsthumbnail -s 120x120 -o "$work/probe.jpg" "$probe" >/dev/null 2>&1; then peers+=(vips); else echo "vipsthumbnail: does not read JPEG XL (skipped)"; fi
  if gm convert "$probe" -thumbnail 120x120 "$work/probe.jpg" >/dev/null 2>&1; then peers+=(gm); else echo "gm: does not read JPEG XL (skipped)"; fi
  seconds() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc; }
  each() { seconds bash -c 'cmd=$1; shift; printf "%s\0" "$@" | xargs -0 -P '"$jobs"' -I{} sh -c "$cmd" _ {}' _ "$1" "${jxl_files[@]}"; }
  t_photos() { rm -rf "$work/lib"; seconds "$photos" --library "$work/lib" import -q --jobs "$jobs" "${jxl_files[@]}"; }
  t_djxl() { each "djxl \"\$1\" $work/out.\$\$.ppm --quiet; rm -f $work/out.\$\$.ppm"; }
  t_vips() { each "vipsthumbnail -s 120x120 -o $work/v.\$\$.jpg \"\$1\""; }
  t_gm() { each "gm convert \"\$1\" -thumbnail 120x120 $work/g.\$\$.jpg"; }
  median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  for tool in "${peers[@]}"; do
    printf '%-8s ' "$tool"
    for ((r = 0; r < reps; r++)); do t_$tool; done | median
  done
  rm -rf "$work/lib"
  /usr/bin/time -f 'photos import --jobs 1 peak RSS %M KB' "$photos" --library "$work/lib" import -q --jobs 1 "${jxl_files[@]}" 2>&1 | tail -1
}
if [[ ${1:-} == --jxl ]]; then shift; jxl_bench "$@"; exit 0; fi
dir=${1:?usage: Benchmarks/formats.sh DIR [--reps N] [--jobs N] [--photos PATH]}; shift
reps=3 jobs=$(nproc) photos="$here/../.build/release/photos" kind=""
while (($#)); do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --photos) photos=$2; shift 2 ;;
    --kind) kind=$2; shift 2 ;;
    *) echo "formats.sh: unknown option $1" >&2; exit 64 ;;
  esac
done
# ---- TIFF and GIF (issue 24 items 3-4) ------------------------------------------------------
# `--kind tiffgif`: DIR holds .tif/.tiff and/or .gif files; each kind is timed on its own against
# vipsthumbnail -s 120x120 and GraphicsMagick's `gm convert -thumbnail 120x120` (one process per
# file, xargs -P JOBS), median wall time of N reps, and the peak RSS of one run of each tool
# (GNU time %M: photos' whole import; the peers' largest single process). Make a set with e.g.
#   for f in ../shared/corpus/bench/*.jpg; do b=$(basename "$f" .jpg)
#     vips copy "$f" tiff/$b.tif[compression=lzw,tile]; gm convert "$f" gif/$b.gif; done
# Needs: libvips-tools, graphicsmagick, time.
tiffgif_files() { find "$dir" -maxdepth 1 -type f \( "$@" \) | sort; }
tiffgif_seconds() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc; }
tiffgif_median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
tiffgif_peak_kb() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }
tiffgif_part() {
  local label=$1; shift
  local -a set; mapfile -t set < <(tiffgif_files "$@")
  ((${#set[@]})) || { echo "$label: no files"; return 0; }
  echo "$label: ${#set[@]} files, $(du -ck "${set[@]}" | tail -n 1 | cut -f1) KiB"
  local out="$work/out"
  p_photos() { rm -rf "$work/lib"; "$photos" --library "$work/lib" import -q --jobs "$jobs" "${set[@]}"; }
  p_vips() { rm -rf "$out"; mkdir -p "$out"; printf '%s\0' "${set[@]}" | xargs -0 -P "$jobs" -n 1 vipsthumbnail -s 120x120 -o "$out/%s.jpg"; }
  p_gm() { rm -rf "$out"; mkdir -p "$out"; printf '%s\0' "${set[@]}" | xargs -0 -P "$jobs" -I{} sh -c 'gm convert "$1[0]" -thumbnail 120x120 "$2/$(basename "$1").jpg"' _ {} "$out"; }
  local tool r
  for tool in photos vips gm; do
    local m; m=$(for ((r = 0; r < reps; r++)); do tiffgif_seconds p_$tool; done | tiffgif_median)
    local peak=0 f kb
    if [[ $tool == photos ]]; then
      rm -rf "$work/lib"; peak=$(tiffgif_peak_kb "$photos" --library "$work/lib" import -q --jobs "$jobs" "${set[@]}")
    else
      for f in "${set[@]}"; do
        if [[ $tool == vips ]]; then kb=$(tiffgif_peak_kb vipsthumbnail -s 120x120 -o "$out/%s.jpg" "$f")
        else kb=$(tiffgif_peak_kb gm convert "$f[0]" -thumbnail 120x120 "$out/x.jpg"); fi
        ((kb > peak)) && peak=$kb
      done
    fi
    printf '  %-7s median %6.2f s   peak RSS %4d MB\n' "$tool" "$m" $((peak / 1024))
  done
}
if [[ $kind == tiffgif ]]; then
  for t in vipsthumbnail gm bc; do command -v $t >/dev/null || { echo "formats.sh: missing $t" >&2; exit 69; }; done
  [[ -x $photos ]] || { echo "formats.sh: no photos binary at $photos" >&2; exit 69; }
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
  echo "jobs $jobs; reps $reps"
  tiffgif_part TIFF -iname '*.tif' -o -iname '*.tiff'
  tiffgif_part GIF -iname '*.gif'
  exit 0
fi
# ---- end of TIFF and GIF -----------------------------------------------------------------------

for t in vipsthumbnail heif-convert dwebp; do command -v $t >/dev/null || { echo "formats.sh: missing $t" >&2; exit 69; }; done
[[ -x $photos ]] || { echo "formats.sh: no photos binary at $photos" >&2; exit 69; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mapfile -t files < <(find "$dir" -maxdepth 1 -type f \( -iname '*.heic' -o -iname '*.heif' -o -iname '*.avif' -o -iname '*.webp' \) | sort)
((${#files[@]})) || { echo "formats.sh: no HEIF/AVIF/WebP files in $dir" >&2; exit 66; }
echo "files: ${#files[@]} in $dir, $(du -sk "$dir" | cut -f1) KiB; jobs $jobs; reps $reps"

seconds() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc; }
t_photos() { rm -rf "$work/lib"; seconds "$photos" --library "$work/lib" import -q --jobs "$jobs" "${files[@]}"; }
t_vips() { rm -rf "$work/out"; mkdir -p "$work/out"; seconds sh -c 'printf "%s\0" "$@" | xargs -0 -P '"$jobs"' -n 1 vipsthumbnail -s 120x120 -o '"$work/out"'/%s.jpg' _ "${files[@]}"; }
t_native() {
  rm -rf "$work/out"; mkdir -p "$work/out"
  seconds sh -c 'for f; do case $f in *.webp|*.WEBP) echo "dwebp -quiet -ppm \"$f\" -o '"$work/out"'/$(basename "$f").ppm";; *) echo "heif-convert \"$f\" '"$work/out"'/$(basename "$f").y4m";; esac; done | xargs -d "\n" -P '"$jobs"' -I{} sh -c "{}"' _ "${files[@]}"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for tool in photos vips native; do
  printf '%-8s ' "$tool"
  for ((r = 0; r < reps; r++)); do t_$tool; done | median
done

#!/usr/bin/env bash
# Benchmarks/formats-raw.sh - the camera RAW part of the format benchmarks (issue 24 item 1): time
# `photos import` of RAW files (thumbnails from their embedded previews) against LibRaw's own preview
# extraction followed by GraphicsMagick, and against vipsthumbnail, on the same files and cores.
#
# Usage: Benchmarks/formats-raw.sh DIR [--reps N] [--jobs N] [--photos PATH] [--copies N]
#   DIR holds camera RAW files (.cr2 .cr3 .nef .arw .raf .orf .rw2 .pef .dng ...). With --copies N
#   each file is copied N times with 1...N trailing zero bytes (distinct SHA-256s, same pictures), so
#   the small corpus RAWs (../shared/corpus/camera-formats/raw) make a set large enough to time.
#
# Peers (xargs -P JOBS, one process per file):
#   lr+gm: `simple_dcraw -e` (LibRaw's sample that writes the embedded preview; Debian's dcraw_emu 0.20
#          has no -e) then `gm convert -thumbnail 120x120` of the written preview;
#   vips:  `vipsthumbnail -s 120x120` (libvips reads RAW only through its ImageMagick loader, where built).
# Prints per tool the median wall time of N reps, the largest peak RSS of one process (GNU time %M) and
# how many of the files got a thumbnail (libvips 8.14 in Debian 12 refuses RAF, RW2, NEF...: "not a known
# file format", so its time there is the time to refuse).
# Needs: libraw-bin, graphicsmagick, libvips-tools, time, bc, coreutils/findutils.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${1:?usage: Benchmarks/formats-raw.sh DIR [--reps N] [--jobs N] [--photos PATH] [--copies N]}; shift
reps=3 jobs=$(nproc) photos="$here/../.build/release/photos" copies=1
while (($#)); do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --photos) photos=$2; shift 2 ;;
    --copies) copies=$2; shift 2 ;;
    *) echo "formats-raw.sh: unknown option $1" >&2; exit 64 ;;
  esac
done
for t in simple_dcraw gm vipsthumbnail /usr/bin/time bc; do command -v $t >/dev/null || { echo "formats-raw.sh: missing $t" >&2; exit 69; }; done
[[ -x $photos ]] || { echo "formats-raw.sh: no photos binary at $photos" >&2; exit 69; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
n=0
while IFS= read -r -d '' f; do
  for ((c = 1; c <= copies; c++)); do
    b=$(basename "$f"); t="$work/in/${b%.*}-$c.${b##*.}"
    cp "$f" "$t"; head -c "$c" /dev/zero >>"$t"; n=$((n + 1))
  done
done < <(find "$dir" -maxdepth 1 -type f \( -iname '*.cr2' -o -iname '*.cr3' -o -iname '*.crw' -o -iname '*.nef' \
  -o -iname '*.nrw' -o -iname '*.arw' -o -iname '*.raf' -o -iname '*.orf' -o -iname '*.rw2' -o -iname '*.pef' \
  -o -iname '*.dng' -o -iname '*.srw' -o -iname '*.x3f' -o -iname '*.3fr' -o -iname '*.iiq' -o -iname '*.mrw' \) -print0 | sort -z)
((n)) || { echo "formats-raw.sh: no RAW files in $dir" >&2; exit 66; }
mapfile -t files < <(find "$work/in" -type f | sort)
echo "files: $n ($copies copies of each in $dir), $(du -sk "$work/in" | cut -f1) KiB; jobs $jobs; reps $reps"

# Wall seconds of "$@"; the peak RSS (KiB) of its largest process is appended to $work/rss.
timed() {
  local s e; s=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  e=$(date +%s.%N); echo "$e - $s" | bc
}
export work
t_photos() {
  rm -rf "$work/lib"
  timed /usr/bin/time -a -o "$work/rss.photos" -f %M "$photos" --library "$work/lib" import -q --jobs "$jobs" "${files[@]}"
}
t_lrgm() {
  rm -rf "$work/out"; mkdir -p "$work/out"
  timed sh -c 'printf "%s\0" "$@" | xargs -0 -P '"$jobs"' -I{} sh -c '\''cp "{}" "$work/out/"; f="$work/out/$(basename "{}")";
    /usr/bin/time -a -o "$work/rss.lrgm" -f %M simple_dcraw -e "$f" >/dev/null 2>&1;
    for p in "$f".thumb.*; do [ -e "$p" ] && /usr/bin/time -a -o "$work/rss.lrgm" -f %M gm convert "$p" -thumbnail 120x120 "$p.120.jpg"; done'\''' _ "${files[@]}"
}
t_vips() {
  rm -rf "$work/out"; mkdir -p "$work/out"
  timed sh -c 'printf "%s\0" "$@" | xargs -0 -P '"$jobs"' -I{} /usr/bin/time -a -o "$work/rss.vips" -f %M vipsthumbnail -s 120x120 -o "$work/out/%s.jpg" "{}"' _ "${files[@]}"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for tool in photos lrgm vips; do
  : >"$work/rss.$tool"
  printf '%-8s median %ss' "$tool" "$(for ((r = 0; r < reps; r++)); do t_$tool; done | median)"
  printf '  peak RSS %s KiB' "$(grep -E '^[0-9]+$' "$work/rss.$tool" | sort -n | tail -1)"
  # Thumbnails made in the last rep: a peer that refuses a format is fast for nothing.
  case $tool in
    photos) made=$("$photos" --library "$work/lib" list 2>/dev/null | wc -l) ;;
    lrgm) made=$(find "$work/out" -name '*.120.jpg' | wc -l) ;;
    vips) made=$(find "$work/out" -name '*.jpg' | wc -l) ;;
  esac
  printf '  thumbnails %s of %s\n' "$made" "$n"
done

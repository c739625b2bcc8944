#!/usr/bin/env bash
# Benchmarks/raw-import.sh [--photos PATH] [--copies N] [--jobs N] [--reps N] [FILE...]: the wall time
# of `photos import --jobs N` of N distinct copies (1...N trailing zero bytes) of each camera RAW FILE
# (default the corpus DNG, NEF and RW2: ../shared/corpus/camera-formats/raw/exiftool_{DNG.dng,Nikon.nef,
# Panasonic.rw2}; the NEF is an exiftool stub that fails, after LibRaw read it), into a fresh SQLite
# library each rep; prints each rep (wall time, peak RSS, the import's summary) and the median (GNU time).
# Defaults: .build/release/photos (its photos-decoder beside it), 150 copies, 2 jobs, 3 reps.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
photos="$here/../.build/release/photos" copies=150 jobs=2 reps=3 files=()
while (($#)); do
  case $1 in
    --photos) photos=$2; shift 2 ;;
    --copies) copies=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) files+=("$1"); shift ;;
  esac
done
if ((${#files[@]} == 0)); then
  raw="$here/../../shared/corpus/camera-formats/raw"
  [[ -d $raw ]] || raw=/work/shared/corpus/camera-formats/raw
  files=("$raw/exiftool_DNG.dng" "$raw/exiftool_Nikon.nef" "$raw/exiftool_Panasonic.rw2")
fi
[[ -x $photos ]] || { echo "raw-import.sh: no photos binary at $photos" >&2; exit 69; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
for f in "${files[@]}"; do
  b=$(basename "$f")
  for ((c = 1; c <= copies; c++)); do
    t="$work/in/${b%.*}-$c.${b##*.}"; cp "$f" "$t"; head -c "$c" /dev/zero >>"$t"
  done
done
times=() cpus=()
for ((r = 1; r <= reps; r++)); do
  rm -rf "$work/lib"
  # (Exit status 1: some files failed, e.g. the corpus NEF, an exiftool stub whose preview LibRaw cannot
  # read; they still went through LibRaw. Anything else is the import's own failure.)
  status=0
  /usr/bin/time -f '%e %M %U %S' -o "$work/time" "$photos" --library "$work/lib" import --jobs "$jobs" "$work/in" >"$work/out" 2>"$work/err" || status=$?
  ((status <= 1)) || { echo "raw-import.sh: import failed ($status):" >&2; tail -5 "$work/err" >&2; exit 1; }
  read -r wall rss user system < <(tail -1 "$work/time")
  # (CPU: the import's and its waited-for decoder processes', user + system.)
  echo "rep $r: ${wall} s wall, $(echo "$user + $system" | bc) s CPU, peak RSS ${rss} KB: $(tail -1 "$work/out")"
  times+=("$wall")
  cpus+=("$(echo "$user + $system" | bc)")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((reps + 1) / 2))p")
cpu=$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n "$(((reps + 1) / 2))p")
echo "$(ls "$work/in" | wc -l) files, --jobs $jobs: median ${median} s wall, ${cpu} s CPU, of $reps"

#!/usr/bin/env bash
# Benchmarks/decoder-isolation-stress.sh [FILE [ITERATIONS [HAMMERS]]]: builds decoder-isolation-stress.c
# against this tree's raw.c (decoder time limit 5 s instead of 60) and decodes FILE (default the
# corpus DNG, ../shared/corpus/camera-formats/raw/exiftool_DNG.dng) ITERATIONS times (default 500)
# through the decoder process while HAMMERS threads (default 3) call setenv/tzset/localtime_r/mktime/
# malloc; prints ok/failed/timed-out counts. The decoder process is .build/debug/photos-decoder (or
# $PHOTOS_DECODER): `swift build` first.
# Measured (2 cores, shared): the fork(2) design hung on 10 of 10 decodes (1 or 3 hammer threads,
# 0 of 10 with none); posix_spawn of photos-decoder: 0 of 2000.
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-../shared/corpus/camera-formats/raw/exiftool_DNG.dng}
iterations=${2:-500}
hammers=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
S=Sources/CImageCodec
${CC:-clang} -O1 -g -DPC_RAW_CHILD_SECONDS=5 "-I$S/include" "-I$S" -o "$work/stress" Benchmarks/decoder-isolation-stress.c \
    "$S/raw.c" "$S/reduce.c" "$S/decoder.c" -lraw_r -lm -lpthread
export PHOTOS_DECODER=${PHOTOS_DECODER:-$PWD/.build/debug/photos-decoder}
"$work/stress" "$file" "$iterations" "$hammers"

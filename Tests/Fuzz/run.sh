#!/usr/bin/env bash
# Tests/Fuzz/run.sh [SECONDS [FORMAT_SECONDS]]: builds the libFuzzer harnesses (README.md beside this
# file) with the Swift toolchain's clang (libFuzzer, ASan, UBSan) and runs each, one job each, one
# after the other: for SECONDS (default 60) fuzz_reduced (dconly.c's reduced sequential decoder
# against libjpeg), fuzz_reduced with FUZZ_PROGRESSIVE=1 (its DC-only progressive decoder against
# libjpeg) and fuzz_thumbenc (thumbjpeg.c against libjpeg's encode); then for FORMAT_SECONDS (default
# 30) fuzz_raw (raw.c and LibRaw), fuzz_tiffgif (libtiff and giflib) and fuzz_jxl (libjxl).
# Seeds: Samples/*.jpg, Tests/Fuzz/seeds/ (regression inputs of earlier findings) and, when the
# shared corpus is beside the repository, its jpeg-conformance JPEGs and camera-formats raw/, tiff/,
# gif/, jxl/ files (at most 256 KiB each); `cjxl` encodes of the Samples when cjxl is installed
# (libjxl-tools). Exits non-zero when a harness finds a crash, a sanitizer report or a difference
# (the input is kept in $FUZZ_ARTIFACTS, default a temporary folder); prints each harness's
# executions.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
format_seconds=${2:-30}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: SECONDS must be a positive integer, got '$seconds'" >&2; exit 64; }
[[ $format_seconds =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: FORMAT_SECONDS must be a positive integer, got '$format_seconds'" >&2; exit 64; }
cc=${CC_FUZZ:-/opt/swift/usr/bin/clang}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
artifacts=${FUZZ_ARTIFACTS:-$work/artifacts}
mkdir -p "$artifacts" "$work/seeds"
S=Sources/CImageCodec
flags=(-fuse-ld=lld -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined "-I$S/include" "-I$S")
sources=("$S/jpeg.c" "$S/dconly.c" "$S/dchuffman.c" "$S/dcmarkers.c" "$S/dcprogressive.c" "$S/dcsequential.c" "$S/color.c" "$S/thumbjpeg.c" "$S/jpegclone.c" -ljpeg -llcms2 -lm -lpthread)
"$cc" "${flags[@]}" -o "$work/fuzz_reduced" Tests/Fuzz/fuzz_reduced.c "${sources[@]}"
"$cc" "${flags[@]}" -o "$work/fuzz_thumbenc" Tests/Fuzz/fuzz_thumbenc.c "${sources[@]}"
"$cc" "${flags[@]}" -o "$work/fuzz_raw" Tests/Fuzz/fuzz_raw.c "$S/raw.c" "$S/reduce.c" "$S/decoder.c" -lraw_r -lm -lpthread
"$cc" "${flags[@]}" -o "$work/fuzz_tiffgif" Tests/Fuzz/fuzz_tiffgif.c "$S/tiff.c" "$S/gif.c" "$S/reduce.c" "$S/color.c" -ltiff -lgif -llcms2 -lm -lpthread
"$cc" "${flags[@]}" -o "$work/fuzz_jxl" Tests/Fuzz/fuzz_jxl.c "$S/jxl.c" "$S/hdr.c" "$S/jpeg.c" "$S/dconly.c" "$S/dchuffman.c" "$S/dcmarkers.c" "$S/dcprogressive.c" "$S/dcsequential.c" "$S/color.c" "$S/thumbjpeg.c" "$S/jpegclone.c" -ljxl -ljpeg -llcms2 -lm -lpthread
cp Samples/*.jpg "$work/seeds/"
if [ -d ../shared/corpus/jpeg-conformance ]; then cp ../shared/corpus/jpeg-conformance/*.jpg "$work/seeds/"; fi
# Per-format seeds: the shared corpus's files of that kind (at most 256 KiB each: the harnesses'
# -max_len) and the regression inputs of earlier findings in Tests/Fuzz/seeds/KIND/.
formats=../shared/corpus/camera-formats
seed_kind() { # KIND FOLDER...: copies the small files of each FOLDER into seeds-KIND
    local kind=$1
    shift
    mkdir -p "$work/seeds-$kind"
    for folder in "$@" "Tests/Fuzz/seeds/$kind"; do
        [ -d "$folder" ] && find "$folder" -maxdepth 1 -type f -size -257k -exec cp {} "$work/seeds-$kind/" \;
    done
    return 0
}
seed_kind raw "$formats/raw"
seed_kind tiffgif "$formats/tiff" "$formats/gif"
seed_kind jxl "$formats/jxl"
if command -v cjxl >/dev/null; then
    # A JPEG recompressed losslessly (the reconstruction path), a PNG lossless (modular) and lossy
    # (VarDCT with its DC pass).
    cjxl -q Samples/path.jpg "$work/seeds-jxl/path.jxl" >/dev/null 2>&1 || true
    cjxl -q -d 0 -e 1 Samples/kite.png "$work/seeds-jxl/kite-d0.jxl" >/dev/null 2>&1 || true
    cjxl -q -d 2 -e 3 Samples/kite.png "$work/seeds-jxl/kite-d2.jxl" >/dev/null 2>&1 || true
fi

# One bounded run (FUZZ_SECONDS, FUZZ_MAX_LEN, FUZZ_RSS_MB, FUZZ_MALLOC_MB, FUZZ_SEEDS override the JPEG
# defaults; FUZZ_MALLOC_MB is libFuzzer's -malloc_limit_mb, the largest single allocation, which is
# FUZZ_RSS_MB unless given);
# its "Done N runs in S second(s)" line says how many inputs it executed.
fuzz() {
    local name=$1 binary=$2 corpus="$work/corpus-$1"
    mkdir -p "$corpus"
    local status=0
    "$work/$binary" -max_total_time="${FUZZ_SECONDS:-$seconds}" -max_len="${FUZZ_MAX_LEN:-65536}" -timeout=10 \
        -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -malloc_limit_mb="${FUZZ_MALLOC_MB:-${FUZZ_RSS_MB:-2048}}" \
        -print_final_stats=1 \
        -artifact_prefix="$artifacts/$name-" "$corpus" "${FUZZ_SEEDS:-$work/seeds}" >"$work/$name.log" 2>&1 || status=$?
    local done
    done=$(grep -E "^Done [0-9]+ runs" "$work/$name.log" | tail -n 1 || true)
    if [ "$status" != 0 ]; then
        tail -n 40 "$work/$name.log" >&2
        echo "fuzz: $name FAILED (status $status); inputs kept in $artifacts" >&2
        trap - EXIT
        return 1
    fi
    echo "fuzz: $name: ${done:-no summary} ($(find "$corpus" -type f | wc -l) inputs in its corpus)"
}
FUZZ_TOLERATE_EOF=1 fuzz reduced fuzz_reduced
FUZZ_TOLERATE_EOF=1 FUZZ_PROGRESSIVE=1 fuzz progressive fuzz_reduced
fuzz thumbenc fuzz_thumbenc
# The decoders of issue 24: fuzz_tiffgif's memory check is its largest single allocation, 400 MB (the
# decoders' budget is 100 MB per file). It was the process's RSS, 400 MB, which an ASan run reaches by
# itself (its quarantine and libFuzzer's corpus: a run of 2026-12-06 stopped at 415 MB while the input
# it blamed peaks at 37 MB alone), so the RSS limit is the default 2048 MB.
FUZZ_SECONDS=$format_seconds FUZZ_MAX_LEN=262144 FUZZ_SEEDS="$work/seeds-raw" fuzz raw fuzz_raw
FUZZ_SECONDS=$format_seconds FUZZ_MAX_LEN=262144 FUZZ_MALLOC_MB=400 FUZZ_SEEDS="$work/seeds-tiffgif" fuzz tiffgif fuzz_tiffgif
FUZZ_SECONDS=$format_seconds FUZZ_MAX_LEN=262144 FUZZ_SEEDS="$work/seeds-jxl" fuzz jxl fuzz_jxl

#!/usr/bin/env bash
# Tests/Fuzz/run.sh [SECONDS]: builds the libFuzzer harnesses (README.md beside this file) with the
# Swift toolchain's clang (libFuzzer, ASan, UBSan) and runs each for SECONDS (default 60), one job
# each, one after the other: fuzz_reduced (dconly.c's reduced sequential decoder against libjpeg),
# fuzz_reduced with FUZZ_PROGRESSIVE=1 (its DC-only progressive decoder against libjpeg) and
# fuzz_thumbenc (thumbjpeg.c against libjpeg's encode). Seeds: Samples/*.jpg and, when the shared
# corpus is beside the repository, its jpeg-conformance JPEGs. Exits non-zero when a harness finds a
# crash, a sanitizer report or a difference (the input is kept in $FUZZ_ARTIFACTS, default a
# temporary folder); prints each harness's executions.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: SECONDS must be a positive integer, got '$seconds'" >&2; exit 64; }
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
cp Samples/*.jpg "$work/seeds/"
if [ -d ../shared/corpus/jpeg-conformance ]; then cp ../shared/corpus/jpeg-conformance/*.jpg "$work/seeds/"; fi

# One bounded run; its "Done N runs in S second(s)" line says how many inputs it executed.
fuzz() {
    local name=$1 binary=$2 corpus="$work/corpus-$1"
    mkdir -p "$corpus"
    local status=0
    "$work/$binary" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/$name-" "$corpus" "$work/seeds" >"$work/$name.log" 2>&1 || status=$?
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

#!/usr/bin/env bash
# A stand-in for the photos binary, only for testing Benchmarks/import.sh before the
# real CLI exists. Accepts exactly: --library LIB import --jobs J --quiet DIR
# and makes 120-px JPEG thumbnails of DIR's files under LIB/ with vipsthumbnail.
# Its numbers mean nothing about photos.
set -euo pipefail
[[ ${1-} == --library && ${3-} == import && ${4-} == --jobs && ${6-} == --quiet && -n ${7-} ]] ||
  { echo "usage: $0 --library LIB import --jobs J --quiet DIR" >&2; exit 64; }
lib=$2 jobs=$5 dir=$7
mkdir -p "$lib"
find "$dir" -type f -print0 | xargs -0 -n 8 -P "$jobs" vipsthumbnail -s 120x120 -o "$lib/%s.jpg" 2>/dev/null

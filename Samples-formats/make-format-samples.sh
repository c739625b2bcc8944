#!/usr/bin/env bash
# Makes the issue 13 samples from samples in ../Samples, with public tools:
#   storm.heic               heif-enc (libheif-examples 1.15.1, x265)  from storm.jpg
#   path.webp                cwebp (webp 1.2.4)                        from path.jpg
#   ladybird-display-p3.jpg  jpgicc (liblcms2-utils 2.14)              from ladybird.jpg
# Needs: libheif-examples, webp, liblcms2-utils, and cc + liblcms2-dev for the P3 profile.
# Usage: Samples-formats/make-format-samples.sh [OUTDIR]   (default: the folder of this script)
set -euo pipefail
here=$(cd "$(dirname "$0")/../Samples" && pwd)
out=${1:-$(cd "$(dirname "$0")" && pwd)}
for t in heif-enc cwebp jpgicc cc; do
  command -v "$t" >/dev/null || { echo "missing $t (apt-get install libheif-examples webp liblcms2-utils liblcms2-dev gcc)" >&2; exit 69; }
done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# HEIC: quality 50, with a 320-pixel thumbnail item; heif-enc copies the JPEG's EXIF
# (DateTimeOriginal 2008:04:20 19:12:06) into an Exif item.
heif-enc -q 50 -t 320 -o "$out/storm.heic" "$here/storm.jpg"

# WebP: lossy quality 60, the JPEG's EXIF kept in an EXIF chunk (DateTimeOriginal 2015:09:06 18:46:57).
cwebp -quiet -q 60 -metadata exif "$here/path.jpg" -o "$out/path.webp"

# Display P3 (P3 primaries, D65, sRGB transfer curve) made with Little CMS, then the sRGB
# ladybird converted into it (perceptual intent) with the profile embedded.
cat > "$work/p3.c" <<'C'
#include <lcms2.h>
int main(int argc, char **argv) {
    cmsCIExyY d65 = { 0.3127, 0.3290, 1 };
    cmsCIExyYTRIPLE p3 = { { 0.680, 0.320, 1 }, { 0.265, 0.690, 1 }, { 0.150, 0.060, 1 } };
    cmsFloat64Number srgb[5] = { 2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045 };
    cmsToneCurve *c = cmsBuildParametricToneCurve(NULL, 4, srgb), *curves[3] = { c, c, c };
    cmsHPROFILE h = cmsCreateRGBProfile(&d65, &p3, curves);
    cmsMLU *d = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(d, "en", "US", "Display P3 (lcms2)");
    cmsWriteTag(h, cmsSigProfileDescriptionTag, d);
    return argc > 1 && cmsSaveProfileToFile(h, argv[1]) ? 0 : 1;
}
C
cc -o "$work/p3" "$work/p3.c" -llcms2
"$work/p3" "$work/DisplayP3.icc"
jpgicc -q88 -t0 -e -o"$work/DisplayP3.icc" "$here/ladybird.jpg" "$out/ladybird-display-p3.jpg"

ls -l "$out/storm.heic" "$out/path.webp" "$out/ladybird-display-p3.jpg"

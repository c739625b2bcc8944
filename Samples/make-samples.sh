#!/usr/bin/env bash
# Rebuilds the sample photos in this folder from Debian packages.
# Needs: apt-get (download only, no install of the wallpaper packages),
#        dpkg-deb, imagemagick (convert), libimage-exiftool-perl (exiftool).
# Usage: Samples/make-samples.sh [OUTDIR]   (default: the folder of this script)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
for t in apt-get dpkg-deb convert exiftool; do
  command -v "$t" >/dev/null || { echo "missing $t (apt-get install imagemagick libimage-exiftool-perl)" >&2; exit 69; }
done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download mate-backgrounds=1.26.0-1 plasma-workspace-wallpapers=4:5.27.5-2 >/dev/null
for d in *.deb; do dpkg-deb -x "$d" x; done
M=x/usr/share/backgrounds/mate/nature
P=x/usr/share/wallpapers
Q=88

# 1. Storm: baseline JPEG, camera EXIF (DateTimeOriginal 2008:04:20 19:12:06) kept.
convert "$M/Storm.jpg" -resize 1600x1600 -quality $Q "$out/storm.jpg"

# 2. Dune: pixels rotated 90 deg counter-clockwise, EXIF Orientation=6
#    ("rotate 90 CW to display") so that it displays upright. Camera EXIF kept.
convert "$M/Dune.jpg" -resize 1600x1600 -rotate -90 -quality $Q "$out/dune-orientation6.jpg"
exiftool -q -overwrite_original -n -Orientation=6 \
  -ExifImageWidth=1000 -ExifImageHeight=1600 "$out/dune-orientation6.jpg"

# 3. LadyBird: baseline JPEG, no EXIF; an XMP sidecar ladybird.jpg.xmp is kept beside it
#    (hand-written, see README).
convert "$M/LadyBird.jpg" -resize 1600x1600 -quality $Q "$out/ladybird.jpg"

# 4. Path (Plasma): baseline JPEG with camera EXIF (DateTimeOriginal 2015:09:06 18:46:57).
convert "$P/Path/contents/images/2560x1600.jpg" -resize 1600x1600 -quality $Q "$out/path.jpg"

# 5. Colorful Cups (Plasma): kept PROGRESSIVE (like the original), camera EXIF kept.
convert "$P/ColorfulCups/contents/images/2560x1600.jpg" -resize 1600x1600 -interlace JPEG \
  -quality $Q "$out/colorful-cups-progressive.jpg"

# 6. Kite (Plasma): converted to 8-bit RGB PNG, long edge 1024 px (PNG of a photo is large).
convert "$P/Kite/contents/images/2560x1600.jpg" -resize 1024x1024 -strip \
  -define png:color-type=2 -define png:compression-level=9 "$out/kite.png"

# Keep the EXIF pixel-dimension tags truthful after downscaling (only where EXIF exists).
for f in storm.jpg path.jpg colorful-cups-progressive.jpg; do
  exiftool -q -overwrite_original -n \
    -ExifImageWidth="$(identify -format %w "$out/$f")" \
    -ExifImageHeight="$(identify -format %h "$out/$f")" "$out/$f"
done

ls -l "$out"/*.jpg "$out"/*.png

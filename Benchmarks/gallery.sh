#!/usr/bin/env bash
# Benchmarks of `photos gallery` (issue 28):
#   1. a gallery of the 100,000-photo bench library (make-library.sh) with thumbnails only
#      (--size 0 --originals none): wall seconds and peak RSS; then again with --update;
#   2. Chromium's load event for its first page (200 thumbnails), from file:// (the
#      DevTools probe of the tests, Tests/Browser/cdp_probe.py);
#   3. renditions of the bench corpus (../shared/corpus/bench) at 2048 px: images per second
#      of `photos gallery --size 2048` (less its --size 0 run: the thumbnails and pages) against
#      `vipsthumbnail --size 2048` (Debian libvips-tools) over the same files, same JPEG quality.
#
# Usage: Benchmarks/gallery.sh WORK_DIR [--photos N] [--photos-bin PATH] [--jobs N]
# Needs: what make-library.sh needs, chromium and python3; vipsthumbnail for the comparison.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:?usage: gallery.sh WORK_DIR [--photos N] [--photos-bin PATH] [--jobs N]}
shift
photos_n=100000 bin="$here/../.build/release/photos" jobs=$(nproc)
while [ $# -gt 0 ]; do
    case "$1" in
        --photos) photos_n=$2; shift 2 ;;
        --photos-bin) bin=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        *) echo "gallery.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
mkdir -p "$work"
lib="$work/lib$photos_n"
[ -e "$lib" ] || "$here/make-library.sh" "$lib" --photos "$photos_n" --photos-bin "$bin"

echo "== 1. gallery of $photos_n photos, thumbnails only"
rm -rf "$work/g"
/usr/bin/time -f "first run: %e s, %M KB peak RSS" "$bin" --library "$lib" gallery "$work/g" --size 0 --originals none --json
/usr/bin/time -f "--update: %e s, %M KB peak RSS" "$bin" --library "$lib" gallery "$work/g" --size 0 --originals none --update --json
echo "pages: $(ls "$work/g" | grep -c '\.html$'), index.html $(wc -c <"$work/g/index.html") bytes"

echo "== 2. first page in Chromium (load event, 3 runs)"
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chromium" ]; then
    cat >"$work/probe.json" <<EOF
{"chromium": "$chromium", "width": 1920, "height": 1080, "steps": [
 {"navigate": "file://$work/g/index.html"},
 {"eval": "(() => { const t = performance.getEntriesByType('navigation')[0]; return [Math.round(t.loadEventStart), document.querySelectorAll('a.ph img').length]; })()"},
 {"navigate": "file://$work/g/index.html"},
 {"eval": "(() => { const t = performance.getEntriesByType('navigation')[0]; return [Math.round(t.loadEventStart), document.querySelectorAll('a.ph img').length]; })()"},
 {"navigate": "file://$work/g/page-2.html"},
 {"eval": "(() => { const t = performance.getEntriesByType('navigation')[0]; return [Math.round(t.loadEventStart), document.querySelectorAll('a.ph img').length]; })()"}
]}
EOF
    python3 "$here/../Tests/Browser/cdp_probe.py" "$work/probe.json" |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print("load event ms, thumbnails:", r["results"], "errors:", r["errors"])'
else
    echo "chromium not installed: skipped"
fi

echo "== 3. renditions of the bench corpus at 2048 px (quality 85, $jobs jobs)"
corpus="$here/../../shared/corpus/bench"
if [ -d "$corpus" ]; then
    blib="$work/benchlib"
    [ -e "$blib" ] || "$bin" --library "$blib" import -q "$corpus"
    n=$(ls "$corpus" | wc -l)
    rm -rf "$work/bg0" "$work/bg"
    t0=$( { /usr/bin/time -f "%e" "$bin" --library "$blib" gallery "$work/bg0" --size 0 --originals none -q --jobs "$jobs"; } 2>&1 )
    t1=$( { /usr/bin/time -f "%e" "$bin" --library "$blib" gallery "$work/bg" --size 2048 --originals none -q --jobs "$jobs"; } 2>&1 )
    echo "photos: $n files, --size 0 $t0 s, --size 2048 $t1 s: $(python3 -c "print(round($n / max(0.001, $t1 - $t0), 2))") images/s"
    if command -v vipsthumbnail >/dev/null; then
        rm -rf "$work/vips" && mkdir -p "$work/vips"
        tv=$( { /usr/bin/time -f "%e" vipsthumbnail --size 2048 -o "$work/vips/%s.jpg[Q=85]" "$corpus"/*; } 2>&1 | tail -1)
        echo "vipsthumbnail: $tv s: $(python3 -c "print(round($n / max(0.001, $tv), 2))") images/s"
    else
        echo "vipsthumbnail not installed (Debian libvips-tools): comparison skipped"
    fi
else
    echo "no bench corpus at $corpus: skipped"
fi

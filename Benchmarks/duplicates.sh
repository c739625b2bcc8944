#!/usr/bin/env bash
# Benchmarks/duplicates.sh - precision and recall of `photos duplicates` (issue 27) at
# --threshold same and similar on a transformation set made from the corpus's photos, side by
# side with Python's ImageHash (phash and dhash, distance <= 10, ImageHash's usual threshold)
# on the same pairs.
#
# Usage: Benchmarks/duplicates.sh [CORPUS_DIR] [--photos PATH] [--count N] [--keep]
#
# For each of the first N (default 20) JPEGs of CORPUS_DIR (default ../shared/corpus/bench),
# the set holds the file itself and 9 transformations, each one picture with its source:
# JPEG at quality 50, 75 and 95, resized to 50 % and 25 % (JPEG 90), PNG, WebP (quality 80),
# cropped 2 % (1 % each side, JPEG 90) and brightened 5 % (JPEG 90); with heif-enc, a HEIC
# too. Everything is imported into a fresh library; a pair of files is "found" when
# `photos duplicates` puts them in one group (ImageHash: when their distance is within the
# threshold). Precision = true pairs found / pairs found, recall = true pairs found / true
# pairs. Needs python3 with Pillow (python3-pil, or `pip install pillow`); ImageHash
# (`pip install imagehash`) optional: its columns are left out without it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
corpus="$root/../shared/corpus/bench"
photos="$root/.build/release/photos"
count=20
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
    --photos) photos=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -*) echo "duplicates.sh: unknown option $1" >&2; exit 64 ;;
    *) corpus=$1; shift ;;
    esac
done
[ -x "$photos" ] || { echo "duplicates.sh: no photos binary at $photos (swift build -c release, or --photos)" >&2; exit 66; }
python3 -c 'import PIL' 2>/dev/null || { echo "duplicates.sh: needs python3 with Pillow (python3-pil)" >&2; exit 69; }

work=$(mktemp -d /tmp/photos-duplicates.XXXXXX)
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/set"

python3 - "$corpus" "$work/set" "$count" <<'EOF'
import os, shutil, subprocess, sys
from PIL import Image, ImageEnhance
corpus, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = sorted(n for n in os.listdir(corpus) if n.lower().endswith(".jpg"))[:count]
heif = shutil.which("heif-enc")
for i, name in enumerate(names):
    stem = "p%02d" % i
    src = os.path.join(corpus, name)
    shutil.copy(src, os.path.join(out, stem + "-source.jpg"))
    im = Image.open(src).convert("RGB")
    w, h = im.size
    for q in (50, 75, 95):
        im.save(os.path.join(out, "%s-q%d.jpg" % (stem, q)), quality=q)
    im.resize((w // 2, h // 2), Image.LANCZOS).save(os.path.join(out, stem + "-half.jpg"), quality=90)
    im.resize((w // 4, h // 4), Image.LANCZOS).save(os.path.join(out, stem + "-quarter.jpg"), quality=90)
    im.save(os.path.join(out, stem + "-png.png"))
    im.save(os.path.join(out, stem + "-webp.webp"), quality=80)
    dx, dy = w // 100, h // 100
    im.crop((dx, dy, w - dx, h - dy)).save(os.path.join(out, stem + "-crop.jpg"), quality=90)
    ImageEnhance.Brightness(im).enhance(1.05).save(os.path.join(out, stem + "-bright.jpg"), quality=90)
    if heif:
        subprocess.run([heif, "-q", "60", "-o", os.path.join(out, stem + "-heic.heic"),
                        os.path.join(out, stem + "-png.png")], check=True, capture_output=True)
EOF

lib="$work/lib"
"$photos" --library "$lib" import -q "$work/set" >/dev/null
for level in same similar; do
    "$photos" --library "$lib" duplicates --threshold "$level" --json >"$work/groups-$level.json" 2>/dev/null
done

python3 - "$work" <<'EOF'
import itertools, json, os, sys
work = sys.argv[1]
files = sorted(os.listdir(os.path.join(work, "set")))
cls = lambda f: f.split("-")[0]
truth = {frozenset(p) for p in itertools.combinations(files, 2) if cls(p[0]) == cls(p[1])}
def score(found):
    tp = len(found & truth)
    return (tp / len(found) if found else 1.0), tp / len(truth), len(found)
rows = []
for level in ("same", "similar"):
    found = set()
    for line in open(os.path.join(work, "groups-%s.json" % level)):
        names = [m["displayName"] for m in json.loads(line)["members"]]
        found |= {frozenset(p) for p in itertools.combinations(names, 2)}
    rows.append(("photos --threshold " + level,) + score(found))
try:
    import imagehash
    from PIL import Image
    try:
        import pillow_heif
        pillow_heif.register_heif_opener()
    except ImportError:
        pass
    for fn, label in ((imagehash.phash, "ImageHash phash <= 10"), (imagehash.dhash, "ImageHash dhash <= 10")):
        hashes = {}
        for f in files:
            try:
                hashes[f] = fn(Image.open(os.path.join(work, "set", f)))
            except Exception:
                pass  # HEIC without pillow-heif: not hashed (its pairs count as missed)
        found = {frozenset((a, b)) for a, b in itertools.combinations(sorted(hashes), 2) if hashes[a] - hashes[b] <= 10}
        rows.append((label,) + score(found))
except ImportError:
    print("(ImageHash not installed: pip install imagehash)")
print("%d files, %d true pairs" % (len(files), len(truth)))
print("%-28s %9s %7s %7s" % ("method", "precision", "recall", "pairs"))
for label, p, r, n in rows:
    print("%-28s %9.3f %7.3f %7d" % (label, p, r, n))
EOF

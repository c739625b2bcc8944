#!/usr/bin/env bash
# Builds a synthetic photos library for the maintenance benchmark (issue: maintenance at
# 100,000 photos): N photos (default 100000) with inline thumbnails, 20,000 tags of which 5%
# are same-named duplicates, 200 shares (the first holds 10,000 photos), ratings, and a
# million history changes spread over two years. Every photo has its own small original (a
# real file of about 230 bytes), so `verify --quick` checks as many files as a real library
# and finds no duplicate originals.
#
# Usage: Benchmarks/make-library.sh LIBRARY_DIR [--photos N] [--originals K] [--photos-bin PATH]
#                                  [--database CONNINFO]
#   --originals K  only K original files, shared round-robin by the rows (default: one per
#                  photo; fewer makes a big library quicker to build, and verify then reports
#                  the shared ones as duplicate photos; SQLite only: a PostgreSQL catalog keeps
#                  one photo per original by a UNIQUE constraint)
#   --database CONNINFO  the catalog in PostgreSQL: `photos init --database CONNINFO` (an
#                  empty database or schema), then the same rows bulk-loaded with psql's COPY
#                  (tables written to temporary files first), thumbnails by one INSERT … SELECT
#                  on the server, the identity sequences and the history token set past the
#                  loaded ids, and ANALYZE. 1,000,000 photos take a few minutes. Needs psql
#                  (Debian package postgresql-client).
# Every photo gets the same sound 120x90 thumbnail (a JPEG made with cjpeg), so `verify`
# decodes real thumbnails and finds no problem in a library made this way.
# Needs: python3 (standard library only), cjpeg (Debian package libjpeg-turbo-progs) and a
# built photos binary (for `photos init`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=${1:?usage: make-library.sh LIBRARY_DIR [--photos N] [--photos-bin PATH]}
shift
photos_n=100000
originals_n=
bin="$here/../.build/release/photos"
database=
while [ $# -gt 0 ]; do
    case "$1" in
        --photos) photos_n=$2; shift 2 ;;
        --originals) originals_n=$2; shift 2 ;;
        --photos-bin) bin=$2; shift 2 ;;
        --database) database=$2; shift 2 ;;
        *) echo "make-library.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ -x "$bin" ] || { echo "make-library.sh: no photos binary at $bin (swift build -c release)" >&2; exit 69; }
command -v python3 >/dev/null || { echo "make-library.sh: needs python3" >&2; exit 69; }
command -v cjpeg >/dev/null || { echo "make-library.sh: needs cjpeg (apt-get install libjpeg-turbo-progs)" >&2; exit 69; }
[ -e "$lib" ] && { echo "make-library.sh: $lib exists; remove it first" >&2; exit 73; }
if [ -n "$database" ]; then
    command -v psql >/dev/null || { echo "make-library.sh: needs psql (apt-get install postgresql-client)" >&2; exit 69; }
    [ -z "$originals_n" ] || { echo "make-library.sh: --originals is for SQLite only" >&2; exit 64; }
    "$bin" --library "$lib" --quiet init --database "$database"
else
    "$bin" --library "$lib" --quiet init
fi

# The thumbnail: a 120x90 colour gradient (binary PPM) encoded by libjpeg at quality 85.
thumb=$(mktemp)
tables=$(mktemp -d)
trap 'rm -rf "$thumb" "$tables"' EXIT
python3 -c '
import sys
w, h = 120, 90
sys.stdout.buffer.write(b"P6 %d %d 255\n" % (w, h) + bytes(
    v for y in range(h) for x in range(w) for v in ((x * 2) % 256, (y * 3) % 256, (x + y) % 256)))
' | cjpeg -quality 85 > "$thumb"

python3 - "$lib" "$photos_n" "$thumb" "${originals_n:-$photos_n}" "$tables" "${database:+postgresql}" <<'PY'
import hashlib, os, random, sqlite3, sys, uuid, datetime
lib, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[4])
thumbnail = open(sys.argv[3], "rb").read()
rnd = random.Random(20261129)
def u():  # deterministic UUIDs (random-looking, seeded)
    return str(uuid.UUID(int=rnd.getrandbits(128), version=4))

class CopyFiles:
    """The rows of each table in PostgreSQL COPY text format, one temporary file a table
    (PostgreSQL docs, COPY "Text Format"; none of these values needs escaping), with the ids
    SQLite would give them, and the statements that load them in foreign-key order."""
    order = ["zone", "share", "participant", "photo", "photo_data", "rating", "tag", "photo_tag",
             "history_transaction", "history_change"]
    columns = {
        "zone": "id, name, scope", "share": "id, title, created, public_permission",
        "participant": "uuid, share_id, email, role, permission, acceptance",
        "photo": "id, unique_name, display_name, imported_at, capture_date, width, height, format, orientation, zone_id",
        "photo_data": "photo_id, sha256, byte_size, file_ref", "rating": "uuid, photo_id, value",
        "tag": "id, uuid, name, zone_id", "photo_tag": "photo_id, tag_id",
        "history_transaction": "token, timestamp, author, context",
        "history_change": "token, entity, object_id, type, zone_id"}
    def __init__(self, folder):
        self.folder = folder
        self.files = {t: open(os.path.join(folder, t + ".tsv"), "w") for t in self.order}
        self.ids = {"tag": 0, "history_transaction": 0}
        self.seen_links = set()
    def execute(self, sql, values=()):
        words = sql.split()
        if words[0] == "BEGIN" or words[0] == "COMMIT": return self
        table = words[words.index("INTO") + 1]
        values = list(values)
        if table == "zone": values = [values[0], values[1], "private"]
        if table == "share": values = [values[0], values[1], "2025-01-01T00:00:00Z", "none"]
        if table == "participant": values = values + ["private-user", "read-only", "accepted"]
        if table == "photo": values = values[:5] + [4000, 3000, "jpeg", 1, values[5]]
        if table == "tag":
            self.ids["tag"] += 1
            values = [self.ids["tag"]] + values + (["default"] if len(values) == 2 else [])
        if table == "history_transaction":
            self.ids["history_transaction"] += 1
            values = [self.ids["history_transaction"]] + values + ["import"]
        if table == "history_change": values = [values[0], "Photo", values[1], "insert", "default"]
        if table == "thumbnail": return self  # made on the server from one copy
        self.files[table].write("\t".join(str(v) for v in values) + "\n")
        self.lastrowid = values[0]
        return self
    def executemany(self, sql, rows):
        for r in rows: self.execute(sql, r)
    def script(self, thumbnail):
        for f in self.files.values(): f.close()
        lines = ["\\set ON_ERROR_STOP on", "BEGIN;"]
        lines += ["\\copy %s (%s) FROM '%s'" % (t, self.columns[t], os.path.join(self.folder, t + ".tsv"))
                  for t in self.order]
        lines.append("INSERT INTO thumbnail (photo_id, data, width, height) SELECT id, '\\x%s'::bytea, 120, 90 FROM photo ORDER BY id;" % thumbnail.hex())
        for t in ["participant", "photo", "photo_data", "thumbnail", "tag", "rating", "history_change"]:
            lines.append("SELECT setval(pg_get_serial_sequence('%s', 'id'), (SELECT max(id) FROM %s));" % (t, t))
        lines.append("SELECT setval('history_token', (SELECT max(token) FROM history_transaction));")
        lines += ["COMMIT;", "ANALYZE;"]
        return "\n".join(lines) + "\n"

postgres = len(sys.argv) > 6 and sys.argv[6] == "postgresql"
if postgres:
    cur = CopyFiles(sys.argv[5])
else:
    db = sqlite3.connect(os.path.join(lib, "photos.sqlite"))
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("PRAGMA synchronous = OFF")
    cur = db.cursor()
cur.execute("BEGIN")
# One original per photo (or k shared round-robin).
files = []
for i in range(min(n, k)):
    data = b"synthetic original %d " % i + bytes(rnd.getrandbits(8) for _ in range(200))
    sha = hashlib.sha256(data).hexdigest()
    d = os.path.join(lib, "ExternalData", sha[:2]); os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, sha), "wb") as f: f.write(data)
    files.append((sha, len(data)))
# 200 shares; share 0 gets 10,000 photos, 40% stay in the default zone, the rest spread.
shares = [u() for _ in range(200)]
for i, s in enumerate(shares):
    cur.execute("INSERT INTO zone (id, name, scope) VALUES (?, ?, 'private')", (s, s))
    cur.execute("INSERT INTO share (id, title, created, public_permission) VALUES (?, ?, '2025-01-01T00:00:00Z', 'none')", (s, "Share %d" % i))
    cur.execute("INSERT INTO participant (uuid, share_id, email, role, permission, acceptance) VALUES (?, ?, ?, 'private-user', 'read-only', 'accepted')", (u(), s, "user%d@example.org" % i))
zones = ["default"] + shares
def zone_of(i):
    if i < 10000: return shares[0]
    if i < 10000 + int(n * 0.4): return "default"
    return shares[1 + i % 199]
start = datetime.datetime(2024, 1, 1)
for i in range(n):
    z = zone_of(i)
    name = u().upper()
    t = (start + datetime.timedelta(minutes=i * 7)).strftime("%Y-%m-%dT%H:%M:%SZ")
    cur.execute("INSERT INTO photo (id, unique_name, display_name, imported_at, capture_date, width, height, format, orientation, zone_id) VALUES (?, ?, ?, ?, ?, 4000, 3000, 'jpeg', 1, ?)",
                (i + 1, name, "IMG_%05d.JPG" % (i % 100000), t, t, z))
    sha, size = files[i % len(files)]
    cur.execute("INSERT INTO photo_data (photo_id, sha256, byte_size, file_ref) VALUES (?, ?, ?, ?)", (i + 1, sha, size, sha[:2] + "/" + sha))
    cur.execute("INSERT INTO thumbnail (photo_id, data, width, height) VALUES (?, ?, 120, 90)", (i + 1, thumbnail))
    if i % 2 == 0:
        cur.execute("INSERT INTO rating (uuid, photo_id, value) VALUES (?, ?, ?)", (u(), i + 1, 1 + i % 5))
# 20,000 tags: 19,000 distinct (zone, name) pairs and 1,000 duplicates of some of them.
tags_by_zone = {z: [] for z in zones}
weights = {"default": 9000, shares[0]: 1000}
names = ["tag-%05d" % k for k in range(19000)]
k = 0
for z in zones:
    count = weights.get(z, (19000 - 10000) // 199)
    for _ in range(count):
        if k >= 19000: break
        tid = cur.execute("INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, ?)", (u(), names[k], z)).lastrowid
        tags_by_zone[z].append((tid, names[k])); k += 1
while k < 19000:
    tid = cur.execute("INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, 'default')", (u(), names[k])).lastrowid
    tags_by_zone["default"].append((tid, names[k])); k += 1
originals = [(z, t) for z in zones for t in tags_by_zone[z]]
for j in range(1000):
    z, (tid, name) = originals[(j * 17) % len(originals)]
    dup = cur.execute("INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, ?)", (u(), name, z)).lastrowid
    tags_by_zone[z].append((dup, name))
# Three tag links per photo, inside its zone; "tag-00000" (default zone) on every 10th default photo.
for i in range(n):
    z = zone_of(i)
    pool = tags_by_zone[z]
    if not pool: continue
    for tid in {pool[(i * 31 + m * 7) % len(pool)][0] for m in range(3)}:
        cur.execute("INSERT OR IGNORE INTO photo_tag (photo_id, tag_id) VALUES (?, ?)", (i + 1, tid))
# A million history changes in 10,000 transactions over two years.
for tr in range(10000):
    ts = (start + datetime.timedelta(hours=tr * 1.75)).strftime("%Y-%m-%dT%H:%M:%SZ")
    token = cur.execute("INSERT INTO history_transaction (timestamp, author, context) VALUES (?, ?, 'import')", (ts, "photos" if tr % 3 else "cron")).lastrowid
    cur.executemany("INSERT INTO history_change (token, entity, object_id, type, zone_id) VALUES (?, 'Photo', ?, 'insert', 'default')",
                    [(token, "%08d" % (tr * 100 + c)) for c in range(100)])
cur.execute("COMMIT")
if postgres:
    open(os.path.join(sys.argv[5], "load.sql"), "w").write(cur.script(thumbnail))
    sys.exit(0)
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
print("make-library: %d photos, %d tags, %d shares, %d history changes in %s" % (
    n, db.execute("SELECT count(*) FROM tag").fetchone()[0], len(shares),
    db.execute("SELECT count(*) FROM history_change").fetchone()[0], lib))
PY
if [ -n "$database" ]; then
    psql "$database" -qX -f "$tables/load.sql" >/dev/null
    psql "$database" -qXAt -c "SELECT 'make-library: ' || (SELECT count(*) FROM photo) || ' photos, ' || (SELECT count(*) FROM tag) || ' tags, ' || (SELECT count(*) FROM share) || ' shares, ' || (SELECT count(*) FROM history_change) || ' history changes in $lib (PostgreSQL)'"
fi

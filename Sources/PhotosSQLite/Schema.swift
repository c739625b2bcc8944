import CSQLite
import Foundation
import PhotosModel
import PhotosSQL

/// The library's schema as ordered migrations of readable SQL. Migration *n* (1-based) brings
/// `PRAGMA user_version` from n−1 to n inside one transaction; migrations only run forward.
///
/// The model is the Core Data one of SPEC §3 (Photo, PhotoData, Thumbnail, Tag, Rating, zones,
/// shares, participants) plus the persistent history of SPEC §4. Every foreign key and lookup
/// column has an index (SPEC §8).
public enum Schema {
    /// The schema version this build writes and understands.
    public static var currentVersion: Int { migrations.count }

    /// The first line of a schema dump: the version, and that SQLite keeps it in
    /// `PRAGMA user_version`.
    public static func header(version: Int) -> String { "-- schema version \(version) (PRAGMA user_version)" }

    /// The id of the private scope's default record zone.
    public static let defaultZoneID = "default"

    /// Migration SQL, in order. Never edit a released entry; append a new one.
    public static let migrations: [String] = [
        """
        CREATE TABLE zone (
            id    TEXT PRIMARY KEY NOT NULL,
            name  TEXT NOT NULL,
            scope TEXT NOT NULL CHECK (scope IN ('private', 'shared'))
        );
        INSERT INTO zone (id, name, scope) VALUES ('default', 'default', 'private');

        CREATE TABLE share (
            id                TEXT PRIMARY KEY NOT NULL REFERENCES zone(id) ON DELETE CASCADE,
            title             TEXT NOT NULL,
            created           TEXT NOT NULL,
            public_permission TEXT NOT NULL DEFAULT 'none'
                CHECK (public_permission IN ('none', 'read-only', 'read-write'))
        );

        CREATE TABLE participant (
            id         INTEGER PRIMARY KEY,
            share_id   TEXT NOT NULL REFERENCES share(id) ON DELETE CASCADE,
            email      TEXT NOT NULL,
            role       TEXT NOT NULL CHECK (role IN ('owner', 'private-user', 'public-user')),
            permission TEXT NOT NULL CHECK (permission IN ('read-only', 'read-write')),
            acceptance TEXT NOT NULL DEFAULT 'pending'
                CHECK (acceptance IN ('unknown', 'pending', 'accepted', 'removed')),
            UNIQUE (share_id, email)
        );

        CREATE TABLE photo (
            id           INTEGER PRIMARY KEY,
            unique_name  TEXT NOT NULL UNIQUE,
            display_name TEXT NOT NULL,
            imported_at  TEXT NOT NULL,
            capture_date TEXT,
            width        INTEGER NOT NULL CHECK (width > 0),
            height       INTEGER NOT NULL CHECK (height > 0),
            format       TEXT NOT NULL CHECK (format IN ('jpeg', 'png')),
            orientation  INTEGER NOT NULL DEFAULT 1 CHECK (orientation BETWEEN 1 AND 8),
            zone_id      TEXT NOT NULL REFERENCES zone(id)
        );
        CREATE INDEX photo_zone ON photo(zone_id);
        CREATE INDEX photo_capture_date ON photo(capture_date);
        CREATE INDEX photo_imported_at ON photo(imported_at);

        CREATE TABLE photo_data (
            id        INTEGER PRIMARY KEY,
            photo_id  INTEGER NOT NULL UNIQUE REFERENCES photo(id) ON DELETE CASCADE,
            sha256    TEXT NOT NULL CHECK (length(sha256) = 64),
            byte_size INTEGER NOT NULL CHECK (byte_size >= 0),
            file_ref  TEXT NOT NULL
        );
        CREATE INDEX photo_data_sha256 ON photo_data(sha256);

        CREATE TABLE thumbnail (
            id       INTEGER PRIMARY KEY,
            photo_id INTEGER NOT NULL UNIQUE REFERENCES photo(id) ON DELETE CASCADE,
            data     BLOB NOT NULL,
            width    INTEGER NOT NULL CHECK (width > 0),
            height   INTEGER NOT NULL CHECK (height > 0)
        );

        CREATE TABLE tag (
            id      INTEGER PRIMARY KEY,
            uuid    TEXT NOT NULL UNIQUE,
            name    TEXT NOT NULL,
            zone_id TEXT NOT NULL REFERENCES zone(id)
        );
        CREATE INDEX tag_zone_name ON tag(zone_id, name);

        CREATE TABLE photo_tag (
            photo_id INTEGER NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
            tag_id   INTEGER NOT NULL REFERENCES tag(id) ON DELETE CASCADE,
            PRIMARY KEY (photo_id, tag_id)
        ) WITHOUT ROWID;
        CREATE INDEX photo_tag_tag ON photo_tag(tag_id, photo_id);

        CREATE TABLE rating (
            id       INTEGER PRIMARY KEY,
            photo_id INTEGER NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
            value    INTEGER NOT NULL CHECK (value BETWEEN 1 AND 5)
        );
        CREATE INDEX rating_photo ON rating(photo_id);

        CREATE TABLE history_transaction (
            token     INTEGER PRIMARY KEY AUTOINCREMENT,
            timestamp TEXT NOT NULL,
            author    TEXT NOT NULL,
            context   TEXT NOT NULL
        );
        CREATE INDEX history_transaction_timestamp ON history_transaction(timestamp);
        CREATE INDEX history_transaction_author ON history_transaction(author);

        CREATE TABLE history_change (
            id        INTEGER PRIMARY KEY,
            token     INTEGER NOT NULL REFERENCES history_transaction(token) ON DELETE CASCADE,
            entity    TEXT NOT NULL,
            object_id TEXT NOT NULL,
            type      TEXT NOT NULL CHECK (type IN ('insert', 'update', 'delete')),
            updated   TEXT,
            tombstone TEXT,
            zone_id   TEXT
        );
        CREATE INDEX history_change_token ON history_change(token);
        CREATE INDEX history_change_entity ON history_change(entity, type, token);
        CREATE INDEX history_change_zone ON history_change(zone_id, token);

        CREATE TABLE history_consumer (
            name  TEXT PRIMARY KEY NOT NULL,
            token INTEGER NOT NULL
        );
        """,
        // 2 (issue 9 item 6): the capture time is the local wall-clock time, never a made-up
        // UTC. capture_date holds `YYYY-MM-DDTHH:MM:SS[.fff]` (no zone), capture_offset the
        // UTC offset in minutes east when known (else NULL), capture_source where the time came
        // from (`exif`, `exif-digitized`, `exif-datetime`, `xmp`, `json`, `file-mtime`). Version 1
        // stored DateTimeOriginal as if it were UTC (`…Z`); its wall-clock value is kept, with
        // the offset unknown and the source `exif` (the only source version 1 had).
        """
        ALTER TABLE photo ADD COLUMN capture_offset INTEGER CHECK (capture_offset BETWEEN -1080 AND 1080);
        ALTER TABLE photo ADD COLUMN capture_source TEXT;
        UPDATE photo SET capture_date = substr(capture_date, 1, 19), capture_source = 'exif'
            WHERE capture_date IS NOT NULL;
        """,
        // 3 (issue 10 item 2): every object history names has a stable uuid, because sync
        // replicates by uuid, never by the local integer id. Ratings and participants get a
        // `uuid` column (lowercase RFC 9562 version 4, as tags and shares already have),
        // existing rows a random one. ALTER TABLE cannot add a NOT NULL column without a
        // default, so both tables are rebuilt (https://www.sqlite.org/lang_altertable.html
        // §7); no other table references them, so the row ids are kept and nothing cascades.
        """
        CREATE TABLE rating_v3 (
            id       INTEGER PRIMARY KEY,
            uuid     TEXT NOT NULL UNIQUE CHECK (length(uuid) = 36),
            photo_id INTEGER NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
            value    INTEGER NOT NULL CHECK (value BETWEEN 1 AND 5)
        );
        INSERT INTO rating_v3 (id, uuid, photo_id, value)
            SELECT id, \(randomUUIDExpression), photo_id, value FROM rating ORDER BY id;
        DROP TABLE rating;
        ALTER TABLE rating_v3 RENAME TO rating;
        CREATE INDEX rating_photo ON rating(photo_id);

        CREATE TABLE participant_v3 (
            id         INTEGER PRIMARY KEY,
            uuid       TEXT NOT NULL UNIQUE CHECK (length(uuid) = 36),
            share_id   TEXT NOT NULL REFERENCES share(id) ON DELETE CASCADE,
            email      TEXT NOT NULL,
            role       TEXT NOT NULL CHECK (role IN ('owner', 'private-user', 'public-user')),
            permission TEXT NOT NULL CHECK (permission IN ('read-only', 'read-write')),
            acceptance TEXT NOT NULL DEFAULT 'pending'
                CHECK (acceptance IN ('unknown', 'pending', 'accepted', 'removed')),
            UNIQUE (share_id, email)
        );
        INSERT INTO participant_v3 (id, uuid, share_id, email, role, permission, acceptance)
            SELECT id, \(randomUUIDExpression), share_id, email, role, permission, acceptance
            FROM participant ORDER BY id;
        DROP TABLE participant;
        ALTER TABLE participant_v3 RENAME TO participant;
        """,
        // 4 (issue 13 item 2): `photo.format` also allows HEIF/HEIC, AVIF and WebP originals
        // (the raw values of `ImageFormat`). A CHECK cannot be altered, so `photo` is rebuilt
        // (https://www.sqlite.org/lang_altertable.html §7) with the definition of versions 1–3
        // exactly (capture_offset and capture_source as migration 2 added them), keeping every
        // row id. Other tables reference `photo(id)` by name, so they follow the renamed table;
        // the migrator runs with foreign keys off (else the DROP would cascade-delete
        // photo_data, thumbnail, rating and photo_tag) and runs `foreign_key_check` before
        // committing.
        """
        CREATE TABLE photo_v4 (
            id             INTEGER PRIMARY KEY,
            unique_name    TEXT NOT NULL UNIQUE,
            display_name   TEXT NOT NULL,
            imported_at    TEXT NOT NULL,
            capture_date   TEXT,
            width          INTEGER NOT NULL CHECK (width > 0),
            height         INTEGER NOT NULL CHECK (height > 0),
            format         TEXT NOT NULL CHECK (format IN ('jpeg', 'png', 'heif', 'avif', 'webp')),
            orientation    INTEGER NOT NULL DEFAULT 1 CHECK (orientation BETWEEN 1 AND 8),
            zone_id        TEXT NOT NULL REFERENCES zone(id),
            capture_offset INTEGER CHECK (capture_offset BETWEEN -1080 AND 1080),
            capture_source TEXT
        );
        INSERT INTO photo_v4 (id, unique_name, display_name, imported_at, capture_date, width, height,
                              format, orientation, zone_id, capture_offset, capture_source)
            SELECT id, unique_name, display_name, imported_at, capture_date, width, height,
                   format, orientation, zone_id, capture_offset, capture_source
            FROM photo ORDER BY id;
        DROP TABLE photo;
        ALTER TABLE photo_v4 RENAME TO photo;
        CREATE INDEX photo_zone ON photo(zone_id);
        CREATE INDEX photo_capture_date ON photo(capture_date);
        CREATE INDEX photo_imported_at ON photo(imported_at);
        """,
        // 5 (issue 14 item 4): ratings per author. `rating.author` is the history author of
        // the `photos rate` that set it; `rate` replaces that author's rating instead of adding
        // another (one per author per photo: the partial unique index, which PostgreSQL has as
        // well). Ratings from before (and those read from XMP sidecars on import, which name no
        // author) keep a NULL author: anonymous, never replaced by `rate`, still in the mean.
        // ADD COLUMN with a NULL default needs no rebuild (sqlite.org/lang_altertable.html §5).
        """
        ALTER TABLE rating ADD COLUMN author TEXT CHECK (author IS NULL OR length(author) > 0);
        CREATE UNIQUE INDEX rating_photo_author ON rating(photo_id, author) WHERE author IS NOT NULL;
        """,
        // 6 (issue 11): sync between libraries. `sync_library` holds this library's stable id
        // (a random lowercase UUID, the sender id changesets carry), its change token (bumped by
        // every change the sync layer records) and the last history token folded into the sync
        // state. `sync_entry` is the sync state: per object attribute (entity, object id,
        // attribute) the winning value with its stamp (history timestamp, library id) and the
        // change token that set it; a delete is the attribute `deleted`. `sync_applied` is the
        // last change token applied per sender and scope, `sync_peer` the last token of ours a
        // peer or participant acknowledged, `sync_membership` the zones shared with this library
        // (the participant's e-mail here, the owner's library id, when it left). Self-contained: no reference to other migrations'
        // tables.
        """
        CREATE TABLE sync_library (
            singleton                INTEGER PRIMARY KEY CHECK (singleton = 1),
            id                       TEXT NOT NULL CHECK (length(id) = 36),
            change_token             INTEGER NOT NULL DEFAULT 0,
            reconciled_history_token INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO sync_library (singleton, id) VALUES (1, \(randomUUIDExpression));

        CREATE TABLE sync_entry (
            entity        TEXT NOT NULL,
            object_id     TEXT NOT NULL,
            attribute     TEXT NOT NULL,
            value         TEXT,
            stamp_time    TEXT NOT NULL,
            stamp_library TEXT NOT NULL,
            token         INTEGER NOT NULL,
            zone_id       TEXT,
            PRIMARY KEY (entity, object_id, attribute)
        );
        CREATE INDEX sync_entry_token ON sync_entry(token);
        CREATE INDEX sync_entry_zone ON sync_entry(zone_id, token);

        CREATE TABLE sync_applied (
            sender TEXT NOT NULL,
            scope  TEXT NOT NULL,
            token  INTEGER NOT NULL,
            PRIMARY KEY (sender, scope)
        );

        CREATE TABLE sync_peer (
            library_id   TEXT NOT NULL,
            scope        TEXT NOT NULL,
            acknowledged INTEGER NOT NULL,
            PRIMARY KEY (library_id, scope)
        );
        CREATE INDEX history_change_object ON history_change(object_id);

        CREATE TABLE sync_membership (
            zone_id TEXT PRIMARY KEY NOT NULL,
            email   TEXT NOT NULL,
            owner   TEXT NOT NULL,
            left_at TEXT
        );
        """,
        // 7 (issue 31 A1): the duplicate rule (one photo per original) holds per record zone;
        // `photo_data.sha256` was never UNIQUE here, PostgreSQL's migration 7 drops its
        // constraint. Kept so that both backends' versions stay equal; the index is the
        // lookup of `hasOriginal(sha256:in:)`.
        """
        CREATE INDEX IF NOT EXISTS photo_data_sha256 ON photo_data(sha256);
        """,
        // 8 (issue 31 A6): history timestamps (and so the sync stamps folded from them) have
        // milliseconds, `YYYY-MM-DDTHH:MM:SS.fffZ`, as the conflict rule compares them; the whole
        // seconds (`…SSZ`) of before are kept as `….000Z`, so that every stamp has one form and
        // `max()`, `--since` and `--before` compare them as strings.
        """
        -- #31 A6
        UPDATE history_transaction SET timestamp = substr(timestamp, 1, 19) || '.000Z'
            WHERE length(timestamp) = 20 AND substr(timestamp, 20, 1) = 'Z';
        UPDATE sync_entry SET stamp_time = substr(stamp_time, 1, 19) || '.000Z'
            WHERE length(stamp_time) = 20 AND substr(stamp_time, 20, 1) = 'Z';
        """,
        // 9 (issue 31 A8): no id is ever given twice (a stale `rating delete 4` must not hit a later
        // rating): every table whose integer id is shown or referenced gets AUTOINCREMENT
        // (https://www.sqlite.org/autoinc.html: ids above the largest ever used, kept in
        // `sqlite_sequence`). A table rebuild (https://www.sqlite.org/lang_altertable.html §7)
        // with the definitions of versions 1–7 exactly, keeping every row and id; copying the
        // rows with their ids sets `sqlite_sequence` to the largest one, the most that is known
        // of ids used before. Referencing tables name their parents, so they follow the renamed
        // tables; the migrator runs with foreign keys off and runs `foreign_key_check` before it
        // commits.
        """
        -- #31 A8
        CREATE TABLE photo_v8 (
            id             INTEGER PRIMARY KEY AUTOINCREMENT,
            unique_name    TEXT NOT NULL UNIQUE,
            display_name   TEXT NOT NULL,
            imported_at    TEXT NOT NULL,
            capture_date   TEXT,
            width          INTEGER NOT NULL CHECK (width > 0),
            height         INTEGER NOT NULL CHECK (height > 0),
            format         TEXT NOT NULL CHECK (format IN ('jpeg', 'png', 'heif', 'avif', 'webp')),
            orientation    INTEGER NOT NULL DEFAULT 1 CHECK (orientation BETWEEN 1 AND 8),
            zone_id        TEXT NOT NULL REFERENCES zone(id),
            capture_offset INTEGER CHECK (capture_offset BETWEEN -1080 AND 1080),
            capture_source TEXT
        );
        INSERT INTO photo_v8 (id, unique_name, display_name, imported_at, capture_date, width, height,
                              format, orientation, zone_id, capture_offset, capture_source)
            SELECT id, unique_name, display_name, imported_at, capture_date, width, height,
                   format, orientation, zone_id, capture_offset, capture_source
            FROM photo ORDER BY id;
        DROP TABLE photo;
        ALTER TABLE photo_v8 RENAME TO photo;
        CREATE INDEX photo_zone ON photo(zone_id);
        CREATE INDEX photo_capture_date ON photo(capture_date);
        CREATE INDEX photo_imported_at ON photo(imported_at);

        CREATE TABLE photo_data_v8 (
            id        INTEGER PRIMARY KEY AUTOINCREMENT,
            photo_id  INTEGER NOT NULL UNIQUE REFERENCES photo(id) ON DELETE CASCADE,
            sha256    TEXT NOT NULL CHECK (length(sha256) = 64),
            byte_size INTEGER NOT NULL CHECK (byte_size >= 0),
            file_ref  TEXT NOT NULL
        );
        INSERT INTO photo_data_v8 (id, photo_id, sha256, byte_size, file_ref)
            SELECT id, photo_id, sha256, byte_size, file_ref FROM photo_data ORDER BY id;
        DROP TABLE photo_data;
        ALTER TABLE photo_data_v8 RENAME TO photo_data;
        CREATE INDEX photo_data_sha256 ON photo_data(sha256);

        CREATE TABLE thumbnail_v8 (
            id       INTEGER PRIMARY KEY AUTOINCREMENT,
            photo_id INTEGER NOT NULL UNIQUE REFERENCES photo(id) ON DELETE CASCADE,
            data     BLOB NOT NULL,
            width    INTEGER NOT NULL CHECK (width > 0),
            height   INTEGER NOT NULL CHECK (height > 0)
        );
        INSERT INTO thumbnail_v8 (id, photo_id, data, width, height)
            SELECT id, photo_id, data, width, height FROM thumbnail ORDER BY id;
        DROP TABLE thumbnail;
        ALTER TABLE thumbnail_v8 RENAME TO thumbnail;

        CREATE TABLE tag_v8 (
            id      INTEGER PRIMARY KEY AUTOINCREMENT,
            uuid    TEXT NOT NULL UNIQUE,
            name    TEXT NOT NULL,
            zone_id TEXT NOT NULL REFERENCES zone(id)
        );
        INSERT INTO tag_v8 (id, uuid, name, zone_id) SELECT id, uuid, name, zone_id FROM tag ORDER BY id;
        DROP TABLE tag;
        ALTER TABLE tag_v8 RENAME TO tag;
        CREATE INDEX tag_zone_name ON tag(zone_id, name);

        CREATE TABLE rating_v8 (
            id       INTEGER PRIMARY KEY AUTOINCREMENT,
            uuid     TEXT NOT NULL UNIQUE CHECK (length(uuid) = 36),
            photo_id INTEGER NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
            value    INTEGER NOT NULL CHECK (value BETWEEN 1 AND 5),
            author   TEXT CHECK (author IS NULL OR length(author) > 0)
        );
        INSERT INTO rating_v8 (id, uuid, photo_id, value, author)
            SELECT id, uuid, photo_id, value, author FROM rating ORDER BY id;
        DROP TABLE rating;
        ALTER TABLE rating_v8 RENAME TO rating;
        CREATE INDEX rating_photo ON rating(photo_id);
        CREATE UNIQUE INDEX rating_photo_author ON rating(photo_id, author) WHERE author IS NOT NULL;

        CREATE TABLE participant_v8 (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            uuid       TEXT NOT NULL UNIQUE CHECK (length(uuid) = 36),
            share_id   TEXT NOT NULL REFERENCES share(id) ON DELETE CASCADE,
            email      TEXT NOT NULL,
            role       TEXT NOT NULL CHECK (role IN ('owner', 'private-user', 'public-user')),
            permission TEXT NOT NULL CHECK (permission IN ('read-only', 'read-write')),
            acceptance TEXT NOT NULL DEFAULT 'pending'
                CHECK (acceptance IN ('unknown', 'pending', 'accepted', 'removed')),
            UNIQUE (share_id, email)
        );
        INSERT INTO participant_v8 (id, uuid, share_id, email, role, permission, acceptance)
            SELECT id, uuid, share_id, email, role, permission, acceptance FROM participant ORDER BY id;
        DROP TABLE participant;
        ALTER TABLE participant_v8 RENAME TO participant;

        CREATE TABLE history_change_v8 (
            id        INTEGER PRIMARY KEY AUTOINCREMENT,
            token     INTEGER NOT NULL REFERENCES history_transaction(token) ON DELETE CASCADE,
            entity    TEXT NOT NULL,
            object_id TEXT NOT NULL,
            type      TEXT NOT NULL CHECK (type IN ('insert', 'update', 'delete')),
            updated   TEXT,
            tombstone TEXT,
            zone_id   TEXT
        );
        INSERT INTO history_change_v8 (id, token, entity, object_id, type, updated, tombstone, zone_id)
            SELECT id, token, entity, object_id, type, updated, tombstone, zone_id FROM history_change ORDER BY id;
        DROP TABLE history_change;
        ALTER TABLE history_change_v8 RENAME TO history_change;
        CREATE INDEX history_change_token ON history_change(token);
        CREATE INDEX history_change_entity ON history_change(entity, type, token);
        CREATE INDEX history_change_zone ON history_change(zone_id, token);
        CREATE INDEX history_change_object ON history_change(object_id);
        """,
        // 10 (issue 31 item A3): where a catalog shared by several library folders keeps its
        // originals (`catalog_originals`, one row: the absolute root every machine mounts and
        // the catalog id written in its marker file) and which library folders opened it
        // (`catalog_folder`). Only a PostgreSQL catalog uses them; SQLite has them so that both
        // schemas and `catalog move` stay alike. The first statement fails on a file that
        // says version 6 without being one, before anything is created.
        """
        SELECT zone_id FROM sync_membership LIMIT 0;

        CREATE TABLE catalog_originals (
            singleton   INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
            root        TEXT NOT NULL CHECK (substr(root, 1, 1) = '/'),
            catalog_id  TEXT NOT NULL CHECK (length(catalog_id) = 36),
            recorded_at TEXT NOT NULL,
            -- 1: recorded for a catalog that held photos already, which library folders
            -- unknown to `catalog_folder` may have opened before.
            unknown_folders INTEGER NOT NULL DEFAULT 0 CHECK (unknown_folders IN (0, 1))
        );

        CREATE TABLE catalog_folder (
            host         TEXT NOT NULL,
            folder       TEXT NOT NULL CHECK (substr(folder, 1, 1) = '/'),
            first_opened TEXT NOT NULL,
            PRIMARY KEY (host, folder)
        );
        """,
        // 11 (issue 31 items 4 and 5): what a photo's file said when it was last read, and the
        // hash of its image data alone. `photo_file_state` has at most one row per photo (gone
        // with it): `image_sha256` is the SHA-256 of the original's image data without its
        // metadata (`ImageDataHash`: a file another tool rewrote the metadata of is the same
        // photo), NULL until computed; `file_tags` the tag names the file gave at import or the
        // last `--refresh-metadata`, one per line, sorted (NULL: never recorded, a photo from
        // before this version or from another library), `file_rating` its xmp:Rating 1-5 (NULL:
        // none), `file_capture_date`/`file_capture_offset` its capture time from EXIF/XMP,
        // `replaced_sha256s` the SHA-256s of the originals a rewritten file replaced (newest
        // first, one per line, at most 16): an older version met again (exiftool's
        // `FILE_original`) is not taken back.
        """
        CREATE TABLE photo_file_state (
            photo_id            INTEGER PRIMARY KEY REFERENCES photo(id) ON DELETE CASCADE,
            image_sha256        TEXT CHECK (image_sha256 IS NULL OR length(image_sha256) = 64),
            file_tags           TEXT,
            file_rating         INTEGER CHECK (file_rating BETWEEN 1 AND 5),
            file_capture_date   TEXT,
            file_capture_offset INTEGER CHECK (file_capture_offset BETWEEN -1080 AND 1080),
            replaced_sha256s    TEXT
        );
        CREATE INDEX photo_file_state_image ON photo_file_state(image_sha256);
        """,
        // 12 (issue 24): `photo.format` also allows camera RAW, TIFF, GIF and JPEG XL originals
        // (the raw values of `ImageFormat`). A CHECK cannot be altered, so `photo` is rebuilt
        // (https://www.sqlite.org/lang_altertable.html §7) with version 9's definition exactly
        // but for the CHECK, keeping every row id. DROP TABLE removes the table's
        // `sqlite_sequence` row (https://www.sqlite.org/autoinc.html), so the largest id ever
        // given is saved first and put back: ids of deleted photos stay never reused (#31 A8).
        // Referencing tables name `photo`, so they follow the renamed table; the migrator runs
        // with foreign keys off and runs `foreign_key_check` before it commits.
        """
        CREATE TEMP TABLE photo_sequence_v12 AS SELECT seq FROM sqlite_sequence WHERE name = 'photo';
        CREATE TABLE photo_v12 (
            id             INTEGER PRIMARY KEY AUTOINCREMENT,
            unique_name    TEXT NOT NULL UNIQUE,
            display_name   TEXT NOT NULL,
            imported_at    TEXT NOT NULL,
            capture_date   TEXT,
            width          INTEGER NOT NULL CHECK (width > 0),
            height         INTEGER NOT NULL CHECK (height > 0),
            format         TEXT NOT NULL CHECK (format IN ('jpeg', 'png', 'heif', 'avif', 'webp', 'raw', 'tiff', 'gif', 'jxl')),
            orientation    INTEGER NOT NULL DEFAULT 1 CHECK (orientation BETWEEN 1 AND 8),
            zone_id        TEXT NOT NULL REFERENCES zone(id),
            capture_offset INTEGER CHECK (capture_offset BETWEEN -1080 AND 1080),
            capture_source TEXT
        );
        INSERT INTO photo_v12 (id, unique_name, display_name, imported_at, capture_date, width, height,
                               format, orientation, zone_id, capture_offset, capture_source)
            SELECT id, unique_name, display_name, imported_at, capture_date, width, height,
                   format, orientation, zone_id, capture_offset, capture_source
            FROM photo ORDER BY id;
        DROP TABLE photo;
        ALTER TABLE photo_v12 RENAME TO photo;
        CREATE INDEX photo_zone ON photo(zone_id);
        CREATE INDEX photo_capture_date ON photo(capture_date);
        CREATE INDEX photo_imported_at ON photo(imported_at);
        DELETE FROM sqlite_sequence WHERE name IN ('photo', 'photo_v12');
        INSERT INTO sqlite_sequence (name, seq)
            SELECT 'photo', max(coalesce((SELECT max(seq) FROM temp.photo_sequence_v12), 0),
                                coalesce((SELECT max(id) FROM photo), 0));
        DROP TABLE temp.photo_sequence_v12;
        """,
        // Issue 26 item 1: the photo's position (WGS 84), kept as integers so that every
        // backend and the catalog copy hold the same exact value: `latitude_e7`/`longitude_e7`
        // in 1e-7 degrees (south and west negative; ~1 cm), `altitude_mm` in millimetres above
        // sea level (negative below); all NULL when the photo has no position. The index on
        // (latitude_e7, longitude_e7) is the bounded box index of `list --near`/`--bbox`: a
        // range scan on latitude, longitude checked in the index.
        """
        ALTER TABLE photo ADD COLUMN latitude_e7 INTEGER CHECK (latitude_e7 BETWEEN -900000000 AND 900000000);
        ALTER TABLE photo ADD COLUMN longitude_e7 INTEGER
            CHECK ((latitude_e7 IS NULL) = (longitude_e7 IS NULL) AND longitude_e7 BETWEEN -1800000000 AND 1800000000);
        ALTER TABLE photo ADD COLUMN altitude_mm INTEGER CHECK (altitude_mm IS NULL OR longitude_e7 IS NOT NULL);
        CREATE INDEX photo_position ON photo(latitude_e7, longitude_e7) WHERE latitude_e7 IS NOT NULL;
        """,
        // Issue 25 item 1: `photo.format` also allows videos ('video', `ImageFormat.video`). As
        // migration 12, `photo` is rebuilt with the definition it has now (version 12's and the
        // position columns of issue 26) but for the CHECK, keeping every row id and the largest id
        // ever given (`sqlite_sequence`, #31 A8).
        """
        CREATE TEMP TABLE photo_sequence_video AS SELECT seq FROM sqlite_sequence WHERE name = 'photo';
        CREATE TABLE photo_v14 (
            id             INTEGER PRIMARY KEY AUTOINCREMENT,
            unique_name    TEXT NOT NULL UNIQUE,
            display_name   TEXT NOT NULL,
            imported_at    TEXT NOT NULL,
            capture_date   TEXT,
            width          INTEGER NOT NULL CHECK (width > 0),
            height         INTEGER NOT NULL CHECK (height > 0),
            format         TEXT NOT NULL
                CHECK (format IN ('jpeg', 'png', 'heif', 'avif', 'webp', 'raw', 'tiff', 'gif', 'jxl', 'video')),
            orientation    INTEGER NOT NULL DEFAULT 1 CHECK (orientation BETWEEN 1 AND 8),
            zone_id        TEXT NOT NULL REFERENCES zone(id),
            capture_offset INTEGER CHECK (capture_offset BETWEEN -1080 AND 1080),
            capture_source TEXT,
            latitude_e7    INTEGER CHECK (latitude_e7 BETWEEN -900000000 AND 900000000),
            longitude_e7   INTEGER
                CHECK ((latitude_e7 IS NULL) = (longitude_e7 IS NULL) AND longitude_e7 BETWEEN -1800000000 AND 1800000000),
            altitude_mm    INTEGER CHECK (altitude_mm IS NULL OR longitude_e7 IS NOT NULL)
        );
        INSERT INTO photo_v14 (id, unique_name, display_name, imported_at, capture_date, width, height,
                                 format, orientation, zone_id, capture_offset, capture_source,
                                 latitude_e7, longitude_e7, altitude_mm)
            SELECT id, unique_name, display_name, imported_at, capture_date, width, height,
                   format, orientation, zone_id, capture_offset, capture_source,
                   latitude_e7, longitude_e7, altitude_mm
            FROM photo ORDER BY id;
        DROP TABLE photo;
        ALTER TABLE photo_v14 RENAME TO photo;
        CREATE INDEX photo_zone ON photo(zone_id);
        CREATE INDEX photo_capture_date ON photo(capture_date);
        CREATE INDEX photo_imported_at ON photo(imported_at);
        CREATE INDEX photo_position ON photo(latitude_e7, longitude_e7) WHERE latitude_e7 IS NOT NULL;
        DELETE FROM sqlite_sequence WHERE name IN ('photo', 'photo_v14');
        INSERT INTO sqlite_sequence (name, seq)
            SELECT 'photo', max(coalesce((SELECT max(seq) FROM temp.photo_sequence_video), 0),
                                coalesce((SELECT max(id) FROM photo), 0));
        DROP TABLE temp.photo_sequence_video;
        """,
        // Issue 25 item 2: the photo's kind — `still`, `video`, `motion` (a still with an embedded
        // video, Motion Photo) or `live` (reserved for Live Photo pairs) — its duration in
        // milliseconds (integers, the same exact value on every backend and in the catalog copy;
        // NULL for a still) and its video stream's codec as libavcodec names it ("h264").
        """
        ALTER TABLE photo ADD COLUMN kind TEXT NOT NULL DEFAULT 'still'
            CHECK (kind IN ('still', 'video', 'live', 'motion'));
        ALTER TABLE photo ADD COLUMN duration_ms INTEGER CHECK (duration_ms >= 0);
        ALTER TABLE photo ADD COLUMN video_codec TEXT;
        """,
        // 16 (issue 24 item 2): a photo has one or more originals. `photo_data` loses
        // UNIQUE(photo_id) and gains the original's `role` (`OriginalRole`: exactly one
        // 'primary' per photo, the one its thumbnail, size and `photo.format` come from; 'raw'
        // the camera RAW of a RAW+JPEG pair; 'pairedVideo' reserved for issue 25) and `format`
        // (the original's own `ImageFormat`; NULL for rows from before: "the photo's format"),
        // with UNIQUE (photo_id, role). A UNIQUE constraint cannot be dropped, so the table is
        // rebuilt as migration 12 rebuilt `photo`, keeping every row id (all of them 'primary')
        // and the largest id ever given (`sqlite_sequence`, #31 A8). No original file is touched.
        """
        CREATE TEMP TABLE photo_data_sequence_v16 AS SELECT seq FROM sqlite_sequence WHERE name = 'photo_data';
        CREATE TABLE photo_data_v16 (
            id        INTEGER PRIMARY KEY AUTOINCREMENT,
            photo_id  INTEGER NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
            sha256    TEXT NOT NULL CHECK (length(sha256) = 64),
            byte_size INTEGER NOT NULL CHECK (byte_size >= 0),
            file_ref  TEXT NOT NULL,
            role      TEXT NOT NULL DEFAULT 'primary' CHECK (role IN ('primary', 'raw', 'pairedVideo')),
            format    TEXT,
            UNIQUE (photo_id, role)
        );
        INSERT INTO photo_data_v16 (id, photo_id, sha256, byte_size, file_ref, role)
            SELECT id, photo_id, sha256, byte_size, file_ref, 'primary' FROM photo_data ORDER BY id;
        DROP TABLE photo_data;
        ALTER TABLE photo_data_v16 RENAME TO photo_data;
        CREATE INDEX photo_data_sha256 ON photo_data(sha256);
        DELETE FROM sqlite_sequence WHERE name IN ('photo_data', 'photo_data_v16');
        INSERT INTO sqlite_sequence (name, seq)
            SELECT 'photo_data', max(coalesce((SELECT max(seq) FROM temp.photo_data_sequence_v16), 0),
                                     coalesce((SELECT max(id) FROM photo_data), 0));
        DROP TABLE temp.photo_data_sequence_v16;
        """,
        // 17 (issue 27 item 1): each photo's perceptual signature (`PerceptualSignature`), at most one
        // row per photo, gone with it, in a table of its own (derived data: `photo` is never
        // rebuilt for it). `phash` is the 64-bit DCT hash as a signed integer (the bits of the
        // UInt64), `mean_cb`/`mean_cr` the mean chroma 0-255, `low_information` 1 for a
        // near-uniform or tiny picture (never grouped on its signature alone), `algorithm` the
        // version of the computation (1). No row: not computed yet (`thumbnails --rebuild`).
        """
        CREATE TABLE photo_signature (
            photo_id        INTEGER PRIMARY KEY REFERENCES photo(id) ON DELETE CASCADE,
            algorithm       INTEGER NOT NULL CHECK (algorithm >= 1),
            phash           INTEGER NOT NULL,
            mean_cb         INTEGER NOT NULL CHECK (mean_cb BETWEEN 0 AND 255),
            mean_cr         INTEGER NOT NULL CHECK (mean_cr BETWEEN 0 AND 255),
            low_information INTEGER NOT NULL CHECK (low_information IN (0, 1))
        );
        """,
        // 18 (issue 24 items 1 and 7): the camera that made the photo — EXIF Make (0x010F), Model
        // (0x0110) and LensModel (0xA434), or XMP `tiff:Make`/`tiff:Model`/`exifEX:LensModel`, or
        // LibRaw's names for a RAW — trimmed, at most `CameraIdentity.maxBytes` bytes each, NULL
        // when unknown; and `camera_format`, the RAW container's lower-case name ("nef", "cr3",
        // `CameraIdentity.rawFormat`), NULL for a photo that is not a camera RAW. Rows from before
        // keep NULLs until `import --refresh-metadata` reads their files again.
        """
        ALTER TABLE photo ADD COLUMN camera_make TEXT;
        ALTER TABLE photo ADD COLUMN camera_model TEXT;
        ALTER TABLE photo ADD COLUMN lens_model TEXT;
        ALTER TABLE photo ADD COLUMN camera_format TEXT;
        """,
        // 19 (issue 29 item 1): the library's owner address (`photos identity set EMAIL`), at
        // most one row: who changes in this library's own zones are authored by. No row: not
        // known (changes are authored `photos`, as before). Existing ratings keep their authors.
        // 254 bytes: the longest address SMTP carries (RFC 5321 §4.5.3.1.3, a 256-octet path
        // less its angle brackets), the bound `Email(parsing:)` holds.
        """
        CREATE TABLE library_owner (
            singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
            email     TEXT NOT NULL CHECK (length(CAST(email AS BLOB)) BETWEEN 3 AND 254)
        );
        """,
        // 20 (issue 26 item 6; the task's migration 21, renumbered when merged): each photo's
        // title and description — read at import from XMP `dc:title`/`dc:description`, IPTC
        // Object Name/Caption-Abstract or EXIF ImageDescription (`PhotoText`), set by
        // `photos describe` — NULL when it has none (never the empty string), at most
        // `PhotoText.maxTitleBytes`/`maxDescriptionBytes` bytes of UTF-8. Rows from before keep
        // NULLs until `import --refresh-metadata` reads their files again.
        """
        ALTER TABLE photo ADD COLUMN title TEXT
            CHECK (title IS NULL OR length(CAST(title AS BLOB)) BETWEEN 1 AND 2000);
        ALTER TABLE photo ADD COLUMN description TEXT
            CHECK (description IS NULL OR length(CAST(description AS BLOB)) BETWEEN 1 AND 65536);
        """,
        // 21 (issue 25 item 2): each photo's Apple content identifier — a still's MakerNote tag
        // 0x0011, a movie's QuickTime `com.apple.quicktime.content.identifier` — the UUID both
        // halves of a Live Photo carry, so that the half imported later finds the photo of the
        // other without reading its original again; NULL when its file has none (and for rows
        // from before). At most 64 bytes (`ExifReader.isContentIdentifier`). The index holds only
        // the photos that have one.
        """
        ALTER TABLE photo ADD COLUMN content_identifier TEXT
            CHECK (content_identifier IS NULL OR length(CAST(content_identifier AS BLOB)) BETWEEN 1 AND 64);
        CREATE INDEX photo_content_identifier ON photo(content_identifier) WHERE content_identifier IS NOT NULL;
        """,
        // 22 (issue 26 item 3): the gazetteer `photos places load` fills from a GeoNames dump
        // (`PlaceRow`): one row per populated place, its position in e7 degrees as photo
        // positions are, `search_name` the folded name `list --place` looks up. Reference data,
        // replaced whole by each load: not history, not synced. `place_position` serves the box
        // query that names a photo's place (a latitude range, longitude checked in the index).
        // `photo.place_name`: the place a user named for a photo (`photos place set`), shown
        // instead of the gazetteer's; history and synced; NULL when none was set.
        """
        CREATE TABLE place (
            geonames_id  INTEGER PRIMARY KEY NOT NULL CHECK (geonames_id > 0),
            name         TEXT NOT NULL CHECK (length(CAST(name AS BLOB)) BETWEEN 1 AND 200),
            search_name  TEXT NOT NULL CHECK (length(CAST(search_name AS BLOB)) BETWEEN 1 AND 800),
            admin1       TEXT CHECK (admin1 IS NULL OR length(CAST(admin1 AS BLOB)) BETWEEN 1 AND 200),
            country_code TEXT NOT NULL CHECK (length(country_code) = 2),
            country_name TEXT CHECK (country_name IS NULL OR length(CAST(country_name AS BLOB)) BETWEEN 1 AND 200),
            latitude_e7  INTEGER NOT NULL CHECK (latitude_e7 BETWEEN -900000000 AND 900000000),
            longitude_e7 INTEGER NOT NULL CHECK (longitude_e7 BETWEEN -1800000000 AND 1800000000),
            population   INTEGER NOT NULL CHECK (population >= 0)
        );
        CREATE INDEX place_position ON place(latitude_e7, longitude_e7);
        CREATE INDEX place_search_name ON place(search_name);
        ALTER TABLE photo ADD COLUMN place_name TEXT
            CHECK (place_name IS NULL OR length(CAST(place_name AS BLOB)) BETWEEN 1 AND 200);
        """
    ]

    /// SQL for a random lowercase UUID version 4 (RFC 9562 §5.4: version nibble 4, variant
    /// bits 10), evaluated once per row. `random() & 3` and not `abs(random()) % 4`: abs of
    /// the smallest 64-bit integer overflows.
    static let randomUUIDExpression = """
        lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) \
        || '-' || substr('89ab', 1 + (random() & 3), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))
        """
}

/// Errors about the schema version of a library.
public enum MigrationError: Error, CustomStringConvertible, Equatable {
    /// The library was written by a newer `photos` (its `user_version` is above `currentVersion`).
    case newerLibrary(found: Int, supported: Int)
    /// A database that fails `PRAGMA quick_check`.
    case damaged(path: String)
    /// A migration left a row of `table` (row id `rowID`) referring to a missing row of `parent`.
    case foreignKeyViolation(table: String, rowID: Int64, parent: String)
    /// The file's `user_version` says `version`, but a migration from it failed on what the file
    /// holds (`detail`: SQLite's message, e.g. "no such table: photo"): not a photos library of
    /// that version — another program's database that sets `user_version`, or a damaged one.
    case unexpectedSchema(path: String, version: Int, detail: String)

    public var description: String {
        switch self {
        case let .newerLibrary(found, supported):
            return
                "the library has schema version \(found), newer than this photos supports (\(supported)); use a newer photos"
        case .damaged(let path):
            return "\(path) is damaged"
        case let .foreignKeyViolation(table, rowID, parent):
            return
                "a schema migration left \(table) row \(rowID) referring to a missing \(parent) row; nothing was changed"
        case let .unexpectedSchema(path, version, detail):
            return
                "\(path) says schema version \(version) but does not hold what a photos library of that version holds (\(detail)): it is another program's database or a damaged library; nothing was changed"
        }
    }
}

/// Runs ordered migrations of SQL text forward, one IMMEDIATE transaction each with foreign
/// key enforcement off (so a table rebuild cascades nothing), checking foreign keys before each
/// commits and bumping `PRAGMA user_version` in the same
/// transaction (GRDB's `DatabaseMigrator`). The one migrator of the package: the library
/// (`Schema.migrator`) and an export folder's state database (`ExportStateDatabase`) use it.
public struct Migrator: Sendable {
    /// Migration SQL, in order. Never edit a released entry; append a new one.
    public let migrations: [String]
    /// Set `auto_vacuum = INCREMENTAL` on a new database (before its first table).
    public let incrementalVacuum: Bool
    /// Every table these migrations create (`CREATE TABLE name`, read from their SQL once).
    public let tableNames: Set<String>

    public init(migrations: [String], incrementalVacuum: Bool = false) {
        self.migrations = migrations
        self.incrementalVacuum = incrementalVacuum
        self.tableNames = MigrationTables.created(by: migrations)
    }

    /// The version the last migration brings a database to.
    public var currentVersion: Int { migrations.count }

    /// Brings `db` to `target` (default: `currentVersion`).
    /// - Returns: the version before migrating (0 for a new database).
    /// - Throws: `MigrationError.newerLibrary` when the file is newer than these migrations;
    ///   `MigrationError.foreignKeyViolation`; `ForeignTablesError` when the file holds a table
    ///   no migration creates (at any version); `MigrationError.unexpectedSchema` when a
    ///   migration fails with SQLITE_ERROR (no such table or column: the file is not what its
    ///   version says); `SQLiteError` when a migration fails otherwise (the transaction is
    ///   rolled back).
    @discardableResult
    public func migrate(_ db: Database, to target: Int? = nil) throws -> Int {
        let target = target ?? currentVersion
        let before = try db.userVersion
        if before > currentVersion {
            throw MigrationError.newerLibrary(found: before, supported: currentVersion)
        }
        guard before < target else { return before }
        // Another program's database is no new one (read in one snapshot, so that a catalog
        // another process is creating at this moment is seen with its version or not at all);
        // nor is one that sets `user_version` itself, if it holds a table no migration makes.
        try db.transaction(.deferred) { try requireKnownTables(db) }
        if before == 0 && incrementalVacuum {
            // Only settable before the first table exists: lets `history compact` return freed
            // pages to the file system with `PRAGMA incremental_vacuum`.
            // The WAL switch already wrote page 1, so the change needs a VACUUM (instant on an
            // empty file). https://www.sqlite.org/pragma.html#pragma_auto_vacuum
            try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            try db.execute("VACUUM")
        }
        // Foreign keys off while migrating (https://www.sqlite.org/lang_altertable.html §7): a
        // table rebuilt by DROP and RENAME would otherwise cascade-delete the rows referring to
        // it. `PRAGMA foreign_keys` is a no-op inside a transaction, so it is set around them;
        // `checkForeignKeys` refuses a migration that left a dangling row before it commits.
        let foreignKeys = try db.scalarInt("PRAGMA foreign_keys") ?? 0
        if foreignKeys != 0 { try db.execute("PRAGMA foreign_keys = OFF") }
        defer { if foreignKeys != 0 { try? db.execute("PRAGMA foreign_keys = ON") } }
        for version in before..<target {
            try db.transaction(.immediate) {
                // Re-read inside the write lock: another process may have migrated meanwhile.
                let now = try db.userVersion
                guard now == version else { return }
                try requireKnownTables(db)
                do {
                    try db.execute(migrations[version])
                } catch let error as SQLiteError where error.code == SQLITE_ERROR && now > 0 {
                    throw MigrationError.unexpectedSchema(path: db.path, version: now, detail: error.message)
                }
                try db.checkForeignKeys()
                try db.execute("PRAGMA user_version = \(version + 1)")
            }
        }
        return before
    }
}

extension Migrator {
    /// Refuses a database that holds a table or view no migration creates — at schema version
    /// 0 any table at all — before a migration changes anything in it: another program's
    /// database, whether or not it sets `user_version`.
    /// - Throws: `ForeignTablesError` naming the file and its tables; `SQLiteError`.
    func requireKnownTables(_ db: Database) throws {
        let version = try db.userVersion
        let tables = try db.tableNames().filter { version == 0 || !tableNames.contains($0) }
        guard !tables.isEmpty else { return }
        throw ForeignTablesError(
            place: db.path, tables: tables, remedy: "it is another program's database; use a folder of its own")
    }
}

extension Schema {
    /// Every table the migrations create (`CREATE TABLE name`, read from their SQL): every
    /// table a library of any version up to the current one may hold.
    public static var tableNames: Set<String> { migrator.tableNames }
}

extension Database {
    /// The tables and views of the database (`sqlite_master`, without SQLite's own
    /// `sqlite_*` tables, https://www.sqlite.org/fileformat2.html §2.6), in byte order.
    /// - Throws: `SQLiteError`.
    public func tableNames() throws -> [String] {
        try statement(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
        ).map { $0.string(0) }
    }

    /// See `LibraryStore.requireOnlyCatalogTables`: at schema version 0 every table is another
    /// program's, afterwards every one no migration creates (`Schema.tableNames`).
    /// - Throws: `ForeignTablesError` naming the file; `SQLiteError`.
    /// See `LibraryStore.requireCatalogTables`.
    /// - Throws: `ForeignTablesError`; `MigrationError.unexpectedSchema` naming the first
    ///   missing table or column; `SQLiteError`.
    public func requireCatalogTables() throws {
        let present = try tableNames()
        let foreign = present.filter { !Schema.tableNames.contains($0) }
        if !foreign.isEmpty {
            throw ForeignTablesError(
                place: path, tables: foreign, remedy: "it is another program's database; use a folder of its own")
        }
        // Every table's columns in one statement (https://www.sqlite.org/pragma.html#pragfunc).
        var columns: [String: Set<String>] = [:]
        let pairs = try statement(
            "SELECT m.name, c.name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table'"
        ).map { ($0.string(0), $0.string(1)) }
        for (table, column) in pairs { columns[table, default: []].insert(column) }
        if let detail = CatalogTables.firstMissing(in: columns) {
            throw MigrationError.unexpectedSchema(path: path, version: try userVersion, detail: detail)
        }
    }

    public func requireOnlyCatalogTables() throws {
        let version = try userVersion
        let foreign = try tableNames().filter { version == 0 || !Schema.tableNames.contains($0) }
        guard !foreign.isEmpty else { return }
        throw ForeignTablesError(
            place: path, tables: foreign, remedy: "it is another program's database; use a folder of its own")
    }
}

extension Schema {
    /// The library's migrator.
    public static let migrator = Migrator(migrations: migrations, incrementalVacuum: true)
}

extension Database {
    /// Brings the library schema to `target` (`Schema.migrator`).
    /// - Returns: the version before migrating (0 for a new database).
    /// - Throws: see `Migrator.migrate`.
    @discardableResult
    public func migrate(to target: Int = Schema.currentVersion) throws -> Int {
        try Schema.migrator.migrate(self, to: target)
    }

    /// Refuses a migration that left a row pointing at nothing: `PRAGMA foreign_key_check`
    /// inside the migration's transaction, before it commits (GRDB's `DatabaseMigrator` does
    /// the same; foreign keys are not enforced while a table is rebuilt by rename).
    /// - Throws: `MigrationError.foreignKeyViolation` naming the first table and row.
    public func checkForeignKeys() throws {
        let violations = try statement("PRAGMA foreign_key_check").map { ($0.string(0), $0.int64(1), $0.string(2)) }
        if let (table, rowID, parent) = violations.first {
            throw MigrationError.foreignKeyViolation(table: table, rowID: rowID, parent: parent)
        }
    }

    /// The DDL of every table and index, as stored in `sqlite_master`, ordered by type and name.
    /// - Throws: `SQLiteError`.
    public func schemaSQL() throws -> [String] {
        try statement(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type DESC, name"
        )
        .map { $0.string(0) }
    }
}

-- The append-only event log (CONTRACTS.md §13.1).
--
-- seq is the gapless global position and the rowid itself, so reading in seq
-- order is a plain b-tree walk. event_id is UNIQUE because appends are
-- idempotent by id; (stream, stream_version) is UNIQUE because optimistic
-- concurrency must be enforced by the database, not only by the writer's
-- check. That UNIQUE constraint is also the index on (stream, stream_version)
-- that stream-version look-ups use, so no second, identical index is created.
--
-- data is the RFC 8785 canonical JSON of the payload, canonicalized once at
-- append; canonical is the envelope C whose bytes the hash covers:
--   hash = sha256hex(prev_hash || C), prev_hash of seq 1 = 64 "0".
-- Verification hashes the stored bytes and never re-serializes them.
CREATE TABLE events (
    seq            INTEGER PRIMARY KEY,
    event_id       TEXT    NOT NULL UNIQUE,
    stream         TEXT    NOT NULL,
    stream_version INTEGER NOT NULL,
    type           TEXT    NOT NULL,
    schema_version INTEGER NOT NULL,
    recorded_at    TEXT    NOT NULL,
    data           TEXT    NOT NULL,
    canonical      BLOB    NOT NULL,
    prev_hash      TEXT    NOT NULL,
    hash           TEXT    NOT NULL,
    UNIQUE (stream, stream_version)
) STRICT;

-- Rows are history: nothing may change or remove them. Verification still
-- detects edits made by someone who drops these triggers first.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'ledger events are append-only: UPDATE refused');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'ledger events are append-only: DELETE refused');
END;

-- Content-addressed bodies (Evidence records, CONTRACTS.md §7.3). Events carry
-- only the digest, which the hash chain covers; the key is the sha256 of the
-- uncompressed bytes, so a blob is checked by hashing it again.
CREATE TABLE blobs (
    sha256 TEXT PRIMARY KEY,
    data   BLOB NOT NULL
) STRICT;

-- Facts about this ledger file itself; ledger_id (a ULID) is inserted by the
-- runner right after the first migration, because SQL cannot make a ULID.
CREATE TABLE ledger_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

-- The append-only event log (CONTRACTS.md §13.1, §17), PostgreSQL dialect of
-- ../0001_ledger.up.sql: the same columns, constraints and meaning, with
-- PostgreSQL types. Canonical bytes and hashes are byte-identical to
-- SQLite's for the same events; see that file for why each column exists.
--
-- Appends serialize across every process on the chain head with
-- pg_advisory_xact_lock (package ledger, dialect.go), and seq is the PRIMARY
-- KEY, so even a writer that skipped the lock could not fork the chain: its
-- INSERT of an existing seq fails.
CREATE TABLE events (
    seq            BIGINT   PRIMARY KEY,
    event_id       TEXT     NOT NULL UNIQUE,
    stream         TEXT     NOT NULL,
    stream_version BIGINT   NOT NULL,
    type           TEXT     NOT NULL,
    schema_version BIGINT   NOT NULL,
    recorded_at    TEXT     NOT NULL,
    data           TEXT     NOT NULL,
    canonical      BYTEA    NOT NULL,
    prev_hash      TEXT     NOT NULL,
    hash           TEXT     NOT NULL,
    UNIQUE (stream, stream_version)
);

-- Rows are history: nothing may change or remove them (TRUNCATE included,
-- which row triggers do not see). Verification still detects edits made by
-- someone who drops these triggers first.
CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger events are append-only: % refused', TG_OP;
END;
$$;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();

-- `rea ledger tail` follows commits with LISTEN rea_ledger: every statement
-- that inserts events notifies the channel with the schema's name, and
-- PostgreSQL delivers it at COMMIT (never for a rolled-back append), once
-- per transaction and payload.
CREATE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('rea_ledger', current_schema());
    RETURN NULL;
END;
$$;

CREATE TRIGGER events_notify AFTER INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_notify();

CREATE TABLE blobs (
    sha256 TEXT  PRIMARY KEY,
    data   BYTEA NOT NULL
);

CREATE TABLE ledger_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

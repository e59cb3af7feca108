-- PostgreSQL dialect of ../0002_projections.up.sql: the same tables and
-- columns (INTEGER -> BIGINT), so ProjectionDigest is equal across backends.
-- Read models folded from events (package projections). Nothing here is
-- authoritative: `rea ledger rebuild` empties these tables and folds every
-- event again, and must reproduce the same projection digest.

CREATE TABLE proj_connections (
    connection_id    TEXT PRIMARY KEY,
    transport        TEXT NOT NULL,
    protocol_version TEXT,
    client_name      TEXT,
    client_version   TEXT,
    opened_seq       BIGINT  NOT NULL,
    closed_seq       BIGINT,
    close_reason     TEXT
);

CREATE TABLE proj_runs (
    run_id                TEXT PRIMARY KEY,
    connection_id         TEXT NOT NULL,
    target_sha256         TEXT NOT NULL,
    previous_run_id       TEXT,
    cause                 TEXT NOT NULL,
    allocated_seq         BIGINT  NOT NULL,
    target                TEXT,
    requested_provider_id TEXT,
    opened_seq            BIGINT,
    provider              TEXT,
    selection_source      TEXT,
    analysis_profile      TEXT,
    closed_seq            BIGINT,
    close_reason          TEXT,
    cleanup               TEXT
);
CREATE INDEX proj_runs_connection ON proj_runs(connection_id, allocated_seq);

CREATE TABLE proj_selection_failures (
    seq                   BIGINT  PRIMARY KEY,
    connection_id         TEXT NOT NULL,
    operation             TEXT NOT NULL,
    selection_reason      TEXT NOT NULL,
    requested_provider_id TEXT NOT NULL,
    rejections            TEXT NOT NULL
);

-- One row per evidence_recorded event. A record's digest is the same in every
-- publication of its id (a republication reuses the stored record), so the
-- distinct records are read from here too: one insert per publication keeps
-- replay fast. Filtering by run scans the (narrow) table; a connection's and an
-- id's publications are indexed.
CREATE TABLE proj_evidence_publications (
    seq            BIGINT  PRIMARY KEY,
    connection_id  TEXT NOT NULL,
    run_id         TEXT,
    evidence_id    TEXT NOT NULL,
    record_digest  TEXT NOT NULL
);
CREATE INDEX proj_evidence_publications_id ON proj_evidence_publications(evidence_id);
CREATE INDEX proj_evidence_publications_connection ON proj_evidence_publications(connection_id);

CREATE TABLE proj_provider_health (
    run_id        TEXT NOT NULL,
    provider_id   TEXT NOT NULL,
    operation     TEXT NOT NULL, -- '*' = every operation
    connection_id TEXT NOT NULL,
    state         TEXT NOT NULL,
    reason        TEXT,
    seq           BIGINT  NOT NULL,
    PRIMARY KEY (run_id, provider_id, operation)
);

CREATE TABLE proj_lineage (
    run_id        TEXT NOT NULL,
    provider_id   TEXT NOT NULL,
    provider      TEXT NOT NULL,
    observation   TEXT NOT NULL,
    seq           BIGINT  NOT NULL,
    PRIMARY KEY (run_id, provider_id)
);

CREATE TABLE proj_annotations (
    target_sha256 TEXT NOT NULL,
    kind          TEXT NOT NULL,
    address       TEXT NOT NULL,
    value         TEXT NOT NULL,
    seq           BIGINT  NOT NULL,
    PRIMARY KEY (target_sha256, kind, address)
);

CREATE TABLE proj_cursors (
    connection_id TEXT PRIMARY KEY,
    run_id        TEXT NOT NULL,
    document      TEXT NOT NULL,
    address       TEXT NOT NULL,
    seq           BIGINT  NOT NULL
);

-- json_extract(text, '$.a.b') as SQLite has it, for the few projection
-- queries that look into an event's data (the policy replay looks decisions
-- up by decision_id), so those queries run unchanged on both backends. Only
-- object-member paths are needed; the value comes back as text.
CREATE FUNCTION json_extract(doc TEXT, path TEXT) RETURNS TEXT
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT (doc::jsonb) #>> string_to_array(substr(path, 3), '.') $$;

-- Read models folded from events (package projections). Nothing here is
-- authoritative: `rea ledger rebuild` empties these tables and folds every
-- event again, and must reproduce the same projection digest.

CREATE TABLE proj_connections (
    connection_id    TEXT PRIMARY KEY,
    transport        TEXT NOT NULL,
    protocol_version TEXT,
    client_name      TEXT,
    client_version   TEXT,
    opened_seq       INTEGER NOT NULL,
    closed_seq       INTEGER,
    close_reason     TEXT
) STRICT;

CREATE TABLE proj_runs (
    run_id                TEXT PRIMARY KEY,
    connection_id         TEXT NOT NULL,
    target_sha256         TEXT NOT NULL,
    previous_run_id       TEXT,
    cause                 TEXT NOT NULL,
    allocated_seq         INTEGER NOT NULL,
    target                TEXT,
    requested_provider_id TEXT,
    opened_seq            INTEGER,
    provider              TEXT,
    selection_source      TEXT,
    analysis_profile      TEXT,
    closed_seq            INTEGER,
    close_reason          TEXT,
    cleanup               TEXT
) STRICT;
CREATE INDEX proj_runs_connection ON proj_runs(connection_id, allocated_seq);

CREATE TABLE proj_selection_failures (
    seq                   INTEGER PRIMARY KEY,
    connection_id         TEXT NOT NULL,
    operation             TEXT NOT NULL,
    selection_reason      TEXT NOT NULL,
    requested_provider_id TEXT NOT NULL,
    rejections            TEXT NOT NULL
) STRICT;

-- One row per evidence_recorded event. A record's digest is the same in every
-- publication of its id (a republication reuses the stored record), so the
-- distinct records are read from here too: one insert per publication keeps
-- replay fast. Filtering by run scans the (narrow) table; a connection's and an
-- id's publications are indexed.
CREATE TABLE proj_evidence_publications (
    seq            INTEGER PRIMARY KEY,
    connection_id  TEXT NOT NULL,
    run_id         TEXT,
    evidence_id    TEXT NOT NULL,
    record_digest  TEXT NOT NULL
) STRICT;
CREATE INDEX proj_evidence_publications_id ON proj_evidence_publications(evidence_id);
CREATE INDEX proj_evidence_publications_connection ON proj_evidence_publications(connection_id);

CREATE TABLE proj_provider_health (
    run_id        TEXT NOT NULL,
    provider_id   TEXT NOT NULL,
    operation     TEXT NOT NULL, -- '*' = every operation
    connection_id TEXT NOT NULL,
    state         TEXT NOT NULL,
    reason        TEXT,
    seq           INTEGER NOT NULL,
    PRIMARY KEY (run_id, provider_id, operation)
) STRICT;

CREATE TABLE proj_lineage (
    run_id        TEXT NOT NULL,
    provider_id   TEXT NOT NULL,
    provider      TEXT NOT NULL,
    observation   TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    PRIMARY KEY (run_id, provider_id)
) STRICT;

CREATE TABLE proj_annotations (
    target_sha256 TEXT NOT NULL,
    kind          TEXT NOT NULL,
    address       TEXT NOT NULL,
    value         TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    PRIMARY KEY (target_sha256, kind, address)
) STRICT;

CREATE TABLE proj_cursors (
    connection_id TEXT PRIMARY KEY,
    run_id        TEXT NOT NULL,
    document      TEXT NOT NULL,
    address       TEXT NOT NULL,
    seq           INTEGER NOT NULL
) STRICT;

DROP TABLE proj_cursors;
CREATE TABLE proj_cursors (
    connection_id TEXT PRIMARY KEY,
    run_id        TEXT NOT NULL,
    document      TEXT NOT NULL,
    address       TEXT NOT NULL,
    seq           BIGINT NOT NULL
);
ALTER TABLE proj_runs DROP COLUMN target_id;

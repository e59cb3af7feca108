-- Several targets per connection: the PostgreSQL twin of
-- migrations/0005_target_handles.up.sql (its comment says why).
ALTER TABLE proj_runs ADD COLUMN target_id TEXT;
UPDATE proj_runs SET target_id = 'tgt_legacy_' || run_id;

CREATE TABLE proj_cursors_0005 (
    connection_id TEXT   NOT NULL,
    target_id     TEXT   NOT NULL,
    run_id        TEXT   NOT NULL,
    document      TEXT   NOT NULL,
    address       TEXT   NOT NULL,
    seq           BIGINT NOT NULL,
    PRIMARY KEY (connection_id, target_id)
);
INSERT INTO proj_cursors_0005 (connection_id, target_id, run_id, document, address, seq)
SELECT connection_id, 'tgt_legacy_' || run_id, run_id, document, address, seq FROM (
    SELECT json_extract(data, '$.connection_id') AS connection_id, json_extract(data, '$.run_id') AS run_id,
           json_extract(data, '$.document') AS document, json_extract(data, '$.address') AS address, seq,
           row_number() OVER (PARTITION BY json_extract(data, '$.connection_id'), json_extract(data, '$.run_id') ORDER BY seq DESC) AS latest
    FROM events WHERE type = 'cursor_moved'
) folded WHERE latest = 1;
DROP TABLE proj_cursors;
ALTER TABLE proj_cursors_0005 RENAME TO proj_cursors;

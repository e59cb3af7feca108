-- Several targets per connection (CONTRACTS.md §15.3). A run now belongs to
-- a target handle, and each target of a connection has its own cursor.
-- Events written before this change have no target_id; they are folded as
-- naming 'tgt_legacy_' || run_id (one run had one target), and the rows
-- already folded get the same value here, so that a rebuild under this
-- schema equals the live tables. The cursor table was one row per
-- connection; it is refolded from the cursor_moved events, one row per
-- (connection, target), as the projection now folds them.
ALTER TABLE proj_runs ADD COLUMN target_id TEXT;
UPDATE proj_runs SET target_id = 'tgt_legacy_' || run_id;

CREATE TABLE proj_cursors_0005 (
    connection_id TEXT NOT NULL,
    target_id     TEXT NOT NULL,
    run_id        TEXT NOT NULL,
    document      TEXT NOT NULL,
    address       TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    PRIMARY KEY (connection_id, target_id)
) STRICT;
INSERT INTO proj_cursors_0005 (connection_id, target_id, run_id, document, address, seq)
SELECT connection_id, 'tgt_legacy_' || run_id, run_id, document, address, seq FROM (
    SELECT json_extract(data, '$.connection_id') AS connection_id, json_extract(data, '$.run_id') AS run_id,
           json_extract(data, '$.document') AS document, json_extract(data, '$.address') AS address, seq,
           row_number() OVER (PARTITION BY json_extract(data, '$.connection_id'), json_extract(data, '$.run_id') ORDER BY seq DESC) AS latest
    FROM events WHERE type = 'cursor_moved'
) WHERE latest = 1;
DROP TABLE proj_cursors;
ALTER TABLE proj_cursors_0005 RENAME TO proj_cursors;

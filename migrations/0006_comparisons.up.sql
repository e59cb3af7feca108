-- compare_binaries (CONTRACTS.md §16.2): one row per comparison_id, folded
-- from its comparison_checkpoint and comparison_completed events: the last
-- checkpoint's state blob, from which a call resumes, and the stored
-- result's blob, from which later calls page without recomputing.
CREATE TABLE proj_comparisons (
    comparison_id  TEXT PRIMARY KEY,
    checkpoints    INTEGER NOT NULL,
    phase          TEXT,
    completed      INTEGER,
    total          INTEGER,
    state_digest   TEXT,
    checkpoint_seq INTEGER,
    result_digest  TEXT,
    completed_seq  INTEGER
) STRICT;

-- As ../0006_comparisons.up.sql: the compare_binaries projection.
CREATE TABLE proj_comparisons (
    comparison_id  TEXT PRIMARY KEY,
    checkpoints    BIGINT NOT NULL,
    phase          TEXT,
    completed      BIGINT,
    total          BIGINT,
    state_digest   TEXT,
    checkpoint_seq BIGINT,
    result_digest  TEXT,
    completed_seq  BIGINT
);

-- As ../0003_blob_encoding.up.sql: record bodies may be stored deflated.
ALTER TABLE blobs ADD COLUMN encoding TEXT NOT NULL DEFAULT 'identity'
    CHECK (encoding IN ('identity', 'deflate'));

-- As ../0004_blob_snappy.up.sql: record bodies may also be stored in
-- snappy's block format, which the ledger now writes. PostgreSQL widens the
-- CHECK in place (its default name for 0003's column constraint).
ALTER TABLE blobs DROP CONSTRAINT blobs_encoding_check;
ALTER TABLE blobs ADD CONSTRAINT blobs_encoding_check CHECK (encoding IN ('identity', 'deflate', 'snappy'));

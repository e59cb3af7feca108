-- Refused while any body is stored in snappy's format, which schema 3
-- cannot name: the CHECK makes the INSERT fail.
DROP TABLE IF EXISTS temp.downgrade_requires_no_snappy_blobs;
CREATE TEMP TABLE downgrade_requires_no_snappy_blobs (snappy INTEGER NOT NULL CHECK (snappy = 0));
INSERT INTO downgrade_requires_no_snappy_blobs SELECT COUNT(*) FROM blobs WHERE encoding = 'snappy';
DROP TABLE downgrade_requires_no_snappy_blobs;
CREATE TABLE blobs_0003 (
    sha256   TEXT PRIMARY KEY,
    data     BLOB NOT NULL,
    encoding TEXT NOT NULL DEFAULT 'identity' CHECK (encoding IN ('identity', 'deflate'))
) STRICT;
INSERT INTO blobs_0003 (sha256, data, encoding) SELECT sha256, data, encoding FROM blobs;
DROP TABLE blobs;
ALTER TABLE blobs_0003 RENAME TO blobs;

-- Refused while any body is stored deflated: without the column those bytes
-- would read as plain and fail their digest. The CHECK makes the INSERT fail.
DROP TABLE IF EXISTS temp.downgrade_requires_plain_blobs;
CREATE TEMP TABLE downgrade_requires_plain_blobs (deflated INTEGER NOT NULL CHECK (deflated = 0));
INSERT INTO downgrade_requires_plain_blobs SELECT COUNT(*) FROM blobs WHERE encoding <> 'identity';
DROP TABLE downgrade_requires_plain_blobs;
ALTER TABLE blobs DROP COLUMN encoding;

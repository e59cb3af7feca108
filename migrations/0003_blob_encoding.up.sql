-- Record bodies may be stored deflated (DESIGN.md: "sha256 of the
-- uncompressed bytes → bytes, optionally compressed"). The key stays the
-- sha256 of the uncompressed bytes; encoding says how data holds them.
-- Rows written before this migration are plain.
ALTER TABLE blobs ADD COLUMN encoding TEXT NOT NULL DEFAULT 'identity'
    CHECK (encoding IN ('identity', 'deflate'));

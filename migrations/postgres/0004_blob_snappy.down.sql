-- Refused while any body is stored in snappy's format, which schema 3
-- cannot name.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM blobs WHERE encoding = 'snappy') THEN
        RAISE EXCEPTION 'downgrade requires no snappy blobs';
    END IF;
END;
$$;
ALTER TABLE blobs DROP CONSTRAINT blobs_encoding_check;
ALTER TABLE blobs ADD CONSTRAINT blobs_encoding_check CHECK (encoding IN ('identity', 'deflate'));

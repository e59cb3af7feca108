-- Refused while any body is stored deflated: without the column those bytes
-- would read as plain and fail their digest.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM blobs WHERE encoding <> 'identity') THEN
        RAISE EXCEPTION 'downgrade requires plain blobs';
    END IF;
END;
$$;
ALTER TABLE blobs DROP COLUMN encoding;

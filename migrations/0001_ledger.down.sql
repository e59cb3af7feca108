DROP TABLE ledger_meta;
DROP TABLE blobs;
DROP TRIGGER events_no_delete;
DROP TRIGGER events_no_update;
DROP TABLE events;

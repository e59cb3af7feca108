DROP TABLE ledger_meta;
DROP TABLE blobs;
DROP TABLE events;
DROP FUNCTION events_append_only();
DROP FUNCTION events_notify();

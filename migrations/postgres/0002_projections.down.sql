DROP FUNCTION IF EXISTS json_extract(TEXT, TEXT);
DROP TABLE IF EXISTS proj_cursors;
DROP TABLE IF EXISTS proj_annotations;
DROP TABLE IF EXISTS proj_lineage;
DROP TABLE IF EXISTS proj_provider_health;
DROP TABLE IF EXISTS proj_evidence_publications;
DROP TABLE IF EXISTS proj_selection_failures;
DROP TABLE IF EXISTS proj_runs;
DROP TABLE IF EXISTS proj_connections;

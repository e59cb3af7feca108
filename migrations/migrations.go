// Package migrations holds the SQL schema of the REA ledger database as
// numbered golang-migrate files (NNNN_name.up.sql / NNNN_name.down.sql).
//
// The files are embedded so that the single rea binary can create and upgrade
// its own ledger without any file beside it. The ledger package is the only
// runner: it applies everything in FS, in order, under a cross-process lock.
// Projection tables are added here too (0002_… and later) because they live in
// the same database and must commit in the same transaction as the events
// they are folded from.
package migrations

import "embed"

// FS holds every migration file of this directory (the SQLite schema).
//
//go:embed *.sql
var FS embed.FS

// PostgresFS holds the PostgreSQL dialect of the same schema, in postgres/:
// the same numbered migrations (so a schema version means the same tables on
// both backends), with PostgreSQL types and triggers.
//
//go:embed postgres/*.sql
var PostgresFS embed.FS

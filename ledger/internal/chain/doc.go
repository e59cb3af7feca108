// Package chain is the database-free core of the REA ledger: the RFC 8785
// envelope whose bytes are hashed, the hash chain, the verifier of
// CONTRACTS.md §13.4 and the JSON Lines export format of §13.3. The
// canonical form itself is internal/jcs's: its Scanner checks an envelope
// while ParseEnvelope reads the fields.
//
// It is separate from package ledger for two reasons. An export is a file an
// auditor may receive from anyone; checking it needs no database. And the
// parsers of such untrusted bytes must be fuzzed: a test binary that links
// the transpiled SQLite spends nearly all its time snapshotting coverage
// counters, so the fuzz targets live here, where the binary is small.
package chain

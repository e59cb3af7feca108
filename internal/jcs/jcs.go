// Package jcs is REA's one implementation of RFC 8785, the JSON
// Canonicalization Scheme (CONTRACTS.md §1.1): every evidence_id, bundle
// digest and ledger hash is a sha256 of the bytes this package writes or
// checks.
//
// It has two fast paths over github.com/gowebpki/jcs, the reference it is
// fuzzed against byte for byte:
//
//   - Transform writes the canonical form while it parses, instead of
//     building a tree of strings and serializing it (BenchmarkTransform);
//   - IsCanonical, Canonicalize and Scanner check bytes that are already
//     canonical in one forward scan without writing a copy, which is what
//     the ledger's append and verify do for every event
//     (BenchmarkIsCanonical).
//
// AppendString, AppendText and AppendInt let a value write its own
// canonical form, and WithMembers splices canonical members into a
// canonical object; both serve the encoders that skip a reflection pass
// (engine/canon.Appender, the ledger envelope, artifact identifiers).
package jcs

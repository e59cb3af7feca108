//go:build !unix

package testkit

// lockFile does not lock where flock is unavailable; the tests that install
// the packer and share a PostgreSQL cluster run on Linux.
func lockFile(string, bool) (func(), error) { return func() {}, nil }

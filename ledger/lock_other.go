//go:build !unix

package ledger

import "context"

// lockFile is a no-op where flock(2) does not exist; REA supports only Unix
// hosts, and there SQLite's own locking still protects the data itself.
func lockFile(ctx context.Context, path string) (unlock func() error, err error) {
	return func() error { return nil }, nil
}

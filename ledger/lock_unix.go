//go:build unix

package ledger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockFile takes an exclusive flock(2) on path (created 0600), waiting until
// ctx is done. flock locks belong to the open file description, so the lock
// also serializes two Opens inside one process, and the kernel releases it
// when the holder dies: a crashed migration never leaves a stale lock.
func lockFile(ctx context.Context, path string) (unlock func() error, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("ledger: lock: %w", err)
	}
	_ = f.Chmod(0o600)
	fd := int(f.Fd())
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("ledger: lock: %w", err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("ledger: lock: %w", ctx.Err())
		case <-time.After(delay):
		}
	}
	return func() error {
		// Closing the descriptor releases the flock.
		return f.Close()
	}, nil
}

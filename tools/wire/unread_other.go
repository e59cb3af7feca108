//go:build !linux

package wire

import "io"

// unreadFunc is Linux-only; elsewhere a flush waits only for the write.
func unreadFunc(io.Writer) func() (int, error) { return nil }

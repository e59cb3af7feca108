//go:build !linux

package capture

import (
	"context"
	"errors"
)

var errNotLinux = errors.New("process capture needs Linux (PTY sessions, /proc ownership, user and network namespaces)")

// Probe reports that captures need Linux.
func Probe(context.Context) error {
	return &HostError{Reason: errNotLinux.Error(), Err: errNotLinux}
}

// Run refuses: captures need Linux.
func Run(ctx context.Context, req Request, opts Options) (*Result, error) {
	if err := req.Normalize(); err != nil {
		return nil, err
	}
	return nil, captureFailed(FailNetworkIsolation, &HostError{Reason: errNotLinux.Error(), Err: errNotLinux})
}

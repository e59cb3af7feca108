package wire

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// unreadFunc returns a function reporting how much of what was written to w
// its reader has not taken yet, when w is a pipe (FIONREAD) or a Unix
// stream socket (SIOCOUTQ: what the peer has not consumed; Node's
// child_process stdio is a socketpair), and nil for anything else.
func unreadFunc(w io.Writer) func() (int, error) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	var req uint
	switch fi.Mode().Type() {
	case os.ModeNamedPipe:
		req = unix.TIOCINQ // FIONREAD
	case os.ModeSocket:
		req = unix.SIOCOUTQ
	default:
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	query := func() (int, error) {
		var n int
		var ierr error
		if err := rc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), req) }); err != nil {
			return 0, err
		}
		return n, ierr
	}
	if _, err := query(); err != nil {
		return nil // not a kind of stream that says (a socket of another family)
	}
	return query
}

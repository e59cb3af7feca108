package wire

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// stdoutPipeSize is the capacity asked for a pipe the server writes its
// answers to. Linux's default of 64 KiB holds less than one answer at the
// byte budget (a 64 KiB result is sent twice, as text and structured
// content), so every such answer would block the writer until the client
// had drained part of it, at the price of a context switch or two each way;
// 1 MiB is the most an unprivileged process may ask (fs.pipe-max-size).
const stdoutPipeSize = 1 << 20

// growPipe widens w's pipe buffer when w is a pipe; best effort.
func growPipe(w io.Writer) {
	f, ok := w.(*os.File)
	if !ok {
		return
	}
	if fi, err := f.Stat(); err != nil || fi.Mode().Type() != os.ModeNamedPipe {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		if n, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil && n < stdoutPipeSize {
			_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, stdoutPipeSize)
		}
	})
}

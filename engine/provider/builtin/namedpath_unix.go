//go:build unix

package builtin

import (
	"os"
	"syscall"
)

// namedOpenFlags open a path a sample names: non-blocking, so that a FIFO
// (or a device) swapped in after the stat cannot block the open, and never
// as the process's controlling terminal. os.OpenFile adds O_CLOEXEC.
// O_NOFOLLOW is not among them: libraries are symbolic links as a rule; a
// loop is ELOOP, a reason.
const namedOpenFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

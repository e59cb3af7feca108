//go:build !unix

package builtin

import "os"

// namedOpenFlags open a path a sample names (namedpath_unix.go); this
// system has no non-blocking open, and statNamed has refused anything but
// a regular file before the open.
const namedOpenFlags = os.O_RDONLY

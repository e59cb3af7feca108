package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Paths a sample names (CONTRACTS.md §0.3): the ELF interpreter, a needed
// library on a search path, an RPATH/RUNPATH or @rpath directory, a Mach-O
// dylib, a DLL beside a PE. The sample's bytes choose them, so they may be
// a device (/dev/zero never ends), a FIFO or /dev/stdin (a read blocks for
// good, and on stdin takes the server's own JSON-RPC input), a directory, a
// symlink loop or a file far larger than anything a loader reads. Every such
// path goes through statNamed (is something there, and what) or openNamed
// (read it): only a regular file is ever opened for reading, the descriptor
// is non-blocking, reads stop at the size fstat gave and at maxNamedRead,
// and each read observes the request's context. Anything else is a
// *NamedPathError whose Reason goes onto the item that named the path, with
// a limitation of the record — never a hang, never a whole-call failure.

// maxNamedRead bounds how far into a file a sample names REA reads
// (CONTRACTS.md §0.3: never more than 256 MiB).
const maxNamedRead = 256 << 20

// namedReadChunk is the most one read(2) asks for: the request's context
// is observed between chunks.
const namedReadChunk = 1 << 20

// Reasons a path a sample names was not read (the reason of the item that
// named it, catalogued with list_dependencies' reasons).
const (
	pathNotFound       = "not_found"        // nothing at the path (or a component is no directory)
	pathNotRegularFile = "not_regular_file" // a device, FIFO, socket or directory
	pathSymlinkLoop    = "symlink_loop"     // too many levels of symbolic links
	pathUnreadable     = "unreadable"       // permission denied, an I/O error
	pathTooLarge       = "too_large"        // what is needed lies beyond maxNamedRead
)

// NamedPathError says why a path a sample names was not read.
type NamedPathError struct {
	Path   string
	Reason string      // one of the path* reasons
	Mode   fs.FileMode // the file type found, for not_regular_file
	Err    error       // the system's error, when there was one
}

// Error reads "PATH: REASON (detail)", the reason as the item carries it.
func (e *NamedPathError) Error() string {
	switch {
	case e.Reason == pathNotRegularFile:
		return fmt.Sprintf("%s: %s (%s)", e.Path, e.Reason, fileKind(e.Mode))
	case e.Err != nil:
		return fmt.Sprintf("%s: %s (%v)", e.Path, e.Reason, e.Err)
	}
	return e.Path + ": " + e.Reason
}

func (e *NamedPathError) Unwrap() error { return e.Err }

// namedReason is err's reason when it is a *NamedPathError, else "".
func namedReason(err error) string {
	var ne *NamedPathError
	if errors.As(err, &ne) {
		return ne.Reason
	}
	return ""
}

// fileKind names a file type for a message.
func fileKind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// classifyPathError turns a failed stat or open of p into a
// *NamedPathError.
func classifyPathError(p string, err error) error {
	reason := pathUnreadable
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ENAMETOOLONG):
		reason = pathNotFound
	case errors.Is(err, syscall.ELOOP):
		reason = pathSymlinkLoop
	}
	return &NamedPathError{Path: p, Reason: reason, Err: unwrapPathError(err)}
}

// unwrapPathError drops the *fs.PathError around a system error: the
// NamedPathError names the path already.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// statNamed says what is at p, following symbolic links, without opening
// it: the file's information for a regular file, else a *NamedPathError
// (with the information too when something that is not a regular file is
// there).
func statNamed(p string) (fs.FileInfo, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, classifyPathError(p, err)
	}
	if !fi.Mode().IsRegular() {
		return fi, &NamedPathError{Path: p, Reason: pathNotRegularFile, Mode: fi.Mode().Type()}
	}
	return fi, nil
}

// namedFile is a regular file a sample names, open for bounded reads under
// the request's context (io.ReaderAt).
type namedFile struct {
	ctx  context.Context
	f    *os.File
	path string
	size int64 // at fstat: reads stop here, whatever the file does later
}

// openNamed opens p, a path a sample names, for reading. It stats p first,
// so that a device, FIFO or socket is never opened at all (opening one can
// have effects of its own), then opens it non-blocking (a FIFO swapped in
// after the stat cannot block the open) and checks with fstat that what it
// opened is a regular file. The error is ctx's, or a *NamedPathError.
func openNamed(ctx context.Context, p string) (*namedFile, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err := statNamed(p); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, namedOpenFlags, 0)
	if err != nil {
		return nil, classifyPathError(p, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &NamedPathError{Path: p, Reason: pathUnreadable, Err: unwrapPathError(err)}
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NamedPathError{Path: p, Reason: pathNotRegularFile, Mode: fi.Mode().Type()}
	}
	return &namedFile{ctx: ctx, f: f, path: p, size: fi.Size()}, nil
}

// Size is the file's size when it was opened.
func (f *namedFile) Size() int64 { return f.size }

func (f *namedFile) Close() error { return f.f.Close() }

// ReadAt implements io.ReaderAt within the file's size at open (io.EOF past
// it: a /proc file, whose size is 0, reads as empty) and the first
// maxNamedRead bytes (a *NamedPathError too_large beyond them), reading in
// chunks and returning ctx's error as soon as it is done.
func (f *namedFile) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &NamedPathError{Path: f.path, Reason: pathUnreadable, Err: errors.New("negative offset")}
	}
	if off >= f.size {
		return 0, io.EOF
	}
	want, short := b, false
	if int64(len(b)) > f.size-off {
		want, short = b[:f.size-off], true
	}
	if off+int64(len(want)) > maxNamedRead {
		return 0, &NamedPathError{Path: f.path, Reason: pathTooLarge,
			Err: fmt.Errorf("a read of %d bytes at offset %d goes past the first %d bytes, the most REA reads of a file a sample names", len(want), off, maxNamedRead)}
	}
	n := 0
	for n < len(want) {
		if err := f.ctx.Err(); err != nil {
			return n, err
		}
		m, err := f.f.ReadAt(want[n:min(n+namedReadChunk, len(want))], off+int64(n))
		n += m
		if errors.Is(err, io.EOF) {
			return n, io.EOF // the file shrank since it was opened
		}
		if err != nil {
			return n, &NamedPathError{Path: f.path, Reason: pathUnreadable, Err: unwrapPathError(err)}
		}
	}
	if short {
		return n, io.EOF
	}
	return n, nil
}

// readNamedAll reads the whole of p, a regular file of at most
// maxNamedRead bytes, under ctx.
func readNamedAll(ctx context.Context, p string) ([]byte, error) {
	f, err := openNamed(ctx, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.size > maxNamedRead {
		return nil, &NamedPathError{Path: p, Reason: pathTooLarge,
			Err: fmt.Errorf("%d bytes, more than the %d REA reads of a file a sample names", f.size, maxNamedRead)}
	}
	b := make([]byte, f.size)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:n], nil
}

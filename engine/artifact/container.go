package artifact

import (
	"io"
	"strings"
)

// entry is one raw entry of a container listing, before it becomes an
// occurrence. Walkers fill it; inventory and extraction consume it.
type entry struct {
	Path       string // relative to its container, "/"-joined, validated; raw bytes
	Logical    string // Path as reported (logicalOf), set by finishListing
	Kind       string // EntryFile, EntryDirectory, EntrySymlink
	Size       int64  // declared (archives) or observed (directories) size; -1 unknown
	Compressed int64  // -1 when the container does not compress
	Link       string // symlink target, recorded verbatim
	Executable bool
	Encrypted  bool
	Unpacked   bool // ASAR: bytes live in the .asar.unpacked sibling
	Integrity  *Integrity
	Loc        *SourceLocation
	Notes      []string // limitations of this entry
	Synthetic  bool     // a directory implied by deeper entry paths

	// open streams the entry's bytes; nil when they cannot be read (an
	// encrypted zip entry, an unpacked ASAR file with no sibling directory).
	open func() (io.ReadCloser, error)
	// section gives random access without copying, when the container stores
	// the entry uncompressed (ASAR data, stored zip entries, files on disk).
	section func() (io.ReaderAt, io.Closer, error)
	// unpackedRoot opens the .asar.unpacked sibling of this entry, when the
	// entry is a file on disk that turns out to be an ASAR archive.
	unpackedRoot func() (*dirRoot, error)
}

// Integrity is the integrity metadata an ASAR entry declares (§10.4).
type Integrity struct {
	Algorithm string
	Hash      string
	BlockSize int64
	Blocks    []string
}

// listing is what a walker returns for one container.
type listing struct {
	Entries []*entry
	Notes   []string // container-level limitations
	special int      // special files skipped (directories)
	close   func() error
}

func (l *listing) Close() error {
	if l == nil || l.close == nil {
		return nil
	}
	return l.close()
}

// checkName validates one path segment of an entry name: no empty segment,
// no "." or "..", no backslash, no NUL (§10.2). A "/" never reaches here.
func checkName(seg string) bool {
	if seg == "" || seg == "." || seg == ".." {
		return false
	}
	return !strings.ContainsAny(seg, "\\\x00/")
}

// checkPath validates a "/"-joined relative entry path.
func checkPath(p string) bool {
	if p == "" || p[0] == '/' {
		return false
	}
	for seg := range strings.SplitSeq(p, "/") {
		if !checkName(seg) {
			return false
		}
	}
	return true
}

// joinPath joins a container's logical path and an entry path.
func joinPath(prefix, p string) string {
	if prefix == "" || prefix == "." {
		return p
	}
	return prefix + "/" + p
}

// parentPath is the "/"-parent of p, "" at the top.
func parentPath(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

type readCloser struct {
	io.Reader
	io.Closer
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

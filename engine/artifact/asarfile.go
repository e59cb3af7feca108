package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
)

// ErrNotASAR is the cause (errors.Is) of an OpenASAR failure on bytes that
// are not an ASAR archive at all — the pickle framing does not hold, or the
// header is not a JSON object with a files object — as opposed to an ASAR
// header describing a damaged or unsafe tree. The failure itself is still
// artifact_operation_failed reason corrupt.
var ErrNotASAR = errors.New("not an ASAR archive")

// notASAR keeps a failure's message and makes it ErrNotASAR.
type notASAR struct{ error }

func (notASAR) Is(target error) bool { return target == ErrNotASAR }
func (n notASAR) Unwrap() error      { return n.error }

// IsASAR reports whether head, the first bytes (at least 17) of a file of
// the given size, starts like an ASAR archive: the test inventory uses to
// expand a file as a container.
func IsASAR(head []byte, size int64) bool { return sniffASAR(head, size) }

// ASAROptions are what OpenASAR needs beyond the bytes.
type ASAROptions struct {
	Operation string // names the operation in failures
	// Limits bound the header: max_entries and max_path_bytes (of
	// PathPrefix + "/" + entry path) fail the open with truncated.
	Limits     Limits
	PathPrefix string
	// UnpackedDir is the absolute path of the .asar.unpacked sibling, ""
	// when there is none; unpacked entries are read below it without
	// following symlinks.
	UnpackedDir string
}

// ASAREntry is one entry of an ASAR header, in header order (a directory
// before its content).
type ASAREntry struct {
	Path       string // "/"-joined below the archive, validated
	Kind       string // EntryFile, EntryDirectory or EntrySymlink
	Size       int64  // declared size of a file, -1 otherwise
	Link       string // a symlink's target, verbatim; never followed
	Executable bool
	Unpacked   bool       // the bytes live in the .asar.unpacked sibling
	Integrity  *Integrity // declared integrity, nil when none
	// Offset is where a packed file's bytes start in the archive, -1 for
	// anything else.
	Offset int64
}

// ASAR is an opened ASAR archive: its validated header and the means to
// read its files with their declared integrity verified.
type ASAR struct {
	r        io.ReaderAt
	entries  []ASAREntry
	unpacked *dirRoot
}

// OpenASAR parses the archive r of size bytes with the same parser
// inventory_artifact uses: offsets inside the file, safe names, no
// duplicates, supported integrity with a consistent block count. Failures
// are typed (artifact_operation_failed, truncated); errors.Is(err,
// ErrNotASAR) tells bytes that are no ASAR archive from a damaged one. The
// caller keeps r open while the ASAR is used, and closes the ASAR.
func OpenASAR(r io.ReaderAt, size int64, o ASAROptions) (*ASAR, error) {
	prefixLen := 0
	if o.PathPrefix != "" {
		prefixLen = len(o.PathPrefix) + 1
	}
	h, entries, err := parseASAR(r, size, o.Limits, prefixLen, o.Operation)
	if err != nil {
		return nil, err
	}
	a := &ASAR{r: r, entries: make([]ASAREntry, 0, len(entries))}
	for _, e := range entries {
		ae := ASAREntry{Path: e.Path, Kind: e.Kind, Size: e.Size, Link: e.Link, Executable: e.Executable,
			Unpacked: e.Unpacked, Integrity: e.Integrity, Offset: -1}
		if e.Kind == EntryFile && e.Loc != nil {
			ae.Offset = h.DataStart + e.Loc.Offset
		}
		a.entries = append(a.entries, ae)
	}
	if o.UnpackedDir != "" {
		// A sibling that cannot be opened is the same as none: its entries
		// are unavailable, not an error (§10.2).
		if d, err := openDirRoot(o.UnpackedDir); err == nil {
			a.unpacked = d
		}
	}
	return a, nil
}

// Entries returns the header's entries in header order.
func (a *ASAR) Entries() []ASAREntry { return a.entries }

// Close releases the unpacked sibling directory.
func (a *ASAR) Close() error { return a.unpacked.Close() }

// ErrUnpackedUnavailable is the cause of opening an unpacked entry whose
// file is not in the .asar.unpacked sibling (or there is no sibling).
var ErrUnpackedUnavailable = errors.New("the unpacked file is not available")

// IntegrityMismatch is the error of a verified read whose bytes contradict
// the entry's declared integrity: the whole-file hash or a block hash.
type IntegrityMismatch struct {
	Declared, Calculated string // sha256 hex of the whole file
	MismatchedBlocks     []int
}

func (e *IntegrityMismatch) Error() string {
	return "declared sha256 " + e.Declared + " but calculated " + e.Calculated
}

// ASARFile is an open file entry. Reading it hashes what passes; Verify
// then says whether that was the whole file and what its integrity says.
type ASARFile struct {
	entry *ASAREntry
	sr    *io.SectionReader
	c     io.Closer
	whole hash.Hash
	block hash.Hash
	inBlk int64
	bsize int64
	n     int64
	obs   []string
}

// Open opens a file entry for reading. An unpacked entry is read from the
// sibling directory, its size being what is on disk; it fails with
// ErrUnpackedUnavailable when the file is not there.
func (a *ASAR) Open(e *ASAREntry) (*ASARFile, error) {
	if e.Kind != EntryFile {
		return nil, fmt.Errorf("asar: %s is not a file", e.Path)
	}
	f := &ASARFile{entry: e, whole: sha256.New()}
	if e.Integrity != nil {
		f.block, f.bsize = sha256.New(), e.Integrity.BlockSize
	}
	if !e.Unpacked {
		f.sr, f.c = io.NewSectionReader(a.r, e.Offset, e.Size), nopCloser{}
		return f, nil
	}
	if a.unpacked == nil {
		return nil, ErrUnpackedUnavailable
	}
	osf, err := a.unpacked.openFile(e.Path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnpackedUnavailable, err)
	}
	fi, err := osf.Stat()
	if err != nil {
		osf.Close()
		return nil, fmt.Errorf("%w: %w", ErrUnpackedUnavailable, err)
	}
	f.sr, f.c = io.NewSectionReader(osf, 0, fi.Size()), osf
	return f, nil
}

// Size is the number of bytes the file holds.
func (f *ASARFile) Size() int64 { return f.sr.Size() }

// ReadAt reads without hashing (random access for a nested archive).
func (f *ASARFile) ReadAt(p []byte, off int64) (int, error) { return f.sr.ReadAt(p, off) }

func (f *ASARFile) Read(p []byte) (int, error) {
	n, err := f.sr.Read(p)
	f.hash(p[:n])
	return n, err
}

func (f *ASARFile) hash(p []byte) {
	f.whole.Write(p)
	f.n += int64(len(p))
	for f.block != nil && len(p) > 0 {
		k := min(int64(len(p)), f.bsize-f.inBlk)
		f.block.Write(p[:k])
		f.inBlk += k
		p = p[k:]
		if f.inBlk == f.bsize {
			f.obs = append(f.obs, hex.EncodeToString(f.block.Sum(nil)))
			f.block.Reset()
			f.inBlk = 0
		}
	}
}

// Verify returns the sha256 of the bytes read, which must be all of them,
// and an *IntegrityMismatch when the entry declares integrity they
// contradict (the whole hash, or any block of §10.4).
func (f *ASARFile) Verify() (string, error) {
	if f.n != f.sr.Size() {
		return "", fmt.Errorf("asar: %s: verify after %d of %d bytes", f.entry.Path, f.n, f.sr.Size())
	}
	sum := hex.EncodeToString(f.whole.Sum(nil))
	in := f.entry.Integrity
	if in == nil {
		return sum, nil
	}
	obs := f.obs
	if f.inBlk > 0 || len(obs) == 0 {
		obs = append(obs, hex.EncodeToString(f.block.Sum(nil)))
	}
	bad := compareBlocks(in.Blocks, obs, f.n, in.BlockSize)
	if sum != in.Hash || len(bad) > 0 {
		return sum, &IntegrityMismatch{Declared: in.Hash, Calculated: sum, MismatchedBlocks: bad}
	}
	return sum, nil
}

// Close closes the file.
func (f *ASARFile) Close() error { return f.c.Close() }

// ReadFile returns a file entry's bytes once they are verified against its
// declared integrity, checking ctx between chunks. The slice has one spare
// byte of capacity, so a parser may append a terminator without copying.
func (a *ASAR) ReadFile(ctx context.Context, e *ASAREntry) ([]byte, error) {
	f, err := a.Open(e)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, f.Size(), f.Size()+1)
	for off := 0; off < len(buf); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := io.ReadFull(f, buf[off:min(len(buf), off+chunkSize)])
		off += n
		if err != nil {
			return nil, err
		}
	}
	if _, err := f.Verify(); err != nil {
		return nil, err
	}
	return buf, nil
}

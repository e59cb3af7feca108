package jsapp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"

	"github.com/rea-re/rea/engine/artifact"
	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
)

// Entry kinds.
const (
	kindFile      = "file"
	kindDirectory = "directory"
	kindSymlink   = "symlink"
)

// entry is one inventoried path below the root.
type entry struct {
	path     string // logical, "/"-joined from the root
	kind     string
	size     int64
	sha256   string // "" when not hashed (over the entry limit, or unavailable)
	unpacked bool
	data     []byte // bytes kept from hashing for the parse phase (text candidates only)

	// Where the bytes are: a file on disk, or an ASAR entry read (and
	// verified again) by engine/artifact.
	osPath string
	load   func() ([]byte, error)
}

// readable reports whether the entry's bytes can be read.
func (e *entry) readable() bool { return e.kind == kindFile && (e.osPath != "" || e.load != nil) }

// read returns the entry's bytes, with one spare byte of capacity so the JS
// parser's input can add its NUL terminator without copying.
func (e *entry) read() ([]byte, error) {
	if e.data != nil {
		b := e.data
		e.data = nil
		return b, nil
	}
	if e.load != nil {
		return e.load()
	}
	buf := make([]byte, e.size, e.size+1)
	f, err := openRegular(e.osPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// openRegular opens path only if it is a regular file, never following a
// symlink in its last component (O_NONBLOCK so a FIFO swapped in cannot
// block the open).
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, nil
}

// plainFile is a regular file read with plain system calls. An os.File
// would offer the O_NONBLOCK descriptor to the poller (a failing epoll_ctl)
// and the caller would stat it again: two of the seven system calls a small
// file costs, over thousands of files in a tree.
type plainFile struct{ fd int }

// openPlain is openRegular without the os.File; it also returns the size.
func openPlain(path string) (plainFile, int64, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return plainFile{-1}, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return plainFile{-1}, 0, fmt.Errorf("%s is not a regular file", path)
	}
	return plainFile{fd}, st.Size, nil
}

func (f plainFile) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f plainFile) Close() error { return syscall.Close(f.fd) }

// inventory is the fail-closed walk of the root: every entry listed, every
// file hashed (and ASAR integrity verified) before anything is parsed.
type inventory struct {
	lim        Limits
	rep        progress.Reporter
	entries    []*entry
	totalBytes int64
	closers    []io.Closer

	kept        int64 // bytes of e.data held for the parse phase
	notHashed   int   // files over max_artifact_entry_bytes
	unavailable int   // unpacked ASAR files that could not be read
	special     int   // sockets, devices, fifos
	depthCapped []string
}

func (inv *inventory) close() {
	for _, c := range inv.closers {
		c.Close()
	}
}

func truncatedErr(limit string, max, actual int64) error {
	return fault.New(fault.Truncated, "The application exceeds the "+limit+" bound.",
		"Raise limits."+limit+" or analyze a smaller input.",
		map[string]any{"operation": Operation, "limit": limit, "maximum": max, "actual": actual, "truncated": true})
}

func artifactErr(reason, logicalPath, msg string) error {
	d := map[string]any{"operation": Operation, "reason": reason}
	if logicalPath != "" {
		d["logical_path"] = logicalPath
	}
	return fault.New(fault.ArtifactOperationFailed, msg, "Check the input; REA will not analyze a damaged or unsafe container.", d)
}

func (inv *inventory) add(e *entry) error {
	if int64(len(inv.entries)) >= inv.lim.MaxEntries {
		return truncatedErr("max_entries", inv.lim.MaxEntries, int64(len(inv.entries))+1)
	}
	if int64(len(e.path)) > inv.lim.MaxPathBytes {
		return truncatedErr("max_path_bytes", inv.lim.MaxPathBytes, int64(len(e.path)))
	}
	inv.entries = append(inv.entries, e)
	if n := len(inv.entries); n%256 == 0 {
		inv.rep.Report(progress.Update{Phase: "inventory", Completed: float64(n), Message: "listing entries"})
	}
	return nil
}

func (inv *inventory) count(size int64) error {
	inv.totalBytes += size
	if inv.totalBytes > inv.lim.MaxTotalArtifactBytes {
		return truncatedErr("max_total_artifact_bytes", inv.lim.MaxTotalArtifactBytes, inv.totalBytes)
	}
	return nil
}

// head is the first bytes of a file, enough for artifact.IsASAR.
type head = [17]byte

// copyHashed streams r into w in chunks of at most 1 MiB, checking ctx
// between chunks, and returns the first bytes seen.
func copyHashed(ctx context.Context, w io.Writer, r io.Reader, size int64) (head, error) {
	var prefix head
	buf := make([]byte, min(size, 1<<20)+1)
	var done int64
	for {
		if err := ctx.Err(); err != nil {
			return prefix, err
		}
		n, err := r.Read(buf)
		if done < int64(len(prefix)) && n > 0 {
			copy(prefix[done:], buf[:n])
		}
		done += int64(n)
		w.Write(buf[:n])
		if err == io.EOF {
			if done != size {
				return prefix, fmt.Errorf("size changed while reading: %d != %d", done, size)
			}
			return prefix, nil
		}
		if err != nil {
			return prefix, err
		}
		if done > size {
			return prefix, fmt.Errorf("file grew while being read")
		}
	}
}

// keep reports whether an entry's bytes should be held from hashing to
// parsing (one read instead of two), within the text byte budget.
func (inv *inventory) keep(e *entry) bool {
	if !isTextCandidate(e.path) || e.size > inv.lim.MaxTextFileBytes || inv.kept+e.size > inv.lim.MaxTotalTextBytes {
		return false
	}
	inv.kept += e.size
	return true
}

// hashEntry streams the size bytes of r into w (r may hash them itself),
// holding them in e.data when keep says so; it returns the first bytes for
// container detection.
func (inv *inventory) hashEntry(ctx context.Context, e *entry, w io.Writer, r io.Reader, size int64) (head, error) {
	if !inv.keep(e) {
		return copyHashed(ctx, w, r, size)
	}
	var prefix head
	if err := ctx.Err(); err != nil {
		return prefix, err
	}
	buf := make([]byte, size, size+1)
	if _, err := io.ReadFull(r, buf); err != nil {
		return prefix, err
	}
	w.Write(buf)
	copy(prefix[:], buf)
	e.data = buf
	return prefix, nil
}

type digestChild struct {
	Name   string  `json:"name"`
	Kind   string  `json:"kind"`
	SHA256 *string `json:"sha256"`
	Link   *string `json:"link"`
}

// walkDir lists dir (lstat, symlinks never followed) and returns its digest
// (CONTRACTS.md §10.2).
func (inv *inventory) walkDir(ctx context.Context, abs, logical string) (string, error) {
	des, err := os.ReadDir(abs)
	if err != nil {
		return "", fault.Internal(Operation, err)
	}
	children := []digestChild{}
	for _, de := range des {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		name := de.Name()
		p := joinLogical(logical, name)
		full := filepath.Join(abs, name)
		t := de.Type()
		switch {
		case t.IsDir():
			if err := inv.add(&entry{path: p, kind: kindDirectory}); err != nil {
				return "", err
			}
			d, err := inv.walkDir(ctx, full, p)
			if err != nil {
				return "", err
			}
			children = append(children, digestChild{Name: name, Kind: kindDirectory, SHA256: &d})
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(full)
			if err != nil {
				return "", fault.Internal(Operation, err)
			}
			if err := inv.add(&entry{path: p, kind: kindSymlink}); err != nil {
				return "", err
			}
			children = append(children, digestChild{Name: name, Kind: kindSymlink, Link: &target})
		case t.IsRegular():
			sum, err := inv.hashFile(ctx, full, p)
			if err != nil {
				return "", err
			}
			children = append(children, digestChild{Name: name, Kind: kindFile, SHA256: sum})
		default:
			inv.special++
		}
	}
	d, err := canon.Digest(children)
	if err != nil {
		return "", fault.Internal(Operation, err)
	}
	return d, nil
}

// hashFile hashes one regular file of a directory tree and expands it when it
// is an ASAR archive.
func (inv *inventory) hashFile(ctx context.Context, full, p string) (*string, error) {
	f, size, err := openPlain(full)
	if err != nil {
		return nil, fault.Internal(Operation, err)
	}
	defer f.Close()
	e := &entry{path: p, kind: kindFile, size: size, osPath: full}
	if err := inv.add(e); err != nil {
		return nil, err
	}
	if e.size > inv.lim.MaxArtifactEntryBytes {
		inv.notHashed++
		return nil, nil
	}
	if err := inv.count(e.size); err != nil {
		return nil, err
	}
	h := sha256.New()
	prefix, err := inv.hashEntry(ctx, e, h, f, e.size)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fault.Internal(Operation, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	e.sha256 = sum
	if artifact.IsASAR(prefix[:], e.size) {
		if err := inv.expandNested(ctx, full, p, 1); err != nil {
			return nil, err
		}
	}
	return &sum, nil
}

// expandNested opens the ASAR at full (a file of a directory tree) and lists
// its entries below logical path p.
func (inv *inventory) expandNested(ctx context.Context, full, p string, depth int64) error {
	if depth > inv.lim.MaxDepth {
		inv.depthCapped = append(inv.depthCapped, p)
		return nil
	}
	f, err := openRegular(full)
	if err != nil {
		return fault.Internal(Operation, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fault.Internal(Operation, err)
	}
	a, err := inv.openASAR(f, fi.Size(), full+".unpacked", p)
	if errors.Is(err, artifact.ErrNotASAR) {
		f.Close()
		return nil // a file that merely starts like one
	}
	if err != nil {
		f.Close()
		return err
	}
	inv.closers = append(inv.closers, f, a)
	return inv.expandASAR(ctx, a, full+".unpacked", p, depth)
}

// openASAR parses an archive's header with engine/artifact, bounded by what
// is left of max_entries and by max_path_bytes of full logical paths, and
// maps its failures to this operation's.
func (inv *inventory) openASAR(r io.ReaderAt, size int64, unpackedDir, prefix string) (*artifact.ASAR, error) {
	lim := artifact.DefaultLimits()
	lim.MaxEntries = inv.lim.MaxEntries - int64(len(inv.entries))
	lim.MaxPathBytes = int(inv.lim.MaxPathBytes)
	a, err := artifact.OpenASAR(r, size, artifact.ASAROptions{Operation: Operation, Limits: lim,
		PathPrefix: prefix, UnpackedDir: unpackedDir})
	if err == nil || errors.Is(err, artifact.ErrNotASAR) {
		return a, err
	}
	var fe *fault.Error
	if !errors.As(err, &fe) {
		return nil, fault.Internal(Operation, err)
	}
	switch fe.Code {
	case fault.ArtifactOperationFailed:
		reason, _ := fe.Details["reason"].(string)
		lp, _ := fe.Details["logical_path"].(string)
		msg := "The ASAR archive is " + reason
		if c := fe.Unwrap(); c != nil {
			msg += ": " + c.Error()
		}
		return nil, artifactErr(reason, joinLogical(prefix, lp), msg+".")
	case fault.Truncated:
		switch fe.Details["limit"] {
		case "max_entries":
			return nil, truncatedErr("max_entries", inv.lim.MaxEntries, inv.lim.MaxEntries+1)
		case "max_path_bytes":
			actual, _ := fe.Details["actual"].(int64)
			return nil, truncatedErr("max_path_bytes", inv.lim.MaxPathBytes, actual)
		}
	}
	return nil, err
}

// expandASAR lists an archive's entries below prefix, hashing every file and
// verifying its declared integrity (always fail-closed here, §10.1).
// unpackedDir is the archive's .unpacked sibling path ("" for none).
func (inv *inventory) expandASAR(ctx context.Context, a *artifact.ASAR, unpackedDir, prefix string, depth int64) error {
	entries := a.Entries()
	for i := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		ae := &entries[i]
		p := joinLogical(prefix, ae.Path)
		switch ae.Kind {
		case artifact.EntryDirectory:
			if err := inv.add(&entry{path: p, kind: kindDirectory}); err != nil {
				return err
			}
		case artifact.EntrySymlink:
			if err := inv.add(&entry{path: p, kind: kindSymlink}); err != nil {
				return err
			}
		default:
			if err := inv.asarFile(ctx, a, ae, unpackedDir, p, depth); err != nil {
				return err
			}
		}
	}
	return nil
}

func (inv *inventory) asarFile(ctx context.Context, a *artifact.ASAR, ae *artifact.ASAREntry, unpackedDir, p string, depth int64) error {
	e := &entry{path: p, kind: kindFile, size: ae.Size, unpacked: ae.Unpacked}
	if err := inv.add(e); err != nil {
		return err
	}
	f, err := a.Open(ae)
	if err != nil {
		inv.unavailable++ // a missing unpacked file is not an error (§10.2)
		return nil
	}
	keepOpen := false
	defer func() {
		if !keepOpen {
			f.Close()
		}
	}()
	size := f.Size()
	e.size = size
	e.load = func() ([]byte, error) { return a.ReadFile(context.Background(), ae) }
	if size > inv.lim.MaxArtifactEntryBytes {
		inv.notHashed++
		return nil
	}
	if err := inv.count(size); err != nil {
		return err
	}
	prefix, err := inv.hashEntry(ctx, e, io.Discard, f, size)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return artifactErr("corrupt", p, "An ASAR entry could not be read.")
	}
	sum, err := f.Verify()
	var mm *artifact.IntegrityMismatch
	if errors.As(err, &mm) {
		return fault.New(fault.ArtifactIntegrityMismatch,
			"An ASAR entry's bytes contradict its declared integrity.",
			"Treat the application as tampered or damaged; analysis is fail-closed.",
			map[string]any{"logical_path": p, "declared_sha256": mm.Declared, "calculated_sha256": mm.Calculated, "unpacked": ae.Unpacked})
	}
	if err != nil {
		return artifactErr("corrupt", p, "An ASAR entry could not be read.")
	}
	e.sha256 = sum
	if !artifact.IsASAR(prefix[:], size) {
		return nil
	}
	if depth+1 > inv.lim.MaxDepth {
		inv.depthCapped = append(inv.depthCapped, p)
		return nil
	}
	nestedUnpacked := ""
	if ae.Unpacked && unpackedDir != "" {
		nestedUnpacked = filepath.Join(unpackedDir, filepath.FromSlash(ae.Path)) + ".unpacked"
	}
	na, err := inv.openASAR(f, size, nestedUnpacked, p)
	if errors.Is(err, artifact.ErrNotASAR) {
		return nil
	}
	if err != nil {
		return err
	}
	keepOpen = true
	inv.closers = append(inv.closers, f, na)
	return inv.expandASAR(ctx, na, nestedUnpacked, p, depth+1)
}

// joinLogical joins a logical path and a name below it.
func joinLogical(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "/" + name
}

// limitations says what the inventory did not see.
func (inv *inventory) limitations() []string {
	var out []string
	if inv.notHashed > 0 {
		out = append(out, strconv.Itoa(inv.notHashed)+" file(s) over max_artifact_entry_bytes were not hashed or parsed")
	}
	if inv.unavailable > 0 {
		out = append(out, strconv.Itoa(inv.unavailable)+" unpacked ASAR file(s) were unavailable and not read")
	}
	if inv.special > 0 {
		out = append(out, strconv.Itoa(inv.special)+" special file(s) (device, socket, fifo) were skipped")
	}
	if len(inv.depthCapped) > 0 {
		sort.Strings(inv.depthCapped)
		out = append(out, strconv.Itoa(len(inv.depthCapped))+" nested ASAR archive(s) beyond max_depth were not expanded (first: "+inv.depthCapped[0]+")")
	}
	return out
}

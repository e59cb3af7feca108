package artifact

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/target"
	"github.com/rea-re/rea/internal/jcs"
	"golang.org/x/sys/unix"
)

// Options configure one inventory.
type Options struct {
	Limits    Limits            // zero fields take the §2.4 defaults
	Policy    Policy            // integrity policy; zero value is fail-closed
	Progress  progress.Reporter // phases "traverse" (entries) then "hash" (bytes); nil = none
	Operation string            // error details' operation; default "inventory_artifact"
	Workers   int               // hashing parallelism; 0 = GOMAXPROCS, at least 2
}

// memSpool bounds how large a compressed nested container is decompressed
// into memory; larger ones go to an unlinked temporary file.
const memSpool = 32 << 20

// Inventory walks root into the §10.3 graph: every entry an occurrence with
// its sha256 and hash_status, declared ASAR integrity verified (whole file and
// blocks), nested containers (zip family, ASAR) expanded below their own
// logical path up to Limits.MaxDepth. Cancellation is checked per entry and
// every ≤ 1 MiB hashed; a cancelled inventory returns the typed cancelled
// error and no graph. Under Policy fail the first contradiction (in logical
// path order) is artifact_integrity_mismatch; under record-and-continue each
// is a Contradiction, its bytes never expanded.
func Inventory(ctx context.Context, root Root, opts Options) (*Graph, error) {
	op := cmp.Or(opts.Operation, "inventory_artifact")
	if err := opts.Policy.Check(op); err != nil {
		return nil, err
	}
	s := &inventory{
		ctx:     ctx,
		op:      op,
		lim:     opts.Limits.withDefaults(),
		pol:     opts.Policy,
		meter:   &meter{rep: progress.OrNop(opts.Progress), phase: "traverse"},
		workers: opts.Workers,
	}
	if s.workers <= 0 {
		s.workers = max(2, runtime.GOMAXPROCS(0))
	}
	defer s.closeAll()
	s.meter.start()
	g, err := s.run(root)
	if err != nil {
		return nil, typed(op, err)
	}
	s.meter.done()
	if err := ctxErr(ctx, op); err != nil {
		return nil, err
	}
	return g, nil
}

type inventory struct {
	ctx     context.Context
	op      string
	lim     Limits
	pol     Policy
	meter   *meter
	workers int

	root           *occ
	occs           []*occ
	entries        int64
	totalBytes     atomic.Int64
	mismatches     int
	contradictions []*occ
	notes          []string
	special        bool
	closers        []io.Closer
}

// occ is an occurrence under construction.
type occ struct {
	o       Occurrence
	e       *entry
	parent  *occ // parent occurrence (directory or container)
	cont    *occ // enclosing container occurrence
	depth   int  // container nesting depth of cont (root = 0)
	state   string
	dg      *digest
	class   nodeClass
	format  string // container format when expanded
	blocks  []int
	nestedQ bool // a quarantined entry that looks like a container
}

func (s *inventory) closeAll() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i].Close()
	}
}

func (s *inventory) run(root Root) (*Graph, error) {
	s.root = &occ{state: "materialized", format: root.Format}
	s.root.o.LogicalPath = "."
	var size int64
	switch root.Format {
	case FormatDirectory:
		dr, err := openDirRoot(root.Path)
		if err != nil {
			return nil, target.Unavailable(root.Path, "unreadable").WithCause(err)
		}
		s.closers = append(s.closers, dr)
		s.root.o.EntryKind = EntryDirectory
		l, err := walkDir(s.ctx, dr, s.lim, 0, s.op, s.meter.entry)
		if err != nil {
			return nil, err
		}
		s.special = l.special > 0 || len(l.Notes) > 0 // the digest needs every entry
		if err := s.container(l, "", s.root, 0, "materialized"); err != nil {
			return nil, err
		}
	case FormatASAR, FormatZip, FormatAPK, FormatIPA, FormatMSIX, FormatAPPX:
		f, err := os.OpenFile(root.Path, os.O_RDONLY|unix.O_NOFOLLOW, 0)
		if err != nil {
			return nil, target.Unavailable(root.Path, "unreadable").WithCause(err)
		}
		s.closers = append(s.closers, f)
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return nil, target.Unavailable(root.Path, "unreadable").WithCause(err)
		}
		size = fi.Size()
		s.root.o.EntryKind = EntryFile
		var l *listing
		state := "embedded"
		if root.Format == FormatASAR {
			var unpacked *dirRoot
			if u, err := openDirRoot(root.Path + ".unpacked"); err == nil {
				unpacked = u
				s.closers = append(s.closers, u)
			}
			l, err = walkASAR(f, size, unpacked, s.lim, 0, s.op)
		} else {
			l, err = walkZip(f, size, s.lim, 0, s.op)
		}
		if err != nil {
			return nil, err
		}
		for range l.Entries {
			s.meter.entry()
		}
		if err := s.container(l, "", s.root, 0, state); err != nil {
			return nil, err
		}
		if root.SHA256 == "" {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return nil, ioErr(s.op, err)
			}
			d, err := hashStream(s.ctx, f, &entry{Size: size, Compressed: -1}, Limits{MaxEntryBytes: 1 << 62}, nil)
			if err != nil {
				return nil, err
			}
			root.SHA256 = d.SHA256
		}
	default:
		return nil, target.Unavailable(root.Path, "unsupported_format")
	}
	return s.finish(root, size)
}

// container turns one listing into occurrences, hashes its files, applies
// the integrity policy and expands nested containers.
func (s *inventory) container(l *listing, prefix string, cont *occ, depth int, state string) error {
	if err := finishListing(l, s.op); err != nil {
		return err
	}
	s.notes = append(s.notes, l.Notes...)
	slices.SortFunc(l.Entries, func(a, b *entry) int { return cmp.Compare(a.Path, b.Path) })
	byPath := make(map[string]*occ, len(l.Entries))
	var files []*occ
	var declared int64
	for _, e := range l.Entries {
		if err := ctxErr(s.ctx, s.op); err != nil {
			return err
		}
		s.entries++
		if s.entries > s.lim.MaxEntries {
			return truncatedErr(s.op, "max_entries", s.lim.MaxEntries, -1)
		}
		lp := joinPath(prefix, e.Logical)
		if len(lp) > s.lim.MaxPathBytes {
			return truncatedErr(s.op, "max_path_bytes", int64(s.lim.MaxPathBytes), int64(len(lp)))
		}
		o := &occ{e: e, cont: cont, depth: depth, state: state, parent: cont}
		if p, ok := byPath[parentPath(e.Path)]; ok {
			o.parent = p
		}
		byPath[e.Path] = o
		if e.Unpacked {
			o.state = "materialized"
		}
		o.o = Occurrence{
			LogicalPath:    lp,
			EntryKind:      e.Kind,
			Executable:     e.Executable,
			Encrypted:      e.Encrypted,
			HashStatus:     HashUnavailable,
			SourceLocation: e.Loc,
			Limitations:    append([]string{}, e.Notes...),
		}
		if e.Kind == EntryFile && (state == "embedded" || e.Unpacked) {
			// sizes of archive entries are declarations; on disk they are observations
			v := e.Size
			o.o.DeclaredSize = &v
		}
		if e.Compressed >= 0 {
			v := e.Compressed
			o.o.CompressedSize = &v
		}
		if e.Integrity != nil {
			v := e.Integrity.Hash
			o.o.DeclaredSHA256 = &v
		}
		s.occs = append(s.occs, o)
		if e.Kind != EntryFile || e.open == nil {
			continue
		}
		if e.Size > s.lim.MaxEntryBytes {
			o.o.HashStatus = HashNotHashedLimit
			o.o.Limitations = append(o.o.Limitations, "The entry is larger than max_entry_bytes; it was not hashed.")
			continue
		}
		if e.Compressed >= 0 && float64(e.Size) > s.lim.MaxCompressionRatio*float64(max(e.Compressed, 1)) {
			return opFailed(s.op, ReasonCompressionRatio, lp, nil)
		}
		declared += max(e.Size, 0)
		files = append(files, o)
	}
	if t := s.totalBytes.Load() + declared; t > s.lim.MaxTotalBytes {
		return truncatedErr(s.op, "max_total_bytes", s.lim.MaxTotalBytes, t)
	}
	if err := s.hashAll(files); err != nil {
		return err
	}
	var observed int64
	for _, o := range files {
		if o.dg != nil && !o.dg.OverLimit {
			observed += o.dg.N
		}
	}
	if t := s.totalBytes.Add(observed); t > s.lim.MaxTotalBytes {
		return truncatedErr(s.op, "max_total_bytes", s.lim.MaxTotalBytes, t)
	}
	for _, o := range files {
		if o.dg == nil || o.o.HashStatus != HashVerified {
			if o.o.HashStatus == HashMismatched {
				if containerFormat(o.o.LogicalPath, o.dg.Head, o.dg.N) != "" {
					o.nestedQ = true
					o.o.Limitations = append(o.o.Limitations, "Quarantined bytes look like a container; they were not expanded.")
				}
			}
			continue
		}
		f := containerFormat(o.o.LogicalPath, o.dg.Head, o.dg.N)
		if f == "" {
			continue
		}
		if depth+1 > s.lim.MaxDepth {
			return truncatedErr(s.op, "max_depth", int64(s.lim.MaxDepth), int64(depth+1))
		}
		if err := s.nested(o, f, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// hashAll hashes files on s.workers goroutines. Files are dispatched in
// order and a fatal result stops further dispatch; everything dispatched
// completes, so the first fatal result in order is the one reported, the
// same on every run.
func (s *inventory) hashAll(files []*occ) error {
	type result struct {
		d   *digest
		err error
	}
	results := make([]result, len(files))
	var stop atomic.Bool
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(s.workers, max(len(files), 1)) {
		wg.Go(func() {
			for i := range work {
				d, err := s.hashOne(files[i])
				results[i] = result{d, err}
				if err != nil || (d != nil && !d.OverLimit && !d.Verified && !s.pol.continues()) {
					stop.Store(true)
				}
			}
		})
	}
	for i := range files {
		if stop.Load() || s.ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctxErr(s.ctx, s.op); err != nil {
		return err
	}
	for i, o := range files {
		r := results[i]
		if r.err != nil {
			return r.err
		}
		if r.d == nil {
			return nil // not dispatched: an earlier result stopped the walk (unreachable)
		}
		if err := s.apply(o, r.d); err != nil {
			return err
		}
	}
	return nil
}

// hashOne reads one file. A file whose bytes cannot be opened is
// unavailable (not an error); a read failure inside an archive is corrupt.
func (s *inventory) hashOne(o *occ) (*digest, error) {
	e := o.e
	rc, err := e.open()
	if err != nil {
		if s.ctx.Err() != nil {
			return nil, ctxErr(s.ctx, s.op)
		}
		return &digest{OverLimit: false, N: -1}, nil
	}
	defer rc.Close()
	d, err := hashStream(s.ctx, rc, e, s.lim, s.meter.hashed)
	switch {
	case err == nil:
		s.meter.fileDone()
		return d, nil
	case s.ctx.Err() != nil:
		return nil, ctxErr(s.ctx, s.op)
	case errors.Is(err, errRatio):
		return nil, opFailed(s.op, ReasonCompressionRatio, o.o.LogicalPath, err)
	case o.state == "materialized" || o.depth > 0:
		// A file on disk that failed mid-read, or an entry of a nested
		// container that does not decode: its bytes are unavailable.
		return &digest{N: -1}, nil
	}
	return nil, opFailed(s.op, ReasonCorrupt, o.o.LogicalPath, err)
}

// apply records one digest on its occurrence under the integrity policy.
func (s *inventory) apply(o *occ, d *digest) error {
	if d.N < 0 {
		o.o.HashStatus = HashUnavailable
		o.o.Limitations = append(o.o.Limitations, "The entry's bytes could not be read.")
		return nil
	}
	o.dg = d
	if d.OverLimit {
		o.o.HashStatus = HashNotHashedLimit
		o.o.Limitations = append(o.o.Limitations, "The entry is larger than max_entry_bytes; it was not hashed.")
		return nil
	}
	o.class = classify(o.o.LogicalPath, d.Head, d.N)
	if d.Verified {
		o.o.HashStatus = HashVerified
		return nil
	}
	declared, calculated := o.e.Integrity.Hash, d.SHA256
	if !s.pol.continues() {
		return mismatchErr(o.o.LogicalPath, &declared, &calculated, o.e.Unpacked)
	}
	s.mismatches++
	if s.mismatches > s.pol.maxMismatches() {
		return truncatedErr(s.op, "max_integrity_mismatches", int64(s.pol.maxMismatches()), int64(s.mismatches))
	}
	o.o.HashStatus = HashMismatched
	o.blocks = d.Mismatched
	o.o.Limitations = append(o.o.Limitations, "Integrity contradiction: the observed bytes are observed-untrusted and quarantined.")
	s.contradictions = append(s.contradictions, o)
	return nil
}

// nested expands a verified file that is itself a container.
func (s *inventory) nested(o *occ, format string, depth int) error {
	e := o.e
	ra, closer, size, err := s.readerAt(o)
	if err != nil {
		return err
	}
	s.closers = append(s.closers, closer)
	var l *listing
	prefixLen := len(o.o.LogicalPath) + 1
	if format == FormatASAR {
		var unpacked *dirRoot
		if e.unpackedRoot != nil {
			if u, err := e.unpackedRoot(); err == nil {
				unpacked = u
				s.closers = append(s.closers, u)
			}
		}
		l, err = walkASAR(ra, size, unpacked, s.lim, prefixLen, s.op)
	} else {
		l, err = walkZip(ra, size, s.lim, prefixLen, s.op)
	}
	if err == nil {
		err = finishListing(l, s.op)
	}
	if err != nil {
		err = prefixErr(err, o.o.LogicalPath)
		if r, ok := containedReason(err); ok {
			// A nested container that cannot be listed safely is listed as
			// the file it is, not expanded: its own bytes are verified; what
			// it would hold is unknown, and the result says so. Limits,
			// compression bombs and cancellation stay fatal.
			o.o.Limitations = append(o.o.Limitations, fmt.Sprintf("The bytes start like a %s container that cannot be listed safely (%s); not expanded.", format, r))
			s.notes = append(s.notes, fmt.Sprintf("Nested container %q not expanded (%s).", o.o.LogicalPath, r))
			return nil
		}
		return err
	}
	o.format = format
	for range l.Entries {
		s.meter.entry()
	}
	return prefixErr(s.container(l, o.o.LogicalPath, o, depth, "embedded"), "")
}

// readerAt gives random access to a verified file's bytes: in place when
// the container stores it uncompressed, else decompressed once more into
// memory or an unlinked temporary file, re-hashed so that bytes that changed
// since hashing are caught.
func (s *inventory) readerAt(o *occ) (io.ReaderAt, io.Closer, int64, error) {
	e, d := o.e, o.dg
	if e.section != nil {
		ra, c, err := e.section()
		if err == nil {
			return ra, c, d.N, nil
		}
		return nil, nil, 0, opFailed(s.op, ReasonCorrupt, o.o.LogicalPath, err)
	}
	rc, err := e.open()
	if err != nil {
		return nil, nil, 0, opFailed(s.op, ReasonCorrupt, o.o.LogicalPath, err)
	}
	defer rc.Close()
	h := sha256.New()
	r := io.TeeReader(&ctxReader{ctx: s.ctx, r: io.LimitReader(rc, d.N+1)}, h)
	var (
		ra     io.ReaderAt
		closer io.Closer = nopCloser{}
		n      int64
	)
	if d.N <= memSpool {
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, nil, 0, typed(s.op, err)
		}
		ra, n = bytes.NewReader(b), int64(len(b))
	} else {
		f, err := os.CreateTemp("", "rea-artifact-*")
		if err != nil {
			return nil, nil, 0, ioErr(s.op, err)
		}
		os.Remove(f.Name()) // unlinked: nothing remains even if REA dies
		if n, err = io.Copy(f, r); err != nil {
			f.Close()
			return nil, nil, 0, typed(s.op, err)
		}
		ra, closer = f, f
	}
	if n != d.N || hex.EncodeToString(h.Sum(nil)) != d.SHA256 {
		closer.Close()
		return nil, nil, 0, opFailed(s.op, ReasonCorrupt, o.o.LogicalPath, errors.New("bytes changed between reads"))
	}
	return ra, closer, n, nil
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) > chunkSize {
		p = p[:chunkSize]
	}
	return c.r.Read(p)
}

// containedReason reports the reasons a nested container is left
// unexpanded instead of failing the inventory.
func containedReason(err error) (string, bool) {
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.ArtifactOperationFailed {
		return "", false
	}
	r, _ := fe.Details["reason"].(string)
	switch r {
	case ReasonCorrupt, ReasonUnsafePath, ReasonCollision, ReasonUnsupportedIntegrity:
		return r, true
	}
	return "", false
}

// prefixErr rewrites a walker's container-relative logical_path detail to
// the full logical path below prefix.
func prefixErr(err error, prefix string) error {
	var fe *fault.Error
	if prefix == "" || !errors.As(err, &fe) || fe.Details == nil {
		return err
	}
	if p, ok := fe.Details["logical_path"].(string); ok && fe.Code == fault.ArtifactOperationFailed {
		fe.Details["logical_path"] = joinPath(prefix, p)
	}
	return err
}

// ArtifactID is "art_" + sha256(JCS{schema_version:1, sha256}) (§1.2).
func ArtifactID(sha string) string {
	b := make([]byte, 0, 100)
	b = append(b, `{"schema_version":1,"sha256":`...)
	b = append(jcs.AppendString(b, sha), '}')
	d := sha256.Sum256(b)
	return "art_" + hex.EncodeToString(d[:])
}

func rootOccurrenceID(rootArt string) string {
	return "occ_" + stringObjectDigest("root", rootArt)
}

// OccurrenceID is "occ_" + sha256(JCS{root_artifact_id, logical_path,
// entry_kind}) for a non-root occurrence (§1.2).
func OccurrenceID(rootArt, logicalPath, entryKind string) string {
	return "occ_" + stringObjectDigest("entry_kind", entryKind, "logical_path", logicalPath, "root_artifact_id", rootArt)
}

// EdgeID is "edge_" + sha256(JCS{parent_artifact_id, child_artifact_id,
// relation, occurrence_id, logical_path}) (§1.2).
func EdgeID(parent, child, relation, occurrenceID, logicalPath string) string {
	return "edge_" + stringObjectDigest("child_artifact_id", child, "logical_path", logicalPath,
		"occurrence_id", occurrenceID, "parent_artifact_id", parent, "relation", relation)
}

package artifact

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"golang.org/x/sys/unix"
)

// ExtractOptions configure one extraction. Approval and the artifact_extract
// permission are the engine's preflight; this package enforces the rules of
// §10.6 on the bytes and the filesystem.
type ExtractOptions struct {
	OutputRoot    string   // absolute; may exist only as a real directory
	OccurrenceIDs []string // from g's occurrences
	Limits        Limits
	Progress      progress.Reporter // phases "extract" (files; total known) and "verify"
	// AllowHiddenPaths lets entries with a component starting with "."
	// (.ssh/authorized_keys, .bashrc) be written; refused otherwise.
	AllowHiddenPaths bool
	// FreeSpace reports the bytes available to REA on the filesystem of the
	// open output root; nil is fstatfs (f_bavail × f_bsize).
	FreeSpace func(fd int) (int64, error)
	// ApprovedRoot is the realpath of OutputRoot the permission preflight
	// approved; when set, an output root that resolves anywhere else once
	// opened (a parent swapped for a symlink after the decision) is
	// outside_approved_root.
	ApprovedRoot string
}

// Server-side bounds of an extraction (CONTRACTS.md §0, §10.6), whatever
// the call asks for.
const (
	MaxExtractPathBytes  = 4096     // PATH_MAX: a relative path written below output_root
	MaxExtractNameBytes  = 255      // NAME_MAX: one component as written
	MaxExtractTotalBytes = 64 << 30 // max_total_bytes
	MaxExtractEntries    = 1000000  // max_entries
	// MaxInventoryPathBytes is the largest max_path_bytes of an inventory.
	MaxInventoryPathBytes = 65535
	// SpaceReserve is left free on the output filesystem: an extraction
	// whose bytes would eat into it is refused before anything is written.
	SpaceReserve = 1 << 30
)

// ExtractedFile is one written file.
type ExtractedFile struct {
	ArtifactID   string `json:"artifact_id"`
	RelativePath string `json:"relative_path"` // the logical path
	// RawNameHex is the hex of the bytes written, when the entry name was not
	// UTF-8 and RelativePath escapes it (§0).
	RawNameHex   string `json:"raw_name_hex,omitempty"`
	SHA256       string `json:"sha256"`
	BytesWritten int64  `json:"bytes_written"`
	Created      bool   `json:"created"`
}

// ExtractionManifest is the §10.7 extraction_manifest.
type ExtractionManifest struct {
	SchemaVersion         int      `json:"schema_version"`
	ExtractionID          string   `json:"extraction_id"`
	SourceManifestID      string   `json:"source_manifest_id"`
	SelectedOccurrenceIDs []string `json:"selected_occurrence_ids"`
	FilesSHA256           string   `json:"files_sha256"`
	OutputRootAlias       string   `json:"output_root_alias"`
}

// Cleanup reports removal of what an extraction created.
type Cleanup struct {
	Attempted     bool     `json:"attempted"`
	Verified      bool     `json:"verified"`
	ResidualPaths []string `json:"residual_paths"`
}

// Extraction is the unpaged §10.7 result; the engine pages Artifacts.
type Extraction struct {
	Manifest            Manifest           `json:"manifest"`
	ExtractionManifest  ExtractionManifest `json:"extraction_manifest"`
	OutputRoot          string             `json:"output_root"`
	Artifacts           []ExtractedFile    `json:"artifacts"`
	ContainmentVerified bool               `json:"containment_verified"`
	Cleanup             Cleanup            `json:"cleanup"`
	Limits              Limits             `json:"limits"`
	Provenance          []any              `json:"provenance"`
	Limitations         []string           `json:"limitations"`
}

const extractOp = "extract_artifact"

// Extract writes the selected occurrences of g (the inventory of root) below
// OutputRoot: only files, never symlinks; never overwriting (O_EXCL, 0600,
// no exec bits); every path created beneath a directory descriptor with
// O_NOFOLLOW, parents created 0700; bounds on entries, total bytes, entry
// bytes, compression ratio, depth and path length counted while streaming;
// bytes verified against the inventory and any declared integrity
// (extraction is always fail-closed). On any failure or cancellation
// everything created is removed, deepest first, and the removal verified;
// an unverified removal is cleanup_incomplete (extraction-output).
func Extract(ctx context.Context, root Root, g *Graph, opts ExtractOptions) (res *Extraction, err error) {
	lim := opts.Limits.withDefaults()
	rep := progress.OrNop(opts.Progress)
	out := opts.OutputRoot
	if !filepath.IsAbs(out) || filepath.Clean(out) != out || len(out) > 4096 {
		return nil, fault.Invalid(extractOp, fault.Issue{Path: "/output_root", Reason: "invalid_value", Message: "output_root must be a clean absolute path"})
	}
	if err := checkExtractLimits(lim); err != nil {
		return nil, err
	}
	files, notes, err := selectFiles(g, opts.OccurrenceIDs, lim)
	if err != nil {
		return nil, err
	}
	x := &extractor{ctx: ctx, lim: lim, root: root, g: g, containers: map[string]*listing{},
		raw: map[string]string{"": ""}, allowHidden: opts.AllowHiddenPaths}
	defer x.closeAll()

	// Every rule that needs no disk is checked for every file before the
	// first write, so a refused extraction creates nothing.
	plan := make([]planned, len(files))
	var need int64
	for i, f := range files {
		if plan[i], err = x.plan(f); err != nil {
			return nil, err
		}
		need += max(f.size, 0)
	}
	if need > lim.MaxTotalBytes {
		return nil, truncatedErr(extractOp, "max_total_bytes", lim.MaxTotalBytes, need)
	}

	w, err := openOutput(out, opts.ApprovedRoot)
	if err != nil {
		return nil, err
	}
	defer w.close()
	defer func() {
		if err == nil {
			return
		}
		err = typed(extractOp, err)
		if residual := w.cleanup(); len(residual) > 0 {
			err = cleanupFault(err, residual)
		}
		res = nil
	}()
	free := opts.FreeSpace
	if free == nil {
		free = fsFree
	}
	avail, err := free(w.fd)
	if err != nil {
		return nil, ioErr(extractOp, err)
	}
	avail -= SpaceReserve
	if need > avail {
		return nil, spaceErr(need, avail)
	}

	total := float64(len(files) + 1)
	rep.Report(progress.Update{Phase: "extract", Completed: 0, Total: &total, Message: "extracting"})
	budget := budget{total: lim.MaxTotalBytes, space: avail}
	arts := make([]ExtractedFile, 0, len(files))
	for i, p := range plan {
		if err := ctxErr(ctx, extractOp); err != nil {
			return nil, err
		}
		ef, err := x.write(w, p, &budget)
		if err != nil {
			return nil, err
		}
		arts = append(arts, ef)
		rep.Report(progress.Update{Phase: "extract", Completed: float64(i + 1), Total: &total, Message: "extracting"})
	}
	rep.Report(progress.Update{Phase: "verify", Completed: 0, Message: "verifying containment"})
	if err := w.verify(); err != nil {
		return nil, err
	}
	if err := ctxErr(ctx, extractOp); err != nil {
		return nil, err
	}
	slices.SortFunc(arts, func(a, b ExtractedFile) int { return cmp.Compare(a.RelativePath, b.RelativePath) })
	type rel struct {
		RelativePath string `json:"relative_path"`
		SHA256       string `json:"sha256"`
	}
	rels := make([]rel, len(arts))
	for i, a := range arts {
		rels[i] = rel{a.RelativePath, a.SHA256}
	}
	filesDigest, err := canon.Digest(rels)
	if err != nil {
		return nil, err
	}
	sel := slices.Clone(opts.OccurrenceIDs)
	slices.Sort(sel)
	sel = slices.Compact(sel)
	m := ExtractionManifest{SchemaVersion: 1, SourceManifestID: g.Manifest.ManifestID,
		SelectedOccurrenceIDs: sel, FilesSHA256: filesDigest, OutputRootAlias: "$OUTPUT_ROOT"}
	id, err := canon.Digest(map[string]any{
		"schema_version": m.SchemaVersion, "source_manifest_id": m.SourceManifestID,
		"selected_occurrence_ids": m.SelectedOccurrenceIDs, "files_sha256": m.FilesSHA256,
		"output_root_alias": m.OutputRootAlias,
	})
	if err != nil {
		return nil, err
	}
	m.ExtractionID = "aex_" + id
	return &Extraction{
		Manifest: g.Manifest, ExtractionManifest: m, OutputRoot: out, Artifacts: arts,
		ContainmentVerified: true, Cleanup: Cleanup{ResidualPaths: []string{}}, Limits: lim,
		Provenance: []any{}, Limitations: notes,
	}, nil
}

// selected is one file to write.
type selected struct {
	occ    *Occurrence
	chain  []string // logical paths of the enclosing nested containers, outermost first
	sha    string   // inventoried sha256
	artID  string
	size   int64
	parent string // logical path of the innermost container ("" = root)
}

// selectFiles resolves occurrence ids to files: a directory selects its file
// descendants in the same container, the root selects the root container's
// files; a symlink is never materialized (selected directly it is refused,
// below a directory it is skipped with a limitation).
func selectFiles(g *Graph, ids []string, lim Limits) ([]selected, []string, error) {
	byID := make(map[string]*Occurrence, len(g.Occurrences))
	byPath := make(map[string]*Occurrence, len(g.Occurrences))
	for i := range g.Occurrences {
		o := &g.Occurrences[i]
		byID[o.OccurrenceID] = o
		byPath[o.LogicalPath] = o
	}
	nodes := make(map[string]*Node, len(g.Nodes))
	for i := range g.Nodes {
		nodes[g.Nodes[i].ArtifactID] = &g.Nodes[i]
	}
	// A file occurrence with occurrences below it is an expanded container.
	expanded := map[string]bool{}
	for _, o := range g.Occurrences {
		for p := parentPath(o.LogicalPath); p != ""; p = parentPath(p) {
			if q, ok := byPath[p]; ok && q.EntryKind == EntryFile {
				expanded[p] = true
			}
		}
	}
	chainOf := func(lp string) []string {
		var c []string
		for p := parentPath(lp); p != ""; p = parentPath(p) {
			if expanded[p] {
				c = append(c, p)
			}
		}
		slices.Reverse(c)
		return c
	}
	var notes []string
	seen := map[string]bool{}
	var out []selected
	add := func(o *Occurrence) error {
		if seen[o.LogicalPath] {
			return nil
		}
		seen[o.LogicalPath] = true
		switch o.HashStatus {
		case HashMismatched:
			return mismatchErr(o.LogicalPath, o.DeclaredSHA256, nil, o.SourceLocation == nil)
		case HashNotHashedLimit:
			return opFailed(extractOp, ReasonEntryTooLarge, o.LogicalPath, nil)
		case HashUnavailable:
			return opFailed(extractOp, ReasonUnavailable, o.LogicalPath, nil)
		}
		n := nodes[deref(o.ArtifactID)]
		if n == nil {
			return opFailed(extractOp, ReasonUnavailable, o.LogicalPath, nil)
		}
		s := selected{occ: o, chain: chainOf(o.LogicalPath), sha: n.SHA256, artID: n.ArtifactID, size: n.Size}
		if len(s.chain) > 0 {
			s.parent = s.chain[len(s.chain)-1]
		}
		out = append(out, s)
		return nil
	}
	for i, id := range ids {
		o, ok := byID[id]
		if !ok {
			return nil, nil, fault.Invalid(extractOp, fault.Issue{Path: "/occurrence_ids/" + strconv.Itoa(i), Reason: "invalid_value",
				Message: "not an occurrence of the current manifest"})
		}
		switch {
		case o.EntryKind == EntrySymlink:
			return nil, nil, opFailed(extractOp, ReasonUnsafePath, o.LogicalPath, errors.New("symlinks are never materialized"))
		case o.EntryKind == EntryDirectory || o.LogicalPath == ".":
			prefix := o.LogicalPath + "/"
			if o.LogicalPath == "." {
				prefix = ""
			}
			base := chainOf(o.LogicalPath + "/x")
			for j := range g.Occurrences {
				d := &g.Occurrences[j]
				if d.LogicalPath == "." || !strings.HasPrefix(d.LogicalPath, prefix) || !slices.Equal(chainOf(d.LogicalPath), base) {
					continue
				}
				switch d.EntryKind {
				case EntryFile:
					if err := add(d); err != nil {
						return nil, nil, err
					}
				case EntrySymlink:
					notes = append(notes, fmt.Sprintf("Symlink %q not materialized.", d.LogicalPath))
				}
			}
		default:
			if err := add(o); err != nil {
				return nil, nil, err
			}
		}
	}
	if n := int64(len(out)); n > lim.MaxEntries {
		return nil, nil, truncatedErr(extractOp, "max_entries", lim.MaxEntries, n)
	}
	slices.SortFunc(out, func(a, b selected) int { return cmp.Compare(a.occ.LogicalPath, b.occ.LogicalPath) })
	if notes == nil {
		notes = []string{}
	}
	return out, notes, nil
}

type extractor struct {
	ctx         context.Context
	lim         Limits
	root        Root
	g           *Graph
	containers  map[string]*listing // by logical path; "" = root
	raw         map[string]string   // a container's raw relative path, by logical path
	allowHidden bool
	closers     []io.Closer
}

// listLimits are the limits containers are listed with: the path bound is
// applied to the selected files only (plan), so that a long name elsewhere
// in the container does not refuse the extraction.
func (x *extractor) listLimits() Limits {
	l := x.lim
	l.MaxPathBytes = MaxInventoryPathBytes
	return l
}

func (x *extractor) closeAll() {
	for i := len(x.closers) - 1; i >= 0; i-- {
		x.closers[i].Close()
	}
}

// container lists (once) the container at logical path lp, re-validating
// every entry name as inventory does.
func (x *extractor) container(chain []string) (*listing, error) {
	key := ""
	if len(chain) > 0 {
		key = chain[len(chain)-1]
	}
	if l, ok := x.containers[key]; ok {
		return l, nil
	}
	var l *listing
	var err error
	if len(chain) == 0 {
		l, err = x.openRoot()
	} else {
		var parent *listing
		if parent, err = x.container(chain[:len(chain)-1]); err != nil {
			return nil, err
		}
		l, err = x.openNested(parent, chain)
	}
	if err != nil {
		return nil, err
	}
	if err := finishListing(l, extractOp); err != nil {
		return nil, prefixErr(err, key)
	}
	x.containers[key] = l
	return l, nil
}

func (x *extractor) openRoot() (*listing, error) {
	switch x.root.Format {
	case FormatDirectory:
		dr, err := openDirRoot(x.root.Path)
		if err != nil {
			return nil, opFailed(extractOp, ReasonUnavailable, "", err)
		}
		x.closers = append(x.closers, dr)
		return walkDir(x.ctx, dr, x.listLimits(), 0, extractOp, nil)
	case FormatASAR, FormatZip, FormatAPK, FormatIPA, FormatMSIX, FormatAPPX:
		f, err := os.OpenFile(x.root.Path, os.O_RDONLY|unix.O_NOFOLLOW, 0)
		if err != nil {
			return nil, opFailed(extractOp, ReasonUnavailable, "", err)
		}
		x.closers = append(x.closers, f)
		fi, err := f.Stat()
		if err != nil {
			return nil, opFailed(extractOp, ReasonUnavailable, "", err)
		}
		if x.root.Format == FormatASAR {
			var unpacked *dirRoot
			if u, err := openDirRoot(x.root.Path + ".unpacked"); err == nil {
				unpacked = u
				x.closers = append(x.closers, u)
			}
			return walkASAR(f, fi.Size(), unpacked, x.listLimits(), 0, extractOp)
		}
		return walkZip(f, fi.Size(), x.listLimits(), 0, extractOp)
	}
	return nil, opFailed(extractOp, ReasonUnavailable, "", errors.New("unsupported root format"))
}

func (x *extractor) openNested(parent *listing, chain []string) (*listing, error) {
	lp := chain[len(chain)-1]
	outer := ""
	if len(chain) > 1 {
		outer = chain[len(chain)-2]
	}
	rel := strings.TrimPrefix(lp, outer+"/")
	if outer == "" {
		rel = lp
	}
	e := findEntry(parent, rel)
	var o *Occurrence
	for i := range x.g.Occurrences {
		if x.g.Occurrences[i].LogicalPath == lp {
			o = &x.g.Occurrences[i]
		}
	}
	if e == nil || o == nil || o.ArtifactID == nil {
		return nil, opFailed(extractOp, ReasonCorrupt, lp, errors.New("container entry not found"))
	}
	x.raw[lp] = joinPath(x.raw[outer], e.Path)
	var n *Node
	for i := range x.g.Nodes {
		if x.g.Nodes[i].ArtifactID == *o.ArtifactID {
			n = &x.g.Nodes[i]
		}
	}
	if n == nil {
		return nil, opFailed(extractOp, ReasonCorrupt, lp, errors.New("container node not found"))
	}
	s := &inventory{ctx: x.ctx, op: extractOp, lim: x.lim}
	oc := &occ{e: e, dg: &digest{N: n.Size, SHA256: n.SHA256}}
	oc.o.LogicalPath = lp
	ra, closer, size, err := s.readerAt(oc)
	if err != nil {
		return nil, err
	}
	x.closers = append(x.closers, closer)
	if n.Format == FormatASAR {
		var unpacked *dirRoot
		if e.unpackedRoot != nil {
			if u, err := e.unpackedRoot(); err == nil {
				unpacked = u
				x.closers = append(x.closers, u)
			}
		}
		l, err := walkASAR(ra, size, unpacked, x.listLimits(), len(lp)+1, extractOp)
		return l, prefixErr(err, lp)
	}
	l, err := walkZip(ra, size, x.listLimits(), len(lp)+1, extractOp)
	return l, prefixErr(err, lp)
}

// findEntry finds the entry of a finished listing by its logical path.
func findEntry(l *listing, rel string) *entry {
	for _, e := range l.Entries {
		if e.Logical == rel {
			return e
		}
	}
	return nil
}

// planned is a selected file resolved to its entry and the raw path it is
// written at.
type planned struct {
	selected
	e    *entry
	disk string // relative to output_root, the entry names' own bytes
}

// plan resolves one file and applies every rule that needs no disk: depth,
// safe and visible names, path and component length, entry size and ratio.
func (x *extractor) plan(f selected) (planned, error) {
	lp := f.occ.LogicalPath
	if len(f.chain) > x.lim.MaxDepth {
		return planned{}, truncatedErr(extractOp, "max_depth", int64(x.lim.MaxDepth), int64(len(f.chain)))
	}
	if !checkPath(lp) {
		return planned{}, opFailed(extractOp, ReasonUnsafePath, safeShow(lp), nil)
	}
	if !x.allowHidden && hiddenPath(lp) {
		return planned{}, opFailed(extractOp, ReasonHiddenPath, lp, nil)
	}
	if len(lp) > x.lim.MaxPathBytes {
		return planned{}, pathTooLong(lp, "path", x.lim.MaxPathBytes, len(lp))
	}
	l, err := x.container(f.chain)
	if err != nil {
		return planned{}, err
	}
	rel := lp
	if f.parent != "" {
		rel = strings.TrimPrefix(lp, f.parent+"/")
	}
	e := findEntry(l, rel)
	if e == nil || e.Kind != EntryFile || e.open == nil {
		return planned{}, opFailed(extractOp, ReasonUnavailable, lp, errors.New("entry not found or unreadable"))
	}
	disk := joinPath(x.raw[f.parent], e.Path)
	for seg := range strings.SplitSeq(disk, "/") {
		if len(seg) > MaxExtractNameBytes {
			return planned{}, pathTooLong(lp, "component", MaxExtractNameBytes, len(seg))
		}
	}
	if e.Size > x.lim.MaxEntryBytes {
		return planned{}, opFailed(extractOp, ReasonEntryTooLarge, lp, nil)
	}
	if e.Compressed >= 0 && float64(e.Size) > x.lim.MaxCompressionRatio*float64(max(e.Compressed, 1)) {
		return planned{}, opFailed(extractOp, ReasonCompressionRatio, lp, nil)
	}
	return planned{selected: f, e: e, disk: disk}, nil
}

// hiddenPath reports whether a component of p starts with ".".
func hiddenPath(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// budget is what the extraction may still write: max_total_bytes, and the
// output filesystem's free space above SpaceReserve.
type budget struct {
	written, total, space int64
}

// write streams one planned file into the output tree.
func (x *extractor) write(w *writer, f planned, b *budget) (ExtractedFile, error) {
	lp, e := f.occ.LogicalPath, f.e
	rc, err := e.open()
	if err != nil {
		if swappedSource(err) {
			// The entry was listed beneath the root; now its path
			// crosses a symlink or leaves the root (CONTRACTS.md §0.3).
			return ExtractedFile{}, fault.New(fault.OutsideApprovedRoot, "A source path re-resolved outside its root during extraction.",
				"Extract from a tree no other process modifies meanwhile.", map[string]any{"operation": extractOp, "path": logicalOf(lp)}).WithCause(err)
		}
		return ExtractedFile{}, opFailed(extractOp, ReasonUnavailable, lp, err)
	}
	defer rc.Close()
	fd, err := w.create(f.disk)
	if err != nil {
		return ExtractedFile{}, err
	}
	dst := os.NewFile(uintptr(fd), lp)
	defer dst.Close()
	cw := &countingWriter{w: dst, entryMax: x.lim.MaxEntryBytes, totalMax: min(b.total, b.space) - b.written}
	d, err := hashStream(x.ctx, io.TeeReader(rc, cw), e, Limits{
		MaxEntryBytes: 1 << 62, MaxCompressionRatio: x.lim.MaxCompressionRatio}, nil)
	b.written += cw.n
	switch {
	case errors.Is(err, errEntryBytes):
		return ExtractedFile{}, opFailed(extractOp, ReasonEntryTooLarge, lp, err)
	case errors.Is(err, errTotalBytes) && b.written > b.space:
		return ExtractedFile{}, spaceErr(b.written, b.space)
	case errors.Is(err, errTotalBytes):
		return ExtractedFile{}, truncatedErr(extractOp, "max_total_bytes", b.total, b.written)
	case errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EDQUOT):
		return ExtractedFile{}, spaceErr(b.written, b.space)
	case errors.Is(err, errRatio):
		return ExtractedFile{}, opFailed(extractOp, ReasonCompressionRatio, lp, err)
	case err != nil && x.ctx.Err() != nil:
		return ExtractedFile{}, ctxErr(x.ctx, extractOp)
	case err != nil:
		return ExtractedFile{}, opFailed(extractOp, ReasonCorrupt, lp, err)
	}
	if !d.Verified {
		decl, calc := e.Integrity.Hash, d.SHA256
		return ExtractedFile{}, mismatchErr(lp, &decl, &calc, e.Unpacked)
	}
	if d.SHA256 != f.sha {
		decl, calc := f.sha, d.SHA256
		return ExtractedFile{}, mismatchErr(lp, &decl, &calc, e.Unpacked)
	}
	if err := dst.Sync(); err != nil {
		return ExtractedFile{}, ioErr(extractOp, err)
	}
	ef := ExtractedFile{ArtifactID: f.artID, RelativePath: lp, SHA256: d.SHA256, BytesWritten: cw.n, Created: true}
	if f.disk != lp {
		ef.RawNameHex = hex.EncodeToString([]byte(f.disk))
	}
	return ef, nil
}

var (
	errEntryBytes = errors.New("entry exceeds max_entry_bytes")
	errTotalBytes = errors.New("extraction exceeds max_total_bytes")
)

type countingWriter struct {
	w                  io.Writer
	n                  int64
	entryMax, totalMax int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.n+int64(len(p)) > c.entryMax {
		return 0, errEntryBytes
	}
	if c.n+int64(len(p)) > c.totalMax {
		c.n += int64(len(p)) // counted, not written: the error reports what was asked
		return 0, errTotalBytes
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writer creates paths beneath the output root descriptor and remembers
// exactly what it created, for verification and cleanup.
type writer struct {
	path        string // output_root as given
	real        string // its realpath
	fd          int
	createdRoot bool
	created     []createdPath // in creation order
}

type createdPath struct {
	rel string
	dir bool
	dev uint64
	ino uint64
}

func openOutput(out, approved string) (*writer, error) {
	w := &writer{path: out, fd: -1}
	swapped := func(cause error) error {
		return fault.New(fault.OutsideApprovedRoot, "The output root changed after it was approved.",
			"Choose an output_root that is a real directory no other process modifies during extraction.",
			map[string]any{"operation": extractOp, "path": out}).WithCause(cause)
	}
	var st unix.Stat_t
	switch err := unix.Lstat(out, &st); {
	case err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR:
	case err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return nil, fault.New(fault.OutsideApprovedRoot, "The output root is a symlink.",
			"Choose an output_root that is a real directory.", map[string]any{"operation": extractOp, "path": out})
	case err == nil:
		return nil, opFailed(extractOp, ReasonExists, "", errors.New("output_root exists and is not a directory"))
	case errors.Is(err, unix.ENOENT):
		switch err := unix.Mkdir(out, 0o700); {
		case err == nil:
			w.createdRoot = true
		case errors.Is(err, unix.EEXIST):
			// Made by another process since the Lstat: opened below
			// like any existing root, so a symlink is refused there.
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ELOOP):
			return nil, swapped(err) // its parent vanished or was swapped meanwhile
		default:
			return nil, ioErr(extractOp, err)
		}
	default:
		return nil, ioErr(extractOp, err)
	}
	fd, err := unix.Open(out, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if w.createdRoot {
			unix.Rmdir(out)
		}
		// Lstat saw a directory (or Mkdir made one); now the path is a
		// symlink (ELOOP, or ENOTDIR for O_DIRECTORY|O_NOFOLLOW), gone,
		// or no directory: it was swapped.
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ENOENT) {
			return nil, swapped(err)
		}
		return nil, ioErr(extractOp, err)
	}
	w.fd = fd
	real, err := fdPath(fd)
	if err != nil {
		w.close()
		return nil, ioErr(extractOp, err)
	}
	w.real = real
	if approved != "" && real != approved {
		// A parent of output_root was swapped between the decision and
		// the open: the directory opened is not the one approved. A root
		// made just now is removed again through its descriptor's path.
		w.close()
		if w.createdRoot {
			unix.Rmdir(real)
		}
		return nil, swapped(nil)
	}
	return w, nil
}

func (w *writer) close() {
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
}

func fdPath(fd int) (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
}

func (w *writer) escape(rel string) error {
	return fault.New(fault.OutsideApprovedRoot, "An extraction write would escape output_root.",
		"Choose an output_root no other process modifies during extraction.",
		map[string]any{"operation": extractOp, "path": logicalOf(rel)})
}

// create makes rel's parents (0700) and rel itself (0600, O_EXCL) beneath
// the root, one O_NOFOLLOW component at a time, and checks that the created
// file is the one rel names beneath the root. Every directory is recorded as
// soon as it exists, so a failure later in the walk still removes it.
func (w *writer) create(rel string) (int, error) {
	parts := strings.Split(rel, "/")
	dir := w.fd
	closeDir := func() {
		if dir != w.fd {
			unix.Close(dir)
		}
	}
	defer func() { closeDir() }()
	sofar := ""
	const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	for _, p := range parts[:len(parts)-1] {
		sofar = joinPath(sofar, p)
		fd, err := unix.Openat(dir, p, dirFlags, 0)
		if errors.Is(err, unix.ENOENT) {
			switch merr := unix.Mkdirat(dir, p, 0o700); {
			case merr == nil:
				w.recordAt(dir, p, sofar, true)
			case errors.Is(merr, unix.EEXIST):
				// Another process made it since the open: opened below
				// like any existing entry, so a symlink is refused.
			case errors.Is(merr, unix.ENOENT):
				// The directory being walked was removed or moved
				// meanwhile: the path no longer resolves beneath the root.
				return -1, w.escape(sofar)
			default:
				return -1, w.fsErr(sofar, merr)
			}
			fd, err = unix.Openat(dir, p, dirFlags, 0)
		}
		if errors.Is(err, unix.ENOTDIR) && isSymlinkAt(dir, p) {
			// O_DIRECTORY|O_NOFOLLOW on a symlink reports ENOTDIR
			err = unix.ELOOP
		}
		switch {
		case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOENT):
			// A symlink, or a directory made a moment ago and gone
			// again: swapped during the extraction.
			return -1, w.escape(sofar)
		case errors.Is(err, unix.ENOTDIR):
			return -1, opFailed(extractOp, ReasonCollision, sofar, err)
		case err != nil:
			return -1, w.fsErr(sofar, err)
		}
		closeDir()
		dir = fd
	}
	last := parts[len(parts)-1]
	fd, err := unix.Openat(dir, last, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	switch {
	case errors.Is(err, unix.EEXIST) && isSymlinkAt(dir, last), errors.Is(err, unix.ENOENT):
		// A symlink planted where the file goes, or the directory being
		// written removed or moved meanwhile.
		return -1, w.escape(rel)
	case errors.Is(err, unix.EEXIST):
		return -1, opFailed(extractOp, ReasonExists, rel, err)
	case err != nil:
		return -1, w.fsErr(rel, err)
	}
	w.record(fd, rel, false)
	if !w.contains(fd, rel) {
		unix.Close(fd)
		return -1, w.escape(rel)
	}
	return fd, nil
}

// contains re-checks containment without turning the file back into a
// path string (readlink of /proc/self/fd fails with ENAMETOOLONG once
// output_root plus rel passes PATH_MAX, which is no escape): the root still
// resolves to the realpath approved, and rel, resolved beneath the root
// without symlinks, is the very inode fd holds.
func (w *writer) contains(fd int, rel string) bool {
	if real, err := fdPath(w.fd); err != nil || real != w.real {
		return false
	}
	var st, at unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return false
	}
	pfd, err := openBeneath(w.fd, rel, unix.O_PATH, 0)
	if err != nil {
		return false
	}
	defer unix.Close(pfd)
	return unix.Fstat(pfd, &at) == nil && at.Dev == st.Dev && at.Ino == st.Ino
}

// swappedSource reports whether opening a listed source entry failed
// because its path now crosses a symlink (ELOOP) or would leave the root
// (EXDEV from RESOLVE_BENEATH), rather than for lack of the entry.
func swappedSource(err error) bool {
	return errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV)
}

// fsErr types a failed create: a name the filesystem finds too long is
// path_too_long, a full filesystem insufficient_space, anything else I/O.
func (w *writer) fsErr(rel string, err error) error {
	switch {
	case errors.Is(err, unix.ENAMETOOLONG):
		return opFailed(extractOp, ReasonPathTooLong, rel, err)
	case errors.Is(err, unix.ENOSPC), errors.Is(err, unix.EDQUOT):
		return opFailed(extractOp, ReasonInsufficientSpace, rel, err)
	}
	return ioErr(extractOp, err)
}

func isSymlinkAt(dir int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

func (w *writer) record(fd int, rel string, dir bool) {
	var st unix.Stat_t
	unix.Fstat(fd, &st)
	w.created = append(w.created, createdPath{rel: rel, dir: dir, dev: st.Dev, ino: st.Ino})
}

// recordAt records name in dirfd, just created as rel.
func (w *writer) recordAt(dirfd int, name, rel string, dir bool) {
	var st unix.Stat_t
	unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	w.created = append(w.created, createdPath{rel: rel, dir: dir, dev: st.Dev, ino: st.Ino})
}

// verify walks only the created paths: each must still be the same inode,
// of the kind created, resolvable beneath the root without a symlink.
func (w *writer) verify() error {
	for _, c := range w.created {
		fd, err := openBeneath(w.fd, c.rel, unix.O_PATH, 0)
		if err != nil {
			return w.escape(c.rel)
		}
		var st unix.Stat_t
		err = unix.Fstat(fd, &st)
		unix.Close(fd)
		isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
		if err != nil || st.Dev != c.dev || st.Ino != c.ino || isDir != c.dir {
			return w.escape(c.rel)
		}
	}
	return nil
}

// cleanup removes what was created, deepest first, and returns what could
// not be confirmed gone.
func (w *writer) cleanup() []string {
	cs := slices.Clone(w.created)
	slices.SortStableFunc(cs, func(a, b createdPath) int {
		return cmp.Compare(strings.Count(b.rel, "/"), strings.Count(a.rel, "/"))
	})
	var residual []string
	for _, c := range cs {
		flags := 0
		if c.dir {
			flags = unix.AT_REMOVEDIR
		}
		if err := unlinkBeneath(w.fd, c.rel, flags); err != nil && !errors.Is(err, unix.ENOENT) {
			residual = append(residual, c.rel)
		}
	}
	for _, c := range cs {
		if !slices.Contains(residual, c.rel) && !w.gone(c) {
			residual = append(residual, c.rel)
		}
	}
	if w.createdRoot && len(residual) == 0 && !w.removeRoot() {
		residual = append(residual, ".")
	}
	return residual
}

// removeRoot removes the output root this extraction created, wherever it
// is now: at output_root, or where another process moved it (its
// descriptor's path), never a directory that merely took its name; a
// root another process removed already is gone too. It closes w.
func (w *writer) removeRoot() bool {
	var own unix.Stat_t
	if w.fd < 0 || unix.Fstat(w.fd, &own) != nil {
		w.close()
		return false
	}
	now, _ := fdPath(w.fd)
	w.close()
	if own.Nlink == 0 {
		return true // removed by another process
	}
	for _, p := range []string{w.path, now} {
		var st unix.Stat_t
		if p == "" || unix.Lstat(p, &st) != nil || st.Dev != own.Dev || st.Ino != own.Ino {
			continue
		}
		err := unix.Rmdir(p)
		return err == nil || errors.Is(err, unix.ENOENT)
	}
	return false
}

// gone reports whether c is confirmed removed: rel no longer resolves
// beneath the root, or resolves to another inode.
func (w *writer) gone(c createdPath) bool {
	fd, err := openBeneath(w.fd, c.rel, unix.O_PATH, 0)
	if errors.Is(err, unix.ENOENT) {
		return true
	}
	if err != nil {
		return false // cannot be verified
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && (st.Ino != c.ino || st.Dev != c.dev)
}

// unlinkBeneath removes rel through its parent directory opened beneath
// root, so a swapped-in symlink cannot redirect the removal.
func unlinkBeneath(rootfd int, rel string, flags int) error {
	parent, name := parentPath(rel), rel[strings.LastIndexByte(rel, '/')+1:]
	dir := rootfd
	if parent != "" {
		fd, err := openBeneath(rootfd, parent, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		dir = fd
	}
	return unix.Unlinkat(dir, name, flags)
}

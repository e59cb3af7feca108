package command

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/evidence"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/internal/jcs"
	"github.com/rea-re/rea/ledger"
)

// Evidence files (CONTRACTS.md §7.5): a connection's bundle written to, or a
// bundle read from, a file inside an administrator-approved Evidence root.
// The permission is decided on the canonical path before the file is touched;
// the file is then opened without following a final symlink and the opened
// descriptor's real path is compared with the approved one, so a component
// swapped between the decision and the open is refused instead of followed.

const (
	opExport = "export_evidence_bundle"
	opImport = "import_evidence_bundle"

	// JSON bounds of an imported file (§7.5).
	maxImportDepth  = 64
	maxImportString = 1 << 20
	maxImportNodes  = 1_000_000
)

// ExportResult is export_evidence_bundle's result.
type ExportResult struct {
	Path         string `json:"path"`
	Bytes        int    `json:"bytes"`
	Records      int    `json:"records"`
	BundleDigest string `json:"bundle_digest"`
}

// ImportResult is import_evidence_bundle's result.
type ImportResult struct {
	Imported     int    `json:"imported"`
	Duplicates   int    `json:"duplicates"`
	Total        int    `json:"total"`
	BundleDigest string `json:"bundle_digest"`
}

// authorizeEvidencePath canonicalizes path for access, decides capability on
// it and returns the approved canonical path.
func authorizeEvidencePath(ctx context.Context, c *engine.Connection, op, capability, identity, access, path string) (string, error) {
	canonical, err := policy.Canonicalize(path, access)
	if err != nil {
		return "", policy.PathFault(op, "/path", err)
	}
	req := policy.Request{
		Scope: policy.Scope{Capability: capability, Roots: []string{canonical}, Executables: []string{},
			EnvironmentNames: []string{}, Network: policy.NetworkNone},
		OperationIdentity: identity + ":" + canonical,
		Access:            access,
	}
	if _, err := c.Authorize(ctx, op, req); err != nil {
		var re *policy.RequestError
		if errors.As(err, &re) {
			return "", policy.PathFault(op, "/path", re.Err)
		}
		return "", err
	}
	return canonical, nil
}

// ExportEvidenceBundle writes this connection's canonical bundle to path
// (§7.5): decided first, then written atomically (a 0600 temporary file in
// the destination directory, fsync, rename or link, fsync of the directory).
// Without overwrite an existing file is refused, also one that appears while
// the bundle is written.
func ExportEvidenceBundle(ctx context.Context, c *engine.Connection, path string, overwrite bool, rep progress.Reporter) (ExportResult, error) {
	rep = progress.OrNop(rep)
	approved, err := authorizeEvidencePath(ctx, c, opExport, policy.EvidenceWrite, "export_evidence", policy.AccessWrite, path)
	if err != nil {
		return ExportResult{}, err
	}
	// The approval followed a final symlink to where the bytes would land;
	// the export itself never writes through one (§7.5 not_file).
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return ExportResult{}, exportFailure("not_file")
	}
	dir, leaf := filepath.Split(approved)
	root, err := openApprovedDir(dir)
	if err != nil {
		return ExportResult{}, err
	}
	defer root.Close()
	if err := checkDestination(root, leaf, overwrite); err != nil {
		return ExportResult{}, err
	}

	rep.Report(progress.Update{Phase: "build", Message: "assembling records"})
	b, err := c.EvidenceBundle(ctx, engine.BundleRequest{Scope: "connection"})
	if err != nil {
		var fe *fault.Error
		if errors.As(err, &fe) && fe.Details != nil && fe.Details["operation"] == "get_evidence_bundle" {
			fe.Details["operation"] = opExport
		}
		return ExportResult{}, err
	}
	rep.Report(progress.Update{Phase: "build", Completed: float64(b.RecordCount), Total: progress.Total(float64(b.RecordCount) + 1), Message: "assembled"})
	if err := ctx.Err(); err != nil {
		return ExportResult{}, fault.CancelledError(opExport).WithCause(err)
	}
	rep.Report(progress.Update{Phase: "write", Total: progress.Total(float64(b.Bytes) + 1), Message: "writing"})
	if err := writeAtomic(root, leaf, b.Bundle, overwrite); err != nil {
		return ExportResult{}, err
	}
	rep.Report(progress.Update{Phase: "write", Completed: float64(b.Bytes), Total: progress.Total(float64(b.Bytes) + 1), Message: "written"})
	// The file is in place: record it even if the caller has gone.
	data := events.BundleExportedData{ConnectionID: c.ID(), Path: approved, BundleDigest: b.BundleDigest, Bytes: b.Bytes,
		Records: b.RecordCount, Overwrite: overwrite}
	if err := c.Append(context.WithoutCancel(ctx),
		[]ledger.NewEvent{c.Engine().Event(events.BundleExported, data)}, nil); err != nil {
		return ExportResult{}, err
	}
	return ExportResult{Path: approved, Bytes: b.Bytes, Records: b.RecordCount, BundleDigest: b.BundleDigest}, nil
}

func exportFailure(reason string) *fault.Error {
	switch reason {
	case "exists":
		return fault.New(fault.ExecutionFailure, "The export destination already exists.",
			"Choose another path, or call again with overwrite:true to replace the file.",
			map[string]any{"operation": opExport, "reason": reason})
	case "not_file":
		return fault.New(fault.ExecutionFailure, "The export destination is not a regular file.",
			"Choose a path that is a regular file or does not exist yet.",
			map[string]any{"operation": opExport, "reason": reason})
	}
	return fault.New(fault.ExecutionFailure, "The export could not be written.", "Check the destination directory and call again.",
		map[string]any{"operation": opExport, "reason": reason})
}

func swapped(op, path string) *fault.Error {
	return fault.New(fault.OutsideApprovedRoot, "The path changed after it was approved.",
		"Make sure nothing replaces directories on the path, then call again.",
		map[string]any{"operation": op, "path": path})
}

// openApprovedDir opens the approved destination directory and checks that
// the directory actually opened is the one approved (a swapped component
// makes it differ).
func openApprovedDir(dir string) (*os.Root, error) {
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "/"
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) {
			return nil, swapped(opExport, dir)
		}
		return nil, fault.Internal(opExport, err)
	}
	f, err := root.Open(".")
	if err != nil {
		root.Close()
		return nil, fault.Internal(opExport, err)
	}
	real, err := fdPath(f)
	f.Close()
	if err != nil {
		root.Close()
		return nil, fault.Internal(opExport, err)
	}
	if real != dir {
		root.Close()
		return nil, swapped(opExport, dir)
	}
	return root, nil
}

// fdPath is the kernel's name for an open file: where it really is.
func fdPath(f *os.File) (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
}

// checkDestination applies the destination rules before any work: an
// existing leaf must be a regular file (never a symlink), and exist only with
// overwrite.
func checkDestination(root *os.Root, leaf string, overwrite bool) error {
	fi, err := root.Lstat(leaf)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fault.Internal(opExport, err)
	}
	if !fi.Mode().IsRegular() {
		return exportFailure("not_file")
	}
	if !overwrite {
		return exportFailure("exists")
	}
	return nil
}

// writeAtomic writes data under a fresh 0600 name in root, syncs it, then
// moves it to leaf: rename when overwriting, link otherwise (link never
// replaces, so a file that appeared meanwhile is kept and reported), and
// syncs the directory so the new name survives a crash.
func writeAtomic(root *os.Root, leaf string, data []byte, overwrite bool) error {
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return fault.Internal(opExport, err)
	}
	tmp := ".rea-export-" + hex.EncodeToString(rnd[:]) + ".tmp"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return exportFailure("io").WithCause(err)
	}
	placed := false
	defer func() {
		if !placed {
			_ = root.Remove(tmp)
		}
	}()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Chmod(0o600) // whatever the umask
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return exportFailure("io").WithCause(werr)
	}
	if overwrite {
		if fi, err := root.Lstat(leaf); err == nil && !fi.Mode().IsRegular() {
			return exportFailure("not_file")
		}
		if err := root.Rename(tmp, leaf); err != nil {
			return exportFailure("io").WithCause(err)
		}
		placed = true
	} else {
		if err := root.Link(tmp, leaf); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return exportFailure("exists")
			}
			return exportFailure("io").WithCause(err)
		}
		_ = root.Remove(tmp)
		placed = true
	}
	d, err := root.Open(".")
	if err != nil {
		return exportFailure("io").WithCause(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return exportFailure("io").WithCause(err)
	}
	return nil
}

// ImportEvidenceBundle verifies a bundle file and merges its records into the
// ledger and this connection's scope (§7.5): every record or none.
func ImportEvidenceBundle(ctx context.Context, c *engine.Connection, path string, rep progress.Reporter) (ImportResult, error) {
	rep = progress.OrNop(rep)
	approved, err := authorizeEvidencePath(ctx, c, opImport, policy.EvidenceRead, "import_evidence", policy.AccessRead, path)
	if err != nil {
		return ImportResult{}, err
	}
	raw, err := readApproved(approved)
	if err != nil {
		return ImportResult{}, err
	}
	rep.Report(progress.Update{Phase: "prepare", Message: "verifying bundle"})
	if err := ctx.Err(); err != nil {
		return ImportResult{}, fault.CancelledError(opImport).WithCause(err)
	}
	records, err := ParseBundle(raw)
	if err != nil {
		return ImportResult{}, err
	}
	rep.Report(progress.Update{Phase: "compute", Message: "merging records"})
	if err := ctx.Err(); err != nil {
		return ImportResult{}, fault.CancelledError(opImport).WithCause(err)
	}
	digest := canon.SHA256Hex(raw)
	type blob struct{ body []byte }
	var blobs []blob
	evs := make([]ledger.NewEvent, 0, len(records)+1)
	res := ImportResult{Total: len(records), BundleDigest: digest}
	for _, r := range records {
		body, err := r.Canonical()
		if err != nil {
			return ImportResult{}, fault.Internal(opImport, err)
		}
		recDigest := canon.SHA256Hex(body)
		stored, exists, err := c.Engine().EvidenceDigest(ctx, r.EvidenceID)
		if err != nil {
			return ImportResult{}, fault.From(opImport, err)
		}
		if exists {
			// The id covers everything but subject.name/local_path, so a
			// verified record with a stored id is the stored record.
			recDigest = stored
			res.Duplicates++
		} else {
			blobs = append(blobs, blob{body})
			res.Imported++
		}
		evs = append(evs, c.Engine().Event(events.EvidenceRecorded, events.EvidenceRecordedData{ConnectionID: c.ID(),
			EvidenceID: r.EvidenceID, Operation: r.Operation, PredicateType: r.PredicateType, RecordDigest: recDigest,
			New: !exists, Origin: "import"}))
	}
	evs = append(evs, c.Engine().Event(events.BundleImported, events.BundleImportedData{ConnectionID: c.ID(), Path: approved,
		BundleDigest: digest, Bytes: len(raw), Records: len(records), Imported: res.Imported, Duplicates: res.Duplicates}))
	err = c.Append(ctx, evs, func(tx *sql.Tx) error {
		for _, b := range blobs {
			if _, err := c.Engine().Config().Ledger.PutBlob(tx, b.body); err != nil {
				return err
			}
		}
		return ctx.Err() // a cancelled import appends nothing
	})
	if err != nil {
		if ctx.Err() != nil {
			return ImportResult{}, fault.CancelledError(opImport).WithCause(err)
		}
		return ImportResult{}, err
	}
	return res, nil
}

// readApproved reads a regular file of at most evidence.MaxBundleBytes at the approved
// path, refusing a final symlink and a file that is not where it was approved.
func readApproved(approved string) ([]byte, error) {
	f, err := os.OpenFile(approved, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, swapped(opImport, approved)
		}
		return nil, importFailure("io").WithCause(err)
	}
	defer f.Close()
	real, err := fdPath(f)
	if err != nil {
		return nil, importFailure("io").WithCause(err)
	}
	if real != approved {
		return nil, swapped(opImport, approved)
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, importFailure("io").WithCause(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, importFailure("not_file")
	}
	if fi.Size() > evidence.MaxBundleBytes {
		return nil, importTooLarge(fi.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, evidence.MaxBundleBytes+1))
	if err != nil {
		return nil, importFailure("io").WithCause(err)
	}
	if len(b) > evidence.MaxBundleBytes {
		return nil, importTooLarge(int64(len(b)))
	}
	return b, nil
}

func importTooLarge(actual int64) *fault.Error {
	return fault.New(fault.Truncated, "The bundle file exceeds the import bound.", "Import a smaller bundle (at most 64 MiB).",
		map[string]any{"operation": opImport, "limit": "bytes", "maximum": evidence.MaxBundleBytes, "actual": actual, "truncated": true})
}

func importFailure(reason string) *fault.Error {
	msg := "The bundle file could not be read."
	switch reason {
	case "invalid_json":
		msg = "The bundle file is not JSON within the import bounds."
	case "not_file":
		msg = "The bundle path is not a regular file."
	}
	return fault.New(fault.ExecutionFailure, msg, "Import a bundle written by export_evidence_bundle or `rea evidence bundle`.",
		map[string]any{"operation": opImport, "reason": reason})
}

func bundleMismatch(evidenceID any, reason string) *fault.Error {
	return fault.New(fault.EvidenceIntegrityMismatch, "The bundle does not verify.",
		"Import the bundle exactly as REA wrote it; nothing was imported.",
		map[string]any{"evidence_id": evidenceID, "reason": reason})
}

var (
	evidenceIDRE   = regexp.MustCompile(`^ev_[0-9a-f]{64}$`)
	bundleSections = []string{"artifacts", "bundle_version", "captures", "environments", "providers", "records", "scenarios", "unknowns"}
)

// ParseBundle checks untrusted bundle bytes (§7.5) and returns the verified
// records in bundle order. In order: JSON bounds (execution_failure
// invalid_json), byte canonicality, the bundle and record schemas, every id,
// duplicates and order, and finally the whole file against the bundle the
// records rebuild to, so every section is the canonical one.
func ParseBundle(raw []byte) ([]*evidence.Record, error) {
	if err := checkJSONBounds(raw); err != nil {
		return nil, importFailure("invalid_json").WithCause(err)
	}
	if c, err := jcs.Transform(raw); err != nil {
		return nil, importFailure("invalid_json").WithCause(err)
	} else if !bytes.Equal(c, raw) {
		return nil, bundleMismatch(nil, "not_canonical")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, bundleMismatch(nil, "schema").WithCause(err)
	}
	if len(top) != len(bundleSections) {
		return nil, bundleMismatch(nil, "schema")
	}
	for _, k := range bundleSections {
		if _, ok := top[k]; !ok {
			return nil, bundleMismatch(nil, "schema")
		}
	}
	if string(top["bundle_version"]) != "2" {
		return nil, bundleMismatch(nil, "schema")
	}
	var recs []json.RawMessage
	if err := json.Unmarshal(top["records"], &recs); err != nil || recs == nil {
		return nil, bundleMismatch(nil, "schema")
	}
	records := make([]*evidence.Record, 0, len(recs))
	for _, b := range recs {
		r, err := evidence.DecodeRecord(b)
		if err != nil {
			return nil, bundleMismatch(nil, "schema").WithCause(err)
		}
		if err := checkRecordSchema(r, b); err != nil {
			return nil, bundleMismatch(idOrNil(r.EvidenceID), "schema").WithCause(err)
		}
		if err := r.Verify(); err != nil {
			return nil, bundleMismatch(r.EvidenceID, "id_mismatch").WithCause(err)
		}
		if n := len(records); n > 0 {
			prev := records[n-1].EvidenceID
			if prev == r.EvidenceID {
				return nil, bundleMismatch(r.EvidenceID, "duplicate_id")
			}
			if prev > r.EvidenceID {
				return nil, bundleMismatch(nil, "not_canonical")
			}
		}
		records = append(records, r)
	}
	rebuilt, err := evidence.BuildBundle(records)
	if err != nil {
		return nil, bundleMismatch(nil, "schema").WithCause(err)
	}
	if !bytes.Equal(rebuilt, raw) {
		return nil, bundleMismatch(nil, "not_canonical")
	}
	return records, nil
}

func idOrNil(id string) any {
	if evidenceIDRE.MatchString(id) {
		return id
	}
	return nil
}

// checkRecordSchema checks what strict decoding cannot: versions, id format,
// enums, and that nothing was absent (a record that re-encodes differently
// lacked a key or held a value of the wrong shape).
func checkRecordSchema(r *evidence.Record, raw []byte) error {
	if r.SchemaVersion != 2 {
		return fmt.Errorf("schema_version %d", r.SchemaVersion)
	}
	if !evidenceIDRE.MatchString(r.EvidenceID) {
		return fmt.Errorf("evidence_id format")
	}
	if r.PredicateType != evidence.PredicateAnalysis && r.PredicateType != "rea.process-capture/v1" {
		return fmt.Errorf("predicate_type")
	}
	switch r.Confidence {
	case "observed", "derived", "inferred":
	default:
		return fmt.Errorf("confidence")
	}
	switch r.Authority {
	case "shipped-artifact", "controlled-replay", "historical-reference", "external-service", "analyst-inference":
	default:
		return fmt.Errorf("authority")
	}
	if r.Environment != nil {
		switch r.Environment.Isolation {
		case "none", "process", "container", "virtual-machine":
		default:
			return fmt.Errorf("environment.isolation")
		}
	}
	if r.Operation == "" || r.Provider.ID == "" || r.Parameters == nil || len(r.NormalizedResult) == 0 {
		return fmt.Errorf("missing member")
	}
	for _, l := range r.EvidenceLinks {
		if !evidenceIDRE.MatchString(l) {
			return fmt.Errorf("evidence_links format")
		}
	}
	c, err := r.Canonical()
	if err != nil {
		return err
	}
	if !bytes.Equal(c, raw) {
		return fmt.Errorf("record does not re-encode to its bytes")
	}
	return nil
}

// checkJSONBounds enforces the import limits in one pass over raw, before
// anything is parsed from it: nesting depth, string length (raw bytes) and
// node count (values and member names). Syntax is not its concern; the
// canonical transform that follows rejects malformed text.
func checkJSONBounds(raw []byte) error {
	depth, nodes := 0, 0
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case ' ', '\t', '\n', '\r', ',', ':':
			continue
		case '{', '[':
			if depth++; depth > maxImportDepth {
				return fmt.Errorf("nesting deeper than %d", maxImportDepth)
			}
		case '}', ']':
			depth--
			continue
		case '"':
			start := i + 1
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
			if i-start > maxImportString {
				return fmt.Errorf("a string is longer than %d bytes", maxImportString)
			}
		default:
			// A number or literal: one node up to the next delimiter.
			for i+1 < len(raw) && !strings.ContainsRune(" \t\n\r,:{}[]\"", rune(raw[i+1])) {
				i++
			}
		}
		if nodes++; nodes > maxImportNodes {
			return fmt.Errorf("more than %d nodes", maxImportNodes)
		}
	}
	return nil
}

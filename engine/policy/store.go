package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
)

// Project store failure reasons (configuration_invalid details.reason,
// CONTRACTS.md §9.6).
const (
	StoreProjectNotFound = "project_not_found"
	StoreNotOwnerOnly    = "not_owner_only"
	StoreInvalid         = "invalid"
	StoreLocked          = "locked"
	StoreIO              = "io"
)

const (
	storeSchemaVersion = 1
	maxStoreGrants     = 1000
	// maxStoreBytes bounds what a read will take in: 1000 grants of 128 paths
	// each fit with room to spare.
	maxStoreBytes = 32 << 20
	lockAttempts  = 100
	lockInterval  = 10 * time.Millisecond
)

// StoreFault is configuration_invalid for the project store. The cause is
// kept for errors.Is and logs, without the store's path.
func StoreFault(reason string, cause error) *fault.Error {
	e := ConfigFault(EnvProjectStore, reason)
	if cause != nil {
		e = e.WithCause(causeOnly(cause))
	}
	return e
}

// StoreReason extracts the reason of a store or configuration fault ("" if
// err is not one).
func StoreReason(err error) string {
	var fe *fault.Error
	if errors.As(err, &fe) && fe.Code == fault.ConfigurationInvalid {
		r, _ := fe.Details["reason"].(string)
		return r
	}
	return ""
}

type storeFile struct {
	SchemaVersion int               `json:"schema_version"`
	ProjectID     string            `json:"project_id"`
	ProjectRoot   string            `json:"project_root"`
	Grants        []json.RawMessage `json:"grants"`
}

var grantIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)

// ParseStore validates the bytes of a project store against cfg (the store
// must name this project: a relocated store is invalid) and the ceilings (every
// grant must lie inside its capability's ceiling), and returns its grants in
// canonical form. Every failure is StoreFault(invalid).
func ParseStore(b []byte, cfg StoreConfig, c *Ceilings) ([]Grant, error) {
	f, err := decodeStore(b)
	if err != nil {
		return nil, err
	}
	if f.SchemaVersion != storeSchemaVersion {
		return nil, StoreFault(StoreInvalid, errors.New("unsupported schema_version"))
	}
	if f.ProjectRoot != cfg.Root || f.ProjectID != cfg.ProjectID() {
		return nil, StoreFault(StoreInvalid, errors.New("the store belongs to another project root"))
	}
	if len(f.Grants) > maxStoreGrants {
		return nil, StoreFault(StoreInvalid, errors.New("more than 1000 grants"))
	}
	grants := make([]Grant, 0, len(f.Grants))
	for i, raw := range f.Grants {
		var g Grant
		if err := strictUnmarshal(raw, &g); err != nil {
			return nil, StoreFault(StoreInvalid, fmt.Errorf("grants[%d]: %w", i, err))
		}
		grants = append(grants, g)
	}
	return validateProjectGrants(grants, c)
}

func decodeStore(b []byte) (*storeFile, error) {
	var f storeFile
	if err := strictUnmarshal(b, &f); err != nil {
		return nil, StoreFault(StoreInvalid, err)
	}
	return &f, nil
}

// strictUnmarshal refuses unknown fields and trailing data.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

func validateProjectGrants(grants []Grant, c *Ceilings) ([]Grant, error) {
	if len(grants) > maxStoreGrants {
		return nil, StoreFault(StoreInvalid, errors.New("more than 1000 grants"))
	}
	seen := map[string]bool{}
	out := make([]Grant, 0, len(grants))
	for i, g := range grants {
		bad := func(why string) error {
			return StoreFault(StoreInvalid, fmt.Errorf("grants[%d]: %s", i, why))
		}
		if !grantIDRE.MatchString(g.GrantID) || strings.HasPrefix(g.GrantID, "administrator:") {
			return nil, bad("invalid grant_id")
		}
		if seen[g.GrantID] {
			return nil, bad("duplicate grant_id")
		}
		seen[g.GrantID] = true
		if g.Lifetime != LifetimeProject {
			return nil, bad(`lifetime must be "project"`)
		}
		s, err := normalizeScope(g.Scope)
		if err != nil {
			return nil, bad(err.Error())
		}
		g.Scope = s
		if g.OperationIdentity != nil && *g.OperationIdentity == "" {
			return nil, bad("empty operation_identity")
		}
		if g.ExpiresAt != nil {
			if _, err := parseTime(*g.ExpiresAt); err != nil {
				return nil, bad("expires_at is not an RFC 3339 UTC millisecond timestamp")
			}
		}
		if !scopeWithin(&g.Scope, c.ceiling(g.Capability)) {
			return nil, bad("outside the administrator ceiling of " + g.Capability)
		}
		out = append(out, cloneGrant(g))
	}
	return out, nil
}

// StoreSnapshot is one read of the project store.
type StoreSnapshot struct {
	Grants []Grant // canonical; empty when the file is absent
	SHA256 *string // of the file's bytes; nil when absent
	raw    []byte  // the bytes read
	file   *storeFile
}

// ReadStore opens the store without following a symlink, requires a regular
// file owned by the effective user with no group/other permission bits, and
// parses it (ParseStore). An absent file means no grants.
func ReadStore(cfg StoreConfig, c *Ceilings) (StoreSnapshot, error) {
	if _, err := os.Stat(cfg.Root); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return StoreSnapshot{}, StoreFault(StoreProjectNotFound, nil)
		}
		return StoreSnapshot{}, StoreFault(StoreIO, causeOnly(err))
	}
	b, err := readOwnerOnly(cfg.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return StoreSnapshot{Grants: []Grant{}}, nil
	}
	if err != nil {
		return StoreSnapshot{}, err
	}
	grants, err := ParseStore(b, cfg, c)
	if err != nil {
		return StoreSnapshot{}, err
	}
	f, _ := decodeStore(b)
	sum := canon.SHA256Hex(b)
	return StoreSnapshot{Grants: grants, SHA256: &sum, file: f}, nil
}

// readOwnerOnly reads path per §9.6: O_NOFOLLOW (a symlinked store is
// refused), O_NONBLOCK (a FIFO must not hang the reload), then fstat of the
// descriptor actually opened. A missing file returns fs.ErrNotExist as is.
func readOwnerOnly(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		switch {
		case errors.Is(err, syscall.ENOENT):
			return nil, fs.ErrNotExist
		case errors.Is(err, syscall.ELOOP):
			return nil, StoreFault(StoreInvalid, errors.New("the store is a symbolic link"))
		case errors.Is(err, syscall.EACCES):
			return nil, StoreFault(StoreNotOwnerOnly, err)
		}
		return nil, StoreFault(StoreIO, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if err := ownerOnly(f); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxStoreBytes+1))
	if err != nil {
		return nil, StoreFault(StoreIO, err)
	}
	if len(b) > maxStoreBytes {
		return nil, StoreFault(StoreInvalid, errors.New("store too large"))
	}
	return b, nil
}

// ownerOnly checks an open file: regular, owned by the effective user,
// mode & 0o077 == 0.
func ownerOnly(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return StoreFault(StoreIO, err)
	}
	if !fi.Mode().IsRegular() {
		return StoreFault(StoreInvalid, errors.New("the store is not a regular file"))
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return StoreFault(StoreIO, errors.New("no owner information"))
	}
	if int(st.Uid) != os.Geteuid() {
		return StoreFault(StoreNotOwnerOnly, errors.New("the store is owned by another user"))
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return StoreFault(StoreNotOwnerOnly, errors.New("the store is readable or writable by others"))
	}
	return nil
}

// lockStore takes the exclusive flock on <store>.lock (0600): at most 100
// attempts 10 ms apart, else locked.
func lockStore(ctx context.Context, path string) (unlock func(), err error) {
	fd, err := syscall.Open(path+".lock", syscall.O_RDWR|syscall.O_CREAT|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, StoreFault(StoreInvalid, errors.New("the lock file is a symbolic link"))
		}
		return nil, StoreFault(StoreIO, err)
	}
	f := os.NewFile(uintptr(fd), path+".lock")
	if err := ownerOnly(f); err != nil {
		f.Close()
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing releases the flock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, StoreFault(StoreIO, err)
		}
		if attempt+1 >= lockAttempts {
			f.Close()
			return nil, StoreFault(StoreLocked, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fault.CancelledError("policy_revoke").WithCause(ctx.Err())
		case <-time.After(lockInterval):
		}
	}
}

// RevokeFromStore removes one grant from the project store (the only write
// REA makes to it; grants are authored by editing the file). Under the lock it
// re-reads the store; shown, when not nil, is the grant the person confirmed,
// and a store whose grant differs from it by now is revision_conflict. The
// new file goes to a 0600 temp file in the same directory, is fsynced and
// renamed over the store, the directory fsynced, and the store re-read and
// compared. It returns the removed grant and its grant_revoked event (source
// cli); a live process applies the removal immediately when it sees the event.
func RevokeFromStore(ctx context.Context, cfg StoreConfig, c *Ceilings, grantID string, shown *Grant) (Grant, Emit, error) {
	dir := filepath.Dir(cfg.Path)
	if err := ownerOnlyDir(dir); err != nil {
		return Grant{}, Emit{}, err
	}
	unlock, err := lockStore(ctx, cfg.Path)
	if err != nil {
		return Grant{}, Emit{}, err
	}
	defer unlock()

	snap, err := ReadStore(cfg, c)
	if err != nil {
		return Grant{}, Emit{}, err
	}
	idx := -1
	for i, g := range snap.Grants {
		if g.GrantID == grantID {
			idx = i
		}
	}
	if idx < 0 {
		return Grant{}, Emit{}, ErrGrantNotFound
	}
	removed := snap.Grants[idx]
	if shown != nil && !sameGrant(*shown, removed) {
		return Grant{}, Emit{}, fault.New(fault.RevisionConflict, "The project store changed during the revocation.",
			"Run the revocation again.", map[string]any{"stream": events.PolicyStream})
	}

	// The other grants keep their authored bytes (only re-indented).
	keep := make([]json.RawMessage, 0, len(snap.file.Grants))
	for i, raw := range snap.file.Grants {
		if i != idx {
			keep = append(keep, raw)
		}
	}
	next := storeFile{SchemaVersion: snap.file.SchemaVersion, ProjectID: snap.file.ProjectID,
		ProjectRoot: snap.file.ProjectRoot, Grants: keep}
	out, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return Grant{}, Emit{}, StoreFault(StoreIO, err)
	}
	out = append(out, '\n')
	if err := writeAtomic(cfg.Path, out); err != nil {
		return Grant{}, Emit{}, err
	}
	back, err := readOwnerOnly(cfg.Path)
	if err != nil || !bytes.Equal(back, out) {
		return Grant{}, Emit{}, fault.New(fault.RevisionConflict, "The project store changed during the revocation.",
			"Inspect the project store, then run the revocation again.", map[string]any{"stream": events.PolicyStream})
	}
	return removed, Emit{Stream: events.PolicyStream, Type: events.GrantRevoked,
		Data: events.GrantRevokedData{GrantID: grantID, Source: SourceCLI}}, nil
}

func sameGrant(a, b Grant) bool {
	if s, err := normalizeScope(a.Scope); err == nil {
		a.Scope = s
	}
	x, err1 := canon.Marshal(a)
	y, err2 := canon.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// ownerOnlyDir requires the store's directory to be the effective user's with
// mode 0700 (no group/other bits), so no one else can swap the file.
func ownerOnlyDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return StoreFault(StoreIO, err)
		}
		return StoreFault(StoreIO, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok {
		return StoreFault(StoreInvalid, errors.New("the store's parent is not a directory"))
	}
	if int(st.Uid) != os.Geteuid() || fi.Mode().Perm()&0o077 != 0 {
		return StoreFault(StoreNotOwnerOnly, errors.New("the store's directory must be 0700 and the user's own"))
	}
	return nil
}

// writeAtomic writes b to a fresh 0600 temp file beside path (O_CREAT|O_EXCL),
// fsyncs it, renames it over path and fsyncs the directory.
func writeAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return StoreFault(StoreIO, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return StoreFault(StoreIO, err)
	}
	if _, err := tmp.Write(b); err != nil {
		return StoreFault(StoreIO, err)
	}
	if err := tmp.Sync(); err != nil {
		return StoreFault(StoreIO, err)
	}
	if err := tmp.Close(); err != nil {
		return StoreFault(StoreIO, err)
	}
	if err := os.Rename(name, path); err != nil {
		return StoreFault(StoreIO, err)
	}
	ok = true
	d, err := os.Open(dir)
	if err != nil {
		return StoreFault(StoreIO, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return StoreFault(StoreIO, err)
	}
	return nil
}

// WriteStore writes a complete store file for cfg with the given grants (0600,
// atomically, under the lock). REA itself only revokes; this is for tests and
// tooling that author a store.
func WriteStore(ctx context.Context, cfg StoreConfig, c *Ceilings, grants []Grant) error {
	norm, err := validateProjectGrants(grants, c)
	if err != nil {
		return err
	}
	raws := make([]json.RawMessage, 0, len(norm))
	for _, g := range norm {
		b, err := json.Marshal(g)
		if err != nil {
			return StoreFault(StoreIO, err)
		}
		raws = append(raws, b)
	}
	out, err := json.MarshalIndent(storeFile{SchemaVersion: storeSchemaVersion, ProjectID: cfg.ProjectID(),
		ProjectRoot: cfg.Root, Grants: raws}, "", "  ")
	if err != nil {
		return StoreFault(StoreIO, err)
	}
	unlock, err := lockStore(ctx, cfg.Path)
	if err != nil {
		return err
	}
	defer unlock()
	return writeAtomic(cfg.Path, append(out, '\n'))
}

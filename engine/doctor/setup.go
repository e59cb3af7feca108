package doctor

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rea-re/rea/engine/fault"
)

// Setup actions.
const (
	Created   = "created"
	Updated   = "updated"
	Unchanged = "unchanged"
)

// SetupOptions tunes Setup.
type SetupOptions struct {
	// DryRun plans and writes nothing.
	DryRun bool
	// Now stamps backup names (default time.Now).
	Now func() time.Time
	// HTTP, when set, registers the streamable HTTP server it names instead
	// of the stdio command.
	HTTP *HTTPServer
}

// HTTPServer is a `rea mcp --http` endpoint and the bearer token its
// clients send. The token is written into registration files (owner-only)
// and nowhere else: never into a result, an error or a backup name.
type HTTPServer struct {
	URL   string
	Token string
}

// authorization is the header value the client sends.
func (s *HTTPServer) authorization() string { return "Bearer " + s.Token }

// SetupResult is one client's outcome (CONTRACTS.md §12).
type SetupResult struct {
	Client     string  `json:"client"`
	ConfigPath string  `json:"config_path"`
	Action     string  `json:"action"`
	BackupPath *string `json:"backup_path"`
	// Before is the registration as it was, for the readable plan.
	Before Registration `json:"-"`
}

// backupLayout is the UTC stamp of a backup name: <file>.rea-backup-<stamp>.
const backupLayout = "20060102T150405Z"

// Setup points the `rea` entry of each client's registration at h.Executable
// with the arguments [mcp] (or, with opt.HTTP, at that URL with the
// Authorization header), keeping every other key. It validates every file
// before writing any: an invalid registration is never overwritten
// (configuration_invalid, nothing written). An existing file is first copied
// to a backup (0600), then replaced atomically, and read back: the result
// must classify aligned (with opt.HTTP: name the URL and the header).
func Setup(ctx context.Context, h Host, cs []Client, opt SetupOptions) ([]SetupResult, error) {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	if opt.HTTP != nil {
		var issues []fault.Issue
		var capable []string
		for _, c := range Clients(h.GOOS) {
			if c.URLKey != "" {
				capable = append(capable, c.ID)
			}
		}
		for _, c := range cs {
			if c.URLKey == "" {
				issues = append(issues, fault.Issue{Path: "client", Reason: "invalid_value",
					Message:  c.ID + " registers only stdio servers in its file; register it without --http",
					Expected: strings.Join(capable, ", ")})
			}
		}
		if len(issues) > 0 {
			return nil, fault.Invalid("setup", issues...)
		}
	}
	out := make([]SetupResult, 0, len(cs))
	var bad []map[string]any
	for _, c := range cs {
		r := plan(h, c, opt.HTTP)
		if r.Before.State == Invalid {
			bad = append(bad, map[string]any{"client": c.ID, "config_path": r.ConfigPath, "problem": r.Before.Problem})
		}
		out = append(out, r)
	}
	if len(bad) > 0 {
		return nil, fault.New(fault.ConfigurationInvalid,
			"A registration file is not valid, so rea setup left every file untouched.",
			"Repair or move the listed file (see `rea doctor`), then run `rea setup` again.",
			map[string]any{"reason": "registration_invalid", "registrations": bad})
	}
	if opt.DryRun {
		return out, nil
	}
	for i, c := range cs {
		if err := ctx.Err(); err != nil {
			return nil, fault.CancelledError("setup").WithCause(err)
		}
		r, err := apply(h, c, opt.HTTP, now().UTC())
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// plan classifies c's file and says what Setup would do (srv: register
// that HTTP server; nil: the stdio command).
func plan(h Host, c Client, srv *HTTPServer) SetupResult {
	before := Classify(h, c)
	r := SetupResult{Client: c.ID, ConfigPath: before.ConfigPath, Before: before, Action: Updated}
	switch {
	case srv == nil && before.State == Aligned, srv != nil && before.State != Invalid && registersHTTP(c, before.ConfigPath, srv):
		r.Action = Unchanged
	case before.State == Missing && !exists(before.ConfigPath):
		r.Action = Created
	}
	return r
}

// registersHTTP reports whether c's file registers srv: the entry has the
// URL, the Authorization header, the client's type if it needs one, and no
// command.
func registersHTTP(c Client, path string, srv *HTTPServer) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var e httpEntry
	if c.Format == TOML {
		e = readTOMLHTTPEntry(c, data)
	} else {
		e = readJSONHTTPEntry(c, data)
	}
	return e.ok && !e.command && e.url == srv.URL && e.typ == c.HTTPType &&
		subtle.ConstantTimeCompare([]byte(e.authorization), []byte(srv.authorization())) == 1
}

// httpEntry is what registersHTTP reads of an entry.
type httpEntry struct {
	ok            bool // the entry exists and every field read has the expected type
	command       bool // a command key is present
	url, typ      string
	authorization string // the one header named Authorization in any case; "" if none or several
}

// editHTTP turns an entry into an HTTP one: the URL and the Authorization
// header set (any other spelling of that header dropped), the command, its
// arguments and the other clients' URL keys dropped, every other key kept.
func editHTTP(c Client, srv *HTTPServer) (drop []string, url, authorization string) {
	drop = []string{"command", "args", "type"}
	for _, k := range remoteKeys {
		if k != c.URLKey {
			drop = append(drop, k)
		}
	}
	return drop, srv.URL, srv.authorization()
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// apply writes one client's registration. It plans again from the file as
// it is now, since a client may have rewritten it meanwhile.
func apply(h Host, c Client, srv *HTTPServer, stamp time.Time) (SetupResult, error) {
	r := plan(h, c, srv)
	if r.Before.State == Invalid {
		return r, fault.New(fault.ConfigurationInvalid,
			"The registration file of "+c.ID+" changed and is no longer valid; it was left untouched.",
			"Repair or move the file (see `rea doctor`), then run `rea setup` again.",
			map[string]any{"reason": "registration_invalid", "registrations": []map[string]any{
				{"client": c.ID, "config_path": r.ConfigPath, "problem": r.Before.Problem}}})
	}
	if r.Action == Unchanged {
		return r, nil
	}
	fail := func(step string, err error) (SetupResult, error) {
		return r, fault.New(fault.ExecutionFailure,
			fmt.Sprintf("Writing the registration of %s failed (%s: %s).", c.ID, step, safeIOError(err)),
			"Check the permissions of the file and its directory, then run `rea setup` again.",
			map[string]any{"client": c.ID, "config_path": r.ConfigPath}).WithCause(err)
	}

	// Write through a symlink to its target, so a link into a dotfiles
	// repository stays a link.
	target := r.ConfigPath
	var old []byte
	perm := fs.FileMode(0o600)
	if r.Action == Updated {
		var err error
		if target, err = filepath.EvalSymlinks(r.ConfigPath); err != nil {
			return fail("resolve", err)
		}
		fi, err := os.Stat(target)
		if err != nil {
			return fail("stat", err)
		}
		perm = fi.Mode().Perm() &^ 0o077 // owner-only: these files hold secrets
		if old, err = os.ReadFile(target); err != nil {
			return fail("read", err)
		}
	} else if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return fail("mkdir", err)
	}

	var data []byte
	var err error
	switch {
	case c.Format == TOML && srv != nil:
		data, err = setTOMLHTTPEntry(c, old, srv)
	case c.Format == TOML:
		data, err = setTOMLEntry(c.Table, old, h.Executable)
	case srv != nil:
		data, err = setJSONHTTPEntry(c, old, srv)
	default:
		data, err = setJSONEntry(c.Table, old, h.Executable)
	}
	if err != nil {
		return fail("edit", err)
	}
	if old != nil {
		b, err := backup(r.ConfigPath, old, stamp)
		if err != nil {
			return fail("backup", err)
		}
		r.BackupPath = &b
	}
	if err := writeAtomic(target, data, perm); err != nil {
		return fail("write", err)
	}
	if srv != nil {
		if !registersHTTP(c, r.ConfigPath, srv) {
			return r, fault.New(fault.ExecutionFailure,
				fmt.Sprintf("The registration of %s was written but does not read back as the HTTP server.", c.ID),
				"Inspect the file and its backup, then run `rea setup --http` again.",
				map[string]any{"client": c.ID, "config_path": r.ConfigPath})
		}
	} else if after := Classify(h, c); after.State != Aligned {
		return r, fault.New(fault.ExecutionFailure,
			fmt.Sprintf("The registration of %s was written but reads back as %s (%s).", c.ID, after.State, after.Problem),
			"Inspect the file and its backup, then run `rea setup` again.",
			map[string]any{"client": c.ID, "config_path": r.ConfigPath, "state": string(after.State)})
	}
	return r, nil
}

// backup copies the previous bytes to <path>.rea-backup-<stamp> (0600,
// never overwriting: a second backup in the same second gets a suffix).
func backup(path string, old []byte, stamp time.Time) (string, error) {
	base := path + ".rea-backup-" + stamp.Format(backupLayout)
	for i := 0; i < 100; i++ {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s.%d", base, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(old)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", err
		}
		return name, nil
	}
	return "", fmt.Errorf("backup %s: %w", base, fs.ErrExist)
}

// writeAtomic replaces path with data: a temporary file in the same
// directory, synced, renamed over path, and the directory synced, so a
// crash leaves either the old file or the new one.
func writeAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".rea-tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

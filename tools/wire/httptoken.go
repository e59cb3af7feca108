package wire

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rea-re/rea/engine/fault"
)

// The generated bearer token (CONTRACTS.md §0, §4 HTTP binding): 32 random
// bytes, hex-encoded, in a file only its owner can read, so the local
// user's MCP clients can present it and no other user can. The token never
// enters an error, a log line or the ledger; only the file's path does.

// HTTPTokenPath is where `rea mcp --http` keeps a generated token:
// $XDG_RUNTIME_DIR/rea/http-token when XDG_RUNTIME_DIR is set, else
// ${XDG_STATE_HOME:-$HOME/.local/state}/rea/http-token. Relative values are
// ignored, as the XDG specification asks. ok is false when none of the three
// variables is usable.
func HTTPTokenPath(lookupEnv func(string) (string, bool)) (path string, ok bool) {
	for _, v := range []struct{ name, sub string }{
		{"XDG_RUNTIME_DIR", ""}, {"XDG_STATE_HOME", ""}, {"HOME", filepath.Join(".local", "state")},
	} {
		if d, _ := lookupEnv(v.name); filepath.IsAbs(d) {
			return filepath.Join(d, v.sub, "rea", "http-token"), true
		}
	}
	return "", false
}

// LoadOrCreateHTTPToken returns the token in path, or generates one and
// writes it there. An existing token is reused (so client registrations
// written by `rea setup --http` keep working across restarts) only when
// the file is a regular file no one but its owner can read or write and
// holds a valid token; otherwise it is replaced. The directory is created
// 0700 (or narrowed to 0700); the file is written 0600, atomically.
func LoadOrCreateHTTPToken(path string) (token string, generated bool, err error) {
	fail := func(step string, err error) (string, bool, error) {
		return "", false, fault.New(fault.ExecutionFailure,
			"REA could not keep its bearer token in "+path+" ("+step+": "+ioReason(err)+").",
			"Make the directory writable by you alone, or set "+BearerTokenEnv+" to at least 32 random bytes.",
			map[string]any{"reason": "token_file_failed", "path": path}).WithCause(err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fail("mkdir", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fail("stat", err)
	}
	if !fi.IsDir() {
		return fail("stat", &fs.PathError{Op: "stat", Path: dir, Err: errors.New("not a directory")})
	}
	if fi.Mode().Perm() != 0o700 {
		// Fails (EPERM) when another user owns the directory.
		if err := os.Chmod(dir, 0o700); err != nil {
			return fail("chmod", err)
		}
	}
	if tok, ok := readTokenFile(path); ok {
		return tok, false, nil
	}
	var raw [32]byte
	rand.Read(raw[:]) // never fails (crypto/rand panics on a broken source)
	tok := hex.EncodeToString(raw[:])
	if err := writeTokenFile(path, tok); err != nil {
		return fail("write", err)
	}
	return tok, true, nil
}

// readTokenFile reads an existing token that is safe to reuse.
func readTokenFile(path string) (string, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 || fi.Size() > 4096 {
		return "", false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	tok := strings.TrimSpace(string(b))
	return tok, CheckBearerToken(tok) == nil
}

// writeTokenFile replaces path with tok: a 0600 temporary file in the same
// directory, synced and renamed over path.
func writeTokenFile(path, tok string) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".http-token-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(0o600); err == nil {
		if _, err = f.WriteString(tok + "\n"); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// ioReason keeps the operation and errno of an I/O error (the path is
// reported separately).
func ioReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Op + ": " + le.Err.Error()
	}
	return err.Error()
}

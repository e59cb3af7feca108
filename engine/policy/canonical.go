package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rea-re/rea/engine/fault"
)

// Canonicalization errors. A path error wraps one of these (or another I/O
// error), so callers map it with PathFault.
var (
	ErrNotAbsolute = errors.New("policy: path is not absolute")
	// ErrNotFound wraps fs.ErrNotExist: a read path that does not exist, or a
	// write path whose parent does not.
	ErrNotFound = fmt.Errorf("policy: path does not exist: %w", fs.ErrNotExist)
)

// maxLinkHops bounds the dangling-symlink chain a write leaf may follow (the
// kernel's own limit is 40).
const maxLinkHops = 40

// Canonicalize resolves p to its realpath (CONTRACTS.md §9.3). For
// access "write" only the last component may be missing: the path is then
// realpath(parent) + "/" + leaf. A leaf that is a dangling symlink is followed,
// because a write through it lands at its target: the returned path is where
// the bytes would go, so a link out of a root is caught by coverage.
func Canonicalize(p, access string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", ErrNotAbsolute
	}
	for hops := 0; ; hops++ {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return real, nil
		}
		if access != AccessWrite || !errors.Is(err, fs.ErrNotExist) {
			return "", pathErr(err)
		}
		// Split without cleaning: "a/link/../x" must resolve physically, so the
		// parent keeps its ".." for EvalSymlinks to apply after the link.
		trimmed := strings.TrimRight(p, "/")
		i := strings.LastIndexByte(trimmed, '/')
		leaf := trimmed[i+1:]
		parent := trimmed[:i]
		if parent == "" {
			parent = "/"
		}
		if leaf == "" || leaf == "." || leaf == ".." {
			return "", ErrNotFound
		}
		realParent, err := filepath.EvalSymlinks(parent)
		if err != nil {
			return "", pathErr(err)
		}
		if fi, err := os.Stat(realParent); err != nil {
			return "", pathErr(err)
		} else if !fi.IsDir() {
			return "", ErrNotFound
		}
		full := filepath.Join(realParent, leaf)
		fi, err := os.Lstat(full)
		if errors.Is(err, fs.ErrNotExist) {
			return full, nil
		}
		if err != nil {
			return "", pathErr(err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 || hops >= maxLinkHops {
			// Something appeared between the two looks, or a link loop.
			return "", pathErr(fmt.Errorf("policy: unresolvable write path: %w", fs.ErrInvalid))
		}
		target, err := os.Readlink(full)
		if err != nil {
			return "", pathErr(err)
		}
		if !filepath.IsAbs(target) {
			// Not Join: Join would clean "x/link/../y" lexically, and the next
			// EvalSymlinks must see it physically.
			target = strings.TrimSuffix(realParent, "/") + "/" + target
		}
		p = target
	}
}

func pathErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return ErrNotFound
	}
	if errors.Is(err, ErrNotAbsolute) || errors.Is(err, ErrNotFound) {
		return err
	}
	// ENOTDIR while walking means a component is a file: the path cannot exist.
	if errors.Is(err, syscall.ENOTDIR) {
		return ErrNotFound
	}
	return fmt.Errorf("policy: resolve path: %w", err)
}

// PathFault maps a Canonicalize error to the typed failure of CONTRACTS.md
// §9.3: a relative path or a missing path is invalid_request (invalid_value at
// pointer, the JSON Pointer of the argument); any other I/O failure is
// execution_failure.
func PathFault(operation, pointer string, err error) *fault.Error {
	switch {
	case errors.Is(err, ErrNotAbsolute):
		return fault.Invalid(operation, fault.Issue{Path: pointer, Reason: "invalid_value", Message: "path must be absolute"})
	case errors.Is(err, ErrNotFound):
		return fault.Invalid(operation, fault.Issue{Path: pointer, Reason: "invalid_value", Message: "path does not exist"})
	}
	return fault.Internal(operation, err)
}

// RequestError says which requested path failed to canonicalize.
type RequestError struct {
	Field string // "roots" or "executables"
	Index int
	Err   error
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("policy: %s[%d]: %v", e.Field, e.Index, e.Err)
}

func (e *RequestError) Unwrap() error { return e.Err }

// CanonicalizeRequest validates r and returns it with realpath'd roots (per
// r.Access) and executables (always read: an executable must exist), and
// deduplicated, sorted lists. An invalid capability, network, access,
// environment name or empty operation identity is a fault.Invalid naming the
// field by its request name.
func CanonicalizeRequest(operation string, r Request) (Request, error) {
	var issues []fault.Issue
	if !KnownCapability(r.Capability) {
		issues = append(issues, fault.Issue{Path: "/capability", Reason: "invalid_value"})
	}
	if networkRank(r.Network) < 0 {
		issues = append(issues, fault.Issue{Path: "/network", Reason: "invalid_value", Expected: "none|loopback|external"})
	}
	if r.Access != AccessRead && r.Access != AccessWrite {
		issues = append(issues, fault.Issue{Path: "/access", Reason: "invalid_value", Expected: "read|write"})
	}
	if r.OperationIdentity == "" {
		issues = append(issues, fault.Issue{Path: "/operation_identity", Reason: "missing_argument"})
	}
	for i, n := range r.EnvironmentNames {
		if !ValidEnvironmentName(n) {
			issues = append(issues, fault.Issue{Path: fmt.Sprintf("/environment_names/%d", i), Reason: "invalid_format"})
		}
	}
	if len(issues) > 0 {
		return Request{}, fault.Invalid(operation, issues...)
	}
	out := r
	out.Roots = make([]string, 0, len(r.Roots))
	for i, p := range r.Roots {
		c, err := Canonicalize(p, r.Access)
		if err != nil {
			return Request{}, &RequestError{Field: "roots", Index: i, Err: err}
		}
		out.Roots = append(out.Roots, c)
	}
	out.Executables = make([]string, 0, len(r.Executables))
	for i, p := range r.Executables {
		c, err := Canonicalize(p, AccessRead)
		if err != nil {
			return Request{}, &RequestError{Field: "executables", Index: i, Err: err}
		}
		out.Executables = append(out.Executables, c)
	}
	out.Roots = sortedSet(out.Roots)
	out.Executables = sortedSet(out.Executables)
	out.EnvironmentNames = sortedSet(r.EnvironmentNames)
	return out, nil
}

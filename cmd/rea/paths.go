package main

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/ledger"
)

// CLI paths may be relative: they are resolved against the working
// directory here, because the engine (like an MCP request, CONTRACTS.md
// §2.1) takes absolute paths only. Symlinks are left for the engine to
// resolve, so a failure names the path as given, made absolute.

// absPath resolves one path argument; op and pointer name it in the
// invalid_request of an empty path (which would otherwise be the working
// directory itself).
func absPath(op, pointer, p string) (string, error) {
	if p == "" {
		return "", fault.Invalid(op, fault.Issue{Path: pointer, Reason: "invalid_value", Message: "the path is empty"})
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fault.Internal(op, err) // the working directory is gone
	}
	return abs, nil
}

// pathValue is a flag holding a path resolved when it is set.
type pathValue struct{ p *string }

func (v pathValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v pathValue) Set(s string) error {
	if s == "" {
		return errors.New("the path is empty")
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return err
	}
	*v.p = abs
	return nil
}

func (pathValue) Type() string { return "path" }

// ledgerValue is --ledger: a path resolved when it is set, or a PostgreSQL
// URL kept as given. String never shows a URL's password.
type ledgerValue struct{ p *string }

func (v ledgerValue) String() string {
	if v.p == nil {
		return ""
	}
	if ledger.IsURL(*v.p) {
		return ledger.RedactURL(*v.p)
	}
	return *v.p
}

func (v ledgerValue) Set(s string) error {
	if ledger.IsURL(s) {
		*v.p = s
		return nil
	}
	return pathValue(v).Set(s)
}

func (ledgerValue) Type() string { return "path|url" }

// pathsValue is a repeatable flag of paths resolved when they are set.
type pathsValue struct{ ps *[]string }

func (v pathsValue) String() string {
	if v.ps == nil {
		return "[]"
	}
	return "[" + strings.Join(*v.ps, ",") + "]"
}

func (v pathsValue) Set(s string) error {
	var p string
	if err := (pathValue{&p}).Set(s); err != nil {
		return err
	}
	*v.ps = append(*v.ps, p)
	return nil
}

func (pathsValue) Type() string { return "pathArray" }

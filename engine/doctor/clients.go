// Package doctor inspects and repairs what lies around a REA installation
// (CONTRACTS.md §12): the MCP client registrations on disk, the ledger, the
// providers and the policy environment. `rea doctor` and `rea setup` are thin
// wrappers over it.
//
// A registration file belongs to the user and usually holds other servers'
// secrets in `env` blocks, so the readers here look up only the exact keys
// they need (`command`, `args`, and the URL keys that mark a remote entry)
// and never decode or echo anything else; parser error messages, which may
// quote the offending bytes, are reduced to a line and column. Setup edits
// only the `rea` entry and keeps every other key.
package doctor

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rea-re/rea/engine/fault"
)

// ServerKey is the key of REA's entry in every client's server table.
const ServerKey = "rea"

// MCPArgs is the argument vector of an aligned registration.
var mcpArgs = []string{"mcp"}

// Format is a registration file's syntax.
type Format string

const (
	JSON Format = "json"
	TOML Format = "toml"
)

// Client is one supported MCP client (CONTRACTS.md §12). Paths are relative
// to the home directory.
type Client struct {
	ID     string
	File   string // the registration file
	Marker string // inspected only when this directory exists
	Format Format
	Table  string // the top-level table of servers
	// How the client's file names a streamable HTTP server (`rea setup
	// --http`): the key of its URL ("" = the file registers stdio servers
	// only), of its table of request headers, and the entry's `type`, for
	// a client that needs one.
	URLKey, HeadersKey, HTTPType string
}

// Clients is the registration table for goos, sorted by id.
func Clients(goos string) []Client {
	desktop := filepath.Join(".config", "Claude", "claude_desktop_config.json")
	if goos == "darwin" {
		desktop = filepath.Join("Library", "Application Support", "Claude", "claude_desktop_config.json")
	}
	// Claude Desktop reads remote servers from its connector settings, not
	// from this file, so it has no URL key.
	return []Client{
		{ID: "claude_code", File: ".claude.json", Marker: ".claude", Format: JSON, Table: "mcpServers",
			URLKey: "url", HeadersKey: "headers", HTTPType: "http"},
		{ID: "claude_desktop", File: desktop, Marker: filepath.Dir(desktop), Format: JSON, Table: "mcpServers"},
		{ID: "codex", File: filepath.Join(".codex", "config.toml"), Marker: ".codex", Format: TOML, Table: "mcp_servers",
			URLKey: "url", HeadersKey: "http_headers"},
		{ID: "cursor", File: filepath.Join(".cursor", "mcp.json"), Marker: ".cursor", Format: JSON, Table: "mcpServers",
			URLKey: "url", HeadersKey: "headers"},
		{ID: "gemini_cli", File: filepath.Join(".gemini", "settings.json"), Marker: ".gemini", Format: JSON, Table: "mcpServers",
			URLKey: "httpUrl", HeadersKey: "headers"},
		{ID: "windsurf", File: filepath.Join(".codeium", "windsurf", "mcp_config.json"), Marker: filepath.Join(".codeium", "windsurf"), Format: JSON, Table: "mcpServers",
			URLKey: "serverUrl", HeadersKey: "headers"},
	}
}

// Host is where registrations are looked up and what they must point at.
type Host struct {
	Home string
	GOOS string
	// Executable is the running REA, EvalSymlinks(os.Executable()).
	Executable string
	// LookPath resolves a command that is not an absolute path (default
	// exec.LookPath, i.e. this process's PATH).
	LookPath func(string) (string, error)
}

// State of a registration.
type State string

const (
	Aligned State = "aligned"
	Stale   State = "stale"
	Missing State = "missing"
	Invalid State = "invalid"
)

// Registration is one entry of the doctor report.
type Registration struct {
	Client      string   `json:"client"`
	ConfigPath  string   `json:"config_path"`
	Command     []string `json:"command"`
	State       State    `json:"state"`
	Remediation *string  `json:"remediation"`
	// Problem says why an entry is invalid or stale, without quoting the
	// file: for the text rendering and errors only.
	Problem string `json:"-"`
}

// ResolveClients validates ids (empty: every client) and returns the clients
// in id order. An unknown id is invalid_request of operation.
func ResolveClients(operation, goos string, ids []string) ([]Client, error) {
	all := Clients(goos)
	if len(ids) == 0 {
		return all, nil
	}
	var out []Client
	var issues []fault.Issue
	for _, id := range ids {
		i := slices.IndexFunc(all, func(c Client) bool { return c.ID == id })
		if i < 0 {
			issues = append(issues, fault.Issue{Path: "client", Reason: "invalid_value",
				Message: fmt.Sprintf("unknown client %q", id), Expected: strings.Join(clientIDs(all), ", ")})
			continue
		}
		if !slices.ContainsFunc(out, func(c Client) bool { return c.ID == id }) {
			out = append(out, all[i])
		}
	}
	if len(issues) > 0 {
		return nil, fault.Invalid(operation, issues...)
	}
	slices.SortFunc(out, func(a, b Client) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func clientIDs(cs []Client) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// Inspect classifies the registration of every client in cs whose marker
// directory exists under h.Home; the others are omitted (CONTRACTS.md §12).
func Inspect(h Host, cs []Client) []Registration {
	out := []Registration{}
	for _, c := range cs {
		if fi, err := os.Stat(filepath.Join(h.Home, c.Marker)); err != nil || !fi.IsDir() {
			continue
		}
		out = append(out, Classify(h, c))
	}
	return out
}

// entry is what a reader found under the server key. Only the fields that
// decide the state are kept.
type entry struct {
	present bool
	// invalid says why the entry (or the file) cannot be classified further.
	invalid string
	command *string  // nil when absent
	args    []string // nil when absent
	remote  bool     // a URL key is present
}

// readEntry parses data in format f and extracts the server entry of table.
func readEntry(f Format, table string, data []byte) entry {
	if f == TOML {
		return readTOMLEntry(table, data)
	}
	return readJSONEntry(table, data)
}

// Classify reads c's file and classifies its `rea` entry, marker or not.
func Classify(h Host, c Client) Registration {
	path := filepath.Join(h.Home, c.File)
	reg := Registration{Client: c.ID, ConfigPath: path, Command: []string{}}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		reg.State, reg.Problem = Missing, "the file does not exist"
	case err != nil:
		// Unreadable (permissions, a directory): nothing can be decoded.
		reg.State, reg.Problem = Invalid, "the file cannot be read: "+safeIOError(err)
	default:
		reg = classifyEntry(h, reg, readEntry(c.Format, c.Table, data))
	}
	if reg.State != Aligned {
		r := fmt.Sprintf("Refresh the registration to `%s mcp` (`rea setup --client %s` does it), then restart the client.",
			h.Executable, c.ID)
		reg.Remediation = &r
	}
	return reg
}

func classifyEntry(h Host, reg Registration, e entry) Registration {
	switch {
	case e.invalid != "":
		reg.State, reg.Problem = Invalid, e.invalid
	case !e.present:
		reg.State, reg.Problem = Missing, "no "+ServerKey+" entry"
	case e.command == nil && e.remote:
		reg.State, reg.Problem = Stale, "a URL-only entry"
	case e.command == nil || *e.command == "":
		reg.State, reg.Problem = Invalid, "command is not a non-empty string"
	default:
		reg.Command = append([]string{*e.command}, e.args...)
		if resolvesTo(h, *e.command, h.Executable) && slices.Equal(e.args, mcpArgs) {
			reg.State = Aligned
		} else {
			reg.State, reg.Problem = Stale, "the command is not this rea with the arguments [mcp]"
		}
	}
	return reg
}

// resolvesTo reports whether command names exe: a PATH lookup when it is
// not absolute, then symlinks evaluated.
func resolvesTo(h Host, command, exe string) bool {
	p := command
	if !filepath.IsAbs(p) {
		look := h.LookPath
		if look == nil {
			look = exec.LookPath
		}
		var err error
		if p, err = look(p); err != nil {
			return false
		}
		if p, err = filepath.Abs(p); err != nil {
			return false
		}
	}
	real, err := filepath.EvalSymlinks(p)
	return err == nil && real == exe
}

// safeIOError keeps the operation and the errno of an I/O error; the path is
// reported separately.
func safeIOError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return "I/O error"
}

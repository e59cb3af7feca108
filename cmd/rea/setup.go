package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rea-re/rea/engine/doctor"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/tools/wire"
)

func newSetupCommand() *cobra.Command {
	var asJSON, dryRun bool
	var clients []string
	var httpURL string
	c := &cobra.Command{
		Use:   "setup --client ID... [--http URL] [--dry-run] [--json]",
		Short: "Register this rea as the `rea` MCP server of the named clients (keeps every other entry; backs the file up)",
		Long: "Sets only the `rea` entry of each client's registration file to this executable with the argument `mcp`,\n" +
			"keeping every other server and key. An existing file is copied to <file>.rea-backup-<UTC time> first,\n" +
			"replaced atomically (owner-only), and read back. A file that does not parse is never overwritten.\n" +
			"With --http URL the entry names that `rea mcp --http` endpoint instead, with the header\n" +
			"`Authorization: Bearer <token>`: the token of " + wire.BearerTokenEnv + " when set, else the one `rea mcp --http`\n" +
			"keeps in its token file (generated there now if there is none). Run it again when the token changes.\n" +
			"Clients: " + strings.Join(clientIDs(), ", ") + ".",
		RunE: func(cmd *cobra.Command, args []string) error {
			ids := append(clients, args...)
			if len(ids) == 0 {
				return failWith(cmd, asJSON, fault.Invalid("setup", fault.Issue{Path: "client", Reason: "required",
					Message: "name at least one client with --client", Expected: strings.Join(clientIDs(), ", ")}))
			}
			cs, err := doctor.ResolveClients("setup", runtime.GOOS, ids)
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			h, err := currentHost()
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			opts := doctor.SetupOptions{DryRun: dryRun}
			var r registrationText
			if cmd.Flags().Changed("http") {
				srv, source, err := setupHTTPServer(httpURL, dryRun)
				if err != nil {
					return failWith(cmd, asJSON, err)
				}
				opts.HTTP = srv
				r = httpRegistration(srv.URL, source)
			} else {
				r = stdioRegistration(h.Executable)
			}
			res, err := doctor.Setup(cmd.Context(), h, cs, opts)
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), map[string]any{"dry_run": dryRun, "clients": res})
			}
			renderSetup(cmd.OutOrStdout(), cs, res, r, dryRun)
			return nil
		},
	}
	c.Flags().StringSliceVar(&clients, "client", nil, "client id (repeatable, or comma-separated)")
	c.Flags().StringVar(&httpURL, "http", "", "register the `rea mcp --http` endpoint at URL (e.g. http://127.0.0.1:8765/mcp) with its bearer token, instead of the stdio command")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "show what would change; write nothing")
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}

func clientIDs() []string {
	var ids []string
	for _, c := range doctor.Clients(runtime.GOOS) {
		ids = append(ids, c.ID)
	}
	return ids
}

// registrationText renders the entry setup writes for one client; it never
// holds the token, only where it comes from.
type registrationText func(doctor.Client) string

func stdioRegistration(exe string) registrationText {
	return func(c doctor.Client) string {
		return fmt.Sprintf("%s.%s = {command: %q, args: [\"mcp\"]}", c.Table, doctor.ServerKey, exe)
	}
}

func httpRegistration(endpoint, tokenSource string) registrationText {
	return func(c doctor.Client) string {
		typ := ""
		if c.HTTPType != "" {
			typ = fmt.Sprintf("type: %q, ", c.HTTPType)
		}
		return fmt.Sprintf("%s.%s = {%s%s: %q, %s: {Authorization: \"Bearer <the token of %s>\"}}",
			c.Table, doctor.ServerKey, typ, c.URLKey, endpoint, c.HeadersKey, tokenSource)
	}
}

// setupHTTPServer validates the --http URL and finds the token: the
// variable's when set, else the token file's, generated unless this is a
// dry run. source names where the token comes from, for the output.
func setupHTTPServer(raw string, dryRun bool) (srv *doctor.HTTPServer, source string, err error) {
	u, err := url.Parse(raw)
	bad := func(msg string) (*doctor.HTTPServer, string, error) {
		return nil, "", fault.Invalid("setup", fault.Issue{Path: "http", Reason: "invalid_value", Message: msg,
			Expected: "http://127.0.0.1:PORT" + wire.HTTPEndpoint})
	}
	switch {
	case err != nil:
		return bad("the --http value is not a URL")
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.Opaque != "":
		return bad("the --http URL must be http:// or https:// with a host")
	case u.User != nil, u.RawQuery != "", u.Fragment != "":
		return bad("the --http URL must not carry user info, a query or a fragment")
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = wire.HTTPEndpoint
	}
	if tok := os.Getenv(wire.BearerTokenEnv); tok != "" {
		if err := wire.CheckBearerToken(tok); err != nil {
			return nil, "", err
		}
		return &doctor.HTTPServer{URL: u.String(), Token: tok}, "$" + wire.BearerTokenEnv, nil
	}
	path, ok := wire.HTTPTokenPath(os.LookupEnv)
	if !ok {
		return nil, "", fault.New(fault.ConfigurationInvalid,
			"rea setup --http needs the server's bearer token, and there is no place for a token file.",
			"Set "+wire.BearerTokenEnv+" (as for `rea mcp --http`), or set XDG_RUNTIME_DIR or HOME.",
			map[string]any{"variable": wire.BearerTokenEnv, "reason": "missing"})
	}
	var tok string
	if dryRun {
		// Nothing is written by a dry run, the token file included; the
		// plan compares against the token that is there, if any.
		b, _ := os.ReadFile(path)
		tok = strings.TrimSpace(string(b))
	} else if tok, _, err = wire.LoadOrCreateHTTPToken(path); err != nil {
		return nil, "", err
	}
	return &doctor.HTTPServer{URL: u.String(), Token: tok}, path, nil
}

func renderSetup(w io.Writer, cs []doctor.Client, res []doctor.SetupResult, registration registrationText, dryRun bool) {
	for i, r := range res {
		entry := registration(cs[i])
		was := string(r.Before.State)
		if len(r.Before.Command) > 0 {
			was += ": " + strings.Join(r.Before.Command, " ")
		}
		switch {
		case r.Action == doctor.Unchanged:
			fmt.Fprintf(w, "%s: unchanged, already aligned  %s\n", r.Client, r.ConfigPath)
		case dryRun:
			fmt.Fprintf(w, "%s: would be %s  %s\n  - %s entry: %s\n  + %s\n", r.Client, r.Action, r.ConfigPath, doctor.ServerKey, was, entry)
			if r.Action == doctor.Updated {
				fmt.Fprintf(w, "  (the file would first be copied to %s.rea-backup-<UTC time>)\n", r.ConfigPath)
			}
		default:
			fmt.Fprintf(w, "%s: %s  %s\n  + %s\n", r.Client, r.Action, r.ConfigPath, entry)
			if r.BackupPath != nil {
				fmt.Fprintf(w, "  backup: %s\n", *r.BackupPath)
			}
		}
	}
	if dryRun {
		fmt.Fprintln(w, "Dry run: nothing was written.")
	} else {
		fmt.Fprintln(w, "Restart each updated client so it starts the new registration; `rea doctor` shows the result.")
	}
}

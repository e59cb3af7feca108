package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rea-re/rea/engine/doctor"
	"github.com/rea-re/rea/engine/fault"
)

func newSetupCommand() *cobra.Command {
	var asJSON, dryRun bool
	var clients []string
	c := &cobra.Command{
		Use:   "setup --client ID... [--dry-run] [--json]",
		Short: "Register this rea as the `rea` MCP server of the named clients (keeps every other entry; backs the file up)",
		Long: "Sets only the `rea` entry of each client's registration file to this executable with the argument `mcp`,\n" +
			"keeping every other server and key. An existing file is copied to <file>.rea-backup-<UTC time> first,\n" +
			"replaced atomically (owner-only), and read back. A file that does not parse is never overwritten.\n" +
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
			res, err := doctor.Setup(cmd.Context(), h, cs, doctor.SetupOptions{DryRun: dryRun})
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), map[string]any{"dry_run": dryRun, "clients": res})
			}
			renderSetup(cmd.OutOrStdout(), h, cs, res, dryRun)
			return nil
		},
	}
	c.Flags().StringSliceVar(&clients, "client", nil, "client id (repeatable, or comma-separated)")
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

func renderSetup(w io.Writer, h doctor.Host, cs []doctor.Client, res []doctor.SetupResult, dryRun bool) {
	for i, r := range res {
		entry := fmt.Sprintf("%s.%s = {command: %q, args: [\"mcp\"]}", cs[i].Table, doctor.ServerKey, h.Executable)
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

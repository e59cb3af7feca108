package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/doctor"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/tools/catalog"
)

// currentHost is this user's home and this very binary, as registrations
// must name it.
func currentHost() (doctor.Host, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return doctor.Host{}, fmt.Errorf("no home directory: %w", err)
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return doctor.Host{}, fmt.Errorf("cannot locate the running rea: %w", err)
	}
	return doctor.Host{Home: home, GOOS: runtime.GOOS, Executable: exe}, nil
}

// environMap snapshots the process environment for the loaders that take
// one; nothing prints it.
func environMap() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// `rea doctor` appends nothing and writes nothing (CONTRACTS.md §12, §13.2).
func newDoctorCommand(g *globals) *cobra.Command {
	var asJSON bool
	var clients []string
	c := &cobra.Command{
		Use:   "doctor [--client ID]... [--json]",
		Short: "Check MCP client registrations, the ledger, providers and configuration (writes nothing)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			cs, err := doctor.ResolveClients("doctor", runtime.GOOS, clients)
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			h, err := currentHost()
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			ledgerPath, err := g.resolveLedgerPath()
			if err != nil {
				return failWith(cmd, asJSON, err)
			}
			// A bad REA_GDB_ENABLED is the configuration check's finding;
			// the provider checks then see builtin alone.
			reg, err := newRegistry()
			if err != nil {
				reg = provider.NewRegistry(builtin.New(version))
			}
			eng := engine.New(engine.Config{Registry: reg, Version: version})
			rep := doctor.Run(ctx, doctor.Input{
				Host: h, Clients: cs, Version: version, BuildCommit: buildCommit(), LedgerPath: ledgerPath,
				Candidates: eng.Candidates(ctx, session.State{}), Env: environMap(), ServerEnvProblems: serverEnvProblems,
			})
			if asJSON {
				if err := printJSON(cmd.OutOrStdout(), rep); err != nil {
					return err
				}
			} else {
				renderDoctor(cmd.OutOrStdout(), rep)
			}
			if !rep.Healthy() {
				return exitError{1}
			}
			return nil
		},
	}
	c.Flags().StringSliceVar(&clients, "client", nil, "inspect only these clients (repeatable; default every client whose directory exists)")
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}

func renderDoctor(w io.Writer, r doctor.Report) {
	fmt.Fprintf(w, "rea %s  %s\n", r.REA.Version, r.REA.Executable)
	fmt.Fprintln(w, "\nMCP client registrations:")
	if len(r.Registrations) == 0 {
		fmt.Fprintln(w, "  none found (no supported client directory under the home directory)")
	}
	for _, reg := range r.Registrations {
		fmt.Fprintf(w, "  %-15s %-8s %s\n", reg.Client, reg.State, reg.ConfigPath)
		if len(reg.Command) > 0 {
			fmt.Fprintf(w, "  %-15s command: %s\n", "", strings.Join(reg.Command, " "))
		}
		if reg.Problem != "" {
			fmt.Fprintf(w, "  %-15s %s\n", "", reg.Problem)
		}
		if reg.Remediation != nil {
			fmt.Fprintf(w, "  %-15s %s\n", "", *reg.Remediation)
		}
	}
	fmt.Fprintf(w, "\nLive server: %s (%s)\n", r.LiveServer.State, r.LiveServer.Remediation)
	fmt.Fprintf(w, "Ledger: %s  %s", r.Ledger.State, r.Ledger.Path)
	if r.Ledger.Head != nil {
		fmt.Fprintf(w, "  head seq %d", r.Ledger.Head.Seq)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "\nChecks:")
	for _, ch := range r.Checks {
		fmt.Fprintf(w, "  %-23s %-24s %s\n", ch.Classification, ch.ID, ch.Detail)
	}
	if r.Healthy() {
		fmt.Fprintln(w, "\nEvery check is healthy.")
	} else {
		fmt.Fprintln(w, "\nSome checks are not healthy (exit status 1).")
	}
}

// serverEnvProblems checks REA_TOOLSETS the way `rea mcp` does at startup
// (an empty value means every toolset), naming the variable, never the value.
func serverEnvProblems(env map[string]string) []doctor.EnvProblem {
	v := env[catalog.ToolsetsEnv]
	if v == "" {
		return nil
	}
	if _, err := catalog.ParseToolsets(v, catalog.ToolsetsEnv); err != nil {
		reason, _ := fault.From("doctor", err).Details["reason"].(string)
		return []doctor.EnvProblem{{Variable: catalog.ToolsetsEnv, Reason: reason}}
	}
	return nil
}

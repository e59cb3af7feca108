// Command rea is REA's CLI and MCP server: evidence-first reverse engineering.
// This package is wiring only: flags, environment, and the adapters the
// engine runs on.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"

	"github.com/spf13/cobra"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/engine/provider/gdb"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// version is REA's version; release builds set it with -ldflags -X.
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root := newRoot()
	root.SetContext(ctx)
	if err := root.ExecuteContext(ctx); err != nil {
		var exit exitError
		if errors.As(err, &exit) {
			os.Exit(exit.code)
		}
		fmt.Fprintln(os.Stderr, "rea:", err)
		os.Exit(1)
	}
}

// exitError carries an exit status whose message was already printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

type globals struct {
	ledgerPath string
	cpuProfile string
}

func newRoot() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:           "rea",
		Short:         "Evidence-first reverse engineering: an MCP server and CLI",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().Var(ledgerValue{&g.ledgerPath}, "ledger", "ledger file, or a postgres:// URL of a team ledger (default $REA_LEDGER_URL, $REA_LEDGER_PATH or ${XDG_STATE_HOME:-~/.local/state}/rea/ledger.db)")
	// --cpuprofile is for measuring REA itself (BENCHMARKS.md): the MCP
	// figures run `rea mcp` as a subprocess, where go test's -cpuprofile
	// cannot see.
	root.PersistentFlags().StringVar(&g.cpuProfile, "cpuprofile", "", "write a Go CPU profile of this command to FILE")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	var stopProfile func()
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if g.cpuProfile == "" {
			return nil
		}
		f, err := os.OpenFile(g.cpuProfile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
		return nil
	}
	root.PersistentPostRun = func(*cobra.Command, []string) {
		if stopProfile != nil {
			stopProfile()
		}
	}
	root.AddCommand(newMCPCommand(g), newAnalyzeCommand(g), newCompareCommand(g), newProvidersCommand(), newCapabilitiesCommand(),
		newEvidenceCommand(g), newLedgerCommand(g), newVersionCommand(), newDoctorCommand(g), newSetupCommand(),
		newPolicyCommand(g))
	return root
}

// resolveLedgerPath returns the ledger's file path or PostgreSQL URL
// (CONTRACTS.md §17): --ledger, else REA_LEDGER_URL or REA_LEDGER_PATH (not
// both), else the default file.
func (g *globals) resolveLedgerPath() (string, error) {
	if g.ledgerPath != "" {
		return g.ledgerPath, nil
	}
	u, p := os.Getenv("REA_LEDGER_URL"), os.Getenv("REA_LEDGER_PATH")
	switch {
	case u != "" && p != "":
		return "", fault.New(fault.ConfigurationInvalid, "REA_LEDGER_URL and REA_LEDGER_PATH are both set.",
			"Unset one of them.", map[string]any{"variables": []string{"REA_LEDGER_URL", "REA_LEDGER_PATH"}})
	case u != "" && !ledger.IsURL(u):
		return "", fault.New(fault.ConfigurationInvalid, "REA_LEDGER_URL is not a postgres:// or postgresql:// URL.",
			"Set a PostgreSQL URL, or use REA_LEDGER_PATH for a file.", map[string]any{"variable": "REA_LEDGER_URL"})
	case u != "":
		return u, nil
	case p != "":
		return filepath.Abs(p)
	}
	return ledger.DefaultPath()
}

func (g *globals) openLedger(ctx context.Context) (*ledger.Ledger, error) {
	path, err := g.resolveLedgerPath()
	if err != nil {
		return nil, err
	}
	return ledger.Open(ctx, path, ledger.Options{})
}

// newRegistry registers builtin and gdb. gdb is opt-in (REA_GDB_ENABLED):
// disabled, it is a candidate reported not_configured, and registering it
// starts no process.
func newRegistry() (*provider.Registry, error) {
	cfg, err := gdb.ConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	limit, err := builtin.MemoryLimitFromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	setRuntimeMemoryLimit(limit)
	g := gdb.New(cfg)
	// Target-free discovery reads facts probed once per process at startup
	// (CONTRACTS.md §3.5); a failed probe shows in gdb's availability.
	g.Probe(context.Background())
	return provider.NewRegistry(builtin.NewWithMemoryLimit(version, limit), g), nil
}

// runtimeMemoryHeadroom is what the Go runtime may hold beyond the analysis
// indexes REA_MEMORY_LIMIT bounds: the rest of the server, and the garbage
// of an index being built before a collection.
const runtimeMemoryHeadroom = 64 << 20

// setRuntimeMemoryLimit makes the garbage collector keep the heap near what
// REA_MEMORY_LIMIT allows the indexes (CONTRACTS.md §0.3 "Resources"),
// instead of letting it grow to twice the live heap; GOMEMLIMIT, when set,
// is the operator's choice and wins.
func setRuntimeMemoryLimit(limit int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit + runtimeMemoryHeadroom)
	}
}

// environmentSelector parses REA_ANALYSIS_PROVIDER with the one selector parser.
func environmentSelector() (provider.Selector, error) {
	v, ok := os.LookupEnv("REA_ANALYSIS_PROVIDER")
	if !ok || v == "" {
		return "", nil
	}
	sel, valid := provider.ParseSelector(v)
	if !valid {
		return "", fault.New(fault.ConfigurationInvalid, "REA_ANALYSIS_PROVIDER is not a valid provider selector.",
			"Set REA_ANALYSIS_PROVIDER to auto or a provider id from `rea providers`.",
			map[string]any{"variable": "REA_ANALYSIS_PROVIDER", "reason": "invalid_value"})
	}
	return sel, nil
}

func (g *globals) openEngine(ctx context.Context) (*engine.Engine, func(), error) {
	sel, err := environmentSelector()
	if err != nil {
		return nil, nil, err
	}
	l, err := g.openLedger(ctx)
	if err != nil {
		return nil, nil, err
	}
	reg, err := newRegistry()
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	pcfg, err := policy.LoadConfig(environMap())
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	// The project grants the ledger last recorded are the baseline the
	// startup reload diffs the store against.
	history, err := projections.ReadPolicyStream(ctx, l.ReadDB(), 0)
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	baseline := projections.Active(projections.ProjectGrants(history.Events))
	var eng *engine.Engine // decision ids are the engine's ULIDs
	evaluator := policy.New(pcfg, baseline, policy.Options{NewID: func() string { return eng.NewULID().String() }})
	eng = engine.New(engine.Config{Ledger: l, Registry: reg, Version: version, EnvironmentSelector: sel, Policy: evaluator,
		IntegrityContinueEnabled: os.Getenv("REA_ARTIFACT_INTEGRITY_CONTINUE_ENABLED") == "true"})
	// The project store is read at startup (a bad store is
	// configuration_invalid: fail closed) and again on SIGHUP.
	if err := eng.ReloadPolicy(ctx, policy.TriggerStartup); err != nil {
		l.Close()
		return nil, nil, err
	}
	return eng, func() { l.Close() }, nil
}

func buildCommit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return ""
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// failWith prints a typed error as the error envelope (JSON) or a line of text,
// and returns an exitError.
func failWith(cmd *cobra.Command, asJSON bool, err error) error {
	fe := fault.From(cmd.Name(), err)
	if asJSON {
		printJSON(cmd.OutOrStdout(), map[string]any{"error": fe})
	} else {
		w := cmd.ErrOrStderr()
		// A message or detail can name what a sample named (a path, a
		// library): escaped as every rendering of sample-derived text.
		fmt.Fprintf(w, "rea: %s: %s\n", fe.Code, termText(fe.Message))
		printDetails(w, fe.Details)
		fmt.Fprintf(w, "  remediation: %s\n", termText(fe.Remediation.Action))
	}
	return exitError{1}
}

// printDetails renders what a failure's details say in lines a person
// reads: each validation issue (pointer, reason, message), then the other
// scalar details (path, reason, variable…) in key order. The operation is
// the command itself and is left out; lists and objects other than the
// issues are left to --json. Details are the envelope's own (§1.6): safe
// to print.
func printDetails(w io.Writer, details map[string]any) {
	if issues, ok := details["issues"].([]fault.Issue); ok {
		for _, is := range issues {
			line := "  " + is.Path
			if is.Path == "" {
				line = "  (input)"
			}
			line += ": " + is.Reason
			if is.Message != "" {
				line += ": " + is.Message
			}
			if is.Expected != "" {
				line += " (expected " + is.Expected + ")"
			}
			fmt.Fprintln(w, termText(line))
		}
	}
	keys := make([]string, 0, len(details))
	for k, v := range details {
		switch v.(type) {
		case string, bool, int, int64, float64:
			if k != "operation" {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %s: %s\n", termText(k), termText(fmt.Sprint(details[k])))
	}
}

func newVersionCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version",
		Short: "Print REA's version",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				return printJSON(cmd.OutOrStdout(), map[string]any{"version": version, "build_commit": nullable(buildCommit())})
			}
			fmt.Fprintln(cmd.OutOrStdout(), "rea", version)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

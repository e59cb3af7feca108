package main

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rea-re/rea/tools"
)

func newMCPCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve MCP over stdio (register this command in your MCP client)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			eng, closeLedger, err := g.openEngine(ctx)
			if err != nil {
				return failWith(cmd, false, err)
			}
			defer closeLedger()
			srv := tools.New(eng, tools.Options{Transport: "stdio", CLICommands: cliCatalog(cmd.Root()), BuildCommit: buildCommit()})
			return srv.ServeStdio(ctx, os.Stdin, os.Stdout)
		},
	}
}

// cliCatalog lists every runnable command with its long flag names, for the
// catalog digest of binary_session server_identity.
func cliCatalog(root *cobra.Command) []tools.CLICommand {
	var out []tools.CLICommand
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() {
			flags := []string{}
			c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) { flags = append(flags, f.Name) })
			c.InheritedFlags().VisitAll(func(f *pflag.Flag) { flags = append(flags, f.Name) })
			out = append(out, tools.CLICommand{Path: c.CommandPath(), Flags: flags})
		}
		for _, sub := range c.Commands() {
			if sub.Name() != "help" && sub.Name() != "completion" {
				walk(sub)
			}
		}
	}
	walk(root)
	return out
}

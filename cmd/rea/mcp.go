package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/tools"
	"github.com/rea-re/rea/tools/catalog"
	"github.com/rea-re/rea/tools/wire"
)

func newMCPCommand(g *globals) *cobra.Command {
	var httpOpts wire.HTTPOptions
	var toolsetsFlag string
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve MCP over stdio (register this command in your MCP client), or over streamable HTTP with --http",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			toolsets, err := serverToolsets(cmd.Flags().Changed("toolsets"), toolsetsFlag)
			if err != nil {
				return failWith(cmd, false, err)
			}
			if httpOpts.Addr != "" {
				httpOpts.BearerToken = os.Getenv(wire.BearerTokenEnv)
				if httpOpts.BearerToken == "" && !httpOpts.InsecureNoToken {
					httpOpts.TokenFile, _ = wire.HTTPTokenPath(os.LookupEnv)
				}
				if err := httpOpts.Validate(); err != nil {
					return failWith(cmd, false, err)
				}
			} else {
				for _, name := range []string{"allow-remote", "allowed-origin", "session-idle", "insecure-no-token"} {
					if cmd.Flags().Changed(name) {
						return failWith(cmd, false, fault.New(fault.ConfigurationInvalid, "--"+name+" applies only with --http.",
							"Add --http 127.0.0.1:PORT, or drop --"+name+".", map[string]any{"reason": "flag_requires_http"}))
					}
				}
			}
			evidenceContext, err := tools.EvidenceContextFromEnv(os.LookupEnv)
			if err != nil {
				return failWith(cmd, false, err)
			}
			eng, closeLedger, err := g.openEngine(ctx)
			if err != nil {
				return failWith(cmd, false, err)
			}
			defer closeLedger()
			reloadPolicyOnSIGHUP(ctx, eng)
			opts := tools.Options{CLICommands: cliCatalog(cmd.Root()), BuildCommit: buildCommit(), LookupEnv: os.LookupEnv,
				EvidenceContext: evidenceContext, Toolsets: toolsets}
			// SIGTERM and SIGINT end the server cleanly: every connection is
			// closed (its provider processes terminated, connection_closed
			// recorded) before the ledger.
			ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
			defer stop()
			if httpOpts.Addr == "" {
				opts.Transport = "stdio"
				srv := tools.New(eng, opts)
				if err := srv.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil && ctx.Err() == nil {
					return err
				}
				return nil
			}
			// The path only: the token itself never reaches a terminal or a log.
			httpOpts.TokenFileReady = func(path string, generated bool) {
				how := "read from"
				if generated {
					how = "generated into"
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "rea: bearer token %s %s (clients send `Authorization: Bearer <its contents>`)\n", how, path)
			}
			if httpOpts.InsecureNoToken {
				fmt.Fprintln(cmd.ErrOrStderr(), "rea: --insecure-no-token: any local process can drive this server")
			}
			httpOpts.Ready = func(a net.Addr) {
				fmt.Fprintf(cmd.ErrOrStderr(), "rea: serving MCP over streamable HTTP at http://%s%s\n", a, wire.HTTPEndpoint)
			}
			opts.Transport = "http"
			srv := tools.New(eng, opts)
			if err := srv.ServeStreamableHTTP(ctx, httpOpts); err != nil {
				return failWith(cmd, false, err)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&toolsetsFlag, "toolsets", "", "serve only these toolsets (comma-separated: "+strings.Join(catalog.ToolsetNames(), ", ")+
		"; default all; overrides "+catalog.ToolsetsEnv+")")
	f.StringVar(&httpOpts.Addr, "http", "", "serve streamable HTTP on ADDR (loopback, e.g. 127.0.0.1:8765) instead of stdio; clients need the bearer token from "+
		wire.BearerTokenEnv+" or the file REA names on stderr")
	f.BoolVar(&httpOpts.AllowRemote, "allow-remote", false, "allow a non-loopback --http address (requires "+wire.BearerTokenEnv+")")
	f.BoolVar(&httpOpts.InsecureNoToken, "insecure-no-token", false, "serve a loopback --http address without a bearer token (any local process can then drive REA)")
	f.StringArrayVar(&httpOpts.AllowedOrigins, "allowed-origin", nil, "an Origin accepted besides the bound one (repeatable; exact scheme://host[:port])")
	f.DurationVar(&httpOpts.SessionIdle, "session-idle", wire.DefaultSessionIdle, "close an HTTP session and its connection after this long without requests")
	return c
}

// serverToolsets are the toolsets `rea mcp` serves: --toolsets when given
// (it wins), else REA_TOOLSETS when set and not empty, else nil (all).
func serverToolsets(flagSet bool, flagValue string) ([]string, error) {
	if flagSet {
		return catalog.ParseToolsets(flagValue, "")
	}
	if v := os.Getenv(catalog.ToolsetsEnv); v != "" {
		return catalog.ParseToolsets(v, catalog.ToolsetsEnv)
	}
	return nil, nil
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

package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/policy"
)

// reloadPolicyOnSIGHUP re-reads the project store on every SIGHUP until ctx
// ends (CONTRACTS.md §9.6). The engine serializes reloads, applies an
// accepted store to every live connection and notifies them; a rejected
// store keeps the old policy, and the rejection is recorded and reported.
// Ceilings come from the environment and change only with a restart.
func reloadPolicyOnSIGHUP(ctx context.Context, eng *engine.Engine) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				if err := eng.ReloadPolicy(ctx, policy.TriggerSIGHUP); err != nil {
					fmt.Fprintf(os.Stderr, "rea: SIGHUP: project policy store rejected, previous policy kept: %v\n", err)
				}
			}
		}
	}()
}

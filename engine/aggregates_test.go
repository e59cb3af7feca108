package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/lineage"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/ledger"
)

// partialProvider declares only resolve_containing_procedure: a provider that
// cannot serve most of inspect_address_context's facets. It stands in for an
// engine with fewer operations than builtin, which no real provider here is.
type partialProvider struct{}

func (partialProvider) Identity() provider.Identity {
	v := "1"
	return provider.Identity{ID: "partial", Name: "Partial provider", Version: &v}
}
func (partialProvider) Availability(context.Context) provider.Availability {
	return provider.Available()
}
func (partialProvider) Support(provider.Target) provider.TargetSupport { return provider.Supported() }
func (partialProvider) Capabilities() []provider.Capability {
	return []provider.Capability{{Operation: "resolve_containing_procedure", InputContractVersion: 1, OutputContractVersion: 1,
		Pagination: "none", Exhaustive: true, Effects: provider.Effects{Idempotent: true}, Limitations: []string{}}}
}
func (p partialProvider) Profile(context.Context, provider.Target) (provider.Profile, error) {
	return provider.NewProfile(p.Identity(), 1, nil)
}
func (partialProvider) Start(context.Context, provider.Target, provider.Profile, provider.Run) (provider.Client, error) {
	return partialClient{}, nil
}

type partialClient struct{}

func (partialClient) Do(_ context.Context, op string, in provider.Params, _ progress.Reporter) (provider.Result, error) {
	if op != "resolve_containing_procedure" {
		return provider.Result{}, fault.New(fault.CapabilityUnavailable, "not offered", "none", nil)
	}
	addr, _ := in.String("address")
	return provider.Result{Normalized: map[string]any{"query_address": addr, "found": false, "procedure": nil, "reason": "not_in_procedure"}}, nil
}
func (partialClient) Lineage(context.Context) (lineage.Observation, bool) {
	return lineage.Observation{}, false
}
func (partialClient) Close(context.Context) (provider.Cleanup, error) {
	return provider.Cleanup{Complete: true}, nil
}

// openPartial opens a ledger in a fresh directory, an engine over it whose
// only provider is partialProvider, a connection, and on it the test binary
// itself (any ELF will do); all are closed when the test ends.
func openPartial(t *testing.T) (*ledger.Ledger, *engine.Engine, *engine.Connection) {
	t.Helper()
	ctx := context.Background()
	led, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	eng := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(partialProvider{}), Version: "test"})
	conn, err := eng.OpenConnection(ctx, session.Info{Transport: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx, "test") })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.OpenBinary(ctx, self, "partial", nil); err != nil {
		t.Fatal(err)
	}
	return led, eng, conn
}

func TestInspectFacetsTheProviderCannotServe(t *testing.T) {
	_, _, conn := openPartial(t)
	ac, err := conn.InspectAddressContext(context.Background(), "", "0x1000", nil)
	if err != nil {
		t.Fatalf("a facet failure failed the whole call: %v", err)
	}
	if ac.Name.State != "unavailable" || ac.Name.Reason != "capability_unavailable" || ac.Name.Remediation == "" {
		t.Fatalf("name facet: %+v", ac.Name)
	}
	if ac.Procedure.State != "available" || ac.Comment.State != "available" || ac.Bookmarks.State != "available" {
		t.Fatalf("served facets: %+v", ac)
	}
	nc, err := conn.NavigationContext(context.Background(), "", nil)
	if err != nil || nc.Procedure != nil || nc.Mode != "current_selection" {
		t.Fatalf("navigation: %+v %v", nc, err)
	}
}

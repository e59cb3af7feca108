package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/tools/schema"
)

// TestEveryToolHasItsHandler: the families declare each tool once, each
// with a handler, and the catalog is exactly those tools: a spec cannot be
// published without the handler that answers it.
func TestEveryToolHasItsHandler(t *testing.T) {
	seen := map[string]bool{}
	for _, family := range families() {
		for _, tl := range family {
			name := tl.spec().Name
			if seen[name] {
				t.Errorf("%s is declared twice", name)
			}
			seen[name] = true
			if tl.handle == nil {
				t.Errorf("%s has no handler", name)
			}
		}
	}
	cat := Catalog()
	if len(seen) != len(cat) {
		t.Fatalf("%d tools declared, catalog has %d", len(seen), len(cat))
	}
	for _, s := range cat {
		if !seen[s.Name] {
			t.Errorf("catalog tool %s is in no family", s.Name)
		}
	}
}

// BenchmarkCallArguments: the arguments of a list_procedures call naming
// its target, as Server.arguments handles them — parsed once, the target
// read from the parse that validation then reads (one_parse) — against
// the second edition's path (two_parses: peekTarget's json.Unmarshal for
// the target, then Decode's own parse of the same bytes).
func BenchmarkCallArguments(b *testing.B) {
	spec, _ := Lookup("list_procedures")
	raw := json.RawMessage(`{"target":"t_0123456789abcdef","limit":500,"offset":1000,"document":"main"}`)
	b.Run("one_parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := schema.Parse(spec.Name, raw)
			if err != nil || p.String("target") == "" {
				b.Fatal(err)
			}
			if _, err := spec.DecodeParsed(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("two_parses", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var peek struct {
				Target any `json:"target"`
			}
			if json.Unmarshal(raw, &peek) != nil || peek.Target == "" {
				b.Fatal("peek")
			}
			if _, err := spec.Decode(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestCallArgumentsCarryTheTarget: Server.arguments gives the handler its
// target as a typed field, never among the parameters; the named target's
// availability is decided before the arguments are validated, and a
// target that is not a string is left to validation.
func TestCallArgumentsCarryTheTarget(t *testing.T) {
	ctx := context.Background()
	led, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	eng := engine.New(engine.Config{Ledger: led, Registry: provider.NewRegistry(builtin.New("test")), Version: "test"})
	srv := New(eng, Options{Transport: "stdio"})
	defer srv.CloseAll(ctx, "server_shutdown")
	sess := srv.ensureSession(ctx, "args", "2025-11-25", nil, events.ClientFeatures{})
	spec, _ := Lookup("list_procedures")
	call := func(args string) (input, *fault.Error) {
		req := mcp.CallToolRequest{}
		req.Params.Name = spec.Name
		req.Params.RawArguments = json.RawMessage(args)
		in, err := srv.arguments(ctx, spec, sess, req)
		return in, fault.From(spec.Name, err)
	}

	in, fe := call(`{"limit":5}`)
	if fe != nil {
		t.Fatal(fe)
	}
	if _, has := in.Params["target"]; has || in.target != "" || in.tool != "list_procedures" || in.Int("limit", 0) != 5 {
		t.Fatalf("input %+v", in)
	}
	issuePaths := func(fe *fault.Error) []string {
		var paths []string
		is, _ := fe.Details["issues"].([]fault.Issue)
		for _, i := range is {
			paths = append(paths, i.Path)
		}
		return paths
	}
	// No such target: its verdict comes first, whatever else is wrong.
	if _, fe := call(`{"target":"t_nope","limit":"many"}`); fe == nil || !slices.Equal(issuePaths(fe), []string{"/target"}) {
		t.Fatalf("unknown target with a bad limit: %+v", fe)
	}
	// A target that is not a string is left to validation, with the rest.
	if _, fe := call(`{"target":5,"limit":"many"}`); fe == nil || !slices.Equal(issuePaths(fe), []string{"/limit", "/target"}) {
		t.Fatalf("numeric target: %+v", fe)
	}
	if _, fe := call(`{"limit":`); fe == nil || fe.Code != fault.InvalidRequest {
		t.Fatalf("malformed arguments: %+v", fe)
	}
}

package builtin

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// TestOpTableDeclaresAndDispatches: the operations are declared in the
// order the capabilities were always recorded in, every declared operation
// reaches its handler (any answer but capability_unavailable), resolve_import
// is the engine's, and an undeclared operation is provider_missing.
func TestOpTableDeclaresAndDispatches(t *testing.T) {
	p, _, cl := open(t, cFixture(t, "gcc-O2", "gcc", "-O2"))
	var names []string
	for _, c := range p.Capabilities() {
		names = append(names, c.Operation)
	}
	want := []string{"address_name", "binary_triage", "list_dependencies", "list_documents", "list_names", "list_procedures",
		"list_segments", "list_strings", "procedure_address", "procedure_callees", "procedure_callers", "procedure_calls", "procedure_assembly",
		"procedure_pseudo_code", "procedure_info", "procedure_references", "read_bytes", "read_function_instructions", "resolve_containing_procedure", "resolve_import",
		"search_bytes", "search_procedures", "search_pseudo_code", "search_strings", "xrefs"}
	if !slices.Equal(names, want) {
		t.Errorf("declared %v\nwant     %v", names, want)
	}
	ctx := context.Background()
	reason := func(err error) string {
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.CapabilityUnavailable {
			return ""
		}
		r, _ := fe.Details["availability_reason"].(string)
		return r
	}
	for _, op := range names {
		_, err := cl.Do(ctx, op, provider.Params{}, nil)
		switch r := reason(err); {
		case op == provider.OpResolveImport && r != "engine_operation":
			t.Errorf("%s: %v, want capability_unavailable engine_operation", op, err)
		case op != provider.OpResolveImport && r != "":
			t.Errorf("%s: %v, want its handler's answer", op, err)
		}
	}
	if _, err := cl.Do(ctx, "no_such_operation", provider.Params{}, nil); reason(err) != "provider_missing" {
		t.Errorf("an undeclared operation: %v, want capability_unavailable provider_missing", err)
	}
}

// TestOpTableIndexes: builtFor follows the table's needs, and an
// operation's target limitations its limitation policy.
func TestOpTableIndexes(t *testing.T) {
	_, _, cl := open(t, cFixture(t, "gcc-O2", "gcc", "-O2"))
	c := cl.(*Client)
	ix := c.ix
	if !ix.builtFor(provider.OpReadBytes) || ix.builtFor(provider.OpListProcedures) || ix.builtFor("no_such_operation") {
		t.Fatal("before any call: read_bytes needs nothing, list_procedures and an unknown operation the symbols")
	}
	ctx := context.Background()
	if _, err := c.Do(ctx, provider.OpListProcedures, provider.Params{}, nil); err != nil {
		t.Fatal(err)
	}
	if !ix.builtFor(provider.OpSearchBytes) || ix.builtFor(provider.OpListStrings) || ix.builtFor(provider.OpXrefs) ||
		ix.builtFor(provider.OpResolveImport) {
		t.Error("after list_procedures: search_bytes is built; list_strings, xrefs and resolve_import are not")
	}
	if got := c.targetLimitations(provider.OpListSegments); len(got) != len(ix.img.limitations) {
		t.Errorf("list_segments' target limitations %q, want the header model's %q", got, ix.img.limitations)
	}
	six, _ := ix.syms.peek()
	if got := c.targetLimitations(provider.OpProcedureInfo); len(got) != len(ix.img.limitations)+len(six.limitations) {
		t.Errorf("procedure_info's target limitations %q, want the header model's and the symbol index's", got)
	}
}

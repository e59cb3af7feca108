package builtin

import (
	"encoding/json"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// TestPseudoSharesLifting: procedure_pseudo_code fills a procedure's lift
// cache entry from its own lifting (and lifts callees' prototypes on other
// goroutines); the entries and the text must be those of an index where
// procedure_calls and procedure_info lifted every procedure first.
func TestPseudoSharesLifting(t *testing.T) {
	path := cFixture(t, "gcc-O2", "gcc", "-O2", "-g")
	_, _, first := open(t, path)
	_, _, last := open(t, path) // New gives each its own registry and index
	pseudo := func(c provider.Client, addr string) string {
		r, err := c.Do(t.Context(), provider.OpProcedurePseudoCode, provider.Params{"procedure": addr, "offset": int64(0), "limit": int64(provider.MaxPseudoLines)}, nil)
		if err != nil {
			return "error: " + err.Error()
		}
		b, err := json.Marshal([]any{r.Normalized, r.Limitations})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	lifted := func(c provider.Client, addr string) string {
		calls := do(t, c, provider.OpProcedureCalls, provider.Params{"procedure": addr, "limit": int64(500)})
		info := do(t, c, provider.OpProcedureInfo, provider.Params{"procedure": addr})
		b, err := json.Marshal([]any{calls.Normalized, calls.Limitations, info.Normalized, info.Limitations})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	procs := allProcedures(t, first)
	type answers struct{ pseudo, lifted string }
	a, b := map[string]answers{}, map[string]answers{}
	for _, pr := range procs {
		a[pr.Address] = answers{pseudo: pseudo(first, pr.Address)}
	}
	for _, pr := range procs {
		x := a[pr.Address]
		x.lifted = lifted(first, pr.Address)
		a[pr.Address] = x
		b[pr.Address] = answers{lifted: lifted(last, pr.Address)}
	}
	for _, pr := range procs {
		x := b[pr.Address]
		x.pseudo = pseudo(last, pr.Address)
		b[pr.Address] = x
	}
	differ := 0
	for _, pr := range procs {
		if a[pr.Address] != b[pr.Address] {
			if differ++; differ <= 3 {
				t.Errorf("%s decompiled first:\n%.600v\nlifted first:\n%.600v", pr.Address, a[pr.Address], b[pr.Address])
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d procedures answer differently", differ, len(procs))
	}
}

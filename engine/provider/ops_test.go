package provider

import (
	"testing"

	"github.com/rea-re/rea/engine/fault"
)

// The bounds every provider applies come from here; a provider that pages
// past them, or refuses inside them, answers differently from the others.
func TestPageParams(t *testing.T) {
	for _, tc := range []struct {
		in            Params
		offset, limit int
		bad           bool
	}{
		{Params{}, 0, 100, false},
		{Params{"offset": int64(7), "limit": int64(MaxPageResults)}, 7, MaxPageResults, false},
		{Params{"offset": float64(3), "limit": 1}, 3, 1, false},
		{Params{"offset": int64(1) << 60}, 1 << 53, 100, false},
		{Params{"offset": int64(-1)}, 0, 0, true},
		{Params{"limit": int64(0)}, 0, 0, true},
		{Params{"limit": int64(MaxPageResults + 1)}, 0, 0, true},
	} {
		o, l, err := PageParams("list_names", tc.in)
		if tc.bad {
			if !fault.Is(err, fault.InvalidRequest) {
				t.Errorf("%v: %v, want invalid_request", tc.in, err)
			}
			continue
		}
		if err != nil || o != tc.offset || l != tc.limit {
			t.Errorf("%v: %d %d %v, want %d %d", tc.in, o, l, err, tc.offset, tc.limit)
		}
	}
}

func TestInstructionWindow(t *testing.T) {
	if o, l, err := InstructionWindow(OpReadFunctionInstructions, Params{}); err != nil || o != 0 || l != defaultInsnLimit {
		t.Errorf("defaults: %d %d %v", o, l, err)
	}
	if o, l, err := InstructionWindow(OpReadFunctionInstructions, Params{"offset": int64(maxInsnOffset), "limit": int64(MaxPageResults)}); err != nil || o != maxInsnOffset || l != MaxPageResults {
		t.Errorf("bounds: %d %d %v", o, l, err)
	}
	for _, in := range []Params{{"offset": int64(-1)}, {"offset": int64(maxInsnOffset + 1)}, {"limit": int64(0)}, {"limit": int64(MaxPageResults + 1)}} {
		if _, _, err := InstructionWindow(OpReadFunctionInstructions, in); !fault.Is(err, fault.InvalidRequest) {
			t.Errorf("%v: %v, want invalid_request", in, err)
		}
	}
}

func TestAssemblyFits(t *testing.T) {
	if err := AssemblyFits(OpProcedureAssembly, maxAssemblyInsns); err != nil {
		t.Errorf("at the bound: %v", err)
	}
	if err := AssemblyFits(OpProcedureAssembly, maxAssemblyInsns+1); !fault.Is(err, fault.Truncated) {
		t.Errorf("past the bound: %v, want truncated", err)
	}
}

func TestRequiredAddress(t *testing.T) {
	if a, err := RequiredAddress(OpXrefs, Params{"address": "0x401000"}); err != nil || a != 0x401000 {
		t.Errorf("0x401000: %#x %v", a, err)
	}
	for _, in := range []Params{{}, {"address": "main"}} {
		if _, err := RequiredAddress(OpXrefs, in); !fault.Is(err, fault.InvalidRequest) {
			t.Errorf("%v: %v, want invalid_request", in, err)
		}
	}
}

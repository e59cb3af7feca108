package tools

// Benchmarks of argument validation (issue 24 item 6): REA's tools/schema/validate.go
// against santhosh-tekuri/jsonschema/v6 on every tool's input schema, with
// the arguments vdaCases generates from each schema. One op is one call; a
// sub-benchmark cycles through the kind's cases of all tools. The library
// side parses and validates only: it does none of Decode's normalize step
// (defaults, every declared key present, int64/float64, canonical
// addresses, issues as JSON Pointers), so its figures are a lower bound of
// what a switch would cost.

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// vdaRun runs op b.N times on one locked thread and reports, besides wall
// time and allocations, the thread's CPU time per op (cpu-ns/op, Linux):
// the figure to compare on a loaded machine. Background GC work on other
// threads is not in it; allocs/op is.
func vdaRun(b *testing.B, op func(i int)) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	c0, ok := vdaThreadCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		op(i)
	}
	b.StopTimer()
	if c1, ok1 := vdaThreadCPU(); ok && ok1 {
		b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkValidate(b *testing.B) {
	tools := vdaLoad(b)
	cases := vdaCases(b, tools)
	for _, k := range vdaKinds {
		var sel []vdaCase
		for _, c := range cases {
			if c.kind == k {
				sel = append(sel, c)
			}
		}
		b.Run(k+"/rea", func(b *testing.B) {
			vdaRun(b, func(i int) {
				c := sel[i%len(sel)]
				_, err := tools[c.tool].decode(c.args)
				if (err == nil) != c.valid {
					b.Fatalf("%s %s: %v", tools[c.tool].name, c.args, err)
				}
			})
		})
		b.Run(k+"/lib", func(b *testing.B) {
			vdaRun(b, func(i int) {
				c := sel[i%len(sel)]
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(vdaArgs(c.args)))
				if err != nil {
					b.Fatal(err)
				}
				if err := tools[c.tool].lib.Validate(inst); (err == nil) != c.valid {
					b.Fatalf("%s %s: %v", tools[c.tool].name, c.args, err)
				}
			})
		})
	}
}

// BenchmarkValidateCompile is the library's one-time cost: all tools'
// enforced input schemas compiled (from the Go-built schema: JSON round trip,
// N2 rewrite, compile). One op compiles the whole catalog (every tool's schemas). REA has no
// compile step: it interprets the schema map on each call and caches
// compiled patterns.
func BenchmarkValidateCompile(b *testing.B) {
	cat := Catalog()
	vdaRun(b, func(int) {
		for _, s := range cat {
			enforced, _ := vdaREA(s)
			plain, err := vdaPlainJSON(enforced)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := vdaCompile(vdaNullableOptional(plain)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkValidateHostile: inputs a client controls that cost the two
// validators very differently. exponent: an integer argument written as
// 1e999999 (math/big expands 10^999999 in the library; REA classifies the
// literal without arithmetic). steps: capture_process_scenario with 10
// such sleep steps (the schema allows 1,000). bundle: get_evidence_bundle at
// its 10,000-id maximum.
func BenchmarkValidateHostile(b *testing.B) {
	tools := vdaLoad(b)
	byName := map[string]vdaTool{}
	for _, t := range tools {
		byName[t.name] = t
	}
	steps := make([]string, 10)
	for i := range steps {
		steps[i] = `{"type":"sleep","ms":1e999999}`
	}
	ids := make([]string, 10000)
	for i := range ids {
		ids[i] = `"ev_` + strings.Repeat("a", 64) + `"`
	}
	cases := []struct {
		name, tool, args string
		valid            bool
	}{
		{"exponent", "list_procedures", `{"limit":1e999999}`, false},
		{"steps", "capture_process_scenario", `{"executable":"/bin/sh","working_directory":"/","stdin_steps":[` + strings.Join(steps, ",") + `]}`, false},
		{"bundle", "get_evidence_bundle", `{"evidence_ids":[` + strings.Join(ids, ",") + `]}`, true},
	}
	for _, c := range cases {
		tool := byName[c.tool]
		raw := []byte(c.args)
		b.Run(c.name+"/rea", func(b *testing.B) {
			vdaRun(b, func(int) {
				if _, err := tool.decode(raw); (err == nil) != c.valid {
					b.Fatal(err)
				}
			})
		})
		b.Run(c.name+"/lib", func(b *testing.B) {
			vdaRun(b, func(int) {
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
				if err != nil {
					b.Fatal(err)
				}
				if err := tool.lib.Validate(inst); (err == nil) != c.valid {
					b.Fatal(err)
				}
			})
		})
	}
}

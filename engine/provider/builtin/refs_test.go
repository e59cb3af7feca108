package builtin

import (
	"context"
	"encoding/binary"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// objdumpRefs derives the references objdump prints: call/jump targets and
// the "# <addr>" memory-operand comments (x86).
func objdumpRefs(od map[uint64]objInsn) (refs map[uint64][]string, calls map[uint64]uint64) {
	refs, calls = map[uint64][]string{}, map[uint64]uint64{}
	for a, in := range od {
		f := strings.Fields(in.text)
		if len(f) == 0 {
			continue
		}
		m := f[0]
		if m == "bnd" || m == "notrack" {
			f = f[1:]
			if len(f) == 0 {
				continue
			}
			m = f[0]
		}
		if (strings.HasPrefix(m, "call") || strings.HasPrefix(m, "j") || strings.HasPrefix(m, "loop")) && len(f) > 1 {
			if t, err := strconv.ParseUint(f[1], 16, 64); err == nil {
				refs[t] = append(refs[t], provider.FormatAddress(a))
				if strings.HasPrefix(m, "call") {
					calls[a] = t
				}
			}
		}
		if _, c, ok := strings.Cut(in.text, "# "); ok {
			if t, err := strconv.ParseUint(strings.Fields(c)[0], 16, 64); err == nil {
				refs[t] = append(refs[t], provider.FormatAddress(a))
			}
		}
	}
	for t := range refs {
		slices.Sort(refs[t])
		refs[t] = slices.Compact(refs[t])
	}
	return refs, calls
}

func edgeList(t *testing.T, c provider.Client, op string, in provider.Params) ([]string, []string) {
	t.Helper()
	var out []string
	var lims []string
	for off := int64(0); ; {
		p := provider.Params{"offset": off, "limit": int64(2), "document": nil}
		for k, v := range in {
			p[k] = v
		}
		r := do(t, c, op, p)
		lims = r.Limitations
		pg := r.Normalized.(provider.Page[provider.AddressItem])
		for _, it := range pg.Items {
			out = append(out, it.Address)
		}
		if !pg.Truncated {
			return out, lims
		}
		off = int64(*pg.NextOffset)
	}
}

// uniqueSorted renders addresses as a sorted list without repeats.
func uniqueSorted(as []uint64) []string {
	var out []string
	for _, a := range sortedUnique(as) {
		out = append(out, provider.FormatAddress(a))
	}
	return out
}

func TestXrefsMatchObjdump(t *testing.T) {
	for _, fx := range []struct {
		name  string
		flags []string
	}{
		{"gcc-O0", []string{"-O0", "-g"}}, {"gcc-O2", []string{"-O2"}},
		{"gcc-nopie-q", []string{"-O1", "-no-pie", "-fcf-protection=full", "-Wl,-q"}},
	} {
		t.Run(fx.name, func(t *testing.T) {
			path := cFixture(t, fx.name, "gcc", fx.flags...)
			od := objdumpInsns(t, "objdump", path)
			want, _ := objdumpRefs(od)
			// A non-PIE image's absolute addresses in immediates (crt1's
			// mov rdi, main) are no "# addr" comment; the linker's
			// relocations, kept by -Wl,-q, name them.
			for a, refs := range absRelocRefs(t, "objdump", path) {
				want[a] = uniqueSorted(append(hexList(t, want[a]), refs...))
			}
			_, _, c := open(t, path)
			checked := 0
			for _, s := range nmSymbols(t, path) {
				got, _ := edgeList(t, c, provider.OpXrefs, provider.Params{"address": provider.FormatAddress(s.addr)})
				w := want[s.addr]
				if strings.Join(got, ",") != strings.Join(w, ",") {
					t.Errorf("xrefs %s %#x: got %v, objdump %v", s.name, s.addr, got, w)
				}
				if len(w) > 0 {
					checked++
				}
			}
			if checked < 5 {
				t.Fatalf("only %d referenced symbols", checked)
			}
			banner := nmFind(t, nmSymbols(t, path), "rea_banner")
			if len(want[banner.addr]) == 0 {
				t.Errorf("objdump shows no reference to rea_banner")
			}
		})
	}
}

func TestCallEdges(t *testing.T) {
	path := cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
	syms := nmSymbols(t, path)
	od := objdumpInsns(t, "objdump", path)
	_, calls := objdumpRefs(od)
	_, _, c := open(t, path)
	main := nmFind(t, syms, "main")
	var want []uint64
	for a, tg := range calls {
		if a >= main.addr && a < main.addr+main.size {
			want = append(want, tg)
		}
	}
	got, lims := edgeList(t, c, provider.OpProcedureCallees, provider.Params{"procedure": "main"})
	if w := uniqueSorted(want); strings.Join(got, ",") != strings.Join(w, ",") || len(w) != 5 {
		t.Errorf("callees(main) = %v, objdump %v", got, w)
	}
	if !slices.Contains(lims, "0 indirect call(s) unresolved") {
		t.Errorf("callee limitations %v", lims)
	}
	for _, fn := range []string{"rea_add", "rea_mul", "rea_static_helper"} {
		got, lims := edgeList(t, c, provider.OpProcedureCallers, provider.Params{"procedure": fn})
		if len(got) != 1 || got[0] != provider.FormatAddress(main.addr) {
			t.Errorf("callers(%s) = %v, want main", fn, got)
		}
		found := false
		for _, l := range lims {
			found = found || strings.HasSuffix(l, " indirect call(s) unresolved")
		}
		if !found {
			t.Errorf("caller limitations %v", lims)
		}
	}
	// rea_static_helper calls strlen through its PLT stub.
	got, _ = edgeList(t, c, provider.OpProcedureCallees, provider.Params{"procedure": "rea_static_helper"})
	var stub string
	for _, p := range allProcedures(t, c) {
		if p.Value == "strlen@plt" {
			stub = p.Address
		}
	}
	if len(got) != 1 || got[0] != stub {
		t.Errorf("callees(rea_static_helper) = %v, want strlen stub %s", got, stub)
	}
	if fe := opErr(t, c, provider.OpXrefs, provider.Params{}); issueReason(fe) != "/address missing_argument" {
		t.Errorf("xrefs without address: %v", fe.Details)
	}
	if fe := opErr(t, c, provider.OpXrefs, provider.Params{"address": "0x10", "limit": int64(1001)}); issueReason(fe) != "/limit out_of_range" {
		t.Errorf("xrefs limit: %v", fe.Details)
	}
}

// arm64: the banner is referenced by an ADRP+ADD pair in main; the
// reference is the instruction completing the address.
func TestXrefsArm64(t *testing.T) {
	path := cFixture(t, "aarch64-gcc", "aarch64-linux-gnu-gcc", "-O1", "-g")
	syms := nmSymbolsWith(t, "aarch64-linux-gnu-nm", path)
	od := objdumpInsns(t, "aarch64-linux-gnu-objdump", path)
	_, _, c := open(t, path)
	main := nmFind(t, syms, "main")
	for _, name := range []string{"rea_banner", "rea_global_counter"} {
		s := nmFind(t, syms, name)
		got, _ := edgeList(t, c, provider.OpXrefs, provider.Params{"address": provider.FormatAddress(s.addr)})
		if len(got) == 0 {
			t.Errorf("no xrefs to %s", name)
		}
		for _, g := range got {
			a, _ := provider.ParseAddress(g)
			in := od[a]
			if m := strings.Fields(in.text); len(m) == 0 || (m[0] != "add" && m[0] != "ldr" && m[0] != "adr") {
				t.Errorf("xref to %s at %s: %q", name, g, in.text)
			}
		}
	}
	add := nmFind(t, syms, "rea_add")
	got, _ := edgeList(t, c, provider.OpProcedureCallers, provider.Params{"procedure": "rea_add"})
	if len(got) != 1 || got[0] != provider.FormatAddress(main.addr) {
		t.Errorf("callers(rea_add) = %v", got)
	}
	got, _ = edgeList(t, c, provider.OpProcedureCallees, provider.Params{"procedure": "main"})
	if !slices.Contains(got, provider.FormatAddress(add.addr)) {
		t.Errorf("callees(main) = %v", got)
	}
}

func TestReferenceIndexCancellation(t *testing.T) {
	path := cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
	_, _, c := open(t, path)
	do(t, c, provider.OpListNames, provider.Params{}) // symbols built: the next build is the reference index
	ctx, cancel := context.WithCancel(context.Background())
	rep := &monotonicReporter{t: t, last: map[string]float64{}, hook: func(u progress.Update) {
		if u.Phase == "index" {
			cancel()
		}
	}}
	_, err := c.Do(ctx, provider.OpXrefs, provider.Params{"address": "0x0"}, rep)
	if !fault.Is(err, fault.Cancelled) || rep.n == 0 {
		t.Fatalf("xrefs cancelled mid-build: %v (updates %d)", err, rep.n)
	}
	main := do(t, c, provider.OpProcedureAddress, provider.Params{"procedure": "main"}).Normalized.(string)
	got, _ := edgeList(t, c, provider.OpXrefs, provider.Params{"address": main})
	if len(got) == 0 {
		t.Errorf("xrefs to main after cancellation: %v", got)
	}
}

// absRelocRefs returns, by target, the instructions carrying an absolute
// 32-bit relocation (R_X86_64_32, R_X86_64_32S, R_386_32) in a file linked
// with -Wl,-q; the target is the value stored in the relocated field.
func absRelocRefs(t *testing.T, objdump, path string) map[uint64][]uint64 {
	out := toolOutput(t, objdump, "-dr", "--insn-width=16", path)
	refs := map[uint64][]uint64{}
	for _, l := range parseObjdump(t, out, "#") {
		for _, r := range l.relocs {
			k := r.off - l.addr
			if r.off < l.addr || k+4 > uint64(len(l.bytes)) {
				continue
			}
			v := uint64(binary.LittleEndian.Uint32(l.bytes[k:]))
			switch r.typ {
			case "R_X86_64_32S":
				v = uint64(int64(int32(v)))
				fallthrough
			case "R_X86_64_32", "R_386_32":
				refs[v] = append(refs[v], l.addr)
			}
		}
	}
	return refs
}

func hexList(t *testing.T, as []string) []uint64 {
	out := make([]uint64, len(as))
	for i, a := range as {
		out[i] = hexAddr(t, a)
	}
	return out
}

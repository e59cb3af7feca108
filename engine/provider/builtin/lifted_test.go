package builtin

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/internal/corpus"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/internal/testkit"
)

// The lifting tests build the signature corpus (engine/internal/corpus)
// with its -g twin as the oracle, strip it, and ask the builtin provider
// of the stripped file: procedure_info's prototype against DWARF's
// parameter count, procedure_calls' arguments against the source's
// literals.

// strippedCorpus builds the corpus for tg and returns the -g build and a
// stripped copy.
func strippedCorpus(t *testing.T, tg corpus.Target) (*corpus.Program, string) {
	t.Helper()
	dir := t.TempDir()
	path, err := corpus.Build(dir, tg)
	if errors.Is(err, corpus.ErrMissingTool) {
		testkit.SkipOrFail(t, err.Error())
		return nil, ""
	}
	if err != nil {
		t.Fatal(err)
	}
	strip := "strip"
	switch {
	case tg.Arch == "arm64":
		strip = "aarch64-linux-gnu-strip"
	case tg.Compiler == "mingw":
		strip = "x86_64-w64-mingw32-strip"
	}
	strip = needTool(t, strip)
	out := filepath.Join(dir, "stripped")
	if b, err := exec.Command(strip, "-o", out, path).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, b)
	}
	p, err := corpus.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p, out
}

// liftCells are the builds the lifting tests ask of: x86-64 gcc -O0 and
// -O2 always; with -short off, also clang, i386, arm64 and mingw's x86-64
// PE (Win64) at -O2.
func liftCells() []corpus.Target {
	cells := []corpus.Target{{Arch: "x86-64", Compiler: "gcc", Opt: 0}, {Arch: "x86-64", Compiler: "gcc", Opt: 2}}
	if !testing.Short() {
		cells = append(cells, corpus.Target{Arch: "x86-64", Compiler: "clang", Opt: 2},
			corpus.Target{Arch: "i386", Compiler: "gcc", Opt: 2}, corpus.Target{Arch: "arm64", Compiler: "gcc", Opt: 2},
			corpus.Target{Arch: "x86-64", Compiler: "mingw", Opt: 2})
	}
	return cells
}

func callsOf(t *testing.T, c provider.Client, entry uint64) []provider.CallSite {
	t.Helper()
	r := do(t, c, provider.OpProcedureCalls, provider.Params{"procedure": provider.FormatAddress(entry), "limit": int64(500)})
	return r.Normalized.(provider.Page[provider.CallSite]).Items
}

// literalMatches reports whether v is the source's literal l.
func literalMatches(p *corpus.Program, l *corpus.Literal, v provider.ArgValue) bool {
	addr := func() (uint64, bool) {
		if v.Address == nil {
			return 0, false
		}
		var a uint64
		_, err := fmt.Sscanf(*v.Address, "0x%x", &a)
		return a, err == nil
	}
	switch l.Kind {
	case "string":
		return v.Kind == "string" && v.String != nil && *v.String == l.String
	case "address":
		want := p.Image.Symbols[l.Symbol]
		a, ok := addr()
		return ok && a == want || v.Integer != nil && uint64(*v.Integer) == want
	}
	m := ^uint64(0)
	if l.Integer >= -1<<31 && l.Integer < 1<<32 {
		m = 1<<32 - 1
	}
	if v.Integer == nil {
		a, ok := addr()
		return ok && a&m == uint64(l.Integer)&m
	}
	x := uint64(*v.Integer)
	if l.Integer >= -128 && l.Integer < 256 && x&0xff == uint64(l.Integer)&0xff {
		return true // a char's upper bits are unspecified
	}
	if l.Integer >= -32768 && l.Integer < 65536 && x&0xffff == uint64(l.Integer)&0xffff && x&m>>16 == 0 {
		return true
	}
	return x&m == uint64(l.Integer)&m
}

// TestProcedureCallsCorpusLiterals: every literal argument of the corpus's
// source calls is found in procedure_calls of the stripped build, and no
// reported value contradicts the source (x86-64 gcc -O0 and -O2).
func TestProcedureCallsCorpusLiterals(t *testing.T) {
	for _, tg := range liftCells() {
		t.Run(strings.ReplaceAll(tg.String(), "/", "_"), func(t *testing.T) {
			p, stripped := strippedCorpus(t, tg)
			if p == nil {
				return
			}
			_, _, c := open(t, stripped)
			nameAt := map[uint64]string{}
			for n, a := range p.Image.Symbols {
				nameAt[a] = n
			}
			sites := map[[2]string][]provider.CallSite{}
			for _, pr := range p.Procs {
				for _, cs := range callsOf(t, c, pr.Addr) {
					// the stripped file names local procedures sub_<hex>:
					// the -g twin's name at the address is the source's
					name := ""
					if cs.Callee.Address != nil {
						var a uint64
						fmt.Sscanf(*cs.Callee.Address, "0x%x", &a)
						name = nameAt[a]
					}
					if name == "" && cs.Callee.Name != nil {
						name = bareImport(*cs.Callee.Name)
					}
					k := [2]string{pr.Name, name}
					sites[k] = append(sites[k], cs)
				}
			}
			lits, found, absent := 0, 0, 0
			var contradictions, missing []string
			for key, lists := range corpus.Calls(p.Image.Symbols) {
				got := sites[key]
				for _, args := range lists {
					for _, l := range args {
						if l == nil {
							continue
						}
						lits++
						if len(got) == 0 {
							if os.Getenv("REA_SIGNATURE_VERBOSE") != "" {
								t.Log("absent", key)
							}
							absent++ // inlined or folded away
							continue
						}
						hit := false
						for _, cs := range got {
							if l.Index < len(cs.Arguments) && literalMatches(p, l, cs.Arguments[l.Index].Value) {
								hit = true
								break
							}
						}
						if hit {
							found++
						} else {
							missing = append(missing, fmt.Sprintf("%s→%s arg %d (%s %d %q %s)", l.Caller, l.Callee, l.Index, l.Kind, l.Integer, l.String, l.Symbol))
						}
					}
				}
				for _, cs := range got {
					for _, a := range cs.Arguments {
						switch a.Value.Kind {
						case "unknown", "expression", "stack":
							continue
						}
						allLit, any := true, false
						for _, args := range lists {
							if a.Index >= len(args) || args[a.Index] == nil {
								allLit = false
								break
							}
							any = any || literalMatches(p, args[a.Index], a.Value)
						}
						if allLit && !any {
							contradictions = append(contradictions, fmt.Sprintf("%s→%s arg %d = %s %q at %s", key[0], key[1], a.Index, a.Value.Kind, a.Value.Text, cs.Address))
						}
					}
				}
			}
			share := 100 * float64(found) / float64(max(lits-absent, 1))
			t.Logf("%s: literals found %.1f%% (%d/%d, %d calls absent), contradictions %d", tg, share, found, lits-absent, absent, len(contradictions))
			if os.Getenv("REA_SIGNATURE_VERBOSE") != "" {
				for _, m := range missing {
					t.Log("  missing", m)
				}
			}
			for _, m := range contradictions {
				t.Errorf("contradiction: %s", m)
			}
			want := 90.0
			if tg.Opt == 0 {
				want = 98
			}
			if share < want {
				t.Errorf("literal arguments found: %.1f%%, want ≥ %.0f%%", share, want)
			}
		})
	}
}

// TestProcedureInfoPrototypeCorpus: procedure_info's prototype on the
// stripped build has DWARF's parameter count (of the -g twin) on ≥ 95% of
// the corpus's functions.
func TestProcedureInfoPrototypeCorpus(t *testing.T) {
	for _, tg := range liftCells() {
		t.Run(strings.ReplaceAll(tg.String(), "/", "_"), func(t *testing.T) {
			p, stripped := strippedCorpus(t, tg)
			if p == nil {
				return
			}
			_, _, c := open(t, stripped)
			funcs, equal := 0, 0
			var bad []string
			for _, name := range corpus.Functions() {
				addr, ok := p.Image.Symbols[name]
				want, okd := p.Params[name]
				if !ok || !okd {
					continue
				}
				funcs++
				r := do(t, c, provider.OpProcedureInfo, provider.Params{"procedure": provider.FormatAddress(addr)})
				info := r.Normalized.(provider.ProcedureInfoResult)
				if info.Prototype == nil {
					bad = append(bad, name+": no prototype")
					continue
				}
				if info.Prototype.Source != "inferred" || info.Signature == nil || info.Frame == nil {
					t.Errorf("%s: source %q signature %v frame %v", name, info.Prototype.Source, info.Signature, info.Frame)
				}
				if len(info.Prototype.Params) == len(want) {
					equal++
				} else {
					bad = append(bad, fmt.Sprintf("%s: %d params, DWARF %d: %s", name, len(info.Prototype.Params), len(want), *info.Signature))
				}
			}
			share := 100 * float64(equal) / float64(max(funcs, 1))
			t.Logf("%s: parameter count equal to DWARF on %.1f%% (%d/%d)", tg, share, equal, funcs)
			if os.Getenv("REA_SIGNATURE_VERBOSE") != "" {
				for _, m := range bad {
					t.Log("  ", m)
				}
			}
			if funcs < 120 || share < 95 {
				t.Errorf("parameter count equal to DWARF on %.1f%% of %d functions, want ≥ 95%% of ≥ 120", share, funcs)
			}
		})
	}
}

// TestLiftingUnavailableOnArm: 32-bit arm code is not lifted; procedure_info
// has no prototype (no DWARF in this build) and procedure_calls answers an
// empty page, each saying why in a limitation.
func TestLiftingUnavailableOnArm(t *testing.T) {
	path := cFixture(t, "arm-gcc-marm", "arm-linux-gnueabihf-gcc", "-O1", "-marm")
	_, _, c := open(t, path)
	r := do(t, c, provider.OpProcedureInfo, provider.Params{"procedure": "rea_add"})
	info := r.Normalized.(provider.ProcedureInfoResult)
	if info.Prototype != nil || info.Frame != nil || info.Signature != nil {
		t.Errorf("arm rea_add: prototype %+v frame %+v signature %v", info.Prototype, info.Frame, info.Signature)
	}
	says := func(lims []string) bool {
		for _, l := range lims {
			if strings.Contains(l, "lifting is not available for arm code") {
				return true
			}
		}
		return false
	}
	if !says(r.Limitations) {
		t.Errorf("procedure_info limitations %v", r.Limitations)
	}
	r = do(t, c, provider.OpProcedureCalls, provider.Params{"procedure": "main"})
	if p := r.Normalized.(provider.Page[provider.CallSite]); len(p.Items) != 0 || !says(r.Limitations) {
		t.Errorf("arm procedure_calls: %+v, limitations %v", p, r.Limitations)
	}
}

// TestLiftCacheAccounted: a lifted procedure is kept in the index and
// counted in its memory estimate; releasing the index lets it go.
func TestLiftCacheAccounted(t *testing.T) {
	path := cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
	_, _, cl := open(t, path)
	c := cl.(*Client)
	do(t, c, provider.OpListProcedures, nil)
	before := c.ix.memSize(c.data)
	do(t, c, provider.OpProcedureCalls, provider.Params{"procedure": "main"})
	if _, ok := c.ix.lifted.procs[mustEntry(t, c, "main")]; !ok {
		t.Fatal("main is not in the lift cache")
	}
	if n := c.ix.lifted.size; n <= 0 {
		t.Fatalf("lift cache size %d", n)
	}
	if after := c.ix.memSize(c.data); after <= before {
		t.Errorf("index estimate %d after lifting, %d before", after, before)
	}
	c.ix.release()
	if len(c.ix.lifted.procs) != 0 || c.ix.lifted.size != 0 {
		t.Errorf("released index keeps %d lifted procedures (%d bytes)", len(c.ix.lifted.procs), c.ix.lifted.size)
	}
}

func mustEntry(t *testing.T, c *Client, name string) uint64 {
	t.Helper()
	r := do(t, c, provider.OpProcedureAddress, provider.Params{"procedure": name})
	var a uint64
	if _, err := fmt.Sscanf(r.Normalized.(string), "0x%x", &a); err != nil {
		t.Fatalf("procedure_address %s: %v (%v)", name, err, r.Normalized)
	}
	return a
}

// TestProcedureInfoFrame: the frame's size and saved registers equal what
// the prologue objdump lists does (pushes of callee-saved registers and the
// sub of the stack pointer), on gcc -O0 and -O2 builds.
func TestProcedureInfoFrame(t *testing.T) {
	objdump := needTool(t, "objdump")
	for _, build := range [][]string{{"gcc-O0", "-O0"}, {"gcc-O2", "-O2"}} {
		path := cFixture(t, build[0], "gcc", build[1], "-g")
		_, _, c := open(t, path)
		out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", "-M", "intel", path).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range []string{"main", "rea_add", "rea_mul", "rea_static_helper"} {
			// the prologue: pushes and one sub of rsp before the first
			// transfer (moves of arguments may come between)
			var size int64
			saved := []string{}
			body := string(out)
			i := strings.Index(body, "<"+fn+">:\n")
			if i < 0 {
				t.Fatalf("%s: not in objdump's listing", fn)
			}
			for _, line := range strings.Split(body[i:], "\n")[1:] {
				f := strings.SplitN(line, "\t", 2)
				if len(f) < 2 {
					break
				}
				ins := strings.Fields(f[1])
				if len(ins) == 2 && ins[0] == "push" {
					size += 8
					saved = append(saved, ins[1])
				} else if len(ins) == 2 && ins[0] == "sub" && strings.HasPrefix(ins[1], "rsp,0x") {
					n, _ := strconv.ParseInt(strings.TrimPrefix(ins[1], "rsp,0x"), 16, 64)
					size += n
					break
				} else if len(ins) == 0 || ins[0] == "call" || ins[0] == "ret" || strings.HasPrefix(ins[0], "j") {
					break // the prologue ends at the first transfer
				}
			}
			pi := do(t, c, provider.OpProcedureInfo, provider.Params{"procedure": fn}).Normalized.(provider.ProcedureInfoResult)
			if pi.Frame == nil || pi.Frame.Size == nil {
				t.Errorf("%s %s: no frame", build[0], fn)
				continue
			}
			// a leaf at -O0 keeps its locals in the red zone below the
			// pushes, where slot promotion removes the accesses: the
			// pushes are the frame then, as objdump's prologue says
			if *pi.Frame.Size != size || strings.Join(pi.Frame.SavedRegisters, ",") != strings.Join(saved, ",") {
				t.Errorf("%s %s: frame %d %v, objdump's prologue %d %v", build[0], fn, *pi.Frame.Size, pi.Frame.SavedRegisters, size, saved)
			}
		}
	}
}

// TestLiftConcurrent: clients of one index lift the same procedures at once
// (run with -race); every answer is the same.
func TestLiftConcurrent(t *testing.T) {
	path := cFixture(t, "gcc-O2", "gcc", "-O2", "-g")
	p, tg, c := open(t, path)
	c2 := startOn(t, p, tg)
	procs := allProcedures(t, c)
	want := map[string]int{}
	for _, pr := range procs {
		want[pr.Address] = len(callsOfAddr(t, c, pr.Address))
	}
	done := make(chan string, 4)
	for g := 0; g < 4; g++ {
		cl := c
		if g%2 == 1 {
			cl = c2
		}
		go func() {
			for _, pr := range procs {
				r, err := cl.Do(t.Context(), provider.OpProcedureCalls, provider.Params{"procedure": pr.Address, "limit": int64(500)}, nil)
				if err != nil {
					done <- err.Error()
					return
				}
				if n := len(r.Normalized.(provider.Page[provider.CallSite]).Items); n != want[pr.Address] {
					done <- fmt.Sprintf("%s: %d calls, then %d", pr.Address, want[pr.Address], n)
					return
				}
			}
			done <- ""
		}()
	}
	for g := 0; g < 4; g++ {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}

func callsOfAddr(t *testing.T, c provider.Client, addr string) []provider.CallSite {
	t.Helper()
	r := do(t, c, provider.OpProcedureCalls, provider.Params{"procedure": addr, "limit": int64(500)})
	return r.Normalized.(provider.Page[provider.CallSite]).Items
}

// TestLiftOrderIndependent: an answer does not depend on what was lifted
// before it: the stripped corpus's call sites and prototypes asked in
// ascending address order on one index equal those asked in descending
// order on another.
func TestLiftOrderIndependent(t *testing.T) {
	p, stripped := strippedCorpus(t, corpus.Target{Arch: "x86-64", Compiler: "gcc", Opt: 2})
	if p == nil {
		return
	}
	_, _, up := open(t, stripped)
	_, _, down := open(t, stripped) // New gives each its own registry and index
	ask := func(c provider.Client, addr string) string {
		calls := do(t, c, provider.OpProcedureCalls, provider.Params{"procedure": addr, "limit": int64(500)}).Normalized
		info := do(t, c, provider.OpProcedureInfo, provider.Params{"procedure": addr}).Normalized
		b, err := json.Marshal([]any{calls, info})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	procs := allProcedures(t, up)
	got := map[string]string{}
	for _, pr := range procs {
		got[pr.Address] = ask(up, pr.Address)
	}
	differ := 0
	for i := len(procs) - 1; i >= 0; i-- {
		if b := ask(down, procs[i].Address); b != got[procs[i].Address] {
			if differ++; differ <= 3 {
				t.Errorf("%s asked in ascending order:\n%.400s\nin descending order:\n%.400s", procs[i].Address, got[procs[i].Address], b)
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d procedures answer differently by order", differ, len(procs))
	}
}

package signature_test

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/internal/corpus"
	"github.com/rea-re/rea/engine/signature"
	"github.com/rea-re/rea/internal/testkit"
)

var (
	buildDir  string
	buildMu   sync.Mutex
	buildDone = map[corpus.Target]string{}
)

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "rea-signature-")
	if err != nil {
		panic(err)
	}
	buildDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

func build(t testing.TB, tg corpus.Target) *corpus.Program {
	t.Helper()
	buildMu.Lock()
	path, ok := buildDone[tg]
	if !ok {
		dir, err := os.MkdirTemp(buildDir, "b")
		if err == nil {
			path, err = corpus.Build(dir, tg)
		}
		if errors.Is(err, corpus.ErrMissingTool) {
			buildMu.Unlock()
			testkit.SkipOrFail(t, err.Error())
			return nil
		}
		if err != nil {
			buildMu.Unlock()
			t.Fatal(err)
		}
		buildDone[tg] = path
	}
	buildMu.Unlock()
	p, err := corpus.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func envFor(p *corpus.Program) *signature.Env {
	e := &signature.Env{Conv: abi.ForArch(p.Arch, p.Platform), Image: p.Image}
	switch p.Arch {
	case "x86-64":
		e.ABI = ctypes.LinuxAMD64
		if p.Platform == "windows" {
			e.ABI = ctypes.WindowsAMD64
		}
	case "i386":
		e.ABI = ctypes.Linux386
	case "arm64":
		e.ABI = ctypes.LinuxARM64
	}
	return e
}

// figures are one cell's measurements.
type figures struct {
	funcs, countEq, classEq int
	// intReturns counts the functions DWARF gives an integer or pointer
	// return; of them, narrowReturns are recovered as an integer narrower
	// than DWARF's (a caller reading it would lose bits), missingReturns
	// as void or a float (a tail call or an indirect call's result passed
	// on), wideReturns as wider (harmless, less precise).
	intReturns                    int
	narrowReturns, missingReturns []string
	wideReturns                   int
	lits, found, absent           int
	contradictions                []string
	mismatches                    []string
}

// expected places DWARF's parameters where the convention passes them.
func expected(cv *abi.Convention, classes []string, sizes []int) map[string]string {
	out := map[string]string{}
	ni, nf := 0, 0
	off := cv.StackArgs
	for i, c := range classes {
		float := c == "floating"
		switch {
		case cv.Positional && i < len(cv.IntArgs):
			// Win64: the position picks the register; an aggregate other
			// than 1, 2, 4 or 8 bytes goes by reference
			switch {
			case float:
				out[cv.FloatArgs[i]] = c
			case c == "aggregate" && sizes[i] != 1 && sizes[i] != 2 && sizes[i] != 4 && sizes[i] != 8:
				out[cv.IntArgs[i]] = "pointer"
			default:
				out[cv.IntArgs[i]] = c
			}
		case cv.Positional:
			out[fmt.Sprintf("stack+%#x", off)] = c
			off += cv.StackSlot
		case float && nf < len(cv.FloatArgs):
			out[cv.FloatArgs[nf]] = c
			nf++
		case !float && ni < len(cv.IntArgs) && (sizes[i] <= int(cv.PtrWidth/8)):
			out[cv.IntArgs[ni]] = c
			ni++
		default:
			out[fmt.Sprintf("stack+%#x", off)] = c
			off += max(cv.StackSlot, (int64(sizes[i])+cv.StackSlot-1)/cv.StackSlot*cv.StackSlot)
		}
	}
	return out
}

func measure(t *testing.T, tg corpus.Target) figures {
	p := build(t, tg)
	if p == nil {
		return figures{}
	}
	env := envFor(p)
	funcs := map[uint64]*dataflow.Func{}
	byName := map[string]uint64{}
	env.Pops = map[uint64]int64{}
	for _, pr := range p.Procs {
		env.Pops[pr.Addr] = signature.CalleePops(pr.Insns, env.Conv.SP)
		f, err := signature.Build(env, pr.Insns)
		if err != nil {
			t.Fatalf("%s %s: %v", tg, pr.Name, err)
		}
		funcs[pr.Addr] = f
		byName[pr.Name] = pr.Addr
	}
	protos := signature.Program(funcs, env, 4)
	var fg figures
	for _, name := range corpus.Functions() {
		addr, ok := byName[name]
		classes, okd := p.Params[name]
		if !ok || !okd {
			t.Errorf("%s: %s missing from the build or its DWARF", tg, name)
			continue
		}
		fg.funcs++
		pr := protos[addr]
		if r, ok := p.Returns[name]; ok && (r.Class == "integer" || r.Class == "pointer") && r.Size <= int(env.Conv.PtrWidth/8) {
			fg.intReturns++
			switch q := pr.Return; {
			case q == nil || q.Class == ctypes.ClassFloating:
				fg.missingReturns = append(fg.missingReturns, fmt.Sprintf("%s: returns %s, DWARF %d bytes", name, pr.String(name), r.Size))
			case q.Width < 8*r.Size:
				fg.narrowReturns = append(fg.narrowReturns, fmt.Sprintf("%s: returns %s, DWARF %d bytes", name, pr.String(name), r.Size))
			case q.Width > 8*r.Size:
				fg.wideReturns++
			}
		}
		if len(pr.Params) != len(classes) {
			fg.mismatches = append(fg.mismatches, fmt.Sprintf("%s: %d params, DWARF %d: %s", name, len(pr.Params), len(classes), pr.String(name)))
			continue
		}
		fg.countEq++
		want := expected(env.Conv, classes, p.Sizes[name])
		ok = true
		for _, q := range pr.Params {
			if want[q.Storage] != q.Class.String() {
				ok = false
			}
		}
		if ok {
			fg.classEq++
		} else {
			fg.mismatches = append(fg.mismatches, fmt.Sprintf("%s: classes %v, DWARF %v: %s", name, pr.Params, classes, pr.String(name)))
		}
	}

	// Call arguments against the source's literals.
	known := *env
	known.Known = func(a uint64) (*signature.Prototype, bool) { q, ok := protos[a]; return q, ok }
	sites := map[[2]string][]signature.Call{}
	for _, pr := range p.Procs {
		for _, c := range signature.Calls(funcs[pr.Addr], &known) {
			name := strings.TrimSuffix(c.Callee.Name, "@plt")
			if i := strings.IndexByte(name, '@'); i > 0 {
				name = name[:i]
			}
			sites[[2]string{pr.Name, name}] = append(sites[[2]string{pr.Name, name}], c)
		}
	}
	src := corpus.Calls(p.Image.Symbols)
	for key, lists := range src {
		got := sites[key]
		for _, args := range lists {
			for _, l := range args {
				if l == nil {
					continue
				}
				fg.lits++
				if len(got) == 0 {
					fg.absent++
					continue
				}
				hit := false
				for _, c := range got {
					if l.Index < len(c.Args) && matches(p, l, c.Args[l.Index].Value) {
						hit = true
						break
					}
				}
				if hit {
					fg.found++
				} else {
					fg.mismatches = append(fg.mismatches, fmt.Sprintf("literal %s→%s arg %d (%s %d %q %s) not found", l.Caller, l.Callee, l.Index, l.Kind, l.Integer, l.String, l.Symbol))
				}
			}
		}
		// contradictions: a reported value no source call of this pair
		// could have passed at that index.
		for _, c := range got {
			for _, a := range c.Args {
				v := a.Value
				if v.Kind == signature.KindUnknown || v.Kind == signature.KindExpression || v.Kind == signature.KindStack {
					continue
				}
				allLit, any := true, false
				for _, args := range lists {
					if a.Index >= len(args) || args[a.Index] == nil {
						allLit = false
						break
					}
					if matches(p, args[a.Index], v) {
						any = true
					}
				}
				if allLit && !any {
					fg.contradictions = append(fg.contradictions, fmt.Sprintf("%s→%s arg %d = %s %q at %#x", key[0], key[1], a.Index, v.Kind, v.Text, c.Addr))
				}
			}
		}
	}
	return fg
}

func matches(p *corpus.Program, l *corpus.Literal, v signature.Value) bool {
	switch l.Kind {
	case "string":
		return v.Kind == signature.KindString && v.String == l.String
	case "address":
		want := p.Image.Symbols[l.Symbol]
		return v.HasAddr && v.Address == want || v.HasInt && uint64(v.Integer) == want
	default:
		m := ^uint64(0)
		if l.Integer >= -1<<31 && l.Integer < 1<<32 {
			m = 1<<32 - 1
		}
		// A char or short argument's upper bits are unspecified (AAPCS64,
		// and callers do extend either way): only its own bits count.
		if l.Integer >= -128 && l.Integer < 256 && v.HasInt && uint64(v.Integer)&0xff == uint64(l.Integer)&0xff {
			return true
		}
		if l.Integer >= -32768 && l.Integer < 65536 && v.HasInt && uint64(v.Integer)&0xffff == uint64(l.Integer)&0xffff && uint64(v.Integer)&m>>16 == 0 {
			return true
		}
		return v.HasInt && uint64(v.Integer)&m == uint64(l.Integer)&m || v.HasAddr && v.Address&m == uint64(l.Integer)&m
	}
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

// TestCorpusMatrix measures prototypes and call arguments on the corpus
// built for every architecture × compiler × level (-short: x86-64 gcc
// -O0 and -O2 only), and asserts the thresholds that hold.
func TestCorpusMatrix(t *testing.T) {
	targets := corpus.Targets()
	if testing.Short() {
		targets = []corpus.Target{{Arch: "x86-64", Compiler: "gcc", Opt: 0}, {Arch: "x86-64", Compiler: "gcc", Opt: 2}}
	}
	if len(corpus.Functions()) < 120 {
		t.Fatalf("corpus has %d functions, want ≥ 120", len(corpus.Functions()))
	}
	for _, tg := range targets {
		t.Run(strings.ReplaceAll(tg.String(), "/", "_"), func(t *testing.T) {
			fg := measure(t, tg)
			if fg.funcs == 0 {
				return
			}
			t.Logf("%-18s count %5.1f%% (%d/%d)  class %5.1f%%  literals %5.1f%% (%d/%d, %d absent)  contradictions %d  returns narrower %d, missing %d, wider %d of %d",
				tg, pct(fg.countEq, fg.funcs), fg.countEq, fg.funcs, pct(fg.classEq, fg.funcs), pct(fg.found, fg.lits-fg.absent), fg.found, fg.lits-fg.absent, fg.absent, len(fg.contradictions), len(fg.narrowReturns), len(fg.missingReturns), fg.wideReturns, fg.intReturns)
			if os.Getenv("REA_SIGNATURE_VERBOSE") != "" {
				for _, m := range slices.Concat(fg.mismatches, fg.missingReturns) {
					t.Log("  ", m)
				}
			}
			for _, c := range fg.contradictions {
				t.Errorf("contradiction: %s", c)
			}
			// the return is the widest of the return paths: never an
			// integer narrower than the one the function returns
			for _, r := range fg.narrowReturns {
				t.Errorf("return narrower than DWARF's: %s", r)
			}
			// Issue 25's targets are ≥ 95% (count), ≥ 90% (class), ≥ 98%
			// (literals at -O0) and ≥ 90% (-O2/-O3). Every cell holds more;
			// the floors asserted are what every cell holds (the lowest:
			// count 98.6%, class 95.2% (arm64), literals 99.3%
			// at -O0 and 97.3% arm64 gcc -O2 above it; mingw's Win64
			// column: count ≥ 99.3%, class ≥ 97.3%, literals ≥ 98.6%).
			if got := pct(fg.countEq, fg.funcs); got < 98.5 {
				t.Errorf("parameter count equal to DWARF on %.1f%% of functions, want ≥ 98.5%%", got)
			}
			if got := pct(fg.classEq, fg.funcs); got < 95 {
				t.Errorf("parameter classes equal to DWARF on %.1f%% of functions, want ≥ 95%%", got)
			}
			want := 97.0
			if tg.Opt == 0 {
				want = 99
			}
			if got := pct(fg.found, fg.lits-fg.absent); got < want {
				t.Errorf("literal call arguments found: %.1f%%, want ≥ %.0f%%", got, want)
			}
		})
	}
}

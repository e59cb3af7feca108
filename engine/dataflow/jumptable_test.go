package dataflow

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// jtCell is one build of the switch fixture.
type jtCell struct {
	arch     jtArch
	compiler string
	level    string
	pic      bool
}

func (c jtCell) String() string {
	p := "nopic"
	if c.pic {
		p = "pic"
	}
	return fmt.Sprintf("%s/%s/%s/%s", c.arch.name, c.compiler, c.level, p)
}

func (c jtCell) build(cache *testkit.BuildCache) (string, string, string, error) {
	driver := c.arch.gcc
	if c.compiler == "clang" {
		driver = c.arch.clang
	}
	flags := []string{c.level}
	if c.pic {
		flags = append(flags, "-fPIC", "-shared")
	} else {
		flags = append(flags, "-fno-pic", "-no-pie", "-static", "-Wl,-e,0")
		if c.compiler == "clang" {
			flags = flags[:len(flags)-3]
			flags = append(flags, "-static", "-Wl,-e,0", "-Wl,-no-pie")
		}
	}
	return buildSwitch(cache, driver, flags)
}

// jtCount is what one cell resolved.
type jtCount struct {
	present, resolved, cases int
	sizes                    map[string]bool // entry forms: "4s" a signed 4-byte entry
}

// checkCell resolves every switch of one build and checks each table
// against the oracle: objdump's indirect jumps, the -g twin's line table.
func checkCell(t *testing.T, cache *testkit.BuildCache, c jtCell) jtCount {
	t.Helper()
	stripped, debug, skip, err := c.build(cache)
	if err != nil {
		t.Fatal(err)
	}
	if skip != "" {
		testkit.SkipOrFail(t, skip)
	}
	testkit.Need(t, c.arch.objdump)
	ef, df, img := openTwins(t, stripped, debug)
	lines, err := readLines(df)
	if err != nil {
		t.Fatal(err)
	}
	syms := funcSyms(df)
	_, _, funcs := switchSource()
	n := jtCount{sizes: map[string]bool{}}
	for _, sf := range funcs {
		s, ok := syms[sf.name]
		if !ok {
			t.Fatalf("%s: no symbol %s in the -g twin", c, sf.name)
		}
		sec, code, err := textOf(ef, s.Value)
		if err != nil {
			t.Fatal(err)
		}
		_, dcode, err := textOf(df, s.Value)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(code, dcode) {
			t.Fatalf("%s: the -g twin's code differs from the stripped build's", c)
		}
		off := s.Value - sec.Addr
		insns := liftProc(c.arch.arch, code[off:off+s.Size], s.Value)
		jumps, err := indirectJumps(c.arch.objdump, stripped, s.Value, s.Value+s.Size)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ResolveProcedure(c.arch.arch, insns, img, Options{Start: s.Value, End: s.Value + s.Size, Lift: liftAt(c.arch.arch, img)})
		if err != nil {
			t.Fatalf("%s %s: %v", c, sf.name, err)
		}
		tables, refused := res.Tables, res.UnresolvedJumps
		// The cases are blocks of the procedure's SSA, which stays well
		// formed.
		if err := Validate(res.Func); err != nil {
			t.Fatalf("%s %s: %v\n%s", c, sf.name, err, res.Func)
		}
		blocks := map[uint64]bool{}
		for _, b := range res.Func.Blocks {
			if !b.Exit {
				blocks[b.Addr] = true
			}
		}
		for _, tb := range tables {
			for _, tgt := range tb.Targets {
				if !blocks[tgt] {
					t.Errorf("%s %s: case %#x of the jump at %#x is no block of the SSA", c, sf.name, tgt, tb.Jump)
				}
			}
		}
		for _, l := range res.Func.Limitations {
			if strings.Contains(l, "indirect jump not resolved") {
				t.Errorf("%s %s: %s", c, sf.name, l)
			}
		}
		n.present += len(jumps)
		for _, r := range refused {
			t.Errorf("%s %s: jump at %#x not resolved: %s %s", c, sf.name, r.Addr, r.Reason, r.Detail)
		}
		for _, j := range jumps {
			k := slices.IndexFunc(tables, func(tb JumpTable) bool { return tb.Jump == j })
			if k < 0 {
				t.Errorf("%s %s: objdump's indirect jump at %#x has no table", c, sf.name, j)
				continue
			}
			n.resolved++
			tb := tables[k]
			n.cases += tb.Count()
			form := fmt.Sprintf("%du", tb.EntrySize)
			if tb.Signed {
				form = fmt.Sprintf("%ds", tb.EntrySize)
			}
			if tb.Scale != 1 {
				form += fmt.Sprintf("×%d", tb.Scale)
			}
			n.sizes[form] = true
			// Each case's line is a target; every other entry goes to one
			// address, the default's (the guard's other successor when it
			// has one).
			got := map[int]bool{}
			others := map[uint64]bool{}
			for i, tgt := range tb.Targets {
				l := lines.line(tgt)
				switch {
				case sf.lines[l]:
					got[l] = true
				case sf.dflt[l]:
					others[tgt] = true
				default:
					t.Errorf("%s %s: index %d → %#x is line %d, neither a case nor the default", c, sf.name, tb.First+uint64(i), tgt, l)
				}
			}
			for _, l := range sf.caseLns {
				if !got[l] {
					t.Errorf("%s %s: the case at line %d is no target of the table at %#x (%d entries)", c, sf.name, l, tb.Table, tb.Count())
				}
			}
			if len(others) > 1 {
				t.Errorf("%s %s: the entries that are no case go to %d places", c, sf.name, len(others))
			}
			// The guard's other successor is a default's code (compilers
			// make copies of it before and after the frame is set up;
			// clang marks a merged one line 0).
			if tb.HasDefault {
				if l := lines.line(tb.Default); !sf.dflt[l] && lines.raw(tb.Default) != 0 {
					t.Errorf("%s %s: default %#x is line %d", c, sf.name, tb.Default, l)
				}
			}
		}
		if len(tables) > len(jumps) {
			t.Errorf("%s %s: %d tables for %d indirect jumps", c, sf.name, len(tables), len(jumps))
		}
	}
	return n
}

func jtCells(short bool) []jtCell {
	if short {
		return []jtCell{{arch: jtArches[0], compiler: "gcc", level: "-O2", pic: true}}
	}
	var out []jtCell
	for _, a := range jtArches {
		for _, cc := range []string{"gcc", "clang"} {
			for _, lv := range []string{"-O0", "-O1", "-O2", "-O3"} {
				for _, pic := range []bool{true, false} {
					out = append(out, jtCell{a, cc, lv, pic})
				}
			}
		}
	}
	return out
}

// TestJumpTablesMatrix resolves every switch of the fixture built for
// x86-64, i386 and arm64 by gcc and clang at -O0…-O3, PIC and not.
func TestJumpTablesMatrix(t *testing.T) {
	var report []string
	cache := &testkit.BuildCache{Dir: t.TempDir()}
	for _, c := range jtCells(testing.Short()) {
		t.Run(strings.ReplaceAll(c.String(), "/", "_"), func(t *testing.T) {
			n := checkCell(t, cache, c)
			var forms []string
			for f := range n.sizes {
				forms = append(forms, f)
			}
			slices.Sort(forms)
			report = append(report, fmt.Sprintf("%-28s indirect jumps %2d resolved %2d entries %4d forms %v", c, n.present, n.resolved, n.cases, forms))
		})
	}
	t.Log("\n" + strings.Join(report, "\n"))
}

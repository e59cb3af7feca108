package builtin

import (
	"debug/elf"
	"debug/pe"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// The procedure-discovery corpus (issue 13, acceptance 1): testdata/corpus/
// corpus.c, compiled for every C toolchain REA claims — ELF x86-64, i386,
// arm64, armhf in ARM and in Thumb mode, each at -O0 and -O2, dynamic and
// static; PE x86-64 and i686 (mingw-w64) at -O0 and -O2 — and stripped. The
// procedure starts found in the stripped twin are compared with the function
// symbols of the unstripped twin (the oracle; see corpusOracle), in the code
// sections both have, and so are the unstripped twin's own procedures:
//
//	recall    = oracle starts found / oracle starts
//	precision = oracle starts found / starts found
//
// Each must be at least 99.5% for the stripped twin and 100% for the
// unstripped one, except for the combinations in corpusKnownGaps, whose
// figures are logged. Every figure is logged (go test -v -run TestCorpus).

// corpusKnownGaps are the combinations that do not reach 99.5% yet, and
// why. It only shrinks: a combination listed here that meets the bar is
// logged as closed, to be removed.
var corpusKnownGaps = map[string]string{}

// corpusMin is the bar for the stripped twin, in percent.
const corpusMin = 99.5

type corpusTarget struct {
	name      string
	cc, strip string
	flags     []string
	pe        bool
}

var corpusTargets = []corpusTarget{
	{name: "elf-x86_64", cc: "gcc", strip: "strip"},
	{name: "elf-i386", cc: "i686-linux-gnu-gcc", strip: "i686-linux-gnu-strip"},
	{name: "elf-arm64", cc: "aarch64-linux-gnu-gcc", strip: "aarch64-linux-gnu-strip"},
	{name: "elf-armhf-arm", cc: "arm-linux-gnueabihf-gcc", strip: "arm-linux-gnueabihf-strip", flags: []string{"-marm"}},
	{name: "elf-armhf-thumb", cc: "arm-linux-gnueabihf-gcc", strip: "arm-linux-gnueabihf-strip", flags: []string{"-mthumb"}},
	{name: "pe-x86_64", cc: "x86_64-w64-mingw32-gcc", strip: "x86_64-w64-mingw32-strip", pe: true},
	{name: "pe-i686", cc: "i686-w64-mingw32-gcc", strip: "i686-w64-mingw32-strip", pe: true},
}

// corpusFigure is one combination's measurement.
type corpusFigure struct {
	combo                 string
	oracle                int
	stripped, unstripped  counts
	knownGap, meetsTheBar bool
}

type counts struct {
	found, hit int
	thunks     []string // the address of each thunk procedure, sorted (i386's primary name differs: _X or X)
}

func (c counts) recall(oracle int) float64 { return pct(c.hit, oracle) }
func (c counts) precision() float64        { return pct(c.hit, c.found) }

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func TestCorpus(t *testing.T) {
	skipLarge(t)
	src, err := filepath.Abs(filepath.Join("testdata", "corpus", "corpus.c"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var figures []corpusFigure
	t.Cleanup(func() {
		slices.SortFunc(figures, func(a, b corpusFigure) int { return strings.Compare(a.combo, b.combo) })
		var b strings.Builder
		fmt.Fprintf(&b, "corpus figures (stripped twin, then unstripped; %d combinations):\n", len(figures))
		for _, f := range figures {
			gap := ""
			if f.knownGap {
				gap = " [known gap]"
			}
			fmt.Fprintf(&b, "  %-28s oracle %5d  stripped: found %5d recall %6.2f%% precision %6.2f%%  unstripped: recall %6.2f%% precision %6.2f%%%s\n",
				f.combo, f.oracle, f.stripped.found, f.stripped.recall(f.oracle), f.stripped.precision(),
				f.unstripped.recall(f.oracle), f.unstripped.precision(), gap)
		}
		t.Log(b.String())
	})
	for name := range corpusKnownGaps {
		if !slices.ContainsFunc(corpusCombos(), func(c string) bool { return c == name }) {
			t.Errorf("corpusKnownGaps names %s, which is no combination", name)
		}
	}
	for _, tg := range corpusTargets {
		for _, opt := range []string{"-O0", "-O2"} {
			links := []string{"dynamic", "static"}
			if tg.pe {
				links = []string{"default"} // mingw links its C runtime statically either way
			}
			for _, link := range links {
				combo := tg.name + opt + "-" + link
				t.Run(combo, func(t *testing.T) {
					t.Parallel() // compiles, strips and runs the oracle's tools: CPU the other core can share
					cc := needTool(t, tg.cc)
					strip := needTool(t, tg.strip)
					dir := t.TempDir()
					ext := ""
					if tg.pe {
						ext = ".exe"
					}
					full := filepath.Join(dir, "corpus"+ext)
					stripped := filepath.Join(dir, "corpus-stripped"+ext)
					args := append(slices.Clone(tg.flags), opt, "-o", full, src)
					if link == "static" {
						args = append(args, "-static")
					}
					if err := run(dir, nil, cc, args...); err != nil {
						t.Fatal(err)
					}
					if err := run(dir, nil, strip, "-s", "-o", stripped, full); err != nil {
						t.Fatal(err)
					}
					code, oracle := corpusOracle(t, full, tg.pe)
					if len(oracle) < 40 {
						t.Fatalf("only %d function symbols in the unstripped twin", len(oracle))
					}
					f := corpusFigure{combo: combo, oracle: len(oracle)}
					f.stripped = corpusCompare(t, stripped, code, oracle, true)
					f.unstripped = corpusCompare(t, full, code, oracle, false)
					if tg.pe && !slices.Equal(f.stripped.thunks, f.unstripped.thunks) {
						// issue 13 item 4: the thunk flag the same with or without a symbol table
						t.Errorf("thunks differ: stripped %d %s, unstripped %d %s", len(f.stripped.thunks), firstFew(f.stripped.thunks),
							len(f.unstripped.thunks), firstFew(f.unstripped.thunks))
					}
					why, known := corpusKnownGaps[combo]
					f.knownGap = known
					r, p := f.stripped.recall(f.oracle), f.stripped.precision()
					ur, up := f.unstripped.recall(f.oracle), f.unstripped.precision()
					f.meetsTheBar = r >= corpusMin && p >= corpusMin && ur == 100 && up == 100
					mu.Lock()
					figures = append(figures, f)
					mu.Unlock()
					t.Logf("%s: %d oracle starts; stripped found %d, recall %.2f%% precision %.2f%%; unstripped recall %.2f%% precision %.2f%%",
						combo, f.oracle, f.stripped.found, r, p, ur, up)
					switch {
					case known && f.meetsTheBar:
						t.Logf("KNOWN GAP CLOSED: %s meets the bar now; remove it from corpusKnownGaps", combo)
					case known:
						t.Logf("known gap (%s): %s", combo, why)
					case !f.meetsTheBar:
						t.Errorf("stripped recall %.2f%% precision %.2f%% (want >= %.1f%%), unstripped recall %.2f%% precision %.2f%% (want 100%%)",
							r, p, corpusMin, ur, up)
					}
				})
			}
		}
	}
}

// corpusCombos are the combination names TestCorpus runs.
func corpusCombos() []string {
	var out []string
	for _, tg := range corpusTargets {
		for _, opt := range []string{"-O0", "-O2"} {
			links := []string{"dynamic", "static"}
			if tg.pe {
				links = []string{"default"}
			}
			for _, link := range links {
				out = append(out, tg.name+opt+"-"+link)
			}
		}
	}
	return out
}

// corpusCompare counts the procedure starts REA finds in path within code
// and how many of them the oracle has; with logMisses, it logs the first
// misses and extras.
func corpusCompare(t *testing.T, path string, code []codeRange, oracle map[uint64]string, logMisses bool) counts {
	t.Helper()
	_, _, c := open(t, path)
	found := map[uint64]string{}
	var n counts
	for _, p := range allProcedures(t, c) {
		a, err := provider.ParseAddress(p.Address)
		if err != nil {
			t.Fatal(err)
		}
		if inRanges(code, a) {
			found[a] = p.Value
		}
		if p.Procedure.Thunk {
			n.thunks = append(n.thunks, fmt.Sprintf("%#x", a))
		}
	}
	slices.Sort(n.thunks)
	n.found = len(found)
	var missed, extra []string
	for a, name := range oracle {
		if _, ok := found[a]; ok {
			n.hit++
		} else {
			missed = append(missed, fmt.Sprintf("%#x %s", a, name))
		}
	}
	for a, name := range found {
		if _, ok := oracle[a]; !ok {
			extra = append(extra, fmt.Sprintf("%#x %s", a, name))
		}
	}
	if logMisses {
		slices.Sort(missed)
		slices.Sort(extra)
		t.Logf("%s: missed %d %s; extra %d %s", filepath.Base(path), len(missed), firstFew(missed), len(extra), firstFew(extra))
	}
	return n
}

func firstFew(s []string) string {
	if len(s) > 12 {
		return fmt.Sprint(s[:12]) + "…"
	}
	return fmt.Sprint(s)
}

func inRanges(rs []codeRange, a uint64) bool {
	return slices.ContainsFunc(rs, func(r codeRange) bool { return a >= r.start && a < r.end })
}

// corpusOracle returns the code sections of the unstripped twin and its
// function starts there, each with one of its names:
//
//   - ELF: every executable section but the PLT ones (.plt, .plt.sec,
//     .plt.got, .iplt: their stubs have no symbols); the STT_FUNC and
//     STT_GNU_IFUNC symbols defined there, the Thumb bit cleared.
//   - PE: every executable section; the COFF symbols defined there that are
//     functions (derived type DT_FCN) or external labels (storage class
//     EXTERNAL, e.g. ___chkstk_ms, written in assembly without a type),
//     except section symbols, assembler-local names (leading ".") and
//     mingw's __CTOR_LIST__/__DTOR_LIST__ data labels.
func corpusOracle(t *testing.T, path string, isPE bool) ([]codeRange, map[uint64]string) {
	t.Helper()
	oracle := map[uint64]string{}
	var code []codeRange
	if isPE {
		f, err := pe.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var base uint64
		switch oh := f.OptionalHeader.(type) {
		case *pe.OptionalHeader64:
			base = oh.ImageBase
		case *pe.OptionalHeader32:
			base = uint64(oh.ImageBase)
		}
		isCode := make([]bool, len(f.Sections))
		for i, s := range f.Sections {
			if s.Characteristics&pe.IMAGE_SCN_MEM_EXECUTE != 0 {
				isCode[i] = true
				a := base + uint64(s.VirtualAddress)
				code = append(code, codeRange{a, a + uint64(s.VirtualSize)})
			}
		}
		for _, s := range f.Symbols {
			k := int(s.SectionNumber) - 1
			if k < 0 || k >= len(f.Sections) || !isCode[k] || strings.HasPrefix(s.Name, ".") {
				continue
			}
			if s.Type&0x30 != 0x20 && s.StorageClass != 2 { // DT_FCN << 4; IMAGE_SYM_CLASS_EXTERNAL
				continue
			}
			if strings.Contains(s.Name, "CTOR_LIST__") || strings.Contains(s.Name, "DTOR_LIST__") {
				continue // mingw's constructor and destructor lists: data its linker script puts in .text
			}
			a := base + uint64(f.Sections[k].VirtualAddress) + uint64(s.Value)
			if _, dup := oracle[a]; !dup {
				oracle[a] = s.Name
			}
		}
		return code, oracle
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	isCode := make([]bool, len(f.Sections))
	for i, s := range f.Sections {
		plt := strings.HasPrefix(s.Name, ".plt") || s.Name == ".iplt"
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Flags&elf.SHF_ALLOC != 0 && !plt && s.Size > 0 {
			isCode[i] = true
			code = append(code, codeRange{s.Addr, s.Addr + s.Size})
		}
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		typ := elf.ST_TYPE(s.Info)
		if typ != elf.STT_FUNC && typ != elf.STT_GNU_IFUNC || s.Name == "" {
			continue
		}
		k := int(s.Section)
		if k <= 0 || k >= len(f.Sections) || !isCode[k] {
			continue
		}
		a := s.Value
		if f.Machine == elf.EM_ARM {
			a &^= 1
		}
		if _, dup := oracle[a]; !dup {
			oracle[a] = s.Name
		}
	}
	return code, oracle
}

package structure_test

import (
	"debug/elf"
	"errors"
	"fmt"
	"github.com/rea-re/rea/engine/internal/cfgtest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/dataflow"
	"github.com/rea-re/rea/engine/decompile/structure"
	"github.com/rea-re/rea/engine/internal/corpus"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/internal/testkit"
)

// corpusGraph is one procedure's control-flow graph.
type corpusGraph struct {
	name string
	g    structure.Graph
}

var (
	graphsMu   sync.Mutex
	graphsDone = map[corpus.Target][]corpusGraph{}
)

// corpusGraphs builds the corpus for tg, lifts every procedure, builds its
// SSA with the jump tables resolved (dataflow.ResolveProcedure) and
// returns its blocks as Graphs: node i is block i, a Branch's Succs[0] is
// taken, a resolved switch's Jump has its cases as successors.
func corpusGraphs(tb testing.TB, tg corpus.Target) []corpusGraph {
	tb.Helper()
	graphsMu.Lock()
	defer graphsMu.Unlock()
	if gs, ok := graphsDone[tg]; ok {
		return gs
	}
	dir := tb.TempDir()
	path, err := corpus.Build(dir, tg)
	if errors.Is(err, corpus.ErrMissingTool) {
		testkit.SkipOrFail(tb, err.Error())
		return nil
	}
	if err != nil {
		tb.Fatal(err)
	}
	p, err := corpus.Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	img, err := openImage(path)
	if err != nil {
		tb.Fatal(err)
	}
	arch := dataflow.ArchFor(abi.ForArch(p.Arch, "linux"))
	var out []corpusGraph
	for _, pr := range p.Procs {
		if len(pr.Insns) == 0 {
			continue
		}
		end := pr.Insns[len(pr.Insns)-1].Next()
		res, err := dataflow.ResolveProcedure(arch, pr.Insns, img, dataflow.Options{Start: pr.Addr, End: end})
		if err != nil {
			tb.Logf("%s %s: %v", tg, pr.Name, err)
			continue
		}
		out = append(out, corpusGraph{pr.Name, graphOf(res.Func)})
	}
	graphsDone[tg] = out
	return out
}

// graphOf is f's blocks as a Graph; a block is pure when it has no memory
// effect and no load.
func graphOf(f *dataflow.Func) structure.Graph {
	index := map[*dataflow.Block]int{}
	for i, b := range f.Blocks {
		index[b] = i
	}
	g := structure.Graph{Succs: make([][]int, len(f.Blocks)), Pure: make([]bool, len(f.Blocks))}
	for i, b := range f.Blocks {
		for _, s := range b.Succs {
			g.Succs[i] = append(g.Succs[i], index[s])
		}
		pure := true
		for _, v := range b.Values {
			if v.Kind == dataflow.OpValue && (v.IsMem() || v.Op == lift.Load) {
				pure = false
			}
		}
		g.Pure[i] = pure
	}
	return g
}

// reducible is cfgtest.Reducible of g.
func reducible(g structure.Graph) bool { return cfgtest.Reducible(g.Succs, g.Entry) }

func TestReducibleOracle(t *testing.T) {
	yes := structure.Graph{Succs: [][]int{{1, 3}, {2}, {1, 3}, nil}}
	no := structure.Graph{Succs: [][]int{{1, 2}, {2}, {1, 3}, nil}}
	if !reducible(yes) || reducible(no) {
		t.Fatalf("reducible(loop) = %v, reducible(two-entry loop) = %v", reducible(yes), reducible(no))
	}
}

// TestCorpusStructure structures every procedure of the corpus built with
// gcc and clang at -O0 … -O3 for x86-64 and gcc for arm64, checks each
// tree against its graph (also with Graph.Unique) and fails on a goto in
// a reducible graph.
func TestCorpusStructure(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the corpus")
	}
	var rows []string
	withGotos := 0
	for _, ac := range [][2]string{{"x86-64", "gcc"}, {"x86-64", "clang"}, {"arm64", "gcc"}} {
		for o := 0; o <= 3; o++ {
			tg := corpus.Target{Arch: ac[0], Compiler: ac[1], Opt: o}
			gs := corpusGraphs(t, tg)
			if gs == nil {
				continue
			}
			var red, irr, gotos, irrGotos, loops, switches, onces, repeats, uniqueGotos, endless, maxN int
			for _, cg := range gs {
				tree, err := structure.Structure(cg.g)
				if err != nil {
					t.Errorf("%s %s: %v", tg, cg.name, err)
					continue
				}
				if err := structure.Check(cg.g, tree); err != nil {
					t.Errorf("%s %s: %v", tg, cg.name, err)
					continue
				}
				gt, lp, sw := structure.Stats(tree)
				loops += lp
				switches += sw
				onces += countOnce(tree)
				endless += countKind(tree, structure.Loop) - countOnce(tree)
				repeats += countBlocks(tree) - distinctBlocks(tree)
				maxN = max(maxN, len(cg.g.Succs))
				u := cg.g
				u.Unique = true
				ut, err := structure.Structure(u)
				if err == nil {
					err = structure.Check(u, ut)
				}
				if err != nil {
					t.Errorf("%s %s (unique): %v", tg, cg.name, err)
				}
				ug, _, _ := structure.Stats(ut)
				if reducible(cg.g) {
					uniqueGotos += ug
					red++
					gotos += gt
					if gt > 0 {
						withGotos++
						t.Logf("%s %s: %d gotos in a reducible graph %v", tg, cg.name, gt, cg.g.Succs)
					}
				} else {
					irr++
					irrGotos += gt
				}
			}
			rows = append(rows, fmt.Sprintf("%-18s %6d %9d %11d %11d %6d %8d %7d %6d %8d %14d %9d", tg, len(gs), red, gotos, irrGotos, loops, endless, switches, onces, repeats, uniqueGotos, maxN))
		}
	}
	t.Logf("\n%-18s %6s %9s %11s %11s %6s %8s %7s %6s %8s %14s %9s\n%s", "target", "procs", "reducible", "gotos(red)", "gotos(irr)", "loops", "for(;;)", "switches", "onces", "repeats", "unique:gotos", "maxblocks", strings.Join(rows, "\n"))
	// Issue 26: no goto in a reducible procedure (node splitting took
	// out the last, clang -O3's max_index, of 1,793 reducible graphs).
	if withGotos > 0 {
		t.Errorf("%d reducible procedures with gotos, want none", withGotos)
	}
}

func countBlocks(n *structure.Node) int {
	if n == nil {
		return 0
	}
	c := 0
	if n.Kind == structure.Block {
		c++
	}
	for _, k := range n.Children {
		c += countBlocks(k)
	}
	for _, cs := range n.Cases {
		c += countBlocks(cs.Body)
	}
	return c
}

func distinctBlocks(n *structure.Node) int {
	seen := map[int]bool{}
	var walk func(*structure.Node)
	walk = func(n *structure.Node) {
		if n == nil {
			return
		}
		if n.Kind == structure.Block {
			seen[n.Node] = true
		}
		for _, k := range n.Children {
			walk(k)
		}
		for _, cs := range n.Cases {
			walk(cs.Body)
		}
	}
	walk(n)
	return len(seen)
}

func countKind(n *structure.Node, k structure.Kind) int {
	if n == nil {
		return 0
	}
	c := 0
	if n.Kind == k {
		c++
	}
	for _, ch := range n.Children {
		c += countKind(ch, k)
	}
	for _, cs := range n.Cases {
		c += countKind(cs.Body, k)
	}
	return c
}

func countOnce(n *structure.Node) int {
	if n == nil {
		return 0
	}
	c := 0
	if n.Kind == structure.Loop && n.Once {
		c++
	}
	for _, k := range n.Children {
		c += countOnce(k)
	}
	for _, cs := range n.Cases {
		c += countOnce(cs.Body)
	}
	return c
}

// BenchmarkStructure structures every procedure of the gcc -O2 x86-64
// corpus build once per iteration; it reports the largest graph.
func BenchmarkStructure(b *testing.B) {
	gs := corpusGraphs(b, corpus.Target{Arch: "x86-64", Compiler: "gcc", Opt: 2})
	if gs == nil {
		return
	}
	sort.Slice(gs, func(i, j int) bool { return len(gs[i].g.Succs) > len(gs[j].g.Succs) })
	b.Logf("%d procedures, largest %d blocks", len(gs), len(gs[0].g.Succs))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, cg := range gs {
			if _, err := structure.Structure(cg.g); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(gs)), "ns/proc")
}

// image is an ELF file's loaded sections for dataflow.ResolveProcedure
// (the corpus is position-dependent or uses relative tables: no
// relocation needs applying).
type image struct {
	secs []*elf.Section
	data [][]byte
}

func openImage(path string) (*image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ef, err := elf.NewFile(f)
	if err != nil {
		return nil, err
	}
	im := &image{}
	for _, s := range ef.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS {
			continue
		}
		d, err := s.Data()
		if err != nil {
			return nil, err
		}
		im.secs, im.data = append(im.secs, s), append(im.data, d)
	}
	return im, nil
}

func (im *image) Read(addr uint64, n int) ([]byte, bool, bool) {
	for i, s := range im.secs {
		if addr >= s.Addr && n >= 0 && addr+uint64(n) <= s.Addr+uint64(len(im.data[i])) {
			return im.data[i][addr-s.Addr : addr-s.Addr+uint64(n)], s.Flags&elf.SHF_WRITE != 0, true
		}
	}
	return nil, false, false
}

func (im *image) Executable(addr uint64) bool {
	for _, s := range im.secs {
		if addr >= s.Addr && addr < s.Addr+s.Size {
			return s.Flags&elf.SHF_EXECINSTR != 0
		}
	}
	return false
}

func (im *image) Import(uint64) (string, bool) { return "", false }

// BenchmarkStructureLarge structures 200-node graphs larger than any
// procedure of the corpus: loops of diamonds with breaks, nested two deep
// (reducible), and a ladder of crossing diamonds and loops entered from
// the side (irreducible, the worst case found).
func BenchmarkStructureLarge(b *testing.B) {
	b.Run("reducible", func(b *testing.B) { benchGraph(b, loops(200)) })
	b.Run("ladder", func(b *testing.B) { benchGraph(b, ladder(200)) })
	b.Run("crossing", func(b *testing.B) { benchGraph(b, crossing(200)) })
}

func benchGraph(b *testing.B, g structure.Graph) {
	tree, err := structure.Structure(g)
	if err != nil {
		b.Fatal(err)
	}
	if err := structure.Check(g, tree); err != nil {
		b.Fatal(err)
	}
	gotos, nl, _ := structure.Stats(tree)
	b.ResetTimer()
	defer func() {
		b.ReportMetric(float64(gotos), "gotos")
		b.ReportMetric(float64(nl), "loops")
	}()
	for i := 0; i < b.N; i++ {
		if _, err := structure.Structure(g); err != nil {
			b.Fatal(err)
		}
	}
}

// loops is n nodes in units of ten: an outer loop whose header tests
// the exit, a diamond, an inner loop with a break to a return and a
// latch, then the next unit.
func loops(n int) structure.Graph {
	g := structure.Graph{Succs: make([][]int, n)}
	u := 0
	for ; u+10 < n; u += 10 {
		h, next := u, u+10
		g.Succs[h] = []int{h + 1, next}    // while (c)
		g.Succs[h+1] = []int{h + 2, h + 3} // if
		g.Succs[h+2] = []int{h + 4}
		g.Succs[h+3] = []int{h + 4}
		g.Succs[h+4] = []int{h + 5}        // inner loop header
		g.Succs[h+5] = []int{h + 6, h + 9} // break to a return
		g.Succs[h+6] = []int{h + 7, h + 8}
		g.Succs[h+7] = []int{h + 4} // inner latch
		g.Succs[h+8] = []int{h}     // outer latch
		g.Succs[h+9] = nil          // return
	}
	return g
}

// crossing is n nodes in units of eight: loops whose bodies have two
// merges reached from crossing branches (clang -O3's sum_va), each a goto
// unless node splitting copies one; the worst case of splitting's tries.
func crossing(n int) structure.Graph {
	g := structure.Graph{Succs: make([][]int, n)}
	u := 0
	for ; u+8 < n; u += 8 {
		h, next := u, u+8
		g.Succs[h] = []int{h + 1, h + 2}
		g.Succs[h+1] = []int{h + 3, h + 4}
		g.Succs[h+2] = []int{h + 4, h + 5}
		g.Succs[h+5] = []int{h + 3}
		g.Succs[h+3] = []int{next, h + 7}
		g.Succs[h+4] = []int{next, h}
		g.Succs[h+6] = nil // unreachable
		g.Succs[h+7] = []int{h}
	}
	return g
}

// ladder is n nodes of nested loops and diamonds: node i branches to
// i+1 and i+2, every fifth node closes a loop to the node ten before.
func ladder(n int) structure.Graph {
	g := structure.Graph{Succs: make([][]int, n)}
	for i := 0; i < n-2; i++ {
		g.Succs[i] = []int{i + 1, i + 2}
		if i%5 == 4 && i >= 10 {
			g.Succs[i] = []int{i + 1, i - 10}
		}
	}
	g.Succs[n-2] = []int{n - 1}
	return g
}

package dataflow

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/lift/arm64"
	"github.com/rea-re/rea/engine/lift/x86"
	"github.com/rea-re/rea/internal/testkit"
)

// The jump table tests build C switches with the compilers of three
// architectures and read the results as a loader would (elfImage); the
// oracle is the -g twin's line table and objdump's listing of the
// indirect jumps.

// arm64Arch is AAPCS64 as the arm64 lifter names the registers.
var arm64Arch = ArchFor(abi.AAPCS64())

// openTwins opens a fixture's stripped file, its -g twin and the stripped
// one's image; both files close when the test ends.
func openTwins(tb testing.TB, stripped, debug string) (ef, df *elf.File, img *elfImage) {
	tb.Helper()
	ef, err := elf.Open(stripped)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ef.Close() })
	if df, err = elf.Open(debug); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { df.Close() })
	if img, err = newELFImage(ef); err != nil {
		tb.Fatal(err)
	}
	return ef, df, img
}

// elfImage is an ELF file's loaded sections, with RELATIVE relocations
// applied and the GOT slots' symbols named.
type elfImage struct {
	secs    []imageSec
	imports map[uint64]string
}

type imageSec struct {
	addr           uint64
	data           []byte
	writable, exec bool
	name           string
}

func newELFImage(ef *elf.File) (*elfImage, error) {
	m := &elfImage{imports: map[uint64]string{}}
	var relro [][2]uint64
	for _, p := range ef.Progs {
		if p.Type == elf.PT_GNU_RELRO {
			relro = append(relro, [2]uint64{p.Vaddr, p.Vaddr + p.Memsz})
		}
	}
	for _, s := range ef.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS || s.Addr == 0 {
			continue
		}
		d, err := s.Data()
		if err != nil {
			return nil, err
		}
		w := s.Flags&elf.SHF_WRITE != 0
		for _, r := range relro {
			if s.Addr >= r[0] && s.Addr+s.Size <= r[1] {
				w = false
			}
		}
		m.secs = append(m.secs, imageSec{addr: s.Addr, data: bytes.Clone(d), writable: w, exec: s.Flags&elf.SHF_EXECINSTR != 0, name: s.Name})
	}
	sort.Slice(m.secs, func(i, j int) bool { return m.secs[i].addr < m.secs[j].addr })
	dsyms, _ := ef.DynamicSymbols()
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL {
			continue
		}
		if s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		d, err := s.Data()
		if err != nil {
			return nil, err
		}
		m.relocate(ef, d, s.Type == elf.SHT_RELA, dsyms)
	}
	return m, nil
}

func (m *elfImage) relocate(ef *elf.File, d []byte, rela bool, dsyms []elf.Symbol) {
	bo := ef.ByteOrder
	is64 := ef.Class == elf.ELFCLASS64
	ent := 8
	if is64 {
		ent = 16
	}
	if rela {
		ent += ent / 2
	}
	for off := 0; off+ent <= len(d); off += ent {
		var addr, info uint64
		var addend int64
		if is64 {
			addr, info = bo.Uint64(d[off:]), bo.Uint64(d[off+8:])
			if rela {
				addend = int64(bo.Uint64(d[off+16:]))
			}
		} else {
			addr, info = uint64(bo.Uint32(d[off:])), uint64(bo.Uint32(d[off+4:]))
			if rela {
				addend = int64(int32(bo.Uint32(d[off+8:])))
			}
		}
		var typ, sym uint32
		if is64 {
			typ, sym = uint32(info), uint32(info>>32)
		} else {
			typ, sym = uint32(info&0xff), uint32(info>>8)
		}
		relative := (ef.Machine == elf.EM_X86_64 && typ == uint32(elf.R_X86_64_RELATIVE)) ||
			(ef.Machine == elf.EM_386 && typ == uint32(elf.R_386_RELATIVE)) ||
			(ef.Machine == elf.EM_AARCH64 && typ == uint32(elf.R_AARCH64_RELATIVE))
		if relative {
			if rela {
				m.put(addr, uint64(addend), is64)
			}
			continue
		}
		if sym != 0 && int(sym) <= len(dsyms) {
			m.imports[addr] = dsyms[sym-1].Name
		}
	}
}

func (m *elfImage) sec(addr uint64) *imageSec {
	i := sort.Search(len(m.secs), func(i int) bool { return m.secs[i].addr > addr }) - 1
	if i < 0 || addr-m.secs[i].addr >= uint64(len(m.secs[i].data)) {
		return nil
	}
	return &m.secs[i]
}

func (m *elfImage) put(addr, v uint64, is64 bool) {
	s := m.sec(addr)
	if s == nil {
		return
	}
	off := addr - s.addr
	if is64 && off+8 <= uint64(len(s.data)) {
		binary.LittleEndian.PutUint64(s.data[off:], v)
	} else if !is64 && off+4 <= uint64(len(s.data)) {
		binary.LittleEndian.PutUint32(s.data[off:], uint32(v))
	}
}

func (m *elfImage) Read(addr uint64, n int) ([]byte, bool, bool) {
	s := m.sec(addr)
	if s == nil || n < 0 || addr-s.addr+uint64(n) > uint64(len(s.data)) {
		return nil, false, false
	}
	off := addr - s.addr
	return s.data[off : off+uint64(n)], s.writable, true
}

func (m *elfImage) Executable(addr uint64) bool {
	s := m.sec(addr)
	return s != nil && s.exec
}

func (m *elfImage) Import(addr uint64) (string, bool) {
	n, ok := m.imports[addr]
	return n, ok
}

// jtArch is one architecture of the matrix.
type jtArch struct {
	name    string
	arch    *Arch
	objdump string
	gcc     []string // the gcc driver and its flags
	clang   []string
}

var jtArches = []jtArch{
	{"x86-64", amd64, "objdump", []string{"gcc"}, []string{"clang"}},
	{"i386", i386, "objdump", []string{"i686-linux-gnu-gcc"}, []string{"clang", "--target=i686-linux-gnu"}},
	{"arm64", arm64Arch, "aarch64-linux-gnu-objdump", []string{"aarch64-linux-gnu-gcc"}, []string{"clang", "--target=aarch64-linux-gnu"}},
}

// liftProc lifts code at addr for arch, bytes that do not decode becoming
// one-byte (x86) or four-byte (arm64) unmodelled instructions.
func liftProc(arch *Arch, code []byte, addr uint64) []*lift.Insn {
	if arch.Name != "arm64" {
		mode := 64
		if arch.PtrWidth == 32 {
			mode = 32
		}
		return liftRange(code, addr, mode)
	}
	var lf arm64.Lifter
	var out []*lift.Insn
	for off := 0; off+4 <= len(code); off += 4 {
		in, err := lf.Lift(code[off:], addr+uint64(off))
		if err != nil {
			in = &lift.Insn{Addr: addr + uint64(off), Len: 4, Mnemonic: "(bad)", Stmts: []lift.Stmt{{Op: lift.Unmodelled, Text: "(bad)", Reason: "does not decode"}}}
		}
		out = append(out, in)
	}
	return out
}

// liftAt returns the Options.Lift of arch over img.
func liftAt(arch *Arch, img Image) func(uint64) (*lift.Insn, bool) {
	return func(a uint64) (*lift.Insn, bool) {
		for n := 16; n > 0; n-- {
			b, _, ok := img.Read(a, n)
			if !ok {
				continue
			}
			var in *lift.Insn
			var err error
			switch arch.Name {
			case "arm64":
				in, err = arm64.Lift(b, a)
			case "i386":
				in, err = x86.Lift(b, a, 32)
			default:
				in, err = x86.Lift(b, a, 64)
			}
			return in, err == nil
		}
		return nil, false
	}
}

// switchCase is one case of a fixture switch: the source line of its body.
type switchFunc struct {
	name    string
	lines   map[int]bool // the lines of the case bodies
	caseLns []int        // the case bodies' lines (each must be a target)
	// dflt are the lines the default's code may carry: the default
	// clause or the return after the switch, and the function's own
	// lines (a shared epilogue is the closing brace's).
	dflt map[int]bool
}

// switchSource writes the fixture: switches of 4, 9 (gaps), 17 (signed,
// negative values), 40 (dense, no default clause) cases, one on a char,
// one on an unsigned char and one whose cases are long,
// each case a tail call of its own function so that no compiler turns the
// switch into a table of values.
func switchSource() (string, string, []switchFunc) {
	var sb, ext strings.Builder
	line := 1
	emit := func(s string) {
		sb.WriteString(s)
		sb.WriteByte('\n')
		line++
	}
	n := 0
	var funcs []switchFunc
	calls := 1 // calls per case
	add := func(name, sig, ctype string, values []string, dflt bool) {
		f := switchFunc{name: name, lines: map[int]bool{}, dflt: map[int]bool{line: true, line + 1: true}}
		emit(fmt.Sprintf("int %s(%s x, int a) {", name, ctype))
		emit("\tswitch (x) {")
		for _, v := range values {
			fmt.Fprintf(&ext, "int e%d(int a) { return a + %d; }\n", n, n)
			f.lines[line], f.caseLns = true, append(f.caseLns, line)
			body := fmt.Sprintf("e%d(a)", n)
			for k := 1; k < calls; k++ {
				body += fmt.Sprintf(" + e%d(a + %d)", n, k)
			}
			emit(fmt.Sprintf("\tcase %s: return %s;", v, body))
			n++
		}
		if dflt {
			f.dflt[line] = true
			emit("\tdefault: return -1;")
		}
		f.dflt[line] = true
		emit("\t}")
		if !dflt {
			f.dflt[line] = true
			emit("\treturn 7;")
		}
		f.dflt[line] = true
		emit("}")
		funcs = append(funcs, f)
		_ = sig
	}
	ints := func(vs ...int) []string {
		var out []string
		for _, v := range vs {
			out = append(out, strconv.Itoa(v))
		}
		return out
	}
	span := func(lo, hi int) []int {
		var out []int
		for v := lo; v <= hi; v++ {
			out = append(out, v)
		}
		return out
	}
	add("sw4", "", "int", ints(0, 1, 2, 3), true)
	add("sw9", "", "unsigned", ints(1, 2, 3, 5, 7, 8, 10, 11, 13), true)
	add("sw17", "", "int", ints(span(-8, 8)...), true)
	add("sw40", "", "unsigned", ints(span(10, 49)...), false)
	add("swchar", "", "char", []string{"'a'", "'c'", "'d'", "'e'", "'g'", "'h'", "'k'", "'m'", "'o'", "'q'"}, true)
	add("swu8", "", "unsigned char", ints(200, 201, 203, 204, 206, 207, 209, 210, 212), true)
	// Cases of 2 KiB in all: arm64's tables of bytes no longer reach.
	calls = 10
	add("swbig", "", "int", ints(span(0, 16)...), true)
	head := ""
	for i := 0; i < n; i++ {
		head += fmt.Sprintf("int e%d(int);\n", i)
	}
	// The declarations go on one line so that the lines counted above hold.
	return strings.ReplaceAll(head, "\n", " ") + "\n" + sb.String(), ext.String(), shiftLines(funcs, 1)
}

func shiftLines(fs []switchFunc, by int) []switchFunc {
	for i := range fs {
		l := map[int]bool{}
		for k := range fs[i].lines {
			l[k+by] = true
		}
		fs[i].lines = l
		for j := range fs[i].caseLns {
			fs[i].caseLns[j] += by
		}
		d := map[int]bool{}
		for k := range fs[i].dflt {
			d[k+by] = true
		}
		fs[i].dflt = d
	}
	return fs
}

// buildSwitch builds the switch fixture with driver and flags, and its -g
// twin; skip names a missing tool.
func buildSwitch(cache *testkit.BuildCache, driver []string, flags []string) (stripped, debug, skip string, err error) {
	src, ext, _ := switchSource()
	return buildFixture(cache, driver, flags, [][2]string{{"sw.c", src}, {"ext.c", ext}})
}

// buildFixture compiles and links files (name, source) with driver and
// flags, without the C library, and the same with -g, once per cache (a
// test's temporary directory).
func buildFixture(cache *testkit.BuildCache, driver []string, flags []string, files [][2]string) (stripped, debug, skip string, err error) {
	if _, err := exec.LookPath(driver[0]); err != nil {
		return "", "", "tool " + driver[0] + " is not installed", nil
	}
	key := append([]string{}, driver...)
	key = append(key, flags...)
	for _, f := range files {
		key = append(key, f[0], f[1])
	}
	var paths [2]string
	for k, g := range []string{"", "-g"} {
		p, sk, err := cache.Build(append(key, g), func(dir string) (string, string, error) {
			var names []string
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(dir, f[0]), []byte(f[1]), 0o600); err != nil {
					return "", "", err
				}
				names = append(names, f[0])
			}
			out := filepath.Join(dir, "fixture")
			args := append(append(append([]string{}, driver[1:]...), flags...), "-nostdlib", "-o", out)
			args = append(args, names...)
			if g != "" {
				args = append(args, g)
			}
			cmd := exec.Command(driver[0], args...)
			cmd.Dir = dir
			if b, err := cmd.CombinedOutput(); err != nil {
				if bytes.Contains(b, []byte("cannot find")) || bytes.Contains(b, []byte("unable to execute")) {
					return "", fmt.Sprintf("%s cannot link for this target: %s", driver[0], firstLine(b)), nil
				}
				return "", "", fmt.Errorf("%s %v: %w\n%s", driver[0], args, err, b)
			}
			return out, "", nil
		})
		if err != nil || sk != "" {
			return "", "", sk, err
		}
		paths[k] = p
	}
	return paths[0], paths[1], "", nil
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

// indirectJumps lists the addresses of the indirect jumps objdump shows in
// [lo, hi).
func indirectJumps(objdump, path string, lo, hi uint64) ([]uint64, error) {
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", fmt.Sprintf("--start-address=%#x", lo), fmt.Sprintf("--stop-address=%#x", hi), path).Output()
	if err != nil {
		return nil, err
	}
	var res []uint64
	re := regexp.MustCompile(`^\s*([0-9a-f]+):\s+(?:notrack\s+|bnd\s+)?(jmp\s+\*|br\s+x)`)
	for _, l := range strings.Split(string(out), "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			res = append(res, a)
		}
	}
	return res, nil
}

// lineOf maps each address of the debug twin's line table to its line.
type lineTable struct {
	rows []dwarf.LineEntry
}

func readLines(ef *elf.File) (*lineTable, error) {
	d, err := ef.DWARF()
	if err != nil {
		return nil, err
	}
	lt := &lineTable{}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		if e.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		lr, err := d.LineReader(e)
		if err != nil || lr == nil {
			continue
		}
		var le dwarf.LineEntry
		for {
			if err := lr.Next(&le); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, err
			}
			if strings.HasSuffix(le.File.Name, "sw.c") || le.EndSequence {
				lt.rows = append(lt.rows, le)
			}
		}
	}
	sort.SliceStable(lt.rows, func(i, j int) bool { return lt.rows[i].Address < lt.rows[j].Address })
	return lt, nil
}

// raw is the line of the row covering addr, 0 included.
func (lt *lineTable) raw(addr uint64) int {
	i := sort.Search(len(lt.rows), func(i int) bool { return lt.rows[i].Address > addr }) - 1
	if i < 0 || lt.rows[i].EndSequence {
		return 0
	}
	return lt.rows[i].Line
}

// line is the line of sw.c the code at addr belongs to (0 when none).
func (lt *lineTable) line(addr uint64) int {
	i := sort.Search(len(lt.rows), func(i int) bool { return lt.rows[i].Address > addr }) - 1
	if i < 0 || lt.rows[i].EndSequence {
		return 0
	}
	// Of several rows at one address the last wins (the statement the
	// instruction starts). Code the compiler marks line 0 (clang's
	// reload of the GOT pointer at a case's head) belongs to the next
	// row's line when that row follows within a few instructions.
	if lt.rows[i].Line == 0 && i+1 < len(lt.rows) && !lt.rows[i+1].EndSequence && lt.rows[i+1].Address < addr+16 {
		return lt.rows[i+1].Line
	}
	return lt.rows[i].Line
}

// funcSyms returns the FUNC symbols of ef by name.
func funcSyms(ef *elf.File) map[string]elf.Symbol {
	syms, _ := ef.Symbols()
	out := map[string]elf.Symbol{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 {
			out[s.Name] = s
		}
	}
	return out
}

// textOf returns the bytes of the executable section holding addr.
func textOf(ef *elf.File, addr uint64) (*elf.Section, []byte, error) {
	for _, s := range ef.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && addr >= s.Addr && addr < s.Addr+s.Size {
			d, err := s.Data()
			return s, d, err
		}
	}
	return nil, nil, fmt.Errorf("no executable section holds %#x", addr)
}

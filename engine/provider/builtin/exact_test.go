package builtin

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// TestFixtureFactsExact is issue 3's first acceptance item: on each fixture,
// the program's functions, the call edges of main and to rea_add, and the
// references to the string literal and to the global are found exactly —
// as sets equal to what an independent disassembler (binutils objdump of the
// matching target, llvm-objdump for Mach-O, `go tool objdump` for Go)
// shows.
//
// The oracle reads the disassembler's text. Where the disassembler resolves
// an address itself (x86 "# addr" comments, call targets, Go symbol
// operands) that address is used. Where it prints the parts of an address
// split over instructions, the test joins them by the architecture's rule:
//   - arm64: adrp's page plus the add or load/store offset of the instruction
//     that completes it (the reference is that instruction);
//   - i386: the linker's relocations (fixtures linked with -Wl,-q):
//     R_386_GOTOFF is _GLOBAL_OFFSET_TABLE_ plus the value stored in the
//     instruction, R_386_32 that value itself;
//   - arm: a literal-pool word carrying an R_ARM_REL32 relocation, loaded by
//     `ldr rT, [pc, #…]` and added to the pc by `add rD, pc[, rT]`, refers to
//     the word plus the add's pc (+8 ARM, +4 Thumb); the reference is the add.
//
// As in the provider, an adrp page is forgotten at any branch or call, so a
// pair split by control flow is on neither side.
func TestFixtureFactsExact(t *testing.T) {
	for _, fx := range exactFixtures() {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			path, oraclePath := fx.build(t)
			o := fx.oracle(t, oraclePath)
			checkExact(t, fx, path, o)
		})
	}
}

// exactFixture is one binary and the oracle that describes it.
type exactFixture struct {
	name     string
	build    func(t *testing.T) (analyzed, oracle string) // the oracle reads the unstripped twin
	oracle   func(t *testing.T, path string) *exactOracle
	stripped bool
}

// exactOracle is what the independent tools say about one fixture.
type exactOracle struct {
	funcs   map[string]uint64 // program function → entry (nm / go tool nm)
	main    string            // the name of main in funcs
	callee  string            // the function whose callers are checked (rea_add / main.helper)
	strAddr uint64            // the string literal
	varAddr uint64            // the global variable
	insns   []*exactInsn      // every disassembled instruction
}

// exactInsn is one instruction as the oracle understands it.
type exactInsn struct {
	addr     uint64
	fn       uint64 // entry of the function the disassembler lists it under
	call     uint64 // direct call target
	direct   bool
	indirect bool     // call through a register or memory
	refs     []uint64 // data addresses the instruction refers to
}

func exactFixtures() []exactFixture {
	c := func(name, compiler string, arch string, flags ...string) exactFixture {
		return exactFixture{name: name,
			build: func(t *testing.T) (string, string) {
				p := cFixture(t, name, compiler, flags...)
				return p, p
			},
			oracle: func(t *testing.T, path string) *exactOracle { return binutilsOracle(t, path, arch) }}
	}
	xPrefix, aPrefix, iPrefix, hPrefix := "", "aarch64-linux-gnu-", "i686-linux-gnu-", "arm-linux-gnueabihf-"
	fxs := []exactFixture{
		c("gcc-O0", "gcc", xPrefix+"x86_64", "-O0", "-g"),
		c("gcc-O2", "gcc", xPrefix+"x86_64", "-O2"),
		{name: "gcc-O2-stripped", stripped: true,
			build: func(t *testing.T) (string, string) {
				p := cFixture(t, "gcc-O2", "gcc", "-O2")
				strip := needTool(t, "strip")
				out := t.TempDir() + "/stripped"
				if err := run("", nil, strip, "-o", out, p); err != nil {
					t.Fatal(err)
				}
				return out, p
			},
			oracle: func(t *testing.T, path string) *exactOracle { return binutilsOracle(t, path, "x86_64") }},
		c("aarch64-gcc", "aarch64-linux-gnu-gcc", aPrefix+"arm64", "-O1", "-g"),
		c("exact-aarch64-O0", "aarch64-linux-gnu-gcc", aPrefix+"arm64", "-O0"),
		c("exact-i686-pie", "i686-linux-gnu-gcc", iPrefix+"x86", "-O1", "-fPIE", "-pie", "-Wl,-q"),
		c("exact-i686-abs", "i686-linux-gnu-gcc", iPrefix+"x86", "-O1", "-fno-pie", "-no-pie", "-Wl,-q"),
		c("exact-armhf-arm", "arm-linux-gnueabihf-gcc", hPrefix+"arm", "-O1", "-marm", "-Wl,-q"),
		c("mingw.exe", mingw+"gcc", mingw+"x86_64", "-O1"),
	}
	fxs = append(fxs, c("exact-armhf-thumb", "arm-linux-gnueabihf-gcc", hPrefix+"arm", "-O1", "-mthumb", "-Wl,-q"))
	for _, target := range []string{"arm64-apple-macos11", "x86_64-apple-macos11"} {
		arch := strings.TrimSuffix(target, "-apple-macos11")
		fxs = append(fxs, exactFixture{name: "clang-" + target,
			build: func(t *testing.T) (string, string) {
				p := clangMachO(t, target)
				return p, p
			},
			oracle: func(t *testing.T, path string) *exactOracle { return llvmOracle(t, path, arch) }})
	}
	for _, gt := range [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"windows", "amd64"}, {"darwin", "arm64"}} {
		fxs = append(fxs, exactFixture{name: "go-" + gt[0] + "-" + gt[1],
			build: func(t *testing.T) (string, string) {
				p := exactGoFixture(t, gt[0], gt[1])
				return p, p
			},
			oracle: func(t *testing.T, path string) *exactOracle { return goOracle(t, path, gt[1]) }})
	}
	return fxs
}

// exactGoSrc is fixtureGo with the literal returned by a function of its own,
// so that an instruction (not only static data) refers to it.
const exactGoSrc = `package main

import (
	"fmt"
	"os"
)

var Global = "REA go global string"

//go:noinline
func helper(x int) int { return x*3 + len(os.Args) }

//go:noinline
func banner() string { return "REA go exact literal" }

func main() { fmt.Println(banner(), helper(4), Global) }
`

const exactGoLiteral = "REA go exact literal"

func exactGoFixture(t *testing.T, goos, goarch string) string {
	return fixture(t, "exact-go-"+goos+"-"+goarch, func(dir, out string) (string, error) {
		if err := os.WriteFile(dir+"/main.go", []byte(exactGoSrc), 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(dir+"/go.mod", []byte("module fixture\n\ngo 1.22\n"), 0o644); err != nil {
			return "", err
		}
		goBin := os.Getenv("GOROOT") + "/bin/go"
		if _, err := os.Stat(goBin); err != nil {
			goBin = "go"
		}
		return "", run(dir, []string{"GOOS=" + goos, "GOARCH=" + goarch, "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false", "GOWORK=off"},
			goBin, "build", "-trimpath", "-o", out, ".")
	})
}

// checkExact compares the provider with the oracle.
func checkExact(t *testing.T, fx exactFixture, path string, o *exactOracle) {
	_, _, c := open(t, path)
	procs := allProcedures(t, c)

	// Known functions: at the oracle's address, with its name unless stripped.
	for name, a := range o.funcs {
		addr := provider.FormatAddress(a)
		if fx.stripped {
			found := false
			for _, p := range procs {
				found = found || p.Address == addr
			}
			if !found {
				t.Errorf("function %s: no procedure at %s", name, addr)
			}
			continue
		}
		// A Mach-O Go symbol (_main.main) is an alias of the table's name.
		if got := procNamed(procs, name); len(got) != 1 || got[0] != addr {
			t.Errorf("function %s: procedures at %v, oracle %s", name, got, addr)
		}
	}
	mainAddr := provider.FormatAddress(o.funcs[o.main])
	calleeAddr := o.funcs[o.callee]

	// Call edges.
	var wantCallees, wantCallers []uint64
	indirect := 0
	for _, in := range o.insns {
		switch {
		case in.fn == o.funcs[o.main] && in.direct:
			wantCallees = append(wantCallees, in.call)
		case in.fn == o.funcs[o.main] && in.indirect:
			indirect++
		}
		if in.direct && in.call == calleeAddr {
			wantCallers = append(wantCallers, in.fn)
		}
	}
	got, lims := edgeList(t, c, provider.OpProcedureCallees, provider.Params{"procedure": mainAddr})
	if w := uniqueSorted(wantCallees); !slices.Equal(got, w) || len(w) == 0 {
		t.Errorf("callees(%s):\n got %v\nwant %v", o.main, got, w)
	}
	if want := strconv.Itoa(indirect) + " indirect call(s) unresolved"; !slices.Contains(lims, want) {
		t.Errorf("callees(%s) limitations %v, want %q", o.main, lims, want)
	}
	t.Logf("callees(%s): %v", o.main, got)
	got, _ = edgeList(t, c, provider.OpProcedureCallers, provider.Params{"procedure": provider.FormatAddress(calleeAddr)})
	if w := uniqueSorted(wantCallers); !slices.Equal(got, w) || len(w) == 0 {
		t.Errorf("callers(%s):\n got %v\nwant %v", o.callee, got, w)
	}
	t.Logf("callers(%s): %v", o.callee, got)

	// String and data references.
	for _, tg := range []struct {
		what string
		addr uint64
	}{{"string literal", o.strAddr}, {"global variable", o.varAddr}} {
		var want []uint64
		for _, in := range o.insns {
			if slices.Contains(in.refs, tg.addr) {
				want = append(want, in.addr)
			}
		}
		got, _ := edgeList(t, c, provider.OpXrefs, provider.Params{"address": provider.FormatAddress(tg.addr)})
		if w := uniqueSorted(want); !slices.Equal(got, w) || len(w) == 0 {
			t.Errorf("xrefs to the %s %#x:\n got %v\nwant %v", tg.what, tg.addr, got, w)
		}
		t.Logf("xrefs to the %s %#x: %v", tg.what, tg.addr, got)
	}
}

// cOracle fills the function and target addresses of fixtureC from nm.
func cOracle(t *testing.T, nmTool, path string, underscore bool) *exactOracle {
	syms := nmAddrs(t, []string{nmTool, "--defined-only"}, path)
	u := ""
	if underscore {
		u = "_"
	}
	o := &exactOracle{funcs: map[string]uint64{}, main: u + "main", callee: u + "rea_add"}
	one := func(name string) uint64 {
		a := syms[name]
		if len(a) != 1 {
			t.Fatalf("%s: symbol %s at %x", nmTool, name, a)
		}
		return a[0]
	}
	fns := []string{"main", "rea_add", "rea_mul", "rea_static_helper"}
	if underscore {
		fns = fns[:3] // fixtureCFree has no static helper
	}
	for _, f := range fns {
		o.funcs[u+f] = one(u + f)
		if strings.HasPrefix(nmTool, "arm-") {
			o.funcs[u+f] &^= 1 // nm shows the Thumb bit
		}
	}
	o.strAddr, o.varAddr = one(u+"rea_banner"), one(u+"rea_global_counter")
	return o
}

var (
	disHeader  = regexp.MustCompile(`^([0-9a-f]+) <(.+)>:$`)
	disInsn    = regexp.MustCompile(`^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2,8} )*[0-9a-f]{2,8})\s*\t(.*)$`)
	disRelocRe = regexp.MustCompile(`^\s+([0-9a-f]+): (R_\S+)\s+(\S+)$`)
)

// disLine is one instruction line of objdump or llvm-objdump output.
type disLine struct {
	addr    uint64
	fn      uint64
	bytes   []byte // in the order printed (ARM prints words, not memory order)
	mnem    string
	ops     string
	comment string
	relocs  []disReloc
}

// disReloc is a relocation objdump -r prints under an instruction.
type disReloc struct {
	off      uint64
	typ, sym string
}

// parseObjdump reads `objdump -d [-r]` or `llvm-objdump -d` output; comment
// is the architecture's comment marker.
func parseObjdump(t *testing.T, out, comment string) []*disLine {
	var lines []*disLine
	var fn uint64
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		ln := sc.Text()
		if m := disHeader.FindStringSubmatch(ln); m != nil {
			fn = hexAddr(t, m[1])
			continue
		}
		if m := disRelocRe.FindStringSubmatch(ln); m != nil && len(lines) > 0 {
			l := lines[len(lines)-1]
			l.relocs = append(l.relocs, disReloc{hexAddr(t, m[1]), m[2], m[3]})
			continue
		}
		m := disInsn.FindStringSubmatch(ln)
		if m == nil {
			continue
		}
		l := &disLine{addr: hexAddr(t, m[1]), fn: fn}
		for _, w := range strings.Fields(m[2]) {
			v, _ := strconv.ParseUint(w, 16, 64)
			b := make([]byte, 8)
			binary.BigEndian.PutUint64(b, v)
			l.bytes = append(l.bytes, b[8-len(w)/2:]...)
		}
		text := m[3]
		if i := strings.Index(text, comment); i >= 0 {
			text, l.comment = text[:i], strings.TrimSpace(strings.TrimLeft(text[i:], comment[:1]))
		}
		f := strings.Fields(text)
		for len(f) > 0 && (f[0] == "bnd" || f[0] == "notrack") {
			f = f[1:]
		}
		if len(f) > 0 {
			l.mnem, l.ops = f[0], strings.Join(f[1:], " ")
		}
		lines = append(lines, l)
	}
	return lines
}

// leadingHex parses the first hexadecimal number of s ("0x…" or bare).
func leadingHex(s string) (uint64, bool) {
	s = strings.TrimLeft(s, "(*$ ")
	s = strings.TrimPrefix(s, "0x")
	end := 0
	for end < len(s) && strings.IndexByte("0123456789abcdef", s[end]) >= 0 {
		end++
	}
	if end == 0 || end < len(s) && s[end] != ' ' && s[end] != '<' && s[end] != ')' {
		return 0, false
	}
	v, err := strconv.ParseUint(s[:end], 16, 64)
	return v, err == nil
}

// binutilsOracle disassembles fixtureC built for prefix+arch ("aarch64-linux-gnu-arm64").
func binutilsOracle(t *testing.T, path, prefixArch string) *exactOracle {
	i := strings.LastIndexByte(prefixArch, '-') + 1
	prefix, arch := prefixArch[:i], prefixArch[i:]
	o := cOracle(t, prefix+"nm", path, false)
	args := []string{"-dr", "--insn-width=16"}
	if arch == "x86" || arch == "x86_64" {
		args = append(args, "-M", "intel")
	}
	out := toolOutput(t, prefix+"objdump", append(args, path)...)
	comment := map[string]string{"x86": "#", "x86_64": "#", "arm64": "//", "arm": "@"}[arch]
	lines := parseObjdump(t, out, comment)
	switch arch {
	case "x86_64":
		o.insns = x86Oracle(lines, nil)
	case "x86":
		got := nmAddrs(t, []string{prefix + "nm"}, path)["_GLOBAL_OFFSET_TABLE_"]
		if len(got) != 1 {
			t.Fatalf("no _GLOBAL_OFFSET_TABLE_")
		}
		o.insns = x86Oracle(lines, func(l *disLine, in *exactInsn) {
			// Relocations of a fixture linked with -Wl,-q: the field they
			// patch holds the final value.
			for _, r := range l.relocs {
				k := r.off - l.addr
				if r.off < l.addr || k+4 > uint64(len(l.bytes)) {
					continue
				}
				v := binary.LittleEndian.Uint32(l.bytes[k:])
				switch r.typ {
				case "R_386_GOTOFF":
					in.refs = append(in.refs, uint64(uint32(got[0])+v))
				case "R_386_32":
					in.refs = append(in.refs, uint64(v))
				}
			}
		})
	case "arm64":
		o.insns = arm64Oracle(lines)
	case "arm":
		o.insns = armOracle(lines)
	}
	return o
}

// x86Oracle reads call targets and "# addr" comments; extra adds references
// from other evidence.
func x86Oracle(lines []*disLine, extra func(*disLine, *exactInsn)) []*exactInsn {
	var out []*exactInsn
	for _, l := range lines {
		in := &exactInsn{addr: l.addr, fn: l.fn}
		if strings.HasPrefix(l.mnem, "call") {
			if v, ok := leadingHex(l.ops); ok && !strings.Contains(l.ops, "[") && !strings.Contains(l.ops, "%") {
				in.call, in.direct = v, true
			} else {
				in.indirect = true
			}
		}
		if l.comment != "" {
			if v, ok := leadingHex(l.comment); ok {
				in.refs = append(in.refs, v)
			}
		}
		if extra != nil {
			extra(l, in)
		}
		out = append(out, in)
	}
	return out
}

var (
	a64Adrp  = regexp.MustCompile(`^x(\d+), (?:0x)?([0-9a-f]+)`)
	a64Add   = regexp.MustCompile(`^[xw](\d+), [xw](\d+), #(0x[0-9a-f]+|\d+)(, lsl #12)?$`)
	a64Mem   = regexp.MustCompile(`^[xwbhsdq](\d+), \[x(\d+)(?:, #(0x[0-9a-f]+|\d+))?\]$`)
	a64Dest  = regexp.MustCompile(`^[xw](\d+)\b`)
	a64Dest2 = regexp.MustCompile(`^[xw]\d+, [xw](\d+)\b`)
)

func parseImm(s string) uint64 {
	v, _ := strconv.ParseUint(s, 0, 64)
	return v
}

// arm64Oracle joins adrp pages with the add or load/store completing them.
func arm64Oracle(lines []*disLine) []*exactInsn {
	var out []*exactInsn
	page := map[uint64]uint64{}
	var fn uint64
	for _, l := range lines {
		if l.fn != fn {
			fn, page = l.fn, map[uint64]uint64{}
		}
		in := &exactInsn{addr: l.addr, fn: l.fn}
		out = append(out, in)
		m := l.mnem
		switch {
		case m == "bl":
			in.call, in.direct = mustHex(l.ops), true
		case m == "blr":
			in.indirect = true
		}
		if m == "bl" || m == "blr" || m == "b" || m == "br" || m == "ret" || strings.HasPrefix(m, "b.") ||
			m == "cbz" || m == "cbnz" || m == "tbz" || m == "tbnz" {
			clear(page)
			continue
		}
		if m == "adrp" {
			if g := a64Adrp.FindStringSubmatch(l.ops); g != nil {
				r, _ := strconv.ParseUint(g[1], 10, 64)
				v, _ := strconv.ParseUint(g[2], 16, 64)
				page[r] = v
				continue
			}
		}
		if g := a64Add.FindStringSubmatch(l.ops); g != nil && m == "add" {
			rn, _ := strconv.ParseUint(g[2], 10, 64)
			if p, ok := page[rn]; ok {
				imm := parseImm(g[3])
				if g[4] != "" {
					imm <<= 12
				}
				in.refs = append(in.refs, p+imm)
			}
		}
		if g := a64Mem.FindStringSubmatch(l.ops); g != nil && (strings.HasPrefix(m, "ldr") || strings.HasPrefix(m, "str")) {
			rn, _ := strconv.ParseUint(g[2], 10, 64)
			if p, ok := page[rn]; ok {
				in.refs = append(in.refs, p+parseImm(g[3]))
			}
		}
		// The instruction's destination (not a store's source) is redefined.
		if !strings.HasPrefix(m, "st") && m != "cmp" && m != "cmn" && m != "tst" && m != "prfm" {
			if g := a64Dest.FindStringSubmatch(l.ops); g != nil {
				r, _ := strconv.ParseUint(g[1], 10, 64)
				delete(page, r)
			}
			if m == "ldp" {
				if g := a64Dest2.FindStringSubmatch(l.ops); g != nil {
					r, _ := strconv.ParseUint(g[1], 10, 64)
					delete(page, r)
				}
			}
		}
	}
	return out
}

func mustHex(s string) uint64 {
	v, _ := leadingHex(s)
	return v
}

var (
	armPoolLoad = regexp.MustCompile(`^r(\d+), \[pc, #(-?\d+)\]$`)
	armAddPC    = regexp.MustCompile(`^r(\d+), (?:pc, r(\d+)|pc)$`)
	armDest     = regexp.MustCompile(`^r(\d+)\b`)
)

// armOracle finds ARM calls and the literal-pool address computations
// `ldr rT, [pc, #…]` + `add rD, pc, rT` whose pool word is PC-relocated.
func armOracle(lines []*disLine) []*exactInsn {
	words := map[uint64]uint32{}
	relocated := map[uint64]bool{}
	for _, l := range lines {
		if l.mnem == ".word" && len(l.bytes) == 4 {
			words[l.addr] = binary.BigEndian.Uint32(l.bytes)
			for _, r := range l.relocs {
				relocated[l.addr] = relocated[l.addr] || r.typ == "R_ARM_REL32"
			}
		}
	}
	var out []*exactInsn
	pool := map[uint64]uint64{} // register → literal address
	var fn uint64
	for _, l := range lines {
		if l.fn != fn {
			fn, pool = l.fn, map[uint64]uint64{}
		}
		if l.mnem == ".word" {
			continue
		}
		in := &exactInsn{addr: l.addr, fn: l.fn}
		out = append(out, in)
		switch l.mnem {
		case "bl", "blx":
			if v, ok := leadingHex(l.ops); ok && !strings.HasPrefix(l.ops, "r") {
				in.call, in.direct = v, true
			} else {
				in.indirect = true
			}
		}
		if g := armPoolLoad.FindStringSubmatch(l.ops); g != nil && l.mnem == "ldr" {
			r, _ := strconv.ParseUint(g[1], 10, 64)
			if lit, ok := leadingHex(l.comment); ok {
				pool[r] = lit
			}
			continue
		}
		if g := armAddPC.FindStringSubmatch(l.ops); g != nil && l.mnem == "add" {
			src := g[1]
			if g[2] != "" {
				src = g[2]
			}
			r, _ := strconv.ParseUint(src, 10, 64)
			if lit, ok := pool[r]; ok && relocated[lit] {
				bias := uint64(8)
				if len(l.bytes) == 2 {
					bias = 4
				}
				in.refs = append(in.refs, uint64(uint32(uint64(words[lit])+l.addr+bias)))
			}
		}
		if g := armDest.FindStringSubmatch(l.ops); g != nil && !strings.HasPrefix(l.mnem, "st") && l.mnem != "cmp" && l.mnem != "tst" {
			r, _ := strconv.ParseUint(g[1], 10, 64)
			delete(pool, r)
		}
	}
	return out
}

// llvmOracle disassembles a Mach-O fixture with llvm-objdump.
func llvmOracle(t *testing.T, path, arch string) *exactOracle {
	o := cOracle(t, "llvm-nm", path, true)
	out := toolOutput(t, "llvm-objdump", "-d", path)
	if arch == "arm64" {
		o.insns = arm64Oracle(parseObjdump(t, out, "//"))
	} else {
		o.insns = x86Oracle(parseObjdump(t, out, "##"), nil)
	}
	return o
}

var (
	goHeader = regexp.MustCompile(`^TEXT (\S+)\(SB\)`)
	goSym    = regexp.MustCompile(`([^\s$(]+?)(?:\+(\d+))?\(SB\)`)
	goIP     = regexp.MustCompile(`(-?0x[0-9a-f]+|-?\d+)\(IP\)`)
	goAdrp   = regexp.MustCompile(`^ADRP (-?\d+)\(PC\), R(\d+)$`)
	goAdd    = regexp.MustCompile(`^ADD \$(\d+), R(\d+), R(\d+)$`)
	goLoad   = regexp.MustCompile(`^F?MOV\w* (-?\d+)?\(R(\d+)\), \S+$`)
	goStore  = regexp.MustCompile(`^F?MOV\w* \S+, (-?\d+)?\(R(\d+)\)$`)
	goDest   = regexp.MustCompile(`, R(\d+)$`)
)

// goOracle disassembles a Go fixture with `go tool objdump` and names it
// with `go tool nm`.
func goOracle(t *testing.T, path, goarch string) *exactOracle {
	needTool(t, "go")
	nm := nmAddrs(t, []string{"go", "tool", "nm"}, path)
	o := &exactOracle{funcs: map[string]uint64{}, main: "main.main", callee: "main.helper"}
	mach := false
	if f, err := os.ReadFile(path); err == nil && len(f) > 4 && (binary.LittleEndian.Uint32(f) == 0xfeedfacf) {
		mach = true // the provider names Mach-O symbols as stored, with '_'
	}
	for _, fn := range []string{"main.main", "main.helper", "main.banner"} {
		if len(nm[fn]) != 1 {
			t.Fatalf("go tool nm: %s at %x", fn, nm[fn])
		}
		name := fn
		if mach {
			name = "_" + fn
		}
		o.funcs[name] = nm[fn][0]
	}
	if mach {
		o.main, o.callee = "_main.main", "_main.helper"
	}
	o.varAddr = nm["main.Global"][0]
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k := bytes.Index(data, []byte(exactGoLiteral))
	if k < 0 || bytes.Index(data[k+1:], []byte(exactGoLiteral)) >= 0 {
		t.Fatalf("the literal must occur exactly once in the file")
	}
	o.strAddr = fileOffsetToAddr(t, path, uint64(k))

	out := toolOutput(t, "go", "tool", "objdump", path)
	var fn uint64
	var newFn bool
	page := map[uint64]uint64{}
	for _, ln := range strings.Split(out, "\n") {
		if goHeader.MatchString(ln) {
			newFn, page = true, map[uint64]uint64{}
			continue
		}
		var f []string
		for _, s := range strings.Split(ln, "\t") {
			if s = strings.TrimSpace(s); s != "" {
				f = append(f, s)
			}
		}
		if len(f) < 4 || !strings.HasPrefix(f[1], "0x") {
			continue
		}
		addr := hexAddr(t, f[1])
		if newFn {
			fn, newFn = addr, false
		}
		text := strings.Join(f[3:], " ")
		in := &exactInsn{addr: addr, fn: fn}
		o.insns = append(o.insns, in)
		mnem, ops, _ := strings.Cut(text, " ")
		if mnem == "CALL" {
			if g := goSym.FindStringSubmatch(ops); g != nil && g[0] == ops {
				if a := nm[g[1]]; len(a) == 1 && g[2] == "" {
					in.call, in.direct = a[0], true
				}
			} else {
				in.indirect = true
			}
		}
		if goarch == "amd64" {
			if mnem == "CALL" || strings.HasPrefix(mnem, "J") {
				continue
			}
			for _, g := range goSym.FindAllStringSubmatch(ops, -1) {
				if a := nm[g[1]]; len(a) == 1 {
					off, _ := strconv.ParseUint(g[2], 10, 64)
					in.refs = append(in.refs, a[0]+off)
				}
			}
			if g := goIP.FindStringSubmatch(ops); g != nil {
				d, _ := strconv.ParseInt(g[1], 0, 64)
				in.refs = append(in.refs, addr+uint64(len(f[2])/2)+uint64(d))
			}
			continue
		}
		// arm64
		if mnem == "CALL" || mnem == "JMP" || mnem == "RET" || strings.HasPrefix(mnem, "B") || strings.HasPrefix(mnem, "CB") || strings.HasPrefix(mnem, "TB") {
			clear(page)
			continue
		}
		if g := goAdrp.FindStringSubmatch(text); g != nil {
			d, _ := strconv.ParseInt(g[1], 10, 64)
			r, _ := strconv.ParseUint(g[2], 10, 64)
			page[r] = addr&^0xfff + uint64(d)
			continue
		}
		if g := goAdd.FindStringSubmatch(text); g != nil {
			imm, _ := strconv.ParseUint(g[1], 10, 64)
			rn, _ := strconv.ParseUint(g[2], 10, 64)
			if p, ok := page[rn]; ok {
				in.refs = append(in.refs, p+imm)
			}
		} else if g := goLoad.FindStringSubmatch(text); g != nil {
			rn, _ := strconv.ParseUint(g[2], 10, 64)
			if p, ok := page[rn]; ok {
				d, _ := strconv.ParseInt(g[1], 10, 64)
				in.refs = append(in.refs, p+uint64(d))
			}
		} else if g := goStore.FindStringSubmatch(text); g != nil {
			rn, _ := strconv.ParseUint(g[2], 10, 64)
			if p, ok := page[rn]; ok {
				d, _ := strconv.ParseInt(g[1], 10, 64)
				in.refs = append(in.refs, p+uint64(d))
			}
		}
		if g := goDest.FindStringSubmatch(text); g != nil && mnem != "CMP" && mnem != "CMPW" && mnem != "CMN" && mnem != "TST" {
			r, _ := strconv.ParseUint(g[1], 10, 64)
			delete(page, r)
		}
	}
	return o
}

// procNamed returns the addresses of the procedures with name as their value
// or one of their aliases.
func procNamed(ps []provider.ProcedureItem, name string) []string {
	var out []string
	for _, p := range ps {
		if p.Value == name || slices.Contains(p.Aliases, name) {
			out = append(out, p.Address)
		}
	}
	return out
}

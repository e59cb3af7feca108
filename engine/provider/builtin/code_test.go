package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/internal/testkit"
)

// objInsn is one instruction as objdump -d prints it.
type objInsn struct {
	addr  uint64
	bytes string
	text  string
	mem   bool // bytes are in memory order already (Thumb halfwords converted)
}

// objdumpInsns disassembles path with tool and returns every instruction.
func objdumpInsns(t *testing.T, tool, path string) map[uint64]objInsn {
	t.Helper()
	od := needTool(t, tool)
	out, err := exec.Command(od, "-d", "-M", "intel", "--insn-width=16", path).Output()
	if err != nil {
		// -M intel is x86-only; retry without it.
		out, err = exec.Command(od, "-d", "--insn-width=16", path).Output()
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}
	m := map[uint64]objInsn{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 3 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		a, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(f[0], ":")), 16, 64)
		if err != nil {
			continue
		}
		in := objInsn{addr: a, bytes: strings.ReplaceAll(strings.TrimSpace(f[1]), " ", ""), text: strings.Join(f[2:], " ")}
		if g := strings.Fields(f[1]); len(g) > 0 && !slices.ContainsFunc(g, func(h string) bool { return len(h) != 4 }) {
			// Thumb: objdump prints each halfword as a little-endian value.
			in.bytes, in.mem = "", true
			for _, h := range g {
				in.bytes += h[2:4] + h[0:2]
			}
		}
		m[a] = in
	}
	return m
}

func readInsns(t *testing.T, c provider.Client, proc string) provider.FunctionInstructions {
	t.Helper()
	var all provider.FunctionInstructions
	for off := int64(0); ; {
		r := do(t, c, provider.OpReadFunctionInstructions, provider.Params{"procedure": proc, "offset": off, "limit": int64(7), "document": nil})
		fi := r.Normalized.(provider.FunctionInstructions)
		if off == 0 {
			all = fi
		} else {
			all.Instructions.Items = append(all.Instructions.Items, fi.Instructions.Items...)
		}
		if !fi.Instructions.Truncated {
			if fi.Instructions.NextOffset != nil || len(all.Instructions.Items) != *fi.Instructions.Total {
				t.Fatalf("page end of %s: %+v", proc, fi.Instructions)
			}
			return all
		}
		off = int64(*fi.Instructions.NextOffset)
	}
}

// checkInstructions compares every sized function's instruction boundaries
// and bytes with objdump, and procedure_assembly with read_function_instructions.
// wordLE: objdump prints ARM instruction words as numbers, so their bytes
// are reversed in memory order.
func checkInstructions(t *testing.T, path, nmTool, odTool string, wordLE bool) {
	syms := nmSymbolsWith(t, nmTool, path)
	od := objdumpInsns(t, odTool, path)
	_, _, c := open(t, path)
	checked := 0
	for _, s := range syms {
		if (s.typ != 'T' && s.typ != 't') || s.size == 0 {
			continue
		}
		var want []objInsn
		for a := s.addr; a < s.addr+s.size; a++ {
			if in, ok := od[a]; ok {
				want = append(want, in)
			}
		}
		if len(want) == 0 {
			continue
		}
		fi := readInsns(t, c, provider.FormatAddress(s.addr))
		if fi.Procedure.Address != provider.FormatAddress(s.addr) || fi.Limitations == nil {
			t.Errorf("%s: procedure %+v limitations %v", s.name, fi.Procedure, fi.Limitations)
		}
		got := fi.Instructions.Items
		if len(got) != len(want) {
			t.Errorf("%s: %d instructions, objdump %d", s.name, len(got), len(want))
			continue
		}
		var lines []string
		for i, g := range got {
			w := want[i]
			wb := wordBytes(w.bytes, wordLE)
			if w.mem {
				wb = w.bytes
			}
			if g.Address != provider.FormatAddress(w.addr) || g.Bytes != wb || g.Text == "" {
				t.Errorf("%s #%d: got %+v, objdump %+v", s.name, i, g, w)
			}
			lines = append(lines, g.Address+"  "+g.Bytes+"  "+g.Text)
		}
		asm := do(t, c, provider.OpProcedureAssembly, provider.Params{"procedure": provider.FormatAddress(s.addr)}).Normalized.(string)
		if asm != strings.Join(lines, "\n") {
			t.Errorf("%s: procedure_assembly differs from read_function_instructions:\n%s", s.name, asm)
		}
		checked++
	}
	if checked < 4 {
		t.Fatalf("only %d functions compared", checked)
	}
}

func TestInstructionsX86_64(t *testing.T) {
	for _, fx := range []struct{ name, flag string }{{"gcc-O0", "-O0"}, {"gcc-O2", "-O2"}} {
		t.Run(fx.name, func(t *testing.T) {
			var path string
			if fx.flag == "-O0" {
				path = cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
			} else {
				path = cFixture(t, "gcc-O2", "gcc", "-O2")
			}
			checkInstructions(t, path, "nm", "objdump", false)
		})
	}
}

func TestInstructionsI686(t *testing.T) {
	path := cFixture(t, "i686-gcc-no-pie", "i686-linux-gnu-gcc", "-O1", "-no-pie", "-fPIC")
	checkInstructions(t, path, "nm", "objdump", false)
}

func TestInstructionsArm64(t *testing.T) {
	path := cFixture(t, "aarch64-gcc", "aarch64-linux-gnu-gcc", "-O1", "-g")
	checkInstructions(t, path, "aarch64-linux-gnu-nm", "aarch64-linux-gnu-objdump", true)
}

func TestInstructionsArm(t *testing.T) {
	path := cFixture(t, "arm-gcc-marm", "arm-linux-gnueabihf-gcc", "-O1", "-marm")
	checkInstructions(t, path, "arm-linux-gnueabihf-nm", "arm-linux-gnueabihf-objdump", true)
	_, _, ca := open(t, path)
	add := nmFind(t, nmSymbolsWith(t, "arm-linux-gnueabihf-nm", path), "rea_add")
	if asm := do(t, ca, provider.OpProcedureAssembly, provider.Params{"procedure": "main"}).Normalized.(string); !strings.Contains(asm, "bl "+provider.FormatAddress(add.addr)+" <rea_add>\n") {
		t.Errorf("arm main does not call rea_add at %#x:\n%s", add.addr, asm)
	}
}

// TestInstructionsThumb: a gcc -mthumb program (Thumb procedures, the ARM
// PLT, $d literal pools) decodes with objdump's boundaries and bytes, pools
// as .word, and main's call of rea_add is a symbolized bl.
func TestInstructionsThumb(t *testing.T) {
	for _, fx := range []struct {
		name, compiler string
		flags          []string
	}{
		{"arm-gcc-mthumb-O0", "arm-linux-gnueabihf-gcc", []string{"-O0", "-mthumb"}},
		{"arm-gcc-mthumb-O2", "arm-linux-gnueabihf-gcc", []string{"-O2", "-mthumb"}},
		{"arm-clang-mthumb-O2", "clang", []string{"--target=arm-linux-gnueabihf", "-march=armv7-a", "-mthumb", "-O2"}},
	} {
		t.Run(fx.name, func(t *testing.T) {
			path := cFixture(t, fx.name, fx.compiler, fx.flags...)
			checkInstructions(t, path, "arm-linux-gnueabihf-nm", "arm-linux-gnueabihf-objdump", true)
			_, _, c := open(t, path)
			add := nmFind(t, nmSymbolsWith(t, "arm-linux-gnueabihf-nm", path), "rea_add")
			asm := do(t, c, provider.OpProcedureAssembly, provider.Params{"procedure": "main"}).Normalized.(string)
			if !strings.Contains(asm, "bl "+provider.FormatAddress(add.addr&^1)+" <rea_add>") {
				t.Errorf("thumb main does not call rea_add at %#x:\n%s", add.addr&^1, asm)
			}
			if !strings.Contains(asm, "push {") {
				t.Errorf("thumb main has no push:\n%s", asm)
			}
		})
	}
}

const thumbPEC = `int g;
static int helper(int x) { return x * 3 + g; }
int __attribute__((noinline)) rea_add(int a, int b) { return a + b + helper(a); }
int mainCRTStartup(void) { return rea_add(1, 2); }
`

// TestInstructionsThumbPE: Windows on ARM is Thumb-2 only; a clang/lld-link
// ARMv7 PE decodes as Thumb, and its entry's call is a callee.
func TestInstructionsThumbPE(t *testing.T) {
	path := fixture(t, "armv7-pe.exe", func(dir, out string) (string, error) {
		for _, tool := range []string{"clang", "lld-link"} {
			if _, err := exec.LookPath(tool); err != nil {
				return "tool " + tool + " is not installed; install it to run this test", nil
			}
		}
		src := filepath.Join(dir, "w.c")
		if err := os.WriteFile(src, []byte(thumbPEC), 0o644); err != nil {
			return "", err
		}
		obj := filepath.Join(dir, "w.obj")
		if err := run(dir, nil, "clang", "--target=thumbv7-pc-windows-msvc", "-O1", "-c", src, "-o", obj); err != nil {
			return "", err
		}
		return "", run(dir, nil, "lld-link", "/entry:mainCRTStartup", "/subsystem:console", "/nodefaultlib", "/out:"+out, obj)
	})
	_, _, c := open(t, path)
	fi := readInsns(t, c, "entry")
	var call string
	for _, in := range fi.Instructions.Items {
		if len(in.Bytes) != 4 && len(in.Bytes) != 8 || strings.HasPrefix(in.Text, ".inst") {
			t.Errorf("entry: %+v is not a decoded Thumb instruction", in)
		}
		if strings.HasPrefix(in.Text, "bl ") {
			call = strings.Fields(in.Text)[1]
		}
	}
	if call == "" {
		t.Fatalf("entry has no bl: %+v", fi.Instructions.Items)
	}
	got, _ := edgeList(t, c, provider.OpProcedureCallees, provider.Params{"procedure": "entry"})
	if len(got) != 1 || got[0] != call {
		t.Errorf("callees(entry) = %v, want [%s]", got, call)
	}
}

func TestInstructionsText(t *testing.T) {
	path := cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
	syms := nmSymbols(t, path)
	add := nmFind(t, syms, "rea_add")
	_, _, c := open(t, path)
	asm := do(t, c, provider.OpProcedureAssembly, provider.Params{"procedure": "main"}).Normalized.(string)
	if !strings.Contains(asm, "call "+provider.FormatAddress(add.addr)+" <rea_add>\n") {
		t.Errorf("main does not call rea_add at %#x:\n%s", add.addr, asm)
	}
	for _, line := range strings.Split(asm, "\n") {
		f := strings.SplitN(line, "  ", 3)
		if len(f) != 3 || !strings.HasPrefix(f[0], "0x") || f[1] == "" || f[2] == "" || strings.Contains(f[2], "(bad)") {
			t.Errorf("line %q", line)
		}
	}
	// Paging bounds and the entry-only (stripped) case.
	if fe := opErr(t, c, provider.OpReadFunctionInstructions, provider.Params{"procedure": "main", "limit": int64(501)}); issueReason(fe) != "/limit out_of_range" {
		t.Errorf("limit 501: %v", fe.Details)
	}
	stripped := cFixture(t, "gcc-O2-stripped", "gcc", "-O2", "-s")
	od := objdumpInsns(t, "objdump", stripped)
	_, _, c2 := open(t, stripped)
	procs := allProcedures(t, c2)
	var entry string
	for _, p := range procs {
		if p.Value == "entry" {
			entry = p.Address
		}
	}
	if entry == "" {
		t.Fatal("no entry procedure in the stripped fixture")
	}
	// The entry's extent is its .eh_frame FDE: decoded linearly.
	fi := readInsns(t, c2, entry)
	if len(fi.Limitations) != 0 || len(fi.Instructions.Items) < 5 {
		t.Fatalf("entry: %+v", fi)
	}
	// A procedure no FDE describes (crtstuff code found through the init/fini
	// arrays or call targets) is decoded by recursive descent.
	fd := descentProc(t, c2, procs)
	for _, fi := range []provider.FunctionInstructions{fi, fd} {
		for _, g := range fi.Instructions.Items {
			a, _ := provider.ParseAddress(g.Address)
			if w, ok := od[a]; !ok || w.bytes != g.Bytes {
				t.Errorf("%s insn %+v, objdump %+v", fi.Procedure.Name, g, od[a])
			}
		}
	}
}

func wordBytes(h string, le bool) string {
	if !le || len(h) != 8 {
		return h
	}
	return h[6:8] + h[4:6] + h[2:4] + h[0:2]
}

// FuzzDecode: every architecture's decoder consumes at least one and at most
// len(code) bytes and never panics, whatever the bytes.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{0xe8, 0, 0, 0, 0}, uint64(0x1000))
	f.Add([]byte{0x48, 0x8d, 0x05, 0x10, 0, 0, 0}, uint64(0x401000))
	f.Add([]byte{0xe0, 0x00, 0x00, 0xf0, 0x00, 0xec, 0x47, 0xf9}, uint64(0x71c))
	f.Add([]byte{0xf1, 0xff, 0xff, 0xeb}, uint64(0x5a0))
	f.Add([]byte{0x0f}, uint64(0))
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		if len(code) == 0 {
			return
		}
		for _, arch := range []string{"x86", "x86_64", "arm", "arm64"} {
			d := &decoder{arch: arch, bo: binary.LittleEndian}
			for o := 0; o < len(code); {
				it := d.decode(code[o:], pc+uint64(o), true)
				if it.n == 0 || int(it.n) > len(code)-o || it.text == "" {
					t.Fatalf("%s at %d: %+v", arch, o, it)
				}
				o += int(it.n)
			}
		}
	})
}

// The fallback disassembler version is the one go.mod requires.
func TestArchModuleVersion(t *testing.T) {
	b, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Skip("go.mod not found: ", err)
	}
	if !strings.Contains(string(b), "golang.org/x/arch "+archModuleVersion+"\n") {
		t.Errorf("go.mod does not require golang.org/x/arch %s", archModuleVersion)
	}
	if v := archVersion(); v != archModuleVersion {
		t.Errorf("build info names golang.org/x/arch %s, go.mod %s", v, archModuleVersion)
	}
}

// Mach-O symbols have no sizes: procedures are what recursive descent reaches
// from their entries, which is enough to find callers and containment.
func TestMachOGoCode(t *testing.T) {
	for _, arch := range []string{"arm64", "amd64"} {
		t.Run(arch, func(t *testing.T) {
			path := goFixture(t, "darwin", arch)
			_, _, c := open(t, path)
			main := procInfo(t, c, "_main.main")
			helper := procInfo(t, c, "_main.helper")
			if main.Length == 0 || main.BasicblockCount < 2 || helper.Length == 0 {
				t.Fatalf("main %+v helper %+v", main, helper)
			}
			callees, _ := edgeList(t, c, provider.OpProcedureCallees, provider.Params{"procedure": "_main.main"})
			if !slices.Contains(callees, helper.Entrypoint) {
				t.Errorf("callees(main.main) = %v, want main.helper %s", callees, helper.Entrypoint)
			}
			callers, _ := edgeList(t, c, provider.OpProcedureCallers, provider.Params{"procedure": "_main.helper"})
			if len(callers) != 1 || callers[0] != main.Entrypoint {
				t.Errorf("callers(main.helper) = %v, want %s", callers, main.Entrypoint)
			}
			ha, _ := provider.ParseAddress(helper.Entrypoint)
			if got := containing(t, c, ha+helper.Length-1); !got.Found || got.Procedure.Address != helper.Entrypoint {
				t.Errorf("resolve end of helper: %+v", got)
			}
		})
	}
}

// descentProc returns the instructions of a stripped fixture's synthetic
// procedure of unknown extent with at least 5 instructions.
func descentProc(t *testing.T, c provider.Client, procs []provider.ProcedureItem) provider.FunctionInstructions {
	t.Helper()
	for _, p := range procs {
		if !strings.HasPrefix(p.Value, "sub_") {
			continue
		}
		fi := readInsns(t, c, p.Address)
		if len(fi.Limitations) == 1 && strings.Contains(fi.Limitations[0], "recursive descent") && len(fi.Instructions.Items) >= 5 {
			return fi
		}
	}
	t.Fatal("no procedure of unknown extent with 5 instructions")
	return provider.FunctionInstructions{}
}

// TestUndecodableX86Text: bytes x86asm cannot decode where they stand (here
// c0 /6, the undocumented alias of shl that objdump prints as shlb) are
// "(bad)" in procedure_assembly as in ProcedureInstructions. procedure_assembly
// decodes each instruction's text again from its own bytes, and that one byte
// alone decodes as "prefix(0xc0)"; the two disagreed, and a comparison read
// the same procedure as complete through one and incomplete through the other.
func TestUndecodableX86Text(t *testing.T) {
	testkit.Need(t, "gcc")
	path := testkit.CompileC(t, t.TempDir(), "bad", `
__attribute__((naked, noinline)) void rea_bad(void) {
	__asm__ volatile (".byte 0x90, 0xc0, 0x74, 0x05, 0x48, 0x01, 0xc3");
}
int main(void) { rea_bad(); return 0; }
`, "-O1")
	bad := nmFind(t, nmSymbols(t, path), "rea_bad")
	_, _, c := open(t, path)
	asm := do(t, c, provider.OpProcedureAssembly, provider.Params{"procedure": "rea_bad"}).Normalized.(string)
	want := provider.FormatAddress(bad.addr+1) + "  c0  (bad)"
	if !strings.Contains(asm, want+"\n") && !strings.HasSuffix(asm, want) {
		t.Fatalf("procedure_assembly has no %q:\n%s", want, asm)
	}
	var lines []string
	if _, err := c.(*Client).ProcedureInstructions(context.Background(), "", bad.addr, func(_, _ int, a uint64, _ int, text string) {
		lines = append(lines, provider.FormatAddress(a)+" "+text)
	}); err != nil {
		t.Fatal(err)
	}
	if len(lines) < 2 || lines[1] != provider.FormatAddress(bad.addr+1)+" (bad)" {
		t.Fatalf("ProcedureInstructions: %q", lines)
	}
}

package builtin

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// Fuzz targets: each feeds arbitrary bytes to one format's header parser and,
// when the header is accepted, builds every index and materializes pages of
// every operation. Seeds live in testdata/fuzz/<target>/ (see
// testdata/README.md); TestWriteFuzzSeeds regenerates the compiled ones.

func FuzzELF(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzFormat(t, data, openELF) })
}

func FuzzPE(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { fuzzFormat(t, data, openPE) })
}

func FuzzMachO(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if detect(data) == "mach-o-universal" {
			fuzzFormat(t, data, openUniversal)
			return
		}
		fuzzFormat(t, data, openMachO)
	})
}

// FuzzOpen goes through detection and the production entry point.
func FuzzOpen(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := parseImage(data)
		if err != nil {
			var fe *fault.Error
			if !errors.As(err, &fe) || fe.Code != fault.TargetUnavailable || fe.Details["reason"] != "unsupported_format" {
				t.Fatalf("parse error is not typed: %v", err)
			}
			return
		}
		exercise(t, img, data)
	})
}

func fuzzFormat(t *testing.T, data []byte, open func([]byte) (*image, error)) {
	img, err := open(data)
	if err != nil {
		return
	}
	exercise(t, img, data)
}

// exercise builds the indexes directly (so a panic surfaces with its stack)
// and then answers every operation through Do.
func exercise(t *testing.T, img *image, data []byte) {
	ctx := context.Background()
	view := img.data(data)
	six, err := buildSymbols(ctx, img, view, nil)
	if err != nil {
		t.Fatalf("symbols: %v", err)
	}
	for i := 1; i < len(six.syms); i++ {
		if six.syms[i-1].addr > six.syms[i].addr {
			t.Fatalf("symbols out of order")
		}
	}
	stx, err := buildStrings(ctx, img, view, nil)
	if err != nil {
		t.Fatalf("strings: %v", err)
	}
	for i := 1; i < stx.Len(); i++ {
		if stx.addrOf(i-1) > stx.addrOf(i) {
			t.Fatalf("strings out of order")
		}
	}
	c := bareClient("fuzz", "/nonexistent-rea-fuzz/fuzz", img, data)
	c.segments()
	ex, err := buildExtents(ctx, six, unwindRanges(img, data))
	if err != nil {
		t.Fatalf("extents: %v", err)
	}
	for _, f := range []provider.ProcedureFilter{{}, {NamedOnly: true, ExcludeThunks: true, MinLength: 8}} {
		if _, err := c.namer(six).procedurePage(ctx, provider.OpListProcedures, ex, f, 0, provider.MaxPageResults); err != nil {
			t.Fatalf("list_procedures %+v: %v", f, err)
		}
	}
	c.namer(six).namePage(0, false, 0, provider.MaxPageResults)
	c.stringPage(stx, 0, false, 0, provider.MaxPageResults)
	for _, op := range []string{provider.OpListDocuments, provider.OpListSegments, provider.OpListProcedures, provider.OpListNames, provider.OpListStrings, provider.OpListDependencies} {
		if _, err := c.Do(ctx, op, provider.Params{"limit": int64(provider.MaxPageResults)}, nil); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
	}
	exerciseLinker(t, c, six)
	exerciseBytes(t, c, img)
	if len(six.syms) > 0 {
		a := provider.FormatAddress(six.syms[len(six.syms)/2].addr)
		if _, err := c.Do(ctx, provider.OpListNames, provider.Params{"address": a}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Symbolized disassembly, prototypes and call sites of a few
	// procedures: the symbolizer reads PLT stubs, dynamic relocations and
	// string bytes. A panic inside Do comes
	// back as execution_failure.
	for i, k := range six.procs {
		if i == 8 {
			break
		}
		a := provider.FormatAddress(six.syms[k].addr)
		// procedure_info and procedure_calls lift the procedure over the
		// image's relocations and read its DWARF (lifted.go, dwarfproto.go);
		// procedure_references reads the bytes its operands point at
		for _, op := range []string{provider.OpProcedureAssembly, provider.OpProcedureInfo, provider.OpProcedureCalls, provider.OpProcedureReferences} {
			_, err := c.Do(ctx, op, provider.Params{"procedure": a}, nil)
			var fe *fault.Error
			if err != nil && (!errors.As(err, &fe) || fe.Code == fault.ExecutionFailure) {
				t.Fatalf("%s %s: %v", op, a, err)
			}
		}
	}
}

// TestWriteFuzzSeeds regenerates the compiled seeds under testdata/fuzz when
// REA_WRITE_FUZZ_SEEDS=1 (needs gcc, aarch64-linux-gnu-gcc, mingw-w64 and
// clang+lld). The seeds are tiny programs from fuzzSeedC.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("REA_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set REA_WRITE_FUZZ_SEEDS=1 to regenerate testdata/fuzz seeds")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "seed.c")
	_ = fatBinary
	if err := os.WriteFile(src, []byte(fuzzSeedC), 0o644); err != nil {
		t.Fatal(err)
	}
	tiny := []string{"-Os", "-nostdlib", "-nostartfiles", "-fno-asynchronous-unwind-tables", "-Wl,--build-id=none",
		"-Wl,-z,max-page-size=0x10", "-Wl,-z,noseparate-code", "-Wl,-z,norelro"}
	link := func(out, cc string, pre []string, post ...string) []byte {
		needTool(t, cc)
		p := filepath.Join(dir, out)
		args := append(append(append([]string{}, pre...), "-o", p, src), post...)
		if err := run(dir, nil, cc, args...); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	seeds := map[string]map[string][]byte{"FuzzELF": {}, "FuzzPE": {}, "FuzzMachO": {}}
	seeds["FuzzELF"]["x86_64-plt"] = link("e1", "gcc", tiny, "-L/lib/x86_64-linux-gnu", "-l:libc.so.6")
	seeds["FuzzELF"]["x86_64-ibt"] = link("e2", "gcc", append(append([]string{}, tiny...), "-fcf-protection=full", "-Wl,-z,ibtplt"), "-L/lib/x86_64-linux-gnu", "-l:libc.so.6")
	seeds["FuzzELF"]["aarch64-plt"] = link("e3", "aarch64-linux-gnu-gcc", tiny, "-L/usr/aarch64-linux-gnu/lib", "-l:libc.so.6")
	// i386, stripped, with .eh_frame and one function without an FDE that
	// FDE-covered code calls (unwindcalls.go), in a source of its own.
	if err := os.WriteFile(src, []byte(fuzzSeedUnwindC), 0o644); err != nil {
		t.Fatal(err)
	}
	seeds["FuzzELF"]["i686-eh-frame-gap"] = link("e4", "i686-linux-gnu-gcc", slices.DeleteFunc(slices.Clone(tiny),
		func(s string) bool { return s == "-fno-asynchronous-unwind-tables" }), "-fPIC", "-s", "-L/usr/i686-linux-gnu/lib", "-l:libc.so.6")
	if err := os.WriteFile(src, []byte(fuzzSeedC), 0o644); err != nil {
		t.Fatal(err)
	}
	seeds["FuzzPE"]["x86_64-exe-coff-symbols"] = link("p1.exe", "x86_64-w64-mingw32-gcc",
		[]string{"-Os", "-nostdlib", "-nostartfiles", "-Wl,--entry=_start", "-Wl,--file-alignment=16", "-Wl,--section-alignment=16"}, "-lmsvcrt")
	seeds["FuzzPE"]["x86_64-dll-exports"] = link("p2.dll", "x86_64-w64-mingw32-gcc",
		[]string{"-Os", "-nostdlib", "-shared", "-s", "-Wl,--entry=0", "-Wl,--file-alignment=16", "-Wl,--section-alignment=16"}, "-lmsvcrt")
	macho := func(out, target string) []byte {
		return link(out, "clang", []string{"-target", target, "-Os", "-nostdlib", "-fuse-ld=lld",
			"-Wl,-undefined,dynamic_lookup", "-Wl,-platform_version,macos,11.0,11.0"})
	}
	m64 := macho("m1", "x86_64-apple-macos11")
	seeds["FuzzMachO"]["x86_64-stubs"] = m64
	// A real arm64 slice is 50 KB of page padding; a copy of the x86_64 slice
	// relabelled arm64 exercises slice selection at a third of the size.
	relabelled := append([]byte(nil), m64...)
	binary.LittleEndian.PutUint32(relabelled[4:], 0x0100000c)
	binary.LittleEndian.PutUint32(relabelled[8:], 0)
	seeds["FuzzMachO"]["universal"] = fatOf(m64, relabelled)
	for target, m := range seeds {
		d := filepath.Join("testdata", "fuzz", target)
		os.MkdirAll(d, 0o755)
		for name, b := range m {
			writeCorpus(t, filepath.Join(d, "seed-"+name), b)
			if name != "universal" {
				od := filepath.Join("testdata", "fuzz", "FuzzOpen")
				os.MkdirAll(od, 0o755)
				writeCorpus(t, filepath.Join(od, "seed-"+name), b)
			}
		}
	}
}

const fuzzSeedC = `int puts(const char *);
const char msg[] = "tiny seed string";
const unsigned short wmsg[] = u"wide seed";
int counter = 7;
__attribute__((noinline)) int helper(int x) { return x + counter; }
int main(void) { puts(msg); return helper((int)wmsg[0]); }
void __main(void) {}
void _start(void) { main(); for (;;) ; }
`

// fuzzSeedUnwindC: bare has no FDE (top-level asm without CFI), helper
// calls it; main calls itself through `call $+5; pop`.
const fuzzSeedUnwindC = `int puts(const char *);
int counter = 7;
__asm__(".text\n.align 16\nbare: movl (%esp), %eax\n ret\n.align 16\n");
int bare(void);
__attribute__((noinline)) int helper(int x) { return x + counter + bare(); }
int main(void) { int pc; __asm__("call 1f\n1: pop %0" : "=r"(pc)); puts("seed"); return helper(pc); }
void __main(void) {}
void _start(void) { main(); for (;;) ; }
`

// fatOf builds a universal file (16-byte slice alignment keeps it small).
func fatOf(slices ...[]byte) []byte {
	hdr := make([]byte, 8+20*len(slices))
	binary.BigEndian.PutUint32(hdr[0:], 0xcafebabe)
	binary.BigEndian.PutUint32(hdr[4:], uint32(len(slices)))
	out := hdr
	for len(out)%16 != 0 {
		out = append(out, 0)
	}
	for i, s := range slices {
		e := hdr[8+20*i:]
		binary.BigEndian.PutUint32(e[0:], binary.LittleEndian.Uint32(s[4:]))
		binary.BigEndian.PutUint32(e[4:], binary.LittleEndian.Uint32(s[8:]))
		binary.BigEndian.PutUint32(e[8:], uint32(len(out)))
		binary.BigEndian.PutUint32(e[12:], uint32(len(s)))
		binary.BigEndian.PutUint32(e[16:], 4)
		out = append(out, s...)
		for len(out)%16 != 0 {
			out = append(out, 0)
		}
	}
	return out
}

// writeCorpus writes one `go test fuzz v1` corpus file.
func writeCorpus(t *testing.T, path string, b []byte) {
	content := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(b)))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exerciseBytes reads the first bytes of every segment and searches the
// image: untrusted headers may only make them refuse (invalid_request),
// never fail inside (a panic in Do comes back as execution_failure).
func exerciseBytes(t *testing.T, c *Client, img *image) {
	ctx := context.Background()
	check := func(op string, in provider.Params) {
		_, err := c.Do(ctx, op, in, nil)
		var fe *fault.Error
		if err != nil && (!errors.As(err, &fe) || fe.Code != fault.InvalidRequest) {
			t.Fatalf("%s %v: %v", op, in, err)
		}
	}
	for i, sg := range img.segments {
		if i == 16 {
			break
		}
		check(provider.OpReadBytes, provider.Params{"address": provider.FormatAddress(sg.start),
			"length": int64(min(max(sg.end-sg.start, 1), provider.MaxReadBytes))})
	}
	check(provider.OpSearchBytes, provider.Params{"pattern": "?? 00 ?? ff", "limit": int64(provider.MaxPageResults)})
	check(provider.OpSearchBytes, provider.Params{"pattern": "c3"})
}

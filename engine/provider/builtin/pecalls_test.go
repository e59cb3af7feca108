package builtin

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// ARM64 .pdata: packed records (Flag 1) and .xdata records (Flag 0) start
// functions; a packed fragment (Flag 2) is a range, not a start; Flag 3 is
// reserved and ignored. The lengths are in words.
func TestPdataARM64Records(t *testing.T) {
	entry := func(begin, unw uint32) []byte {
		var x [8]byte
		binary.LittleEndian.PutUint32(x[0:], begin)
		binary.LittleEndian.PutUint32(x[4:], unw)
		return x[:]
	}
	var tab []byte
	tab = append(tab, entry(0x1000, 1|8<<2)...) // packed, 8 words
	tab = append(tab, entry(0x1020, 0x2000)...) // .xdata record, 4 words
	tab = append(tab, entry(0x1030, 2|4<<2)...) // packed fragment, 4 words
	tab = append(tab, entry(0x1040, 3|4<<2)...) // reserved
	tab = append(tab, entry(0x1050, 0x9000)...) // .xdata outside the file
	tab = append(tab, entry(0x1060, 1|0<<2)...) // empty
	tab = append(tab, entry(0x5000, 1|4<<2)...) // outside executable code
	img, data := syntheticPE(func(d []byte) {
		binary.LittleEndian.PutUint32(d[0x500:], 4|1<<27) // 4 words, one code word
		copy(d[0x600:], tab)
	})
	img.arch = "arm64"
	img.pe.exceptDir[1] = uint32(len(tab))
	ranges, starts, lims := peUnwind(img, data)
	if len(lims) != 0 {
		t.Errorf("limitations %q", lims)
	}
	const base = 0x140000000
	wantR := []codeRange{{base + 0x1000, base + 0x1020}, {base + 0x1020, base + 0x1030}, {base + 0x1030, base + 0x1040}}
	if !slices.Equal(ranges, wantR) {
		t.Errorf("ranges %x, want %x", ranges, wantR)
	}
	if want := []uint64{base + 0x1000, base + 0x1020}; !slices.Equal(starts, want) {
		t.Errorf("starts %x, want %x", starts, want)
	}
	// Every truncation of the table reads within bounds.
	for k := 0; k <= len(tab); k++ {
		img.pe.exceptDir[1] = uint32(k)
		peUnwind(img, data)
	}
}

// An exception directory that is not read is named in the limitations:
// ARM (Thumb) and machines without a reader.
func TestPdataUnreadIsALimitation(t *testing.T) {
	for arch, want := range map[string]string{"arm": "ARM .pdata not read", "": "is not read"} {
		img, data := syntheticPE(func([]byte) {})
		img.arch = arch
		img.pe.exceptDir[1] = 12
		_, starts, lims := peUnwind(img, data)
		if len(starts) != 0 || len(lims) != 1 || !strings.Contains(lims[0], want) {
			t.Errorf("%q: starts %x, limitations %q, want one with %q", arch, starts, lims, want)
		}
	}
}

// mingwTwins builds strippedC with a mingw compiler and returns the
// unstripped and stripped files.
func mingwTwins(t *testing.T, cc, strip string) (string, string) {
	t.Helper()
	ccPath := needTool(t, cc)
	stripPath := needTool(t, strip)
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	if err := os.WriteFile(src, []byte(strippedC), 0o644); err != nil {
		t.Fatal(err)
	}
	full, stripped := filepath.Join(dir, "p.exe"), filepath.Join(dir, "p-s.exe")
	if err := run(dir, nil, ccPath, "-O2", "-o", full, src); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, nil, stripPath, "-s", "-o", stripped, full); err != nil {
		t.Fatal(err)
	}
	return full, stripped
}

// TestPEThunksAndLabels (issue 13 item 4) on mingw programs for x86_64 and
// i686: every IAT jump thunk is a thunk procedure with and without the
// symbol table; a discovered start carrying a symbol-table label is named by
// it (no sub_<hex> alias); COFF static functions with an aux record (the
// first function of each object, like strippedC's sq) are names; i386
// starts come from call targets, .eh_frame and the constructor table.
func TestPEThunksAndLabels(t *testing.T) {
	for _, tc := range []struct{ cc, strip, nm, sq string }{
		{"x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-strip", "x86_64-w64-mingw32-nm", "sq"},
		{"i686-w64-mingw32-gcc", "i686-w64-mingw32-strip", "i686-w64-mingw32-nm", "_sq"},
	} {
		t.Run(tc.cc, func(t *testing.T) {
			full, stripped := mingwTwins(t, tc.cc, tc.strip)
			thunks := func(path string) map[string]bool {
				_, _, c := open(t, path)
				m := map[string]bool{}
				for _, p := range allProcedures(t, c) {
					if !p.Procedure.Thunk {
						continue
					}
					m[p.Address] = true
					if p.Procedure.External {
						continue
					}
					// Not an import's: a jump thunk, one jmp (register_frame_ctor).
					fi := do(t, c, provider.OpReadFunctionInstructions, provider.Params{"procedure": p.Address}).Normalized.(provider.FunctionInstructions)
					if is := fi.Instructions.Items; len(is) != 1 || !strings.HasPrefix(is[0].Text, "jmp") {
						t.Errorf("%s: thunk %s %s is not external and not one jmp: %v", filepath.Base(path), p.Address, p.Value, is)
					}
				}
				return m
			}
			tf, ts := thunks(full), thunks(stripped)
			if len(ts) < 10 || !maps2Equal(tf, ts) {
				t.Errorf("thunks with symbols %d, without %d; they differ or are too few", len(tf), len(ts))
			}
			_, _, c := open(t, full)
			nm := nmAddrs(t, []string{tc.nm}, full)
			for _, p := range allProcedures(t, c) {
				for _, a := range p.Aliases {
					if strings.HasPrefix(a, "sub_") {
						t.Errorf("%s %s has the analysis alias %s beside its symbol", p.Address, p.Value, a)
					}
				}
				if p.Value == "___chkstk_ms" && len(p.Aliases) != 0 {
					t.Errorf("___chkstk_ms aliases %q", p.Aliases)
				}
			}
			if a := nm[tc.sq]; len(a) != 1 {
				t.Fatalf("nm %s: %x", tc.sq, a)
			} else if got := procNamed(allProcedures(t, c), tc.sq); len(got) != 1 || got[0] != provider.FormatAddress(a[0]) {
				t.Errorf("procedure %s at %v, nm %x", tc.sq, got, a)
			}
			if a := nm["___chkstk_ms"]; len(a) == 1 {
				if got := procNamed(allProcedures(t, c), "___chkstk_ms"); len(got) != 1 || got[0] != provider.FormatAddress(a[0]) {
					t.Errorf("procedure ___chkstk_ms at %v, nm %x", got, a)
				}
			}
			if strings.HasPrefix(tc.cc, "i686") {
				prof, err := New("v1").Profile(t.Context(), targetFor(t, stripped))
				if err != nil {
					t.Fatal(err)
				}
				disc, _ := prof.Parameters["function_discovery"].([]any)
				for _, src := range []string{"eh-frame", "init-array", "call-targets", "stubs"} {
					if !slices.Contains(disc, any(src)) {
						t.Errorf("function_discovery %v lacks %s", disc, src)
					}
				}
			}
		})
	}
}

func maps2Equal(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// TestPEDescentWithoutUnwindInfo: an i386 program compiled without unwind
// tables still has its called functions found, by descent from the entry
// point.
func TestPEDescentWithoutUnwindInfo(t *testing.T) {
	cc := needTool(t, "i686-w64-mingw32-gcc")
	strip := needTool(t, "i686-w64-mingw32-strip")
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	if err := os.WriteFile(src, []byte(strippedC), 0o644); err != nil {
		t.Fatal(err)
	}
	full, stripped := filepath.Join(dir, "p.exe"), filepath.Join(dir, "p-s.exe")
	if err := run(dir, nil, cc, "-O2", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-o", full, src); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, nil, strip, "-s", "-o", stripped, full); err != nil {
		t.Fatal(err)
	}
	nm := nmAddrs(t, []string{"i686-w64-mingw32-nm"}, full)
	_, _, c := open(t, stripped)
	procs := allProcedures(t, c)
	// Functions reached by direct calls from main (fib and fact are called
	// through classify's jump table: not followed).
	for _, fn := range []string{"_add3", "_dup", "_classify", "_count_primes", "_is_prime", "_hash", "_xmalloc"} {
		a := nm[fn]
		if len(a) != 1 {
			t.Fatalf("nm %s: %x", fn, a)
		}
		if got := procAt(procs, "sub_"+strings.TrimPrefix(provider.FormatAddress(a[0]), "0x")); len(got) != 1 {
			t.Errorf("%s at %#x: no procedure sub_%x", fn, a[0], a[0])
		}
	}
}

// TestWritePESeeds regenerates the FuzzPE seeds of the i386 and ARM64
// discovery passes when REA_WRITE_FUZZ_SEEDS=1: a stripped mingw i686
// program (.eh_frame, constructor table, i386 thunks, descent) and a
// stripped ARM64 PE from clang (.pdata records, gaps, base relocations).
func TestWritePESeeds(t *testing.T) {
	if os.Getenv("REA_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set REA_WRITE_FUZZ_SEEDS=1 to regenerate the FuzzPE seed-pe-* seeds")
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	main, free, lib := write("seed.c", mainSeedC), write("free.c", strippedCFree), write("lib.c", strippedCLib)
	for _, s := range []struct {
		name, cc string
		args     []string
	}{
		{"pe-i686-mingw", "i686-w64-mingw32-gcc", []string{"-Os", "-s", "-Wl,--file-alignment=16", "-Wl,--section-alignment=16", main}},
		{"pe-arm64-clang", "clang", []string{"--target=aarch64-pc-windows-msvc", "-O2", "-fuse-ld=lld", "-nostdlib",
			"-Wl,/entry:main", "-Wl,/filealign:16", free, lib}},
	} {
		out := filepath.Join(dir, s.name+".exe")
		if err := run(dir, nil, needTool(t, s.cc), append(s.args, "-o", out)...); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		writeCorpus(t, filepath.Join("testdata", "fuzz", "FuzzPE", "seed-"+s.name), b)
	}
}

// TestPEARM64ImportThunks: an ARM64 PE linked by lld-link against an import
// library (llvm-dlltool) calls its imports through 12-byte adrp/ldr/br x16
// thunks; each is a thunk procedure named after its import, with and
// without the symbol table, and the stripped file's procedure starts are
// the unstripped file's text symbols.
func TestPEARM64ImportThunks(t *testing.T) {
	needLLDLink(t)
	clang := needTool(t, "clang")
	dlltool := needTool(t, "llvm-dlltool")
	strip := needTool(t, "llvm-strip")
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	def := write("msvcrt.def", "LIBRARY msvcrt.dll\nEXPORTS\nfprintf\nvfprintf\nexit\nmalloc\nfree\nqsort\nstrlen\nmemcpy\n")
	lib := filepath.Join(dir, "msvcrt.lib")
	if err := run(dir, nil, dlltool, "-m", "arm64", "-d", def, "-l", lib); err != nil {
		t.Fatal(err)
	}
	src := write("p.c", strippedCFree)
	vars := write("vars.c", "struct __sFILE; struct __sFILE *__stderrp, *__stdoutp;\n")
	full, stripped := filepath.Join(dir, "p.exe"), filepath.Join(dir, "p-s.exe")
	if err := run(dir, nil, clang, "--target=aarch64-pc-windows-msvc", "-O2", "-fuse-ld=lld", "-nostdlib",
		"-Wl,/entry:main", "-Wl,/debug:symtab", "-o", full, src, vars, lib); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, nil, strip, "-s", "-o", stripped, full); err != nil {
		t.Fatal(err)
	}
	imports := []string{"fprintf", "vfprintf", "exit", "malloc", "free", "qsort", "strlen", "memcpy"}
	nm := nmAddrs(t, []string{"llvm-nm"}, full)
	for _, path := range []string{full, stripped} {
		_, _, c := open(t, path)
		procs := allProcedures(t, c)
		byAddr := map[string]provider.ProcedureItem{}
		for _, p := range procs {
			byAddr[p.Address] = p
		}
		for _, fn := range imports {
			a := nm[fn]
			if len(a) != 1 {
				t.Fatalf("nm %s: %x", fn, a)
			}
			p, ok := byAddr[provider.FormatAddress(a[0])]
			if !ok || p.Value != fn || !p.Procedure.Thunk || !p.Procedure.External {
				t.Errorf("%s: thunk %s is %+v", filepath.Base(path), fn, p)
			}
		}
		lo, hi := peText(t, path)
		for name, as := range nm {
			if len(as) == 1 && as[0] >= lo && as[0] < hi {
				if _, ok := byAddr[provider.FormatAddress(as[0])]; !ok {
					t.Errorf("%s: no procedure at %s %#x", filepath.Base(path), name, as[0])
				}
			}
		}
	}
}

// needLLDLink skips (or fails) when lld's COFF linker is not installed.
func needLLDLink(t *testing.T) {
	t.Helper()
	if _, err := lookPath("lld-link"); err != nil {
		needTool(t, "lld-link-14")
	}
}

package builtin

import (
	"debug/elf"
	"debug/pe"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// heuristicFacts are the triage facts that are heuristics (CONTRACTS.md
// §18: their source says "heuristic:<name>"); every other fact names a
// header field, note, section, symbol, directory or load command.
var heuristicFacts = map[string]bool{"entropy": true, "high_entropy_sections": true, "entry_outside_code": true,
	"packer": true, "rustc": true}

// TestTriageSources: in the triage of an ELF, PE, Mach-O, Go, Rust-like and
// UPX-shaped file, every fact (or each item of a list of facts) carries a
// non-empty source; heuristic facts are marked as such and no other fact is.
func TestTriageSources(t *testing.T) {
	files := []string{
		cFixture(t, "triage-hardened", "gcc", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2", "-O2",
			"-Wl,-z,relro,-z,now", "-fcf-protection", "-fPIE", "-pie"),
		peFixture(t, "triage-pe-on.exe", "x86_64-w64-mingw32-gcc", "-Wl,--dynamicbase,--nxcompat,--high-entropy-va", "-Wl,--pdb=triage.pdb"),
		goBuildFixture(t, "triage-go-darwin-arm64", "darwin", "arm64"),
		goDepsFixture(t, "linux"),
		writeFixture(t, "upx-shaped", upxShapedELF(pseudoRandom(8<<10, 5))),
		"/usr/bin/ls",
	}
	for _, p := range files {
		tr, _ := triageOf(t, p)
		b, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		var parts map[string]map[string]any
		if err := json.Unmarshal(b, &parts); err != nil {
			t.Fatal(err)
		}
		n := 0
		for part, facts := range parts {
			for k, v := range facts {
				items := []any{v}
				if l, ok := v.([]any); ok {
					items = l
				}
				for _, it := range items {
					m, _ := it.(map[string]any)
					src, _ := m["source"].(string)
					n++
					switch {
					case src == "":
						t.Errorf("%s: %s.%s = %v has no source", filepath.Base(p), part, k, it)
					case heuristicFacts[k] != strings.HasPrefix(src, "heuristic:") && k != "main" && k != "language":
						t.Errorf("%s: %s.%s source %q: heuristic marking wrong", filepath.Base(p), part, k, src)
					}
				}
			}
		}
		if n < 10 {
			t.Errorf("%s: only %d facts", p, n)
		}
	}
}

// patchELF copies the ELF at src with edit applied to its bytes.
func patchELF(t *testing.T, src, name string, edit func(f *elf.File, b []byte)) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	edit(f, b)
	return writeFixture(t, name, b)
}

// TestTriageELFAnomalies: hand-edited copies of the C fixture (each edit a
// header field, as a packer or a damaged file has it): an entry point in
// .data is outside code; a PT_LOAD with p_filesz > p_memsz and a section
// running past the end of the file are size mismatches; a -Wl,-N link has
// a writable and executable segment (readelf -lW: RWE). The plain fixture
// has none of them.
func TestTriageELFAnomalies(t *testing.T) {
	base := cFixture(t, "triage-entropy-base", "gcc", "-O2")
	tr, _ := triageOf(t, base)
	for _, k := range []string{"segment_size_mismatch", "sections_beyond_file", "overlay"} {
		if v, has := tr.Anomalies[k]; has {
			t.Errorf("plain fixture: %s = %v", k, v)
		}
	}
	if v, _ := factValue(t, tr.Anomalies, "entry_outside_code"); v != false {
		t.Errorf("plain fixture: entry_outside_code %v", v)
	}
	le := binary.LittleEndian

	p := patchELF(t, base, "entry-in-data", func(f *elf.File, b []byte) {
		le.PutUint64(b[24:], f.Section(".data").Addr)
	})
	tr, _ = triageOf(t, p)
	if v, _ := factValue(t, tr.Anomalies, "entry_outside_code"); v != true {
		t.Errorf("entry in .data: entry_outside_code %v", v)
	}

	var loadAt uint64
	p = patchELF(t, base, "filesz-gt-memsz", func(f *elf.File, b []byte) {
		for i, ph := range f.Progs {
			if ph.Type == elf.PT_LOAD && ph.Flags&elf.PF_W != 0 {
				loadAt = ph.Vaddr
				o := 64 + i*56
				le.PutUint64(b[o+32:], ph.Memsz+0x100) // p_filesz
				return
			}
		}
		t.Fatal("no writable PT_LOAD")
	})
	tr, _ = triageOf(t, p)
	if v, _ := factValue(t, tr.Anomalies, "segment_size_mismatch"); !slices.Equal(v.([]string), []string{"LOAD@0x" + hexU(loadAt)}) {
		t.Errorf("filesz > memsz: segment_size_mismatch %v", v)
	}

	p = patchELF(t, base, "section-past-eof", func(f *elf.File, b []byte) {
		shoff := le.Uint64(b[40:])
		for i, s := range f.Sections {
			if s.Name == ".comment" {
				le.PutUint64(b[shoff+uint64(i)*64+32:], uint64(len(b))) // sh_size
				return
			}
		}
		t.Fatal("no .comment")
	})
	tr, _ = triageOf(t, p)
	if v, _ := factValue(t, tr.Anomalies, "sections_beyond_file"); !slices.Equal(v.([]string), []string{".comment"}) {
		t.Errorf("section past EOF: sections_beyond_file %v", v)
	}

	// -N (omagic) puts text and data in one RWX segment; it links only
	// statically and glibc's static start needs what -N drops, so the
	// program has its own _start.
	wx := keyedFixture(t, "triage-omagic", []string{"gcc -N"}, func(dir, out string) (string, error) {
		src := filepath.Join(dir, "om.c")
		if err := os.WriteFile(src, []byte("int counter = 3;\nvoid _start(void) { for (;;) counter++; }\n"), 0o644); err != nil {
			return "", err
		}
		return "", run(dir, nil, needTool(t, "gcc"), "-O2", "-nostdlib", "-static", "-no-pie", "-Wl,-N", "-o", out, src)
	})
	out, err := exec.Command("readelf", "-lW", wx).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range regexp.MustCompile(`(?m)^\s*LOAD\s+\S+\s+0x0*([0-9a-f]+)\s+\S+\s+\S+\s+\S+\s+RWE`).FindAllSubmatch(out, -1) {
		want = append(want, "LOAD@0x"+string(m[1]))
	}
	if len(want) == 0 {
		t.Fatalf("readelf -lW shows no RWE segment in the -N link:\n%s", out)
	}
	tr, _ = triageOf(t, wx)
	if v, _ := factValue(t, tr.Anomalies, "wx_segments"); !slices.Equal(v.([]string), want) {
		t.Errorf("-N link: wx_segments %v, readelf -lW RWE %v", v, want)
	}
}

// TestTriageRunpath: RPATH and RUNPATH equal readelf -d's.
func TestTriageRunpath(t *testing.T) {
	for tag, flags := range map[string][]string{
		"runpath": {"-Wl,-rpath,/opt/rea/lib:$ORIGIN/../lib", "-Wl,--enable-new-dtags"},
		"rpath":   {"-Wl,-rpath,/opt/rea/old", "-Wl,--disable-new-dtags"},
	} {
		p := cFixture(t, "triage-"+tag, "gcc", flags...)
		out, err := exec.Command("readelf", "-dW", p).Output()
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`\((RPATH|RUNPATH)\)\s+Library (?:rpath|runpath): \[([^\]]*)\]`).FindSubmatch(out)
		if m == nil || strings.ToLower(string(m[1])) != tag {
			t.Fatalf("readelf -d shows no %s:\n%s", tag, out)
		}
		tr, _ := triageOf(t, p)
		if v, _ := factValue(t, tr.Hardening, tag); !slices.Equal(v.([]string), []string{string(m[2])}) {
			t.Errorf("%s %v, readelf -d %q", tag, v, m[2])
		}
		other := map[string]string{"rpath": "runpath", "runpath": "rpath"}[tag]
		if v, has := tr.Hardening[other]; has {
			t.Errorf("%s fixture reports %s %v", tag, other, v)
		}
	}
}

// TestTriageClang: a clang-built fixture names clang and its version (as
// clang -dumpversion prints it) from .comment.
func TestTriageClang(t *testing.T) {
	clang := needTool(t, "clang")
	p := cFixture(t, "triage-clang", "clang", "-O2")
	tr, _ := triageOf(t, p)
	out, err := exec.Command(clang, "-dumpversion").Output()
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := tr.Toolchain["compilers"].([]provider.Compiler)
	if !slices.ContainsFunc(cs, func(c provider.Compiler) bool {
		return c.Name == "clang" && c.Version == strings.TrimSpace(string(out))
	}) {
		t.Errorf("compilers %+v, clang -dumpversion %s", cs, out)
	}
}

// TestTriagePEOverlaySignatureCLR: bytes appended to a mingw PE are an
// overlay; an Authenticode signature (osslsigncode, a self-signed
// certificate made here) is reported present and unverified, with the
// limitation saying so, and is not an overlay; a CLR header (the
// COM_DESCRIPTOR directory entry, hand-set: no .NET compiler is installed)
// reports a managed assembly and the limitation that managed code is not
// analyzed. readpe -d is the oracle for the directories.
func TestTriagePEOverlaySignatureCLR(t *testing.T) {
	base := peFixture(t, "triage-pe-off.exe", "x86_64-w64-mingw32-gcc", "-Wl,--disable-dynamicbase,--disable-nxcompat,--disable-high-entropy-va")
	b, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := triageOf(t, base)
	if v, has := tr.Anomalies["overlay"]; has {
		t.Errorf("plain PE: overlay %v", v)
	}
	ov := writeFixture(t, "overlay.exe", append(slices.Clip(b), make([]byte, 1000)...))
	tr, _ = triageOf(t, ov)
	if v, _ := factValue(t, tr.Anomalies, "overlay"); v == nil || v.(map[string]any)["offset"] != uint64(len(b)) || v.(map[string]any)["size"] != uint64(1000) {
		t.Errorf("PE overlay %v, want 1000 bytes at %d", v, len(b))
	}

	osslsigncode, openssl := needTool(t, "osslsigncode"), needTool(t, "openssl")
	dir := t.TempDir()
	key, cert, signed := filepath.Join(dir, "k.pem"), filepath.Join(dir, "c.pem"), filepath.Join(dir, "signed.exe")
	if err := run(dir, nil, openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
		"-days", "2", "-subj", "/CN=REA triage test"); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, nil, osslsigncode, "sign", "-certs", cert, "-key", key, "-in", base, "-out", signed); err != nil {
		t.Fatal(err)
	}
	rd, err := exec.Command(needTool(t, "readpe"), "-d", signed).Output()
	if err != nil || !strings.Contains(string(rd), "IMAGE_DIRECTORY_ENTRY_SECURITY:") {
		t.Fatalf("readpe -d shows no certificate table: %v\n%s", err, rd)
	}
	tr, lims := triageOf(t, signed)
	sig, _ := factValue(t, tr.Hardening, "signature")
	if m, _ := sig.(map[string]any); m["present"] != true || m["verified"] != false {
		t.Errorf("signed PE: signature %v", sig)
	}
	if !slices.ContainsFunc(lims, func(l string) bool {
		return strings.Contains(l, "Authenticode") && strings.Contains(l, "validity is not checked")
	}) {
		t.Errorf("signed PE: limitations %q", lims)
	}
	if v, has := tr.Anomalies["overlay"]; has {
		t.Errorf("signed PE: the certificate table reported as overlay %v", v)
	}
	if sig, _ := factValue(t, triageOfT(t, base).Hardening, "signature"); sig.(map[string]any)["present"] != false {
		t.Errorf("unsigned PE: signature %v", sig)
	}

	// COM_DESCRIPTOR is data directory 14: point it at the first 72 bytes
	// of .rdata (an IMAGE_COR20_HEADER's size).
	clr := slices.Clone(b)
	lfanew := binary.LittleEndian.Uint32(clr[0x3c:])
	dirs := lfanew + 24 + 112 // PE32+ data directories
	f, err := os.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rdata := uint32(0)
	nsec := binary.LittleEndian.Uint16(clr[lfanew+6:])
	secs := lfanew + 24 + uint32(binary.LittleEndian.Uint16(clr[lfanew+20:]))
	for i := uint32(0); i < uint32(nsec); i++ {
		if strings.TrimRight(string(clr[secs+i*40:secs+i*40+8]), "\x00") == ".rdata" {
			rdata = binary.LittleEndian.Uint32(clr[secs+i*40+12:])
		}
	}
	binary.LittleEndian.PutUint32(clr[dirs+14*8:], rdata)
	binary.LittleEndian.PutUint32(clr[dirs+14*8+4:], 72)
	cp := writeFixture(t, "clr.exe", clr)
	rd, _ = exec.Command("readpe", "-d", cp).Output()
	if !strings.Contains(string(rd), "IMAGE_DIRECTORY_ENTRY_COM_DESCRIPTOR:") {
		t.Fatalf("readpe -d shows no CLR header:\n%s", rd)
	}
	tr, lims = triageOf(t, cp)
	if v, _ := factValue(t, tr.Toolchain, "language"); v != ".net" {
		t.Errorf("CLR header: language %v", v)
	}
	if !slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, "managed code is not analyzed") }) {
		t.Errorf("CLR header: limitations %q", lims)
	}
}

func triageOfT(t *testing.T, p string) provider.Triage { tr, _ := triageOf(t, p); return tr }

// TestCodeDirectoryFlags: a hand-made embedded signature superblob whose
// CodeDirectory sets CS_RUNTIME and CS_REQUIRE_LV (as `codesign -o
// runtime` does; no codesign runs here) reads as hardened runtime with
// library validation; a Go-linker ad hoc signature has neither.
func TestCodeDirectoryFlags(t *testing.T) {
	be := binary.BigEndian
	blob := func(flags uint32) []byte {
		p := make([]byte, 20+44)
		be.PutUint32(p, csMagicEmbedded)
		be.PutUint32(p[4:], uint32(len(p)))
		be.PutUint32(p[8:], 1)
		be.PutUint32(p[12:], 0) // CSSLOT_CODEDIRECTORY
		be.PutUint32(p[16:], 20)
		be.PutUint32(p[20:], csMagicDirectory)
		be.PutUint32(p[24:], 44)
		be.PutUint32(p[28:], 0x20400)
		be.PutUint32(p[32:], flags)
		return p
	}
	if fl, ok := parseCodeDirectoryFlags(blob(csRuntime | csRequireLV)); !ok || fl&csRuntime == 0 || fl&csRequireLV == 0 {
		t.Errorf("hardened: %#x %v", fl, ok)
	}
	if fl, ok := parseCodeDirectoryFlags(blob(csAdhoc | csLinkerSigned)); !ok || fl&(csRuntime|csRequireLV) != 0 {
		t.Errorf("ad hoc: %#x %v", fl, ok)
	}
	if _, ok := parseCodeDirectoryFlags(blob(0)[:16]); ok {
		t.Error("a truncated superblob parsed")
	}
}

// TestTriageMachOSectionsAndEncryption: an arm64 Mach-O linked here by
// ld64.lld from Objective-C with a __RESTRICT segment and a __swift5_typeref
// section (-sectcreate: hand-made, no Swift compiler is installed) reports
// Objective-C, Swift and __RESTRICT as llvm-objdump lists them; the same
// file with its LC_UUID rewritten into an LC_ENCRYPTION_INFO_64 (cryptid 1,
// hand-made) reports the cryptid llvm-objdump shows. A Go-built Mach-O has
// none of these.
func TestTriageMachOSectionsAndEncryption(t *testing.T) {
	clang := needTool(t, "clang")
	needTool(t, "ld.lld") // the lld package; clang runs its Mach-O linker
	objdump := needTool(t, "llvm-objdump")
	src := "__attribute__((objc_root_class)) @interface Rea { } + (int)v; @end\n" +
		"@implementation Rea + (int)v { return 3; } @end\nint main(void) { return [Rea v]; }\n"
	p := keyedFixture(t, "triage-macho-objc", []string{clang, src}, func(dir, out string) (string, error) {
		if err := os.WriteFile(filepath.Join(dir, "o.m"), []byte(src), 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "sw"), []byte("x"), 0o644); err != nil {
			return "", err
		}
		return "", run(dir, nil, clang, "-target", "arm64-apple-macos11", "-fuse-ld=lld", "-nostdlib", "-Wl,-e,_main",
			"-Wl,-undefined,dynamic_lookup", "-Wl,-sectcreate,__RESTRICT,__restrict,/dev/null",
			"-Wl,-sectcreate,__TEXT,__swift5_typeref,sw", "-Wl,-platform_version,macos,11.0,11.0", "-o", out, "o.m")
	})
	out, err := exec.Command(objdump, "--macho", "--private-headers", p).Output()
	if err != nil {
		t.Fatal(err)
	}
	o := string(out)
	tr, _ := triageOf(t, p)
	for k, want := range map[string]bool{"objective_c": strings.Contains(o, "sectname __objc_"), "swift": strings.Contains(o, "sectname __swift5_")} {
		if v, _ := factValue(t, tr.Toolchain, k); v != want || !want {
			t.Errorf("%s %v, llvm-objdump %v", k, v, want)
		}
	}
	if v, _ := factValue(t, tr.Hardening, "restrict_segment"); v != strings.Contains(o, "segname __RESTRICT") || v != true {
		t.Errorf("restrict_segment %v", v)
	}
	g, _ := triageOf(t, goBuildFixture(t, "triage-go-darwin-arm64", "darwin", "arm64"))
	if v, _ := factValue(t, g.Hardening, "restrict_segment"); v != false || g.Toolchain["swift"] != nil || g.Toolchain["objective_c"] != nil || g.Hardening["encryption"] != nil {
		t.Errorf("Go Mach-O: restrict %v swift %v objc %v encryption %v", v, g.Toolchain["swift"], g.Toolchain["objective_c"], g.Hardening["encryption"])
	}

	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	at := -1
	for off, n := 32, le.Uint32(b[16:]); n > 0; n-- {
		if le.Uint32(b[off:]) == lcUUID {
			at = off
			break
		}
		off += int(le.Uint32(b[off+4:]))
	}
	if at < 0 {
		t.Fatal("no LC_UUID")
	}
	le.PutUint32(b[at:], lcEncryptionInfo64)
	le.PutUint32(b[at+4:], 24)
	le.PutUint32(b[at+8:], 0x4000) // cryptoff
	le.PutUint32(b[at+12:], 0x100) // cryptsize
	le.PutUint32(b[at+16:], 1)     // cryptid
	le.PutUint32(b[at+20:], 0)
	enc := writeFixture(t, "encrypted.macho", b)
	out, err = exec.Command(objdump, "--macho", "--private-headers", enc).Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`cmd LC_ENCRYPTION_INFO_64\s+cmdsize 24\s+cryptoff (\d+)\s+cryptsize (\d+)\s+cryptid (\d+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("llvm-objdump shows no LC_ENCRYPTION_INFO_64:\n%s", out)
	}
	tr, _ = triageOf(t, enc)
	v, _ := factValue(t, tr.Hardening, "encryption")
	e, _ := v.(map[string]any)
	if fmt.Sprint(e["cryptid"]) != m[3] || fmt.Sprint(e["cryptoff"]) != m[1] || fmt.Sprint(e["cryptsize"]) != m[2] {
		t.Errorf("encryption %v, llvm-objdump %q", v, m[0])
	}
	if _, has := tr.Identity["build_id"]; has {
		t.Errorf("build_id %v without LC_UUID", tr.Identity["build_id"])
	}
}

// TestTriageCore: a core dump (gcore of a sleep this test starts) is file
// type core, as `file` says; hardening and stripped, which describe
// executables, are a limitation rather than values.
func TestTriageCore(t *testing.T) {
	gcore := needTool(t, "gcore")
	sleep := exec.Command(needTool(t, "sleep"), "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleep.Process.Kill(); sleep.Wait() }()
	dir := t.TempDir()
	prefix := filepath.Join(dir, "core")
	if err := run(dir, nil, gcore, "-o", prefix, fmt.Sprint(sleep.Process.Pid)); err != nil {
		t.Fatal(err)
	}
	core := fmt.Sprintf("%s.%d", prefix, sleep.Process.Pid)
	out, err := exec.Command(needTool(t, "file"), "-b", core).Output()
	if err != nil || !strings.Contains(string(out), "core file") {
		t.Fatalf("file: %s %v", out, err)
	}
	tr, lims := triageOf(t, core)
	if v, _ := factValue(t, tr.Identity, "file_type"); v != "core" {
		t.Errorf("file_type %v", v)
	}
	if len(tr.Hardening) != 0 || tr.Identity["stripped"] != nil || tr.Identity["image_base"] != nil {
		t.Errorf("core: hardening %v stripped %v image_base %v", tr.Hardening, tr.Identity["stripped"], tr.Identity["image_base"])
	}
	if !slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, "a core file") }) {
		t.Errorf("core: limitations %q", lims)
	}
	if _, ok := factValue(t, tr.Anomalies, "wx_segments"); !ok {
		t.Error("core: no wx_segments")
	}
}

// TestTriagePEGuardCF: mingw's linker cannot set GUARD_CF or
// FORCE_INTEGRITY, so a copy of a mingw PE has both bits hand-set in its
// DllCharacteristics; triage reports both, as readpe names them.
func TestTriagePEGuardCF(t *testing.T) {
	base := peFixture(t, "triage-pe-on.exe", "x86_64-w64-mingw32-gcc", "-Wl,--dynamicbase,--nxcompat,--high-entropy-va", "-Wl,--pdb=triage.pdb")
	b, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	at := binary.LittleEndian.Uint32(b[0x3c:]) + 24 + 70 // OptionalHeader.DllCharacteristics
	binary.LittleEndian.PutUint16(b[at:], binary.LittleEndian.Uint16(b[at:])|peGuardCF|peForceIntegrity)
	p := writeFixture(t, "guard-cf.exe", b)
	out, err := exec.Command(needTool(t, "readpe"), "-h", "optional", p).Output()
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := triageOf(t, p)
	// readpe 0.81 has no name for GUARD_CF: it lists the bit as UNKNOWN[0x4000].
	for k, name := range map[string]string{"cfg": `IMAGE_DLLCHARACTERISTICS_GUARD_CF|UNKNOWN\[0x4000\]`, "force_integrity": "IMAGE_DLLCHARACTERISTICS_FORCE_INTEGRITY",
		"aslr": "IMAGE_DLLCHARACTERISTICS_DYNAMIC_BASE", "nx": "IMAGE_DLLCHARACTERISTICS_NX_COMPAT"} {
		listed := regexp.MustCompile(`(?m)^\s+(?:` + name + `)$`).Match(out)
		if v, _ := factValue(t, tr.Hardening, k); v != listed || v != true {
			t.Errorf("%s %v; readpe lists %s: %v", k, v, name, listed)
		}
	}
}

// TestTriageSafeSEH: an i686 mingw PE whose C source defines
// _load_config_used with an SEHandlerTable (count 1, and 0 for the
// negative); GNU ld does not point the LOAD_CONFIG directory at it, so the
// test does (hand-set directory entry). safeseh equals what llvm-readobj
// --coff-load-config shows: a table with handlers.
func TestTriageSafeSEH(t *testing.T) {
	cc := needTool(t, "i686-w64-mingw32-gcc")
	readobj := needTool(t, "llvm-readobj")
	for _, count := range []int{1, 0} {
		src := fmt.Sprintf(`#include <windows.h>
#include <stdio.h>
static DWORD handlers[1] = {0x1000};
const IMAGE_LOAD_CONFIG_DIRECTORY32 _load_config_used = {
	.Size = 0x48, .SEHandlerTable = (DWORD)handlers, .SEHandlerCount = %d,
};
int main(void) { printf("%%p\n", (void *)&_load_config_used); return 0; }
`, count)
		p := keyedFixture(t, fmt.Sprintf("triage-safeseh-%d.exe", count), []string{cc, src}, func(dir, out string) (string, error) {
			if err := os.WriteFile(filepath.Join(dir, "lc.c"), []byte(src), 0o644); err != nil {
				return "", err
			}
			return "", run(dir, nil, cc, "-O2", "-o", out, "lc.c")
		})
		f, err := pe.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		var va uint32
		for _, s := range f.Symbols {
			if s.Name == "__load_config_used" || s.Name == "_load_config_used" {
				va = s.Value + f.Sections[s.SectionNumber-1].VirtualAddress
			}
		}
		f.Close()
		if va == 0 {
			t.Fatal("no _load_config_used symbol")
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dirs := binary.LittleEndian.Uint32(b[0x3c:]) + 24 + 96 // PE32 data directories
		binary.LittleEndian.PutUint32(b[dirs+10*8:], va)
		binary.LittleEndian.PutUint32(b[dirs+10*8+4:], 0x48)
		p = writeFixture(t, "safeseh.exe", b)
		out, err := exec.Command(readobj, "--coff-load-config", p).Output()
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`SEHandlerTable: 0x([0-9A-Fa-f]+)\s+SEHandlerCount: (\d+)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("llvm-readobj shows no load config:\n%s", out)
		}
		want := string(m[1]) != "0" && string(m[2]) != "0"
		tr, _ := triageOf(t, p)
		if v, _ := factValue(t, tr.Hardening, "safeseh"); v != want || want != (count > 0) {
			t.Errorf("count %d: safeseh %v, llvm-readobj %s", count, v, m[0])
		}
	}
}

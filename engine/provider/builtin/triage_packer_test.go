package builtin

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// Debian's upx-ucl is not installable on the project's machines, so the
// packed fixtures here are hand-made: bytes laid out as UPX lays out its
// output (its l_info/PackHeader marks, its stub's strings, section names
// and a compressed-looking payload), not files UPX wrote.

// pseudoRandom is n deterministic bytes of a xorshift stream (entropy ~8).
func pseudoRandom(n int, seed uint32) []byte {
	out := make([]byte, n)
	x := seed | 1
	for i := range out {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		out[i] = byte(x >> 11)
	}
	return out
}

const upxStubStrings = "$Info: This file is packed with the UPX executable packer http://upx.sf.net $\n\x00" +
	"$Id: UPX 4.02 Copyright (C) 1996-2023 the UPX Team. All Rights Reserved. $\n\x00"

// upxShapedELF lays out an x86-64 ELF as `upx` packs one: no section
// headers; one RWX PT_LOAD covering the file (UPX's stub maps itself and
// decompresses in place), a zero-fill PT_LOAD, PT_GNU_STACK; l_info ("UPX!")
// right after the program headers, p_info and b_info, the compressed
// payload, the stub with its strings, and the closing PackHeader ("UPX!",
// 28 bytes of header, a 4-byte offset).
func upxShapedELF(payload []byte) []byte {
	le := binary.LittleEndian
	const base = 0x400000
	var b bytes.Buffer
	b.Write(make([]byte, 64+3*56))
	// l_info: checksum, magic, l_lsize, l_version, l_format (22: linux/elf64-amd64).
	b.Write([]byte{0, 0, 0, 0})
	b.WriteString("UPX!")
	b.Write([]byte{0x30, 0x0e, 13, 22})
	// p_info: progid, filesize, blocksize; b_info: sz_unc, sz_cpr, method, ftid, cto8, unused.
	for _, v := range []uint32{0, uint32(len(payload) * 2), uint32(len(payload) * 2), uint32(len(payload) * 2), uint32(len(payload))} {
		b.Write(le.AppendUint32(nil, v))
	}
	b.Write([]byte{14, 0, 0, 0})
	b.Write(payload)
	entry := b.Len()
	b.Write([]byte{0x50, 0x52, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x55, 0x53, 0x51, 0x52, 0x48, 0x01, 0xfe, 0x56, 0xc3})
	b.WriteString(upxStubStrings)
	b.WriteString("UPX!")
	b.Write([]byte{14, 22, 14, 9})
	b.Write(pseudoRandom(24, 7)) // adlers, lengths, filter fields
	b.Write(le.AppendUint32(nil, uint32(64+3*56)))
	d := b.Bytes()
	copy(d, "\x7fELF\x02\x01\x01")
	le.PutUint16(d[16:], 2)  // ET_EXEC
	le.PutUint16(d[18:], 62) // EM_X86_64
	le.PutUint32(d[20:], 1)
	le.PutUint64(d[24:], base+uint64(entry))
	le.PutUint64(d[32:], 64) // e_phoff
	le.PutUint16(d[52:], 64) // e_ehsize
	le.PutUint16(d[54:], 56) // e_phentsize
	le.PutUint16(d[56:], 3)  // e_phnum
	le.PutUint16(d[58:], 64) // e_shentsize (UPX keeps it; e_shnum is 0)
	ph := func(i int, typ, flags uint32, off, vaddr, filesz, memsz, align uint64) {
		p := d[64+i*56:]
		le.PutUint32(p, typ)
		le.PutUint32(p[4:], flags)
		le.PutUint64(p[8:], off)
		le.PutUint64(p[16:], vaddr)
		le.PutUint64(p[24:], vaddr)
		le.PutUint64(p[32:], filesz)
		le.PutUint64(p[40:], memsz)
		le.PutUint64(p[48:], align)
	}
	ph(0, 1, 7, 0, base, uint64(len(d)), uint64(len(d)), 0x1000) // PT_LOAD RWX
	ph(1, 1, 6, 0, base+0x200000, 0, 0x40000, 0x1000)            // PT_LOAD RW, zero-fill
	ph(2, 0x6474e551, 6, 0, 0, 0, 0, 16)                         // PT_GNU_STACK RW
	return d
}

func writeFixture(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func packerOf(t *testing.T, tr provider.Triage) (provider.Packer, bool) {
	t.Helper()
	f, ok := tr.Anomalies["packer"].(provider.Fact)
	if !ok {
		return provider.Packer{}, false
	}
	if f.Source != "heuristic:packer-signature" {
		t.Errorf("packer source %q is not marked as a heuristic", f.Source)
	}
	p, _ := f.Value.(provider.Packer)
	return p, true
}

// TestTriageUPXShapedELF: a hand-made UPX-shaped ELF (see upxShapedELF) is
// flagged as packed by UPX 4.02 from its marks, its only loaded segment is
// flagged as high entropy (it has no sections to measure), and its RWX
// segment is reported.
func TestTriageUPXShapedELF(t *testing.T) {
	p := writeFixture(t, "upx-shaped", upxShapedELF(pseudoRandom(96<<10, 0x9e3779b9)))
	tr, lims := triageOf(t, p)
	pk, ok := packerOf(t, tr)
	if !ok || pk.Name != "upx" || pk.Version != "4.02" {
		t.Fatalf("packer %+v (present %v), limitations %q", pk, ok, lims)
	}
	for _, sig := range []string{"magic:UPX!@head", "magic:UPX!@tail", "string:$Id: UPX"} {
		if !slices.Contains(pk.Signatures, sig) {
			t.Errorf("signatures %q lack %s", pk.Signatures, sig)
		}
	}
	hi, _ := factValue(t, tr.Anomalies, "high_entropy_sections")
	if !slices.Equal(hi.([]string), []string{"LOAD@0x400000"}) {
		t.Errorf("high entropy %v, entropy %+v", hi, tr.Anomalies["entropy"])
	}
	es, _ := tr.Anomalies["entropy"].([]provider.SectionEntropy)
	if len(es) != 1 || es[0].Source != "heuristic:shannon-entropy(segment)" || es[0].Entropy < 7.2 {
		t.Errorf("entropy %+v", es)
	}
	if wx, _ := factValue(t, tr.Anomalies, "wx_segments"); !slices.Equal(wx.([]string), []string{"LOAD@0x400000"}) {
		t.Errorf("wx_segments %v", wx)
	}
	if _, has := tr.Identity["stripped"]; has {
		t.Errorf("stripped %v without section headers (it is a limitation)", tr.Identity["stripped"])
	}

	// The marks one at a time: the head magic alone names UPX; the stub's
	// strings alone (any program may contain that text) do not.
	only := func(keep string) []byte {
		d := upxShapedELF(pseudoRandom(8<<10, 3))
		for _, m := range []string{"UPX!", "$Id: UPX ", "$Info: This file"} {
			if m == keep {
				continue
			}
			for i := bytes.Index(d, []byte(m)); i >= 0; i = bytes.Index(d, []byte(m)) {
				copy(d[i:], strings.Repeat("x", len(m)))
			}
		}
		return d
	}
	if tr, _ := triageOf(t, writeFixture(t, "upx-magic-only", only("UPX!"))); true {
		if pk, ok := packerOf(t, tr); !ok || pk.Name != "upx" || pk.Version != "" {
			t.Errorf("UPX! marks only: packer %+v %v", pk, ok)
		}
	}
	if tr, _ := triageOf(t, writeFixture(t, "upx-strings-only", only("$Id: UPX "))); true {
		if pk, ok := packerOf(t, tr); ok {
			t.Errorf("the stub's strings alone: packer %+v", pk)
		}
	}
}

// peWithSection builds a mingw PE whose C source puts n pseudo-random
// bytes in a section of the given name (as a packer's payload section).
func peWithSection(t *testing.T, name, section string, n int) string {
	cc := needTool(t, "x86_64-w64-mingw32-gcc")
	var src strings.Builder
	fmt.Fprintf(&src, "#include <stdio.h>\n__attribute__((section(%q), used)) const unsigned char payload[%d] = {", section, n)
	for i, c := range pseudoRandom(n, 0x51ed270b) {
		if i > 0 {
			src.WriteByte(',')
		}
		fmt.Fprint(&src, c)
	}
	src.WriteString("};\nint main(void) { printf(\"%d\\n\", payload[3]); return 0; }\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.c"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	if err := run(dir, nil, cc, "-O2", "-o", out, "p.c"); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTriagePackerPE: mingw PEs with a packer's payload section: UPX1 (and
// UPX's "4.02\0UPX!" PackHeader mark written into the header slack, as UPX
// does) is UPX 4.02; ASPack's, MPRESS's and VMProtect's section names name
// theirs; the payload section is flagged as high entropy; a plain PE has
// no packer.
func TestTriagePackerPE(t *testing.T) {
	p := peWithSection(t, "upx.exe", "UPX1", 64<<10)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lfanew := binary.LittleEndian.Uint32(b[0x3c:])
	nsec := binary.LittleEndian.Uint16(b[lfanew+6:])
	optSize := binary.LittleEndian.Uint16(b[lfanew+20:])
	tableEnd := int(lfanew) + 24 + int(optSize) + int(nsec)*40
	hdrs := int(binary.LittleEndian.Uint32(b[lfanew+24+60:])) // SizeOfHeaders
	mark := "4.02\x00UPX!\x0d\x09\x08\x07"
	at := hdrs - 64
	if at < tableEnd || !bytes.Equal(b[at:at+len(mark)], make([]byte, len(mark))) {
		t.Fatalf("no slack for the PackHeader mark: section table ends at %#x, headers at %#x", tableEnd, hdrs)
	}
	copy(b[at:], mark)
	p = writeFixture(t, "upx-shaped.exe", b)
	tr, _ := triageOf(t, p)
	pk, ok := packerOf(t, tr)
	if !ok || pk.Name != "upx" || pk.Version != "4.02" || !slices.Contains(pk.Signatures, "section:UPX1") || !slices.Contains(pk.Signatures, "magic:UPX!@head") {
		t.Errorf("UPX-shaped PE: packer %+v %v", pk, ok)
	}
	if hi, _ := factValue(t, tr.Anomalies, "high_entropy_sections"); !slices.Equal(hi.([]string), []string{"UPX1"}) {
		t.Errorf("UPX-shaped PE: high entropy %v", hi)
	}
	for section, want := range map[string]string{".aspack": "aspack", "MPRESS1": "mpress", ".vmp0": "vmprotect"} {
		tr, _ := triageOf(t, peWithSection(t, "p.exe", section, 4<<10))
		if pk, ok := packerOf(t, tr); !ok || pk.Name != want || pk.Signatures[0] != "section:"+section {
			t.Errorf("%s: packer %+v %v", section, pk, ok)
		}
	}
	tr, _ = triageOf(t, peFixture(t, "triage-pe-off.exe", "x86_64-w64-mingw32-gcc", "-Wl,--disable-dynamicbase,--disable-nxcompat,--disable-high-entropy-va"))
	if pk, ok := packerOf(t, tr); ok {
		t.Errorf("plain PE: packer %+v", pk)
	}
}

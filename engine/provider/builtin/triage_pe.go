package builtin

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/rea-re/rea/engine/provider"
)

// PE DllCharacteristics bits (debug/pe names some; all spelled here).
const (
	peHighEntropyVA  = 0x0020
	peDynamicBase    = 0x0040
	peForceIntegrity = 0x0080
	peNXCompat       = 0x0100
	peNoSEH          = 0x0400
	peGuardCF        = 0x4000
	peDebugCodeView  = 2
	maxDebugEntries  = 64
)

func (b *triageBuilder) pe() {
	id, hd := b.t.Identity, b.t.Hardening
	id["bitness"] = fact(map[bool]int{true: 64, false: 32}[b.img.is64], "header:OptionalHeader.Magic")
	id["endianness"] = fact("little", "header:Machine")
	id["image_base"] = fact("0x"+hexU(b.img.pe.imageBase), "header:OptionalHeader.ImageBase")
	f, err := pe.NewFile(bytes.NewReader(b.data))
	if err != nil {
		b.limit("triage: PE headers unreadable: %v", err)
		return
	}
	var dc uint16
	var dirs []pe.DataDirectory
	var major, minor uint8
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		dc, dirs, major, minor = oh.DllCharacteristics, oh.DataDirectory[:min(oh.NumberOfRvaAndSizes, 16)], oh.MajorLinkerVersion, oh.MinorLinkerVersion
	case *pe.OptionalHeader32:
		dc, dirs, major, minor = oh.DllCharacteristics, oh.DataDirectory[:min(oh.NumberOfRvaAndSizes, 16)], oh.MajorLinkerVersion, oh.MinorLinkerVersion
	default:
		b.limit("triage: PE without an optional header")
		return
	}
	if f.Characteristics&pe.IMAGE_FILE_DLL != 0 {
		id["file_type"] = fact("shared_library", "header:Characteristics.DLL")
	} else if f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE != 0 {
		id["file_type"] = fact("executable", "header:Characteristics.EXECUTABLE_IMAGE")
	}
	b.richHeader()
	b.t.Toolchain["linker_version"] = fact(fmt.Sprintf("%d.%d", major, minor), "header:OptionalHeader.LinkerVersion")
	const src = "header:OptionalHeader.DllCharacteristics"
	hd["aslr"] = fact(dc&peDynamicBase != 0, src+".DYNAMIC_BASE")
	hd["high_entropy_va"] = fact(dc&peHighEntropyVA != 0, src+".HIGH_ENTROPY_VA")
	hd["nx"] = fact(dc&peNXCompat != 0, src+".NX_COMPAT")
	hd["cfg"] = fact(dc&peGuardCF != 0, src+".GUARD_CF")
	hd["force_integrity"] = fact(dc&peForceIntegrity != 0, src+".FORCE_INTEGRITY")
	hd["seh"] = fact(dc&peNoSEH == 0, src+".NO_SEH")
	if b.img.arch == "x86" {
		// SafeSEH is the load config's SEHandlerTable (size > 0x48).
		if len(dirs) > pe.IMAGE_DIRECTORY_ENTRY_LOAD_CONFIG && dirs[pe.IMAGE_DIRECTORY_ENTRY_LOAD_CONFIG].Size != 0 {
			lc := dirs[pe.IMAGE_DIRECTORY_ENTRY_LOAD_CONFIG]
			switch p := b.rva(lc.VirtualAddress, 0x48); {
			case lc.Size < 0x48:
				hd["safeseh"] = fact(false, "directory:LOAD_CONFIG(no SEHandlerTable field)")
			case p == nil:
				b.limit("triage hardening: the load configuration directory lies outside the file's sections")
			default:
				hd["safeseh"] = fact(binary.LittleEndian.Uint32(p[0x40:]) != 0 && binary.LittleEndian.Uint32(p[0x44:]) != 0, "directory:LOAD_CONFIG.SEHandlerTable")
			}
		} else {
			hd["safeseh"] = fact(false, "directory:LOAD_CONFIG(absent)")
		}
	}
	if len(dirs) > pe.IMAGE_DIRECTORY_ENTRY_SECURITY {
		d := dirs[pe.IMAGE_DIRECTORY_ENTRY_SECURITY]
		hd["signature"] = fact(map[string]any{"present": d.Size != 0, "verified": false}, "directory:SECURITY")
		if d.Size != 0 {
			b.limit("triage hardening: the Authenticode signature's validity is not checked (only its presence)")
		}
	}
	if len(dirs) > pe.IMAGE_DIRECTORY_ENTRY_COM_DESCRIPTOR && dirs[pe.IMAGE_DIRECTORY_ENTRY_COM_DESCRIPTOR].Size != 0 {
		b.t.Toolchain["language"] = fact(".net", "directory:COM_DESCRIPTOR")
		b.limit("triage: a managed (.NET) assembly: its managed code is not analyzed")
	}
	if len(dirs) > pe.IMAGE_DIRECTORY_ENTRY_DEBUG && dirs[pe.IMAGE_DIRECTORY_ENTRY_DEBUG].Size != 0 {
		b.peDebug(dirs[pe.IMAGE_DIRECTORY_ENTRY_DEBUG])
	}
	var dwarf, beyond []string
	var last uint64
	for _, s := range f.Sections {
		last = max(last, uint64(s.Offset)+uint64(s.Size))
		if s.Size != 0 && uint64(s.Offset)+uint64(s.Size) > uint64(len(b.data)) {
			beyond = append(beyond, s.Name)
		}
		if len(s.Name) > 7 && s.Name[:7] == ".debug_" {
			dwarf = append(dwarf, s.Name)
		}
	}
	if st := uint64(f.PointerToSymbolTable); st != 0 && f.NumberOfSymbols != 0 {
		// The COFF symbol table (mingw links keep one) and the string table
		// after it, whose first word is its size, are the file's, not an
		// overlay.
		end := st + uint64(f.NumberOfSymbols)*18
		if end+4 <= uint64(len(b.data)) {
			end += uint64(binary.LittleEndian.Uint32(b.data[end:]))
		}
		last = max(last, end)
	}
	if len(dirs) > pe.IMAGE_DIRECTORY_ENTRY_SECURITY && dirs[pe.IMAGE_DIRECTORY_ENTRY_SECURITY].Size != 0 {
		d := dirs[pe.IMAGE_DIRECTORY_ENTRY_SECURITY] // a file offset: the certificates follow the sections
		last = max(last, uint64(d.VirtualAddress)+uint64(d.Size))
	}
	b.overlay(last, "header:section_table")
	b.sectionsBeyondFile(beyond)
	id["stripped"] = fact(f.NumberOfSymbols == 0, "header:NumberOfSymbols")
	if dwarf == nil {
		dwarf = []string{}
	}
	if _, pdb := id["build_id"]; pdb || len(dwarf) > 0 {
		id["debug_info"] = fact(map[string]any{"present": true, "sections": dwarf}, "section:.debug_*|directory:DEBUG")
	} else {
		id["debug_info"] = fact(map[string]any{"present": false, "sections": dwarf}, "section:.debug_*|directory:DEBUG")
	}
	wx := []string{}
	for _, s := range b.img.sections {
		if s.w && s.x {
			wx = append(wx, s.name)
		}
	}
	b.t.Anomalies["wx_sections"] = fact(wx, "header:section_table.Characteristics")
}

// rva returns n file bytes at a relative virtual address, or nil.
func (b *triageBuilder) rva(r uint32, n uint32) []byte {
	p := b.img.pe
	for i := range p.secVA {
		if r >= p.secVA[i] && r-p.secVA[i] < p.secRawSize[i] {
			off := uint64(p.secRaw[i]) + uint64(r-p.secVA[i])
			if off+uint64(n) <= uint64(len(b.data)) {
				return b.data[off : off+uint64(n)]
			}
		}
	}
	return nil
}

// parseCodeView reads an RSDS record ("RSDS", 16-byte GUID, age, NUL-ended path).
func parseCodeView(p []byte) (provider.CodeView, bool) {
	if len(p) < 24 || string(p[:4]) != "RSDS" {
		return provider.CodeView{}, false
	}
	path := p[24:]
	if i := bytes.IndexByte(path, 0); i >= 0 {
		path = path[:i]
	}
	le := binary.LittleEndian
	guid := fmt.Sprintf("%08x%04x%04x", le.Uint32(p[4:]), le.Uint16(p[8:]), le.Uint16(p[10:])) + hex.EncodeToString(p[12:20])
	return provider.CodeView{GUID: guid, Age: binary.LittleEndian.Uint32(p[20:]), PDB: string(path)}, true
}

func (b *triageBuilder) peDebug(d pe.DataDirectory) {
	n := min(d.Size/28, maxDebugEntries)
	dir := b.rva(d.VirtualAddress, n*28)
	if dir == nil {
		b.limit("triage identity: the debug directory lies outside the file's sections")
		return
	}
	for i := uint32(0); i < n; i++ {
		e := dir[i*28:]
		typ, size, off := binary.LittleEndian.Uint32(e[12:]), binary.LittleEndian.Uint32(e[16:]), binary.LittleEndian.Uint32(e[24:])
		if typ != peDebugCodeView || uint64(off)+uint64(size) > uint64(len(b.data)) {
			continue
		}
		if cv, ok := parseCodeView(b.data[off : off+size]); ok {
			b.t.Identity["build_id"] = fact(cv, "directory:DEBUG.CodeView")
			return
		}
	}
}

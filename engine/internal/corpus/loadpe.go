package corpus

import (
	"debug/pe"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strings"
)

// isPE reports whether the file at path starts with a DOS header.
func isPE(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var mz [2]byte
	_, err = f.Read(mz[:])
	return err == nil && mz == [2]byte{'M', 'Z'}
}

// loadPE reads a mingw build: sections at the image base, COFF symbols
// (i386 C names lose their leading underscore), procedures bounded by the
// next symbol in code (COFF symbols have no size), IAT slots named by the
// __imp_ symbols and the jump thunks through them, and DWARF.
func loadPE(path string) (*Program, error) {
	f, err := pe.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &Program{Platform: "windows", Image: &Image{syms: map[uint64]string{}, imports: map[uint64]string{}, Symbols: map[string]uint64{}}}
	var base uint64
	mode := 64
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		base = oh.ImageBase
	case *pe.OptionalHeader32:
		base = uint64(oh.ImageBase)
	}
	switch f.Machine {
	case pe.IMAGE_FILE_MACHINE_AMD64:
		p.Arch = "x86-64"
	case pe.IMAGE_FILE_MACHINE_I386:
		p.Arch, mode = "i386", 32
	default:
		return nil, fmt.Errorf("corpus: PE machine %#x", f.Machine)
	}
	im := p.Image
	const code = pe.IMAGE_SCN_CNT_CODE | pe.IMAGE_SCN_MEM_EXECUTE
	execSec := map[int]bool{}
	for i, s := range f.Sections {
		if strings.HasPrefix(s.Name, ".debug") || strings.HasPrefix(s.Name, "/") {
			continue // debugging information, not loaded
		}
		sec := section{addr: base + uint64(s.VirtualAddress), size: uint64(s.VirtualSize)}
		if s.Size > 0 {
			d, err := s.Data()
			if err != nil {
				return nil, err
			}
			sec.data = d[:min(len(d), int(s.VirtualSize))]
		}
		im.secs = append(im.secs, sec)
		if s.Characteristics&code != 0 {
			execSec[i] = true
		}
	}
	type fn struct {
		name string
		addr uint64
		sec  int
	}
	var funcs []fn
	bounds := map[int][]uint64{} // every symbol address in each code section
	for _, s := range f.Symbols {
		k := int(s.SectionNumber) - 1
		if s.SectionNumber <= 0 || k >= len(f.Sections) || s.Name == "" || strings.HasPrefix(s.Name, ".") {
			continue
		}
		addr := base + uint64(f.Sections[k].VirtualAddress) + uint64(s.Value)
		name := s.Name
		if imp, ok := strings.CutPrefix(name, "__imp_"); ok {
			if mode == 32 {
				imp = strings.TrimPrefix(imp, "_")
			}
			im.imports[addr] = imp
			continue
		}
		if mode == 32 {
			name = undecorate(name)
		}
		if execSec[k] {
			bounds[k] = append(bounds[k], addr)
		}
		if s.StorageClass != 2 && s.StorageClass != 3 {
			continue
		}
		if _, dup := im.Symbols[name]; !dup {
			im.syms[addr] = name
			im.Symbols[name] = addr
		}
		if s.Type == 0x20 && execSec[k] {
			funcs = append(funcs, fn{name, addr, k})
		}
	}
	for k := range bounds {
		s := f.Sections[k]
		bounds[k] = append(bounds[k], base+uint64(s.VirtualAddress)+uint64(min(s.VirtualSize, s.Size)))
		sort.Slice(bounds[k], func(i, j int) bool { return bounds[k][i] < bounds[k][j] })
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].addr < funcs[j].addr })
	seen := map[uint64]bool{}
	for _, fu := range funcs {
		if seen[fu.addr] {
			continue
		}
		seen[fu.addr] = true
		b := bounds[fu.sec]
		j := sort.Search(len(b), func(j int) bool { return b[j] > fu.addr })
		if j == len(b) {
			continue
		}
		sec := im.secs[secIndex(im.secs, fu.addr)]
		if sec.data == nil || b[j] > sec.addr+uint64(len(sec.data)) {
			continue
		}
		body := sec.data[fu.addr-sec.addr : b[j]-sec.addr]
		p.Procs = append(p.Procs, Proc{Name: fu.name, Addr: fu.addr, Insns: liftRange(p.Arch, body, fu.addr, mode)})
		// an import's jump thunk: jmp [slot] (x86-64 rip-relative, i386
		// absolute)
		if len(body) >= 6 && body[0] == 0xff && body[1] == 0x25 {
			slot := uint64(binary.LittleEndian.Uint32(body[2:]))
			if mode == 64 {
				slot = fu.addr + 6 + uint64(int64(int32(slot)))
			}
			if n, ok := im.imports[slot]; ok {
				im.imports[fu.addr] = n
			}
		}
	}
	d, err := f.DWARF()
	if err != nil {
		return nil, err
	}
	if err := p.readDWARF(d); err != nil {
		return nil, err
	}
	return p, nil
}

// secIndex is the index of the section holding addr (0 when none does;
// callers pass addresses of symbols in sections).
func secIndex(secs []section, addr uint64) int {
	for i, s := range secs {
		if addr >= s.addr && addr < s.addr+s.size {
			return i
		}
	}
	return 0
}

// undecorate is the C name of an i386 COFF symbol: _name (cdecl),
// _name@N (stdcall), @name@N (fastcall).
func undecorate(name string) string {
	switch {
	case strings.HasPrefix(name, "@"):
		name = name[1:]
	case strings.HasPrefix(name, "_"):
		name = name[1:]
	default:
		return name
	}
	if i := strings.LastIndexByte(name, '@'); i > 0 && strings.Trim(name[i+1:], "0123456789") == "" && i+1 < len(name) {
		name = name[:i]
	}
	return name
}

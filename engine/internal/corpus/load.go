package corpus

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/lift/arm64"
	"github.com/rea-re/rea/engine/lift/x86"
)

// Proc is one procedure of a build, bounded by its symbol.
type Proc struct {
	Name  string
	Addr  uint64
	Insns []*lift.Insn
}

// Program is what the tests read of one build.
type Program struct {
	Arch string
	// Platform is "linux" (ELF) or "windows" (PE): with Arch, it picks
	// the calling convention (abi.ForArch).
	Platform string
	Procs    []Proc
	Image    *Image
	// Params is the DWARF oracle: per procedure name, its parameters'
	// classes ("integer", "pointer", "floating", "aggregate") in order.
	Params   map[string][]string
	Sizes    map[string][]int // the parameters' sizes in bytes
	Variadic map[string]bool
	// Returns is the return type's class and size in bytes per procedure
	// name; a void procedure has none.
	Returns map[string]Return
}

// Return is a DWARF return type: its class (as in Params) and size in
// bytes.
type Return struct {
	Class string
	Size  int
}

// Image implements signature.Image over an ELF file: strings in sections
// with contents, FUNC and OBJECT symbols, PLT stubs named name@plt and
// GOT slots named by their relocations, both imports.
type Image struct {
	secs    []section
	syms    map[uint64]string
	imports map[uint64]string
	// Symbols maps every FUNC and OBJECT symbol's name to its address.
	Symbols map[string]uint64
}

// section is a loaded section: data is nil for one without file contents
// (.bss), and shorter than size when the loader zero-fills the rest.
type section struct {
	addr, size uint64
	data       []byte
}

// ReadString implements signature.Image.
func (im *Image) ReadString(addr uint64) (string, bool) {
	for _, s := range im.secs {
		if s.data == nil || addr < s.addr || addr >= s.addr+uint64(len(s.data)) {
			continue
		}
		d := s.data[addr-s.addr:]
		if n := strings.IndexByte(string(d[:min(len(d), 4096)]), 0); n >= 0 {
			return string(d[:n]), true
		}
		return "", false
	}
	return "", false
}

// Symbol implements signature.Image.
func (im *Image) Symbol(addr uint64) (string, bool, bool) {
	if n, ok := im.imports[addr]; ok {
		return n, true, true
	}
	if n, ok := im.syms[addr]; ok {
		return n, false, true
	}
	return "", false, false
}

// Mapped implements signature.Image.
func (im *Image) Mapped(addr uint64) bool {
	for _, s := range im.secs {
		if addr >= s.addr && addr < s.addr+s.size {
			return true
		}
	}
	return false
}

// Load reads the build at path (ELF, or PE for the mingw builds).
func Load(path string) (*Program, error) {
	if isPE(path) {
		return loadPE(path)
	}
	ef, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer ef.Close()
	p := &Program{Platform: "linux", Image: &Image{syms: map[uint64]string{}, imports: map[uint64]string{}, Symbols: map[string]uint64{}}}
	mode := 64
	switch ef.Machine {
	case elf.EM_X86_64:
		p.Arch = "x86-64"
	case elf.EM_386:
		p.Arch, mode = "i386", 32
	case elf.EM_AARCH64:
		p.Arch = "arm64"
	default:
		return nil, fmt.Errorf("corpus: machine %v", ef.Machine)
	}
	im := p.Image
	data := map[*elf.Section][]byte{}
	for _, s := range ef.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Addr == 0 {
			continue
		}
		sec := section{addr: s.Addr, size: s.Size}
		if s.Type != elf.SHT_NOBITS {
			if sec.data, err = s.Data(); err != nil {
				return nil, err
			}
			data[s] = sec.data
		}
		im.secs = append(im.secs, sec)
	}
	syms, err := ef.Symbols()
	if err != nil {
		return nil, err
	}
	for _, s := range syms {
		t := elf.ST_TYPE(s.Info)
		if (t != elf.STT_FUNC && t != elf.STT_OBJECT) || s.Value == 0 || s.Section == elf.SHN_UNDEF {
			continue
		}
		im.syms[s.Value] = s.Name
		im.Symbols[s.Name] = s.Value
		if t != elf.STT_FUNC || s.Size == 0 || int(s.Section) >= len(ef.Sections) {
			continue
		}
		sec := ef.Sections[s.Section]
		d := data[sec]
		if d == nil || s.Value < sec.Addr || s.Value+s.Size > sec.Addr+uint64(len(d)) {
			continue
		}
		code := d[s.Value-sec.Addr : s.Value-sec.Addr+s.Size]
		p.Procs = append(p.Procs, Proc{Name: s.Name, Addr: s.Value, Insns: liftRange(p.Arch, code, s.Value, mode)})
	}
	sort.Slice(p.Procs, func(i, j int) bool { return p.Procs[i].Addr < p.Procs[j].Addr })
	if err := p.readImports(ef, mode); err != nil {
		return nil, err
	}
	d, err := ef.DWARF()
	if err != nil {
		return nil, err
	}
	if err := p.readDWARF(d); err != nil {
		return nil, err
	}
	return p, nil
}

// liftRange lifts code; bytes that do not decode become one-byte
// unmodelled instructions (the SSA then records a limitation).
func liftRange(arch string, code []byte, addr uint64, mode int) []*lift.Insn {
	var lf x86.Lifter
	var out []*lift.Insn
	for off := 0; off < len(code); {
		var in *lift.Insn
		var err error
		if arch == "arm64" {
			in, err = arm64.Lift(code[off:], addr+uint64(off))
		} else {
			in, err = lf.Lift(code[off:], addr+uint64(off), mode)
		}
		if err != nil {
			n := 1
			if arch == "arm64" {
				n = 4
			}
			in = &lift.Insn{Addr: addr + uint64(off), Len: n, Mnemonic: "(bad)", Stmts: []lift.Stmt{{Op: lift.Unmodelled, Text: "(bad)", Reason: "does not decode"}}}
		}
		out = append(out, in)
		off += in.Len
	}
	return out
}

// readImports names the GOT slots of the jump-slot and GLOB_DAT
// relocations and the PLT stubs that jump through them.
func (p *Program) readImports(ef *elf.File, mode int) error {
	dsyms, err := ef.DynamicSymbols()
	if err != nil {
		return nil // a static build: no imports
	}
	im := p.Image
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL {
			continue
		}
		d, err := s.Data()
		if err != nil {
			return err
		}
		size := 24
		if mode == 32 {
			size = 8
		}
		for off := 0; off+size <= len(d); off += size {
			var at uint64
			var sym int
			if mode == 32 {
				at = uint64(binary.LittleEndian.Uint32(d[off:]))
				sym = int(binary.LittleEndian.Uint32(d[off+4:]) >> 8)
			} else {
				at = binary.LittleEndian.Uint64(d[off:])
				sym = int(binary.LittleEndian.Uint64(d[off+8:]) >> 32)
			}
			if sym >= 1 && sym-1 < len(dsyms) && dsyms[sym-1].Name != "" {
				im.imports[at] = dsyms[sym-1].Name
			}
		}
	}
	gotplt := uint64(0)
	if s := ef.Section(".got.plt"); s != nil {
		gotplt = s.Addr
	} else if s := ef.Section(".got"); s != nil {
		gotplt = s.Addr
	}
	for _, name := range []string{".plt", ".plt.sec", ".plt.got"} {
		s := ef.Section(name)
		if s == nil {
			continue
		}
		d, err := s.Data()
		if err != nil {
			return err
		}
		for off := 0; off+16 <= len(d); off += 16 {
			addr := s.Addr + uint64(off)
			insns := liftRange(p.Arch, d[off:off+16], addr, mode)
			if slot, ok := stubSlot(insns, gotplt); ok {
				if n, ok := im.imports[slot]; ok {
					im.imports[addr] = n + "@plt"
				}
			}
		}
	}
	return nil
}

// stubSlot finds the GOT slot a PLT stub jumps through: the first load
// whose address is a constant (i386 PIC stubs address from ebx, which
// holds the GOT's address).
func stubSlot(insns []*lift.Insn, got uint64) (uint64, bool) {
	regs := map[string]uint64{"ebx": got}
	for _, in := range insns {
		temps := map[int32]uint64{}
		val := func(o lift.Operand) (uint64, bool) {
			switch o.Kind {
			case lift.Const:
				return o.Lo, true
			case lift.Reg:
				v, ok := regs[o.Name]
				return v, ok
			case lift.Temp:
				v, ok := temps[o.Index]
				return v, ok
			}
			return 0, false
		}
		for _, s := range in.Stmts {
			a, okA := val(s.A)
			b, okB := val(s.B)
			var r uint64
			ok := false
			switch s.Op {
			case lift.Load:
				if okA {
					return a, true
				}
			case lift.Copy, lift.ZExt, lift.Trunc:
				r, ok = a, okA
			case lift.Extract:
				r, ok = a>>uint(s.Aux), okA && s.Aux < 64
			case lift.Add:
				r, ok = a+b, okA && okB
			case lift.Sub:
				r, ok = a-b, okA && okB
			case lift.And:
				r, ok = a&b, okA && okB
			}
			if s.Dst.Kind == lift.Reg {
				if ok {
					regs[s.Dst.Name] = r & mask(s.Dst.Width)
				} else {
					delete(regs, s.Dst.Name)
				}
			} else if s.Dst.Kind == lift.Temp && ok {
				temps[s.Dst.Index] = r & mask(s.Dst.Width)
			}
		}
	}
	return 0, false
}

func mask(w lift.Width) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

// readDWARF fills the oracle of parameter classes.
func (p *Program) readDWARF(d *dwarf.Data) error {
	p.Params, p.Sizes, p.Variadic = map[string][]string{}, map[string][]int{}, map[string]bool{}
	p.Returns = map[string]Return{}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return err
		}
		if e == nil {
			return nil
		}
		if e.Tag != dwarf.TagSubprogram {
			if !e.Children {
				continue
			}
			if e.Tag != dwarf.TagCompileUnit {
				r.SkipChildren()
			}
			continue
		}
		name, _ := e.Val(dwarf.AttrName).(string)
		var ret *Return
		if off, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
			t, err := d.Type(off)
			if err != nil {
				return err
			}
			ret = &Return{Class: classOf(t), Size: int(t.Size())}
		}
		_, hasLow := e.Val(dwarf.AttrLowpc).(uint64)
		if e.Val(dwarf.AttrRanges) != nil {
			hasLow = true
		}
		if !e.Children {
			if hasLow && name != "" {
				p.Params[name] = []string{}
				if ret != nil {
					p.Returns[name] = *ret
				}
			}
			continue
		}
		var classes []string
		var sizes []int
		variadic, bad := false, false
		for {
			c, err := r.Next()
			if err != nil {
				return err
			}
			if c == nil || c.Tag == 0 {
				break
			}
			switch c.Tag {
			case dwarf.TagFormalParameter:
				off, ok := c.Val(dwarf.AttrType).(dwarf.Offset)
				if !ok {
					// a concrete instance of an inlined function (the
					// runtime's, in a mingw build): its abstract origin
					// has the types; no corpus function is one
					bad = true
					break
				}
				t, err := d.Type(off)
				if err != nil {
					return err
				}
				classes = append(classes, classOf(t))
				sizes = append(sizes, int(t.Size()))
			case dwarf.TagUnspecifiedParameters:
				variadic = true
			}
			if c.Children {
				r.SkipChildren()
			}
		}
		if hasLow && name != "" && !bad {
			p.Params[name] = classes
			p.Sizes[name] = sizes
			p.Variadic[name] = variadic
			if ret != nil {
				p.Returns[name] = *ret
			}
		}
	}
}

func classOf(t dwarf.Type) string {
	for {
		switch x := t.(type) {
		case *dwarf.TypedefType:
			t = x.Type
		case *dwarf.QualType:
			t = x.Type
		case *dwarf.PtrType, *dwarf.ArrayType, *dwarf.FuncType:
			return "pointer"
		case *dwarf.FloatType:
			return "floating"
		case *dwarf.StructType:
			return "aggregate"
		default:
			return "integer"
		}
	}
}

package builtin

import (
	"bytes"
	"encoding/binary"
	"strconv"

	"github.com/rea-re/rea/engine/provider"
)

// DWARF locals (issue 25 item 7, CONTRACTS.md §0.3 procedure_info.locals):
// a subprogram's variables, those of its lexical blocks included, with
// their storage as the contract spells it: a register name, "stack±0x.."
// (relative to the stack pointer at entry, as prototypes place stack
// parameters), a register-relative "rbp-0x14" when the frame base is a
// register REA does not resolve to the entry stack pointer, the address of
// a static local, "varies" for a location list (the variable moves), "none"
// when the compiler dropped it, "constant" for a folded one and
// "expression" for any other location expression.

// dwarfLocal is one variable as DWARF declares it; loc is the raw
// DW_AT_location value ([]byte an expression, an integer a location list,
// nil none).
type dwarfLocal struct {
	name, typ string
	size      int64 // -1 when unknown
	loc       any
	constant  bool
}

// maxLocals bounds procedure_info.locals: a generated function with
// thousands of variables would otherwise make the answer unbounded.
const maxLocals = 128

// DWARF expression opcodes REA renders.
const (
	opAddr         = 0x03
	opReg0         = 0x50
	opBreg0        = 0x70
	opRegx         = 0x90
	opFbreg        = 0x91
	opBregx        = 0x92
	opCallFrameCFA = 0x9c
	opAddrx        = 0xa1
	opGNUAddrIndex = 0xfb
)

// dwarfRegName is the lifters' name of DWARF register n on arch (the
// architecture as the image names it), or "".
func dwarfRegName(arch string, n uint64) string {
	switch arch {
	case "x86_64":
		names := [...]string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp"}
		switch {
		case n < 8:
			return names[n]
		case n < 16:
			return "r" + strconv.FormatUint(n, 10)
		case n >= 17 && n <= 32:
			return "xmm" + strconv.FormatUint(n-17, 10)
		case n >= 33 && n <= 40:
			return "st" + strconv.FormatUint(n-33, 10)
		}
	case "x86":
		names := [...]string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"}
		switch {
		case n < 8:
			return names[n]
		case n >= 11 && n <= 18:
			return "st" + strconv.FormatUint(n-11, 10)
		case n >= 21 && n <= 28:
			return "xmm" + strconv.FormatUint(n-21, 10)
		}
	case "arm64":
		switch {
		case n <= 30:
			return "x" + strconv.FormatUint(n, 10)
		case n == 31:
			return "sp"
		case n >= 64 && n <= 95:
			return "v" + strconv.FormatUint(n-64, 10)
		}
	}
	return ""
}

// frameBase is a subprogram's frame base resolved as far as REA goes:
// cfa (DW_OP_call_frame_cfa, or a register the prologue sets from the
// entry stack pointer) with entry-relative offset off, else register reg
// plus off; ok false when it is unknown (a location list, an expression).
type frameBase struct {
	cfa bool
	reg string
	off int64 // cfa: the frame base minus the entry stack pointer
	ok  bool
	// prologue is the procedure's first bytes (entryRelative)
	prologue []byte
}

// resolveFrameBase reads DW_AT_frame_base. retAddr is how far a call
// moved the stack pointer (the CFA is the entry stack pointer plus it);
// prologue is the procedure's first bytes, which settle an x86 frame or
// stack pointer a plain prologue sets.
func resolveFrameBase(v any, arch string, retAddr int64, prologue []byte) frameBase {
	expr, ok := v.([]byte)
	if !ok || len(expr) == 0 {
		return frameBase{}
	}
	var reg string
	var off int64
	switch op := expr[0]; {
	case op == opCallFrameCFA && len(expr) == 1:
		return frameBase{cfa: true, off: retAddr, ok: true}
	case op >= opReg0 && op < opReg0+32 && len(expr) == 1:
		reg = dwarfRegName(arch, uint64(op-opReg0))
	case op >= opBreg0 && op < opBreg0+32:
		k, n := sleb(expr[1:])
		if n == 0 || 1+n != len(expr) {
			return frameBase{}
		}
		reg, off = dwarfRegName(arch, uint64(op-opBreg0)), k
	}
	if reg == "" {
		return frameBase{}
	}
	if d, ok := entryRelative(arch, reg, prologue); ok {
		return frameBase{cfa: true, off: d + off, ok: true, prologue: prologue}
	}
	return frameBase{reg: reg, off: off, ok: true, prologue: prologue}
}

// entryRelative is where reg stands relative to the entry stack pointer
// after the procedure's prologue, when the prologue is one of the plain
// forms x86Prologue and arm64Prologue follow: the frame pointer it sets
// from the stack pointer, or the stack pointer once it allocated the
// frame (a stack pointer as a frame base or a location's base stays there
// for the procedure's body).
func entryRelative(arch, reg string, prologue []byte) (int64, bool) {
	if arch == "arm64" && (reg == "x29" || reg == "sp") {
		fp, fpOK, sp := arm64Prologue(prologue)
		if reg == "x29" {
			return fp, fpOK
		}
		return sp, sp != 0
	}
	mode := 64
	switch {
	case arch == "x86" && (reg == "ebp" || reg == "esp"):
		mode = 32
	case arch == "x86_64" && (reg == "rbp" || reg == "rsp"):
	default:
		return 0, false
	}
	fp, fpOK, sp := x86Prologue(mode, prologue)
	if reg == "rbp" || reg == "ebp" {
		return fp, fpOK
	}
	return sp, sp != 0
}

// x86Prologue walks the opening instructions of an x86 procedure that
// only save registers and allocate the frame (endbr, push, a move between
// registers, the frame pointer's copy of the stack pointer, sub of a
// constant from the stack pointer) and returns, relative to the entry
// stack pointer, where the frame pointer and the stack pointer stand after
// it. fpOK is false when no frame pointer was set from the stack pointer.
func x86Prologue(mode int, code []byte) (fp int64, fpOK bool, sp int64) {
	slot := int64(mode / 8)
	for len(code) > 0 {
		c := code
		rex := byte(0)
		if mode == 64 && c[0]&0xf0 == 0x40 {
			rex, c = c[0], c[1:]
		}
		if len(c) == 0 {
			return
		}
		switch {
		case rex == 0 && bytes.HasPrefix(c, []byte{0xf3, 0x0f, 0x1e}) && len(c) >= 4 && (c[3] == 0xfa || c[3] == 0xfb):
			code = c[4:]
			continue
		case c[0] >= 0x50 && c[0] <= 0x57 && (rex == 0 || rex&^1 == 0x40): // push r
			sp -= slot
			code = c[1:]
			continue
		case (c[0] == 0x89 || c[0] == 0x8b) && len(c) >= 2 && c[1]&0xc0 == 0xc0: // mov r, r
			dst, src := int(c[1]&7), int(c[1]>>3&7)
			if c[0] == 0x8b {
				dst, src = src, dst
			}
			if rex&1 != 0 && c[0] == 0x89 || rex&4 != 0 && c[0] == 0x8b {
				dst += 8
			}
			if rex&4 != 0 && c[0] == 0x89 || rex&1 != 0 && c[0] == 0x8b {
				src += 8
			}
			switch {
			case dst == 4:
				return // the stack pointer moved where this walk does not follow
			case dst == 5 && src == 4 && (mode == 32 || rex&8 != 0):
				fp, fpOK = sp, true
			case dst == 5:
				fpOK = false
			}
			code = c[2:]
			continue
		case (c[0] == 0x83 || c[0] == 0x81) && len(c) >= 2 && c[1] == 0xec && (mode == 32 || rex == 0x48): // sub rsp, imm
			if c[0] == 0x83 && len(c) >= 3 {
				sp -= int64(int8(c[2]))
				code = c[3:]
				continue
			}
			if c[0] == 0x81 && len(c) >= 6 {
				sp -= int64(int32(binary.LittleEndian.Uint32(c[2:])))
				code = c[6:]
				continue
			}
		}
		return
	}
	return
}

// arm64Prologue is x86Prologue for arm64: stack allocation (sub sp, sp,
// #imm; stp or str with pre-index writeback of sp), stores to the frame
// (stp/str at an offset from sp) and the frame pointer set from sp (add
// x29, sp, #imm, mov x29, sp among them).
func arm64Prologue(code []byte) (fp int64, fpOK bool, sp int64) {
	for ; len(code) >= 4; code = code[4:] {
		w := binary.LittleEndian.Uint32(code)
		rn, rd := w>>5&31, w&31
		switch {
		case w>>23 == 0x1a2 && rn == 31 && rd == 31: // sub sp, sp, #imm{, lsl 12}
			imm := int64(w >> 10 & 0xfff)
			if w>>22&1 == 1 {
				imm <<= 12
			}
			sp -= imm
		case w&0xffc00000 == 0xa9800000 && rn == 31, w&0xffc00000 == 0x6d800000 && rn == 31: // stp x/d, [sp, #-n]!
			sp += int64(int8(byte(w>>15&0x7f)<<1)>>1) * 8
		case w&0xffe00c00 == 0xf8000c00 && rn == 31: // str x, [sp, #-n]!
			sp += int64(int16(uint16(w>>12&0x1ff)<<7) >> 7)
		case (w&0xffc00000 == 0xa9000000 || w&0xffc00000 == 0x6d000000 || w&0xffc00000 == 0xf9000000) && rn == 31:
			// a store at an offset from sp: the frame's contents
		case w>>23 == 0x122 && rn == 31 && rd == 29: // add x29, sp, #imm (mov x29, sp)
			imm := int64(w >> 10 & 0xfff)
			if w>>22&1 == 1 {
				imm <<= 12
			}
			fp, fpOK = sp+imm, true
		default:
			return
		}
	}
	return
}

// localStorage renders a variable's location.
func localStorage(l *dwarfLocal, fb frameBase, arch string, ptr int) string {
	if l.constant {
		return "constant"
	}
	switch v := l.loc.(type) {
	case nil:
		return "none"
	case []byte:
		return exprStorage(v, fb, arch, ptr)
	}
	return "varies" // a location list: where the variable lives changes along the procedure
}

func exprStorage(expr []byte, fb frameBase, arch string, ptr int) string {
	if len(expr) == 0 {
		return "none"
	}
	op, rest := expr[0], expr[1:]
	switch {
	case op == opAddr && len(rest) == ptr:
		if ptr == 4 {
			return provider.FormatAddress(uint64(binary.LittleEndian.Uint32(rest)))
		}
		return provider.FormatAddress(binary.LittleEndian.Uint64(rest))
	case (op == opAddrx || op == opGNUAddrIndex) && uleb1(rest):
		return "static" // an address in .debug_addr REA does not read
	case op >= opReg0 && op < opReg0+32 && len(rest) == 0:
		if r := dwarfRegName(arch, uint64(op-opReg0)); r != "" {
			return r
		}
	case op == opRegx:
		if n, k := uleb(rest); k > 0 && k == len(rest) {
			if r := dwarfRegName(arch, n); r != "" {
				return r
			}
		}
	case op >= opBreg0 && op < opBreg0+32:
		if off, k := sleb(rest); k > 0 && k == len(rest) {
			if r := dwarfRegName(arch, uint64(op-opBreg0)); r != "" {
				if d, ok := entryRelative(arch, r, fb.prologue); ok {
					return relative("stack", d+off)
				}
				return relative(r, off)
			}
		}
	case op == opFbreg:
		off, k := sleb(rest)
		if k == 0 || k != len(rest) {
			break
		}
		switch {
		case !fb.ok:
			return "varies"
		case fb.cfa:
			return relative("stack", fb.off+off)
		default:
			return relative(fb.reg, fb.off+off)
		}
	}
	return "expression"
}

func relative(base string, off int64) string {
	if off < 0 {
		return base + "-0x" + strconv.FormatUint(uint64(-off), 16)
	}
	return base + "+0x" + strconv.FormatUint(uint64(off), 16)
}

func uleb1(b []byte) bool { _, k := uleb(b); return k > 0 && k == len(b) }

// uleb decodes an unsigned LEB128, returning the value and its length (0
// when b ends inside it or it is longer than 10 bytes).
func uleb(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// sleb decodes a signed LEB128 as uleb does.
func sleb(b []byte) (int64, int) {
	var v int64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= int64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			if shift := 7 * (i + 1); shift < 64 && b[i]&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1
		}
	}
	return 0, 0
}

// dwarfLocalsOf renders f's locals for procedure_info; prologue is the
// procedure's first bytes.
func dwarfLocalsOf(f *dwarfFunc, arch string, retAddr int64, ptr int, prologue []byte) []provider.LocalVar {
	fb := resolveFrameBase(f.frameBase, arch, retAddr, prologue)
	out := make([]provider.LocalVar, 0, len(f.locals))
	for i := range f.locals {
		l := &f.locals[i]
		lv := provider.LocalVar{Name: l.name, Type: l.typ, Storage: localStorage(l, fb, arch, ptr), Provenance: "dwarf"}
		if l.size >= 0 {
			size := l.size
			lv.Size = &size
		}
		lv.Description = l.typ + " " + l.name
		out = append(out, lv)
	}
	return out
}

// dwarfLocals is procedure_info.locals of the procedure at entry from its
// DWARF subprogram f.
func (c *Client) dwarfLocals(f *dwarfFunc, entry uint64) []provider.LocalVar {
	img := c.ix.img
	var retAddr int64
	ptr := 8
	switch img.arch {
	case "x86_64":
		retAddr = 8
	case "x86":
		retAddr, ptr = 4, 4
	}
	var prologue [64]byte
	n := img.mappedRun(entry, uint64(len(prologue)))
	img.loadedBytes(c.data, entry, prologue[:n])
	return dwarfLocalsOf(f, img.arch, retAddr, ptr, prologue[:n])
}

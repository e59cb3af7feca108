package builtin

import (
	"encoding/binary"
	"fmt"
	"strings"

	"golang.org/x/arch/arm/armasm"
	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"

	"github.com/rea-re/rea/engine/provider"
)

// Disassembly with golang.org/x/arch: x86asm in Intel syntax (branch targets
// absolute), arm64asm in GNU syntax (PC-relative operands rewritten as
// absolute addresses), armasm in GNU syntax for ARM-mode code only (x/arch has
// no Thumb decoder). Undecodable bytes are "(bad)" (one byte, x86) or
// ".inst 0x…" (one word, arm/arm64), as objdump writes them.

// Control-flow classes of a decoded instruction.
const (
	flowNone uint8 = iota
	flowCall
	flowJump     // unconditional direct or indirect jump
	flowCondJump // conditional direct branch
	flowRet
	flowStop // halts the sequential flow (ud2, hlt, int3, brk)
)

// insn is one decoded instruction.
type insn struct {
	addr      uint64
	n         uint8
	flow      uint8
	indirect  bool   // call or jump through a register or memory
	hasTarget bool   // direct branch or call target
	bad       bool   // x86: undecodable where it stands ("(bad)"; see decodeX86)
	target    uint64 // direct branch or call target
	hasData   bool
	data      uint64 // referenced data address (RIP-relative, ADRP pair, literal)
	acc       uint8  // how the instruction uses data (accessOf); 0 when the decoder does not say
	it        uint8  // Thumb: the IT state the instruction was decoded in
	pool      bool   // arm: data a $d mapping symbol marks (poolInsn), not an instruction
	toggle    bool   // arm: the direct target is in the other instruction set (blx immediate)
	lit       uint8  // arm: the bytes at data that this pc-relative load reads (a literal pool's), or 0
	text      string // filled only when asked for
}

// How an instruction uses its data address (insn.acc): it loads from it,
// stores to it (a read-modify-write counts as a store), or only forms the
// address (lea, adr, adrp+add, an immediate).
const (
	accRead uint8 = iota + 1
	accWrite
	accAddress
)

// accessOf is how it uses it.data: the decoder's word where it gives one
// (x86, arm64), else a literal-pool load reads and any other pc-relative
// operand (adr, add rD, pc) forms an address.
func accessOf(it insn) uint8 {
	switch {
	case it.acc != 0:
		return it.acc
	case it.lit != 0:
		return accRead
	}
	return accAddress
}

// x86ReadsFirst lists the operations whose first operand, when it is in
// memory, is only read: compares, pushes, branches, one-operand multiplies
// and divides, loads of control state, prefetches, and the x87 operations
// other than its stores (FLD m64 has its source first).
var x86ReadsFirst = func() map[x86asm.Op]bool {
	m := map[x86asm.Op]bool{}
	for _, op := range []x86asm.Op{x86asm.CMP, x86asm.TEST, x86asm.PUSH, x86asm.CALL, x86asm.JMP, x86asm.LCALL, x86asm.LJMP,
		x86asm.BT, x86asm.MUL, x86asm.DIV, x86asm.IDIV, x86asm.IMUL, x86asm.LDMXCSR, x86asm.VLDMXCSR, x86asm.NOP,
		x86asm.PREFETCHNTA, x86asm.PREFETCHT0, x86asm.PREFETCHT1, x86asm.PREFETCHT2, x86asm.PREFETCHW, x86asm.CLFLUSH,
		x86asm.XRSTOR, x86asm.XRSTOR64, x86asm.XRSTORS, x86asm.XRSTORS64, x86asm.FXRSTOR, x86asm.FXRSTOR64,
		x86asm.LGDT, x86asm.LIDT, x86asm.LLDT, x86asm.LMSW, x86asm.VERR, x86asm.VERW, x86asm.INVLPG,
		x86asm.FADD, x86asm.FBLD, x86asm.FCOM, x86asm.FCOMP, x86asm.FDIV, x86asm.FDIVR, x86asm.FIADD, x86asm.FICOM,
		x86asm.FICOMP, x86asm.FIDIV, x86asm.FIDIVR, x86asm.FILD, x86asm.FIMUL, x86asm.FISUB, x86asm.FISUBR, x86asm.FLD,
		x86asm.FLDCW, x86asm.FLDENV, x86asm.FMUL, x86asm.FRSTOR, x86asm.FSUB, x86asm.FSUBR} {
		m[op] = true
	}
	return m
}()

// decoder decodes one instruction of code at pc; n >= 1 on return.
type decoder struct {
	arch string
	bo   binary.ByteOrder
	// Register values known from the instructions just decoded, with valid
	// bits: arm64 ADRP pages, arm literal-pool words, i386 PIC bases.
	page  [32]uint64
	valid uint32
	// abs lists the mapped ranges an x86 immediate may point into to count
	// as an address; empty when the image is based below 64 KiB (PIE and
	// shared objects), where small constants would collide with addresses.
	abs [][2]uint64
	// code reads the executable bytes at an address (i386 PIC thunks, arm
	// literal pools); nil when only the bytes passed to decode are known.
	code func(uint64) ([]byte, bool)
	// thumb selects Thumb decoding (arm); it is the IT state (firstcond and
	// mask) carried from one Thumb instruction to the next; twrite and tlit
	// are the registers the last Thumb instruction wrote and the register
	// it loaded a literal word into (-1: none), for literal-pool tracking.
	thumb  bool
	it     uint8
	twrite uint32
	tlit   int
	// picAt, when not nil, keeps the i386 PIC base registers known at the
	// targets of forward branches (decodeProc sets it): code that follows a
	// return or a jump, reached only by such a branch (a compiler's cold
	// path after the epilogue), starts from the registers known there, not
	// from those the epilogue's pop forgot. ended says the sequential flow
	// ended (or the decoder was reset) and no kept target was reached since.
	picAt map[uint64]picState
	ended bool
	// keptX86, when set, receives every x86 instruction x86asm decoded
	// (not endbr, not bad ones), so that lifting does not decode again.
	keptX86 *[]x86Decoded
}

// x86Decoded is an instruction as x86asm decoded it at addr.
type x86Decoded struct {
	addr uint64
	inst x86asm.Inst
}

// picState is the i386 registers known at a branch target (decoder.picAt).
type picState struct {
	page  [8]uint64
	valid uint32
}

func newDecoder(img *image) *decoder {
	d := &decoder{arch: img.arch, bo: img.bo}
	if img.arch != "x86" && img.arch != "x86_64" {
		return d
	}
	// Counted first: a decoder is made per procedure, and a shared object
	// (based at 0) needs no list at all.
	lo, n := ^uint64(0), 0
	for i := range img.sections {
		if s := &img.sections[i]; s.mapped && s.size > 0 {
			lo = min(lo, s.addr)
			n++
		}
	}
	if lo < 1<<16 {
		return d
	}
	d.abs = make([][2]uint64, 0, n)
	for i := range img.sections {
		if s := &img.sections[i]; s.mapped && s.size > 0 {
			d.abs = append(d.abs, [2]uint64{s.addr, s.end()})
		}
	}
	return d
}

// isAbs reports whether v is an address of a mapped section (see abs).
func (d *decoder) isAbs(v uint64) bool {
	for _, r := range d.abs {
		if v >= r[0] && v < r[1] {
			return true
		}
	}
	return false
}

func (d *decoder) reset() { d.valid, d.it, d.ended = 0, 0, true }

// decode decodes the instruction at pc; withText renders its text.
func (d *decoder) decode(code []byte, pc uint64, withText bool) insn {
	switch d.arch {
	case "x86", "x86_64":
		return d.decodeX86(code, pc, withText)
	case "arm64":
		return d.decodeARM64(code, pc, withText)
	default:
		if d.thumb {
			return d.decodeThumb(code, pc, withText)
		}
		return d.decodeARM(code, pc, withText)
	}
}

var x86CondJumps = map[x86asm.Op]bool{
	x86asm.JA: true, x86asm.JAE: true, x86asm.JB: true, x86asm.JBE: true, x86asm.JCXZ: true, x86asm.JE: true,
	x86asm.JECXZ: true, x86asm.JG: true, x86asm.JGE: true, x86asm.JL: true, x86asm.JLE: true, x86asm.JNE: true,
	x86asm.JNO: true, x86asm.JNP: true, x86asm.JNS: true, x86asm.JO: true, x86asm.JP: true, x86asm.JRCXZ: true,
	x86asm.JS: true, x86asm.LOOP: true, x86asm.LOOPE: true, x86asm.LOOPNE: true,
}

func (d *decoder) decodeX86(code []byte, pc uint64, withText bool) insn {
	mode := 64
	if d.arch == "x86" {
		mode = 32
	}
	// x86asm has no CET instructions: it reads endbr64/endbr32 (f3 0f 1e fa/fb),
	// which open almost every function of a CET build, as a lone REP prefix
	// and then decodes the rest of the instruction as garbage.
	if len(code) >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && (code[3] == 0xfa || code[3] == 0xfb) {
		it := insn{addr: pc, n: 4}
		if withText {
			it.text = map[byte]string{0xfa: "endbr64", 0xfb: "endbr32"}[code[3]]
		}
		return it
	}
	if mode == 32 && d.picAt != nil && d.ended {
		if st, ok := d.picAt[pc]; ok {
			copy(d.page[:8], st.page[:])
			d.valid, d.ended = d.valid&^0xff|st.valid, false
		}
	}
	in, err := x86asm.Decode(code, mode)
	if err != nil || in.Len == 0 {
		// Marked, because decoding this one byte alone would not fail the
		// same way (x86asm reads a lone 0xc0 as "prefix(0xc0)"), and the
		// text of an instruction is decoded again from its own bytes.
		it := insn{addr: pc, n: 1, bad: true}
		if withText {
			it.text = "(bad)"
		}
		return it
	}
	if d.keptX86 != nil {
		*d.keptX86 = append(*d.keptX86, x86Decoded{pc, in})
	}
	it := insn{addr: pc, n: uint8(in.Len)}
	switch {
	case in.Op == x86asm.CALL || in.Op == x86asm.LCALL:
		it.flow = flowCall
	case in.Op == x86asm.JMP || in.Op == x86asm.LJMP:
		it.flow = flowJump
	case x86CondJumps[in.Op]:
		it.flow = flowCondJump
	case in.Op == x86asm.RET || in.Op == x86asm.LRET || in.Op == x86asm.IRET || in.Op == x86asm.IRETD || in.Op == x86asm.IRETQ:
		it.flow = flowRet
	case in.Op == x86asm.UD2 || in.Op == x86asm.HLT || in.Op == x86asm.UD1 || in.Op == x86asm.UD0:
		it.flow = flowStop
	}
	for i, a := range in.Args {
		if a == nil {
			break
		}
		switch a := a.(type) {
		case x86asm.Rel:
			// xbegin's operand is its abort handler: a code target, though
			// not a branch the sequential flow takes.
			if it.flow != flowNone || in.Op == x86asm.XBEGIN {
				it.hasTarget, it.target = true, pc+uint64(in.Len)+uint64(int64(a))
			}
		case x86asm.Mem:
			if it.flow == flowCall || it.flow == flowJump {
				it.indirect = true
			}
			switch {
			case in.Op == x86asm.LEA:
				it.acc = accAddress
			case i == 0 && !x86ReadsFirst[in.Op]:
				it.acc = accWrite
			default:
				it.acc = accRead
			}
			switch {
			case a.Base == x86asm.RIP:
				it.hasData, it.data = true, pc+uint64(in.Len)+uint64(a.Disp)
			case mode == 32 && a.Base == 0 && a.Index == 0 && (a.Segment == 0 || a.Segment == x86asm.DS):
				it.hasData, it.data = true, uint64(uint32(a.Disp))
			case mode == 32 && a.Base >= x86asm.EAX && a.Base <= x86asm.EDI && d.valid&(1<<(a.Base-x86asm.EAX)) != 0 &&
				(a.Segment == 0 || a.Segment == x86asm.DS || a.Segment == x86asm.SS):
				// GOT-relative (PIC) operand: the base holds the GOT address.
				it.hasData, it.data = true, uint64(uint32(d.page[a.Base-x86asm.EAX]+uint64(a.Disp)))
			}
		case x86asm.Reg:
			if it.flow == flowCall || it.flow == flowJump {
				it.indirect = true
			}
		case x86asm.Imm:
			// A non-PIC image's absolute address (push $str, mov [esp], $var).
			v := uint64(a)
			if mode == 32 {
				v = uint64(uint32(a))
			}
			if it.flow == flowNone && !it.hasData && d.isAbs(v) {
				it.hasData, it.data, it.acc = true, v, accAddress
			}
		}
	}
	if mode == 32 {
		d.trackPIC(&in, &it)
		if d.picAt != nil {
			d.notePIC(it)
		}
	}
	if withText {
		it.text = x86asm.IntelSyntax(in, pc, nil)
	}
	return it
}

// i386 position-independent code computes the GOT address with a call to
// a __x86.get_pc_thunk.REG (mov REG, [esp]; ret) followed by add REG, imm:
// trackPIC follows those values so that [REG+disp] operands resolve.
// A register's value is forgotten when an instruction writes it; a call
// forgets the caller-saved eax, ecx and edx.
func (d *decoder) trackPIC(in *x86asm.Inst, it *insn) {
	// gpr maps a general register, of any width, to its 32-bit index.
	gpr := func(a x86asm.Arg) (uint, bool) {
		r, ok := a.(x86asm.Reg)
		switch {
		case !ok:
		case r >= x86asm.EAX && r <= x86asm.EDI:
			return uint(r - x86asm.EAX), true
		case r >= x86asm.AX && r <= x86asm.DI:
			return uint(r - x86asm.AX), true
		case r >= x86asm.AL && r <= x86asm.BL:
			return uint(r - x86asm.AL), true
		case r >= x86asm.AH && r <= x86asm.BH:
			return uint(r - x86asm.AH), true
		case r >= x86asm.SPB && r <= x86asm.DIB:
			return uint(r-x86asm.SPB) + 4, true
		}
		return 0, false
	}
	switch in.Op {
	case x86asm.CALL:
		d.valid &^= 1<<0 | 1<<1 | 1<<2
		if it.hasTarget && d.code != nil {
			if b, ok := d.code(it.target); ok && len(b) >= 4 && b[0] == 0x8b && b[1]&0xc7 == 0x04 && b[2] == 0x24 && b[3] == 0xc3 {
				r := uint(b[1]>>3) & 7
				d.page[r], d.valid = uint64(uint32(it.addr+uint64(it.n))), d.valid|1<<r
			}
		}
		return
	case x86asm.ADD, x86asm.SUB:
		if r, ok := gpr(in.Args[0]); ok && d.valid&(1<<r) != 0 && in.Args[0].(x86asm.Reg) >= x86asm.EAX {
			if v, ok := in.Args[1].(x86asm.Imm); ok {
				if in.Op == x86asm.SUB {
					v = -v
				}
				d.page[r] = uint64(uint32(d.page[r] + uint64(v)))
				return
			}
		}
	case x86asm.CMP, x86asm.TEST, x86asm.PUSH:
		return
	case x86asm.MUL, x86asm.IMUL, x86asm.DIV, x86asm.IDIV, x86asm.CDQ, x86asm.CWD, x86asm.CWDE, x86asm.CBW,
		x86asm.CPUID, x86asm.RDTSC, x86asm.RDTSCP, x86asm.XGETBV, x86asm.CMPXCHG, x86asm.CMPXCHG8B, x86asm.XCHG,
		x86asm.XADD, x86asm.POPA, x86asm.POPAD, x86asm.LODSB, x86asm.LODSW, x86asm.LODSD, x86asm.IN, x86asm.RDMSR,
		x86asm.SYSENTER, x86asm.INT, x86asm.LAHF, x86asm.RDPMC, x86asm.RDRAND:
		d.valid = 0
		return
	}
	if r, ok := gpr(in.Args[0]); ok {
		d.valid &^= 1 << r
	}
}

// notePIC keeps the known registers at a forward branch's target and
// notes whether it ends the sequential flow (decoder.picAt).
func (d *decoder) notePIC(it insn) {
	if it.flow == flowJump || it.flow == flowRet || it.flow == flowStop {
		d.ended = true // until a kept target is reached (padding may come first)
	}
	if !it.hasTarget || it.target <= it.addr || it.flow != flowJump && it.flow != flowCondJump || d.valid&0xff == 0 {
		return
	}
	if _, ok := d.picAt[it.target]; !ok {
		st := picState{valid: d.valid & 0xff}
		copy(st.page[:], d.page[:8])
		d.picAt[it.target] = st
	}
}

// Position-independent ARM code loads a PC-relative offset from a literal
// pool and adds the pc to it: ldr rT, [pc, #±imm] … add rD, pc, rT. The
// load refers to the pool word; the add refers to the address it forms.
// trackPool follows the loaded words until their register may change:
// every instruction forgets the registers in its Rd/Rt and Rn fields (and
// Rt+1, for doubleword loads); control flow and multiple loads forget all.
func (d *decoder) trackPool(x uint32, it *insn) {
	if x&0x0f7ff000 == 0x051ff000 && x>>28 != 0xf { // ldr pc, [pc, #±imm]: a veneer's or a PLT's jump through a literal
		lit := uint32(it.addr) + 8
		if x&(1<<23) != 0 {
			lit += x & 0xfff
		} else {
			lit -= x & 0xfff
		}
		it.hasData, it.data, it.lit = true, uint64(lit), 4
	}
	if it.flow != flowNone || x>>28 == 0xf || x&0x0e100000 == 0x08100000 { // branches, unconditional space, LDM/POP
		d.valid = 0
		return
	}
	rt, rn := (x>>12)&15, (x>>16)&15
	if x&0x0f7f0000 == 0x051f0000 { // LDR (literal), word
		lit := it.addr + 8
		if x&(1<<23) != 0 {
			lit += uint64(x & 0xfff)
		} else {
			lit -= uint64(x & 0xfff)
		}
		lit = uint64(uint32(lit))
		it.hasData, it.data, it.lit = true, lit, 4
		d.valid &^= 1 << rt
		if d.code != nil && rt != 15 {
			if b, ok := d.code(lit); ok && len(b) >= 4 {
				d.page[rt], d.valid = uint64(d.bo.Uint32(b)), d.valid|1<<rt
			}
		}
		return
	}
	if x&0x0fe00ff0 == 0x00800000 { // ADD (register), no shift, flags unchanged
		rm := x & 15
		switch {
		case rn == 15 && rm != 15 && d.valid&(1<<rm) != 0:
			it.hasData, it.data = true, uint64(uint32(it.addr+8+d.page[rm]))
		case rm == 15 && rn != 15 && d.valid&(1<<rn) != 0:
			it.hasData, it.data = true, uint64(uint32(it.addr+8+d.page[rn]))
		}
	}
	d.valid &^= armWrites(x)
}

// armWrites over-approximates the registers an ARM-mode instruction other
// than a branch or LDM writes: a data-processing instruction its Rd (a
// multiply its bits 19:16 too), a load its Rt (LDRD Rt+1 too), and a load or
// store with writeback or post-indexing its base; anything else (media,
// coprocessor, system) Rt and Rn. Compares write none, stores no Rt.
func armWrites(x uint32) uint32 {
	rt, rn := (x>>12)&15, (x>>16)&15
	switch {
	case x&0x0e000090 == 0x00000090 && x&0x60 == 0: // multiply, swap
		return 1<<rt | 1<<rn
	case x&0x0e000090 == 0x00000090: // extra loads and stores: ldrh, ldrsb, ldrd...
		var w uint32
		if x&(1<<20) != 0 || x&0xf0 == 0xd0 { // a load (LDRD has L clear)
			w = 1 << rt
			if x&0x1000f0 == 0xd0 {
				w |= 1 << ((rt + 1) & 15)
			}
		}
		if x&(1<<24) == 0 || x&(1<<21) != 0 {
			w |= 1 << rn
		}
		return w
	case x&0x0c000000 == 0: // data processing
		if x&0x01900000 == 0x01100000 {
			return 0 // tst, teq, cmp, cmn
		}
		return 1 << rt // (the misc space with S clear: clz, mrs write Rd)
	case x&0x0c000000 == 0x04000000 && x&0x02000010 != 0x02000010: // ldr/str (immediate or register)
		var w uint32
		if x&(1<<20) != 0 {
			w = 1 << rt
		}
		if x&(1<<24) == 0 || x&(1<<21) != 0 {
			w |= 1 << rn
		}
		return w
	}
	return 1<<rt | 1<<rn
}

func sext(v uint64, bits uint) int64 { return int64(v<<(64-bits)) >> (64 - bits) }

func (d *decoder) decodeARM64(code []byte, pc uint64, withText bool) insn {
	if len(code) < 4 {
		it := insn{addr: pc, n: uint8(len(code))}
		if withText {
			it.text = "(bad)"
		}
		return it
	}
	x := binary.LittleEndian.Uint32(code)
	it := insn{addr: pc, n: 4}
	rd := x & 31
	rn := (x >> 5) & 31
	keep := false
	switch {
	case x&0xfc000000 == 0x94000000: // BL
		it.flow, it.hasTarget, it.target = flowCall, true, pc+uint64(sext(uint64(x&0x3ffffff)<<2, 28))
	case x&0xfc000000 == 0x14000000: // B
		it.flow, it.hasTarget, it.target = flowJump, true, pc+uint64(sext(uint64(x&0x3ffffff)<<2, 28))
	case x&0xff000010 == 0x54000000, x&0x7e000000 == 0x34000000: // B.cond, CBZ/CBNZ
		it.flow, it.hasTarget, it.target = flowCondJump, true, pc+uint64(sext(uint64((x>>5)&0x7ffff)<<2, 21))
	case x&0x7e000000 == 0x36000000: // TBZ/TBNZ
		it.flow, it.hasTarget, it.target = flowCondJump, true, pc+uint64(sext(uint64((x>>5)&0x3fff)<<2, 16))
	case x&0xfffffc1f == 0xd63f0000: // BLR
		it.flow, it.indirect = flowCall, true
	case x&0xfffffc1f == 0xd61f0000: // BR
		it.flow, it.indirect = flowJump, true
	case x&0xfffffc1f == 0xd65f0000: // RET
		it.flow = flowRet
	case x&0xffe0001f == 0xd4200000: // BRK
		it.flow = flowStop
	case x&0x9f000000 == 0x90000000: // ADRP
		imm := sext(uint64((x>>5)&0x7ffff)<<2|uint64((x>>29)&3), 21) << 12
		d.page[rd] = (pc &^ 0xfff) + uint64(imm)
		d.valid |= 1 << rd
		keep = true
	case x&0x9f000000 == 0x10000000: // ADR
		imm := sext(uint64((x>>5)&0x7ffff)<<2|uint64((x>>29)&3), 21)
		it.hasData, it.data, it.acc = true, pc+uint64(imm), accAddress
	case x&0x3b000000 == 0x18000000: // LDR (literal)
		it.hasData, it.data, it.acc = true, pc+uint64(sext(uint64((x>>5)&0x7ffff)<<2, 21)), accRead
	case x&0x7f800000 == 0x11000000: // ADD (immediate), 32 or 64 bit, no flags
		if d.valid&(1<<rn) != 0 {
			imm := uint64((x >> 10) & 0xfff)
			if (x>>22)&1 == 1 {
				imm <<= 12
			}
			it.hasData, it.data, it.acc = true, d.page[rn]+imm, accAddress
		}
	case x&0x3b000000 == 0x39000000: // LDR/STR (unsigned immediate)
		if d.valid&(1<<rn) != 0 {
			scale := x >> 30
			if (x>>26)&1 == 1 && scale == 0 && (x>>23)&1 == 1 {
				scale = 4
			}
			it.hasData, it.data, it.acc = true, d.page[rn]+uint64((x>>10)&0xfff)<<scale, accRead
			// A store: opc 00 of the integer forms; L clear of the SIMD ones.
			if (x>>26)&1 == 0 && (x>>22)&3 == 0 || (x>>26)&1 == 1 && (x>>22)&1 == 0 {
				it.acc = accWrite
			}
		}
	}
	if it.flow != flowNone {
		d.valid = 0
	} else if !keep {
		d.valid &^= 1 << rd
	}
	if withText {
		in, err := decodeARM64(code[:4])
		if err != nil {
			it.text = fmt.Sprintf(".inst\t0x%08x", x)
		} else {
			it.text = strings.TrimSpace(arm64Text(in, pc))
		}
	}
	return it
}

// arm64Text renders GNU syntax with PC-relative operands as absolute addresses.
func arm64Text(in arm64asm.Inst, pc uint64) string {
	s := arm64asm.GNUSyntax(in)
	for _, a := range in.Args {
		if a == nil {
			break
		}
		if r, ok := a.(arm64asm.PCRel); ok {
			base := pc
			if in.Op == arm64asm.ADRP {
				base = pc &^ 0xfff
			}
			s = strings.Replace(s, r.String(), provider.FormatAddress(base+uint64(int64(r))), 1)
		}
	}
	return s
}

func (d *decoder) decodeARM(code []byte, pc uint64, withText bool) insn {
	if len(code) < 4 {
		it := insn{addr: pc, n: uint8(len(code))}
		if withText {
			it.text = "(bad)"
		}
		return it
	}
	x := d.bo.Uint32(code)
	it := insn{addr: pc, n: 4}
	cond := x >> 28
	switch {
	case x&0x0f000000 == 0x0b000000 && cond != 0xf: // BL
		it.flow, it.hasTarget, it.target = flowCall, true, uint64(uint32(int64(pc)+8+sext(uint64(x&0xffffff)<<2, 26)))
	case x&0xfe000000 == 0xfa000000: // BLX (immediate)
		it.flow, it.hasTarget, it.toggle = flowCall, true, true
		it.target = uint64(uint32(int64(pc) + 8 + sext(uint64(x&0xffffff)<<2|uint64((x>>24)&1)<<1, 26)))
	case x&0x0f000000 == 0x0a000000 && cond != 0xf: // B
		it.flow, it.hasTarget, it.target = flowJump, true, uint64(uint32(int64(pc)+8+sext(uint64(x&0xffffff)<<2, 26)))
		if cond != 0xe {
			it.flow = flowCondJump
		}
	case x&0x0ffffff0 == 0x012fff30: // BLX register
		it.flow, it.indirect = flowCall, true
	case x&0x0ffffff0 == 0x012fff10: // BX register
		if x&0xf == 14 {
			it.flow = flowRet
		} else {
			it.flow, it.indirect = flowJump, true
		}
	case cond == 0xe && x&0x0e108000 == 0x08108000: // LDM with pc in the list
		if (x>>16)&15 == 13 {
			it.flow = flowRet // pop {..., pc}
		} else {
			it.flow, it.indirect = flowJump, true
		}
	case cond == 0xe && x&0x0c10f000 == 0x0410f000 && x&0x02000010 != 0x02000010: // LDR pc
		if (x>>16)&15 == 13 && x&(1<<24) == 0 {
			it.flow = flowRet // ldr pc, [sp], #4
		} else {
			it.flow, it.indirect = flowJump, true // a jump table, a veneer
		}
	case cond == 0xe && x&0x0c00f000 == 0x0000f000 && (x>>21)&0xc != 0x8 && x&0x02000090 != 0x90: // data processing into pc
		if x&0x0fffffff == 0x01a0f00e {
			it.flow = flowRet // mov pc, lr
		} else {
			it.flow, it.indirect = flowJump, true
		}
	}
	if cond < 0xe && (it.flow == flowRet || it.flow == flowJump && it.indirect) {
		it.flow = flowCondJump // bxeq lr: the code goes on when the condition fails
	}
	if x&0x0e000e00 == 0x0c000a00 && x&0x01200000 == 0x01000000 && (x>>16)&15 == 15 && cond != 0xf { // vldr/vstr (literal)
		off := int64(x&0xff) * 4
		if x&(1<<23) == 0 {
			off = -off
		}
		it.hasData, it.data, it.lit = true, uint64(uint32(int64(pc)+8+off)), 4
		if x&(1<<20) == 0 {
			it.acc = accWrite // vstr
		}
		if x&0x100 != 0 {
			it.lit = 8 // a double
		}
	}
	d.trackPool(x, &it)
	if withText {
		in, err := decodeARM(code[:4], armasm.ModeARM)
		if x&0x0c000000 == 0x0c000000 && cond != 0xf && (x>>8)&0xe == 0xa {
			// VFP: armasm knows a part of it, with other spellings.
			if s, ok := vfpText(x, armCondNames[cond]); ok {
				it.text = s
				return it
			}
		}
		switch {
		case x == 0xe1a00000:
			it.text = "nop" // mov r0, r0, as objdump spells it
		case err != nil:
			it.text = fmt.Sprintf(".inst\t0x%08x", x)
			if s, ok := coprocText(x, armCondNames[cond], cond == 0xf); ok && x&0x0c000000 == 0x0c000000 {
				it.text = s
			}
		default:
			it.text = armasm.GNUSyntax(in)
			if x&0x0ff00000 == 0x08a00000 && strings.HasPrefix(it.text, "stm") && !strings.HasPrefix(it.text[3:], "ia") {
				// objdump spells out stmia with writeback (stm and ldm otherwise).
				it.text = it.text[:3] + "ia" + it.text[3:]
			}
			for _, a := range in.Args {
				if r, ok := a.(armasm.PCRel); ok && it.hasTarget {
					it.text = strings.Replace(it.text, fmt.Sprintf(".%+#x", int32(r)+4), provider.FormatAddress(it.target), 1)
				}
			}
		}
	}
	return it
}

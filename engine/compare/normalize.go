package compare

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Normalization turns an instruction's text into a token that is the same
// in two builds of the same code wherever it sits: absolute addresses,
// PC-relative displacements and the immediates that relocations fill in
// are masked, and a direct branch, call or code reference becomes a
// reference kept beside the token (to an instruction of the same procedure
// by distance, to another procedure by identity) so that matching can
// follow it and classification can compare it through the matching.
//
// The text is the provider's (read_function_instructions, with §0's
// annotations: "0x1200 <f3>" for a direct target, a trailing
// "; 0x4010 <g>" or `; "string"` for a PC-relative operand). A string
// preview is kept in the token: it is content, not an address.

// Reference kinds of an instruction.
const (
	refNone  uint8 = iota
	refIntra       // val = target instruction index - this index
	refProc        // val = target procedure's index on its side
	refOther       // a code address that is neither (masked)
)

// Flow of an instruction, for basic blocks.
const (
	flowNone uint8 = iota
	flowCall
	flowJump // a direct jump (conditional or not): ends a block
	flowEnd  // return, indirect jump, trap: ends a block
)

// insn is one normalized instruction, packed into 8 bytes (a side of a
// large library holds millions): the token's index into the comparison's
// token table, the reference kind and the flow in one word, and the
// reference's value.
type insn struct {
	word uint32 // token<<4 | ref<<2 | flow
	val  int32
}

// maxTokens is how many distinct tokens a packed insn can name.
const maxTokens = 1 << 28

func newInsn(tok uint32, ref, flow uint8, val int32) insn {
	return insn{word: tok<<4 | uint32(ref&3)<<2 | uint32(flow&3), val: val}
}

func (x insn) tok() uint32 { return x.word >> 4 }
func (x insn) ref() uint8  { return uint8(x.word>>2) & 3 }
func (x insn) flow() uint8 { return uint8(x.word) & 3 }

// sideIndex answers what a normalizer needs to know about its side.
type sideIndex struct {
	entries  map[uint64]int32 // procedure entry -> index
	segments []Range          // masked address ranges (see maskable)
	pic      bool             // a segment starts at 0: position-independent
}

// maskable reports whether an immediate is an address of the image: inside
// a mapped segment of an image linked at a fixed address. A
// position-independent image (its first segment at 0) has no absolute
// addresses in its code, only PC-relative ones, and a constant that falls
// inside its address range (9875 in a 12 KiB executable) must stay visible.
func (s *sideIndex) maskable(v uint64) bool {
	if s.pic {
		return false
	}
	for _, r := range s.segments {
		if r.Start != 0 && v >= r.Start && v < r.End {
			return true
		}
	}
	return false
}

// normalized is one instruction before interning.
type normalized struct {
	tok    string
	target uint64 // code target when hasTarget
	hasTgt bool
	flow   uint8
}

// normalizeText normalizes one instruction's text. stub is set for a
// stub through a slot (isStub), whose numbers are all slot addresses and
// relocation indices (the PLT's "push 0xb3"), which move when any import
// is added; the symbol it reaches is kept in the slot's name (symbolName).
func normalizeText(text string, six *sideIndex, stub bool) normalized {
	var n normalized
	body, ann, hasAnn := strings.Cut(text, " ; ")
	mn, ops, _ := strings.Cut(strings.TrimSpace(body), " ")
	if hasUpper(mn) {
		mn = strings.ToLower(mn)
	}
	n.flow = flowOf(mn, ops)
	if !stub && !hasAnn && six.pic && (n.flow == flowNone || n.flow == flowEnd) && mn != "adrp" && mn != "adr" &&
		!strings.Contains(ops, " <") && !strings.Contains(ops, "rip") {
		n.tok = mn // nothing to mask: the text is the token (no copy)
		if ops != "" {
			n.tok = strings.TrimSpace(body)
			if len(n.tok) != len(mn)+1+len(ops) || n.tok[:len(mn)] != mn {
				n.tok = mn + " " + ops
			}
		}
		return n
	}
	var b strings.Builder
	b.Grow(len(text))
	b.WriteString(mn)
	if ops != "" {
		b.WriteByte(' ')
	}
	maskAll := stub || mn == "adrp" || mn == "adr"
	ripMasked := false
	// A direct target "0x… <…>" in the operands.
	if i := strings.Index(ops, " <"); i >= 0 {
		start := strings.LastIndexAny(ops[:i], " ,") + 1
		if v, ok := parseHex(ops[start:i]); ok {
			if k := strings.LastIndexByte(ops, '>'); k > i {
				n.target, n.hasTgt = v, true
				ops = ops[:start] + "@" + ops[k+1:]
			}
		}
	}
	if !n.hasTgt && (n.flow == flowCall || n.flow == flowJump) {
		// A bare target: the last operand, when it is a number.
		j := strings.LastIndexAny(ops, " ,")
		if v, ok := parseHex(ops[j+1:]); ok {
			n.target, n.hasTgt = v, true
			ops = ops[:j+1] + "@"
		}
	}
	if strings.Contains(ops, "rip") {
		ops, ripMasked = maskRIP(ops)
	}
	if hasAnn && !ripMasked {
		maskAll = true // the operand is PC-relative in a form without rip (arm lo12, literal)
	}
	writeOperands(&b, ops, six, maskAll)
	if hasAnn {
		if textPreview(ann) {
			b.WriteString(" ;")
			b.WriteString(ann)
		} else if strings.HasPrefix(ann, `"`) {
			b.WriteString(" ;D")
		} else if v, ok := annotationAddress(ann); ok && !n.hasTgt {
			if _, isProc := six.entries[v]; isProc {
				n.target, n.hasTgt = v, true // a procedure's address taken
				b.WriteString(" ;P")
			} else if name, ok := symbolName(ann, v); ok {
				b.WriteString(" ;<") // a GOT/IAT slot or a named datum: what it names is content
				b.WriteString(name)
				b.WriteByte('>')
			} else {
				b.WriteString(" ;D")
			}
		} else {
			b.WriteString(" ;D")
		}
	}
	n.tok = b.String()
	return n
}

// symbolName reads the symbol of an annotation "0x… <name>" that names
// the address itself: an import's GOT or IAT slot ("<memcpy>"), an exported
// variable. A call through a slot so compares by the import it reaches,
// wherever the slot sits. An offset from a symbol ("<_fini+0x978>"), a
// section-relative label ("<.rodata+0x10>") or a name derived from the
// address (data_4010) is where the datum sits, not what it is: none is
// kept. A compiler's numbering of local statics ("buf.12") is masked.
func symbolName(ann string, addr uint64) (string, bool) {
	_, rest, _ := strings.Cut(ann, " ")
	if len(rest) < 3 || rest[0] != '<' || rest[len(rest)-1] != '>' {
		return "", false
	}
	name := rest[1 : len(rest)-1]
	if name == "" || name[0] == '.' || strings.ContainsAny(name, "<> ") || strings.Contains(name, "+0x") ||
		strings.Contains(name, "-0x") || syntheticName(name, addr) {
		return "", false
	}
	if i := strings.LastIndexByte(name, '.'); i > 0 && i < len(name)-1 && strings.Trim(name[i+1:], "0123456789") == "" {
		name = name[:i+1] + "#"
	}
	return name, true
}

// slotName is the symbol a token keeps from its annotation (symbolName),
// or "".
func slotName(tok string) string {
	i := strings.LastIndex(tok, " ;<")
	if i < 0 || !strings.HasSuffix(tok, ">") {
		return ""
	}
	return tok[i+3 : len(tok)-1]
}

// minPreview is the shortest string preview kept in a token: shorter ones
// are as likely the bytes of a pointer (which change when data moves) that
// the provider previewed as text.
const minPreview = 4

// textPreview reports whether a string annotation reads as text: at least
// minPreview characters, no control characters but tab and newline.
func textPreview(ann string) bool {
	if !strings.HasPrefix(ann, `"`) {
		return false
	}
	u, err := strconv.Unquote(ann)
	if err != nil {
		return false
	}
	n := 0
	for _, r := range u {
		if r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r == utf8.RuneError {
			return false
		}
		n++
	}
	return n >= minPreview
}

// isNop reports whether a normalized token is a no-operation: alignment
// padding, whose presence and length inside a procedure depend on where the
// procedure was placed.
func isNop(tok string) bool {
	mn, _, _ := strings.Cut(tok, " ")
	return mn == "nop" || mn == "nopw" || mn == "nopl" || tok == "data16 nop" || tok == "xchg ax, ax" ||
		strings.HasPrefix(tok, "data16 ") && strings.Contains(tok, "nop")
}

// flowOf classifies a mnemonic (x86, arm64, arm).
func flowOf(mn, ops string) uint8 {
	if mn == "" {
		return flowNone
	}
	switch {
	case mn == "call" || mn == "bl" || mn == "blx" || mn == "blr" || strings.HasPrefix(mn, "call"):
		return flowCall
	case strings.HasPrefix(mn, "ret") || mn == "hlt" || mn == "ud2" || mn == "br" || mn == "bx" ||
		mn == "eret" || mn == "brk" || mn == "udf" || mn == "int3":
		return flowEnd
	case mn == "jmp" || mn == "b":
		if strings.Contains(ops, "[") || isRegister(ops) {
			return flowEnd // indirect
		}
		return flowJump
	case mn[0] == 'j' || strings.HasPrefix(mn, "b.") || mn == "cbz" || mn == "cbnz" || mn == "tbz" ||
		mn == "tbnz" || strings.HasPrefix(mn, "loop") || isARMCondBranch(mn):
		return flowJump
	}
	return flowNone
}

var armConds = [...]string{"eq", "ne", "cs", "cc", "hs", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al"}

func isARMCondBranch(mn string) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(mn, ".w"), ".n")
	if len(base) != 3 || base[0] != 'b' {
		return false
	}
	for _, c := range armConds {
		if base[1:] == c {
			return true
		}
	}
	return false
}

func isRegister(ops string) bool {
	ops = strings.TrimSpace(ops)
	if ops == "" || strings.ContainsAny(ops, " ,#") {
		return false
	}
	_, isNum := parseHex(ops)
	return !isNum
}

// maskRIP replaces the displacement of rip-relative operands.
func maskRIP(ops string) (string, bool) {
	var b strings.Builder
	masked := false
	for {
		i := strings.Index(ops, "rip")
		if i < 0 {
			b.WriteString(ops)
			return b.String(), masked
		}
		b.WriteString(ops[:i+3])
		ops = ops[i+3:]
		if len(ops) > 0 && (ops[0] == '+' || ops[0] == '-') {
			j := 1
			for j < len(ops) && isNumChar(ops[j]) {
				j++
			}
			if j > 1 {
				b.WriteString("+#")
				ops = ops[j:]
				masked = true
			}
		}
	}
}

func isNumChar(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == 'x' || c == 'X'
}

// writeOperands copies ops, masking numbers: all of them when maskAll (the
// operand is PC-relative), else those that are addresses of the image.
func writeOperands(b *strings.Builder, ops string, six *sideIndex, maskAll bool) {
	if !maskAll && six.pic {
		b.WriteString(ops) // nothing to mask (see maskable)
		return
	}
	for i := 0; i < len(ops); {
		c := ops[i]
		if c >= '0' && c <= '9' && (i == 0 || !isIdentChar(ops[i-1])) {
			j := i
			for j < len(ops) && isNumChar(ops[j]) {
				j++
			}
			v, ok := parseNumber(ops[i:j])
			if ok && (maskAll || six.maskable(v)) {
				b.WriteByte('#')
			} else {
				b.WriteString(ops[i:j])
			}
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

func isIdentChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.'
}

func parseNumber(s string) (uint64, bool) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return parseHex(s)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

func parseHex(s string) (uint64, bool) {
	if !strings.HasPrefix(s, "0x") || len(s) < 3 || len(s) > 18 {
		return 0, false
	}
	v, err := strconv.ParseUint(s[2:], 16, 64)
	return v, err == nil
}

// annotationAddress reads the address of a "0x… <…>" annotation.
func annotationAddress(ann string) (uint64, bool) {
	a, _, _ := strings.Cut(ann, " ")
	return parseHex(a)
}

// syntheticName reports whether name is derived from the procedure's own
// address (sub_1200, FUN_00101200, fcn.00001200): such names change when
// code moves and never match.
func syntheticName(name string, addr uint64) bool {
	h := strconv.FormatUint(addr, 16)
	l := strings.ToLower(name)
	i := len(l)
	for i > 0 && isHexDigit(l[i-1]) {
		i--
	}
	if i == len(l) || i == 0 || (l[i-1] != '_' && l[i-1] != '.') {
		return false
	}
	return strings.TrimLeft(l[i:], "0") == strings.TrimLeft(h, "0") || l[i:] == h
}

func isHexDigit(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

package builtin

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/signature"
)

// The lift cache keeps a procedure's call sites packed (packCalls): a
// signature.Call and its arguments hold a dozen string and integer fields
// each (about 600 heap bytes a call site on libc), and a library such as
// libLLVM has hundreds of thousands of call sites. Packed, a call site is
// its fields as varints and length-prefixed strings, the kinds and the
// common argument registers as one byte, addresses relative to the call,
// and an argument's Text left out when it is what signature writes for
// its value anyway (textForms); procedure_calls unpacks the one procedure
// it answers. The packed bytes are the cache's own and live only in this
// process, so the layout may change freely.

// packedKinds are the value and callee kinds a byte stands for; a kind not
// listed is written out (byteLiteral).
var packedKinds = []string{
	signature.KindConstant, signature.KindString, signature.KindAddress, signature.KindSymbol,
	signature.KindStack, signature.KindExpression, signature.KindUnknown,
	"direct", "import", "indirect", "tail",
}

// packedStorages are the argument storages a byte stands for: the
// argument registers of the conventions signature knows and the first
// stack slots; another storage is written out.
var packedStorages = storageNames()

func storageNames() []string {
	var names []string
	for _, cv := range []*abi.Convention{abi.SysV(), abi.Win64(), abi.FastCall(), abi.AAPCS64(), abi.GoAMD64(), abi.GoARM64()} {
		for _, r := range cv.Args() {
			if !slices.Contains(names, r) {
				names = append(names, r)
			}
		}
	}
	for off := int64(0); off <= 0x40; off += 4 {
		names = append(names, signature.StackName(off))
	}
	return names
}

const byteLiteral = 0xff

// textForms are the argument Texts signature derives from the rest of the
// value: the form's index (1 up) is packed instead of the text, 0 for a
// text written out. could says whether a text of the form may begin as
// the one at hand does: packing runs for every procedure lifted, and it
// renders only the forms that could match.
var textForms = []struct {
	could func(text string) bool
	text  func(a *signature.Arg) string
}{
	{func(t string) bool { return t == "?" }, func(*signature.Arg) string { return "?" }},
	{hexText, func(a *signature.Arg) string { return signature.Hex(uint64(a.Value.Integer)) }},
	{decimalText, func(a *signature.Arg) string { return strconv.FormatInt(a.Value.Integer, 10) }},
	{hexText, func(a *signature.Arg) string { return signature.Hex(a.Value.Address) }},
	{func(t string) bool { return strings.HasPrefix(t, `"`) }, func(a *signature.Arg) string { return signature.Quote(a.Value.String) }},
	{func(string) bool { return true }, func(a *signature.Arg) string { return a.Storage }},
}

func hexText(t string) bool { return strings.HasPrefix(t, "0x") }

func decimalText(t string) bool { return t != "" && (t[0] == '-' || t[0] >= '0' && t[0] <= '9') }

// textFormOf is the text form (1 up) that rebuilds a's Text, or 0.
func textFormOf(a *signature.Arg) int {
	for i, f := range textForms {
		if f.could(a.Value.Text) && f.text(a) == a.Value.Text {
			return i + 1
		}
	}
	return 0
}

// packedWidths are the argument widths a width code (1 up) stands for; 0
// is a width written out.
var packedWidths = []int{0, 1, 2, 4, 8, 16, 32}

// An argument's flags: which optional fields follow.
const (
	argHasInt  = 1 << iota // Value.HasInt
	argHasAddr             // Value.HasAddr
	argInteger             // Value.Integer ≠ 0 follows
	argAddress             // Value.Address ≠ 0 follows, relative to the call
	argString              // Value.String ≠ "" follows
	argIndex               // Index ≠ the argument's position follows
)

// A callee's flags.
const (
	calleeHasAddress = 1 << iota // Callee.HasAddress
	calleeAddress                // Callee.Address ≠ 0 follows, relative to the call
)

// packer packs call sites in memory it keeps from one procedure to the
// next; what it returns is a copy of exactly the packed size.
type packer struct{ b []byte }

func (p *packer) uvarint(v uint64) { p.b = binary.AppendUvarint(p.b, v) }
func (p *packer) varint(v int64)   { p.b = binary.AppendVarint(p.b, v) }
func (p *packer) str(s string)     { p.uvarint(uint64(len(s))); p.b = append(p.b, s...) }

// oneOf writes s as its index in table, or as byteLiteral and s.
func (p *packer) oneOf(table []string, s string) {
	if i := slices.Index(table, s); i >= 0 && i < byteLiteral {
		p.b = append(p.b, byte(i))
		return
	}
	p.b = append(p.b, byteLiteral)
	p.str(s)
}

// packCalls packs calls (nil for none).
func packCalls(calls []signature.Call) []byte {
	var p packer
	return p.pack(calls)
}

func (p *packer) pack(calls []signature.Call) []byte {
	if len(calls) == 0 {
		return nil
	}
	p.b = p.b[:0]
	p.uvarint(uint64(len(calls)))
	var prev uint64
	for _, c := range calls {
		p.varint(int64(c.Addr - prev))
		prev = c.Addr
		flags := byte(0)
		if c.Callee.HasAddress {
			flags |= calleeHasAddress
		}
		if c.Callee.Address != 0 {
			flags |= calleeAddress
		}
		p.b = append(p.b, flags)
		if flags&calleeAddress != 0 {
			p.varint(int64(c.Callee.Address - c.Addr))
		}
		p.str(c.Callee.Name)
		p.oneOf(packedKinds, c.Callee.Kind)
		p.uvarint(uint64(len(c.Args)))
		for j := range c.Args {
			p.arg(c.Addr, j, &c.Args[j])
		}
	}
	return bytes.Clone(p.b)
}

func (p *packer) arg(call uint64, j int, a *signature.Arg) {
	v := &a.Value
	flags := byte(0)
	for bit, set := range []bool{v.HasInt, v.HasAddr, v.Integer != 0, v.Address != 0, v.String != "", a.Index != j} {
		if set {
			flags |= 1 << bit
		}
	}
	form := textFormOf(a)
	width := slices.Index(packedWidths, a.Width) + 1
	p.b = append(p.b, flags, byte(form)<<4|byte(width))
	p.oneOf(packedStorages, a.Storage)
	p.oneOf(packedKinds, v.Kind)
	if flags&argIndex != 0 {
		p.varint(int64(a.Index))
	}
	if width == 0 {
		p.varint(int64(a.Width))
	}
	if flags&argInteger != 0 {
		p.varint(v.Integer)
	}
	if flags&argAddress != 0 {
		p.varint(int64(v.Address - call))
	}
	if flags&argString != 0 {
		p.str(v.String)
	}
	if form == 0 {
		p.str(v.Text)
	}
}

type unpacker struct {
	b   []byte
	bad bool
}

func (u *unpacker) uvarint() uint64 {
	v, n := binary.Uvarint(u.b)
	if n <= 0 {
		u.bad, u.b = true, nil
		return 0
	}
	u.b = u.b[n:]
	return v
}

func (u *unpacker) varint() int64 {
	v, n := binary.Varint(u.b)
	if n <= 0 {
		u.bad, u.b = true, nil
		return 0
	}
	u.b = u.b[n:]
	return v
}

func (u *unpacker) byte1() byte {
	if len(u.b) == 0 {
		u.bad = true
		return 0
	}
	c := u.b[0]
	u.b = u.b[1:]
	return c
}

func (u *unpacker) str() string {
	n := u.uvarint()
	if n > uint64(len(u.b)) {
		u.bad, u.b = true, nil
		return ""
	}
	s := string(u.b[:n])
	u.b = u.b[n:]
	return s
}

// oneOf reads what packer.oneOf wrote.
func (u *unpacker) oneOf(table []string) string {
	k := u.byte1()
	if int(k) < len(table) {
		return table[k]
	}
	if k != byteLiteral {
		u.bad = true
		return ""
	}
	return u.str()
}

// unpackCalls is packCalls' inverse; ok is false when b is not what
// packCalls wrote (the cache's own bytes: never expected).
func unpackCalls(b []byte) ([]signature.Call, bool) {
	if len(b) == 0 {
		return nil, true
	}
	u := &unpacker{b: b}
	n := u.uvarint()
	if n > uint64(len(u.b)) {
		return nil, false
	}
	var out []signature.Call
	if n > 0 {
		out = make([]signature.Call, 0, n)
	}
	var prev uint64
	for i := uint64(0); i < n && !u.bad; i++ {
		var c signature.Call
		c.Addr = prev + uint64(u.varint())
		prev = c.Addr
		flags := u.byte1()
		c.Callee.HasAddress = flags&calleeHasAddress != 0
		if flags&calleeAddress != 0 {
			c.Callee.Address = c.Addr + uint64(u.varint())
		}
		c.Callee.Name = u.str()
		c.Callee.Kind = u.oneOf(packedKinds)
		na := u.uvarint()
		if na > uint64(len(u.b)) {
			return nil, false
		}
		if na > 0 {
			c.Args = make([]signature.Arg, na)
		}
		for j := range c.Args {
			if u.bad {
				break
			}
			u.arg(c.Addr, j, &c.Args[j])
		}
		out = append(out, c)
	}
	if u.bad || len(u.b) != 0 {
		return nil, false
	}
	return out, true
}

func (u *unpacker) arg(call uint64, j int, a *signature.Arg) {
	v := &a.Value
	flags, fw := u.byte1(), u.byte1()
	form, width := int(fw>>4), int(fw&15)
	if flags >= argIndex<<1 || form > len(textForms) || width > len(packedWidths) {
		u.bad = true
		return
	}
	v.HasInt, v.HasAddr = flags&argHasInt != 0, flags&argHasAddr != 0
	a.Storage = u.oneOf(packedStorages)
	v.Kind = u.oneOf(packedKinds)
	a.Index = j
	if flags&argIndex != 0 {
		if a.Index = int(u.varint()); a.Index == j {
			u.bad = true // packer writes the index only when it is not j
		}
	}
	if width > 0 {
		a.Width = packedWidths[width-1]
	} else if a.Width = int(u.varint()); slices.Contains(packedWidths, a.Width) {
		u.bad = true
	}
	if flags&argInteger != 0 {
		v.Integer = u.varint()
	}
	if flags&argAddress != 0 {
		v.Address = call + uint64(u.varint())
	}
	if flags&argString != 0 {
		v.String = u.str()
	}
	if form > 0 {
		v.Text = textForms[form-1].text(a)
	} else {
		v.Text = u.str()
	}
}

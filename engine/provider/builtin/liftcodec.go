package builtin

import (
	"encoding/binary"
	"slices"

	"github.com/rea-re/rea/engine/signature"
)

// The lift cache keeps a procedure's call sites packed (packCalls): a
// signature.Call and its arguments hold a dozen string and integer fields
// each (about 600 heap bytes a call site on libc), and a library such as
// libLLVM has hundreds of thousands of call sites. Packed, a call site is
// its fields as varints and length-prefixed strings, the kinds as one
// byte; procedure_calls unpacks the one procedure it answers.

// packedKinds are the value and callee kinds a byte stands for; a kind not
// listed is written out (kindLiteral).
var packedKinds = []string{
	signature.KindConstant, signature.KindString, signature.KindAddress, signature.KindSymbol,
	signature.KindStack, signature.KindExpression, signature.KindUnknown,
	"direct", "import", "indirect", "tail",
}

const kindLiteral = 0xff

type packer struct{ b []byte }

func (p *packer) uvarint(v uint64) { p.b = binary.AppendUvarint(p.b, v) }
func (p *packer) varint(v int64)   { p.b = binary.AppendVarint(p.b, v) }
func (p *packer) str(s string)     { p.uvarint(uint64(len(s))); p.b = append(p.b, s...) }

func (p *packer) kind(k string) {
	if i := slices.Index(packedKinds, k); i >= 0 {
		p.b = append(p.b, byte(i))
		return
	}
	p.b = append(p.b, kindLiteral)
	p.str(k)
}

// packCalls packs calls (nil for none).
func packCalls(calls []signature.Call) []byte {
	if len(calls) == 0 {
		return nil
	}
	p := &packer{}
	p.uvarint(uint64(len(calls)))
	for _, c := range calls {
		p.uvarint(c.Addr)
		flags := byte(0)
		if c.Callee.HasAddress {
			flags |= 1
		}
		p.b = append(p.b, flags)
		p.uvarint(c.Callee.Address)
		p.str(c.Callee.Name)
		p.kind(c.Callee.Kind)
		p.uvarint(uint64(len(c.Args)))
		for _, a := range c.Args {
			p.varint(int64(a.Index))
			p.str(a.Storage)
			p.uvarint(uint64(a.Width))
			v := a.Value
			p.kind(v.Kind)
			p.str(v.Text)
			flags := byte(0)
			if v.HasInt {
				flags |= 1
			}
			if v.HasAddr {
				flags |= 2
			}
			p.b = append(p.b, flags)
			p.varint(v.Integer)
			p.str(v.String)
			p.uvarint(v.Address)
		}
	}
	return slices.Clip(p.b)
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

func (u *unpacker) kind() string {
	k := u.byte1()
	if int(k) < len(packedKinds) {
		return packedKinds[k]
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
	var out []signature.Call
	for i := uint64(0); i < n && !u.bad; i++ {
		var c signature.Call
		c.Addr = u.uvarint()
		c.Callee.HasAddress = u.byte1()&1 != 0
		c.Callee.Address = u.uvarint()
		c.Callee.Name = u.str()
		c.Callee.Kind = u.kind()
		na := u.uvarint()
		if na > uint64(len(u.b)) {
			return nil, false
		}
		if na > 0 {
			c.Args = make([]signature.Arg, 0, na)
		}
		for j := uint64(0); j < na && !u.bad; j++ {
			var a signature.Arg
			a.Index = int(u.varint())
			a.Storage = u.str()
			a.Width = int(u.uvarint())
			a.Value.Kind = u.kind()
			a.Value.Text = u.str()
			flags := u.byte1()
			a.Value.HasInt, a.Value.HasAddr = flags&1 != 0, flags&2 != 0
			a.Value.Integer = u.varint()
			a.Value.String = u.str()
			a.Value.Address = u.uvarint()
			c.Args = append(c.Args, a)
		}
		out = append(out, c)
	}
	if u.bad || len(u.b) != 0 {
		return nil, false
	}
	return out, true
}

package builtin

import (
	"bytes"
	"context"
	"debug/dwarf"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"strconv"

	"github.com/rea-re/rea/engine/abi"
	"github.com/rea-re/rea/engine/provider"
)

// DWARF prototypes: when the file has DWARF, a subprogram's formal
// parameters and return type are the procedure's prototype (source
// "dwarf"), the source of truth over what data flow infers. Storage is
// where the calling convention passes each parameter.

// dwarfFunc is one subprogram's prototype as DWARF declares it.
type dwarfFunc struct {
	ret       string // "" for void
	params    []dwarfParam
	variadic  bool
	frameBase any // raw DW_AT_frame_base
	locals    []dwarfLocal
}

type dwarfParam struct {
	name, typ string
	float     bool
	size      int64
}

// dwarfProtos is every DWARF subprogram with code, by entry address.
type dwarfProtos struct {
	funcs map[uint64]*dwarfFunc
}

// openDWARF returns the DWARF of the image, nil when it has none.
func openDWARF(img *image, data []byte) (*dwarf.Data, error) {
	r := bytes.NewReader(data)
	switch {
	case img.elf != nil:
		f, e := elf.NewFile(r)
		if e != nil || f.Section(".debug_info") == nil && f.Section(".zdebug_info") == nil {
			return nil, nil
		}
		return f.DWARF()
	case img.pe != nil:
		f, e := pe.NewFile(r)
		if e != nil || f.Section(".debug_info") == nil {
			return nil, nil
		}
		return f.DWARF()
	case img.macho != nil:
		f, e := macho.NewFile(r)
		if e != nil || f.Section("__debug_info") == nil {
			return nil, nil
		}
		return f.DWARF()
	}
	return nil, nil
}

func buildDWARFProtos(ctx context.Context, img *image, data []byte) (dp *dwarfProtos, err error) {
	dp = &dwarfProtos{funcs: map[uint64]*dwarfFunc{}}
	defer func() {
		if r := recover(); r != nil {
			dp, err = &dwarfProtos{funcs: map[uint64]*dwarfFunc{}}, nil // malformed DWARF: no prototypes from it
		}
	}()
	d, derr := openDWARF(img, data)
	if d == nil || derr != nil {
		return dp, nil
	}
	rd := d.Reader()
	aux := d.Reader()
	// origin returns the entry an abstract origin or specification names.
	origin := func(e *dwarf.Entry) *dwarf.Entry {
		for _, at := range []dwarf.Attr{dwarf.AttrAbstractOrigin, dwarf.AttrSpecification} {
			if off, ok := e.Val(at).(dwarf.Offset); ok {
				aux.Seek(off)
				if o, err := aux.Next(); err == nil && o != nil {
					return o
				}
			}
		}
		return nil
	}
	attr := func(e *dwarf.Entry, a dwarf.Attr) any {
		if v := e.Val(a); v != nil {
			return v
		}
		if o := origin(e); o != nil {
			if v := o.Val(a); v != nil {
				return v
			}
			if o2 := origin(o); o2 != nil {
				return o2.Val(a)
			}
		}
		return nil
	}
	typeOf := func(e *dwarf.Entry) (string, bool, int64, bool) {
		off, ok := attr(e, dwarf.AttrType).(dwarf.Offset)
		if !ok {
			return "", false, 0, false
		}
		t, err := d.Type(off)
		if err != nil {
			return "", false, 0, false
		}
		_, float := underlying(t).(*dwarf.FloatType)
		return cType(t, 0), float, t.Size(), true
	}
	for n := 0; ; n++ {
		if n&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		e, err := rd.Next()
		if err != nil || e == nil {
			break
		}
		switch {
		case e.Tag == dwarf.TagCompileUnit || e.Tag == 0:
			continue // a unit's children are read; 0 ends one
		case e.Tag != dwarf.TagSubprogram:
			if e.Children {
				rd.SkipChildren()
			}
			continue
		}
		f := &dwarfFunc{}
		f.ret, _, _, _ = typeOf(e)
		f.frameBase = e.Val(dwarf.AttrFrameBase)
		// its parameters are its direct children; its locals are variables
		// among them and in its lexical blocks (an inlined callee's are the
		// callee's, a nested function's its own)
		var scope func(depth int)
		scope = func(depth int) {
			for {
				k, err := rd.Next()
				if err != nil || k == nil || k.Tag == 0 {
					return
				}
				switch {
				case k.Tag == dwarf.TagFormalParameter && depth == 0 && k.Val(dwarf.AttrVarParam) == true:
					// Go's results (~r0): DW_AT_variable_parameter marks an
					// output parameter, which no C compiler emits
				case k.Tag == dwarf.TagFormalParameter && depth == 0:
					typ, float, size, _ := typeOf(k)
					name, _ := attr(k, dwarf.AttrName).(string)
					f.params = append(f.params, dwarfParam{name: name, typ: typ, float: float, size: size})
				case k.Tag == dwarf.TagUnspecifiedParameters && depth == 0:
					f.variadic = true
				case k.Tag == dwarf.TagVariable && len(f.locals) < maxLocals && k.Val(dwarf.AttrDeclaration) == nil:
					typ, size := "", int64(-1)
					if off, ok := attr(k, dwarf.AttrType).(dwarf.Offset); ok {
						if t, err := d.Type(off); err == nil {
							typ, size = localType(t), t.Size()
						}
					}
					name, _ := attr(k, dwarf.AttrName).(string)
					f.locals = append(f.locals, dwarfLocal{name: name, typ: typ, size: size,
						loc: k.Val(dwarf.AttrLocation), constant: k.Val(dwarf.AttrConstValue) != nil})
				case k.Tag == dwarf.TagLexDwarfBlock && k.Children && depth < 32:
					scope(depth + 1)
					continue
				}
				if k.Children {
					rd.SkipChildren()
				}
			}
		}
		if e.Children {
			scope(0)
		}
		if low, ok := e.Val(dwarf.AttrLowpc).(uint64); ok && low != 0 {
			if _, seen := dp.funcs[low]; !seen {
				dp.funcs[low] = f
			}
		}
	}
	return dp, nil
}

// cType renders a DWARF type as C writes it ("const char *"; Go's
// String writes "*const char").
func cType(t dwarf.Type, depth int) string {
	if depth > 16 {
		return "?"
	}
	switch q := t.(type) {
	case *dwarf.PtrType:
		if _, ok := q.Type.(*dwarf.VoidType); ok || q.Type == nil {
			return "void *"
		}
		if _, ok := q.Type.(*dwarf.FuncType); ok {
			return "void (*)()" // a function pointer, its signature aside
		}
		e := cType(q.Type, depth+1)
		if len(e) > 0 && e[len(e)-1] == '*' {
			return e + "*"
		}
		return e + " *"
	case *dwarf.QualType:
		return q.Qual + " " + cType(q.Type, depth+1)
	case *dwarf.ArrayType:
		return cType(q.Type, depth+1) + " *"
	case *dwarf.VoidType:
		return "void"
	}
	return t.String()
}

// localType renders a variable's type: C's declarator for an array
// ("char[32]"), cType otherwise.
func localType(t dwarf.Type) string {
	dims := ""
	for i := 0; i < 8; i++ {
		a, ok := t.(*dwarf.ArrayType)
		if !ok {
			break
		}
		if a.Count >= 0 {
			dims += "[" + strconv.FormatInt(a.Count, 10) + "]"
		} else {
			dims += "[]"
		}
		t = a.Type
	}
	return cType(t, 0) + dims
}

func underlying(t dwarf.Type) dwarf.Type {
	for i := 0; i < 16; i++ {
		switch q := t.(type) {
		case *dwarf.TypedefType:
			t = q.Type
		case *dwarf.QualType:
			t = q.Type
		default:
			return t
		}
	}
	return t
}

func (c *Client) dwarfProtos(ctx context.Context, op string) (*dwarfProtos, error) {
	dp, err := c.ix.dprotos.get(ctx, func(ctx context.Context) (*dwarfProtos, error) { return buildDWARFProtos(ctx, c.ix.img, c.data) })
	if err != nil {
		return nil, buildFault(op, err)
	}
	return dp, nil
}

// dwarfPrototype renders f under convention cv; inferred, when it has as
// many parameters, gives their storage (data flow saw where they are
// read), else they are placed as the convention places them.
func dwarfPrototype(f *dwarfFunc, cv *abi.Convention, inferred *provider.Prototype) *provider.Prototype {
	p := &provider.Prototype{Params: []provider.ProtoParam{}, Variadic: f.variadic, Source: "dwarf"}
	if cv != nil {
		p.CallingConvention = cv.Name
	}
	if f.ret != "" {
		p.Return = &provider.ProtoReturn{Type: f.ret}
		if cv != nil && len(cv.IntReturn) > 0 {
			p.Return.Storage = cv.IntReturn[0]
		}
		if inferred != nil && inferred.Return != nil {
			p.Return.Storage = inferred.Return.Storage
		}
	}
	ni, nf := 0, 0
	var stack int64
	if cv != nil {
		stack = cv.StackArgs
	}
	for i, q := range f.params {
		name := q.name
		if name == "" {
			name = "a" + strconv.Itoa(i+1)
		}
		storage := ""
		switch {
		case inferred != nil && len(inferred.Params) == len(f.params):
			storage = inferred.Params[i].Storage
		case cv == nil:
		case q.float && nf < len(cv.FloatArgs):
			storage = cv.FloatArgs[nf]
			nf++
		case !q.float && ni < len(cv.IntArgs) && q.size <= int64(cv.PtrWidth/8):
			storage = cv.IntArgs[ni]
			ni++
		default:
			storage = "stack+0x" + strconv.FormatInt(stack, 16)
			stack += max(cv.StackSlot, (q.size+cv.StackSlot-1)/cv.StackSlot*cv.StackSlot)
		}
		p.Params = append(p.Params, provider.ProtoParam{Name: name, Type: q.typ, Storage: storage, Source: "dwarf"})
	}
	return p
}

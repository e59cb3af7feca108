package builtin

import (
	"reflect"
	"unsafe"
)

// sizer estimates the heap bytes a value keeps reachable: the backing
// arrays of its slices (by capacity), its strings' bytes, its maps (entries
// times key and value size, times mapOverhead for buckets and control
// bytes) and what its pointers point at, each counted once however many
// times it is referenced. It is what REA_MEMORY_LIMIT is checked against
// (registry.go): an estimate computed from the data structures, not a
// measurement; TestIndexSizeEstimate compares it with the heap a built
// index really holds. Bytes of a memory-mapped file are not heap and are
// not counted (a slice into a mapping is skipped).
type sizer struct {
	seen     map[uintptr]bool
	pointers map[reflect.Type]bool
	mapped   []byte // the file mapping, whose bytes are not heap (may be nil)
}

// mapOverhead is Go's map cost over its raw entries (buckets of eight,
// tophash bytes, a load factor of 6.5/8, overflow buckets), rounded up.
const mapOverhead = 2

func newSizer() *sizer {
	return &sizer{seen: map[uintptr]bool{}, pointers: map[reflect.Type]bool{}}
}

// exclude marks what p points at as counted elsewhere.
func (s *sizer) exclude(p unsafe.Pointer) {
	if p != nil {
		s.seen[uintptr(p)] = true
	}
}

// root returns the bytes reachable from the pointer p (the pointee's own
// size included), even when p was excluded: it is the value being sized.
func (s *sizer) root(v any) int64 {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return s.of(rv)
	}
	s.seen[rv.Pointer()] = true
	return int64(rv.Type().Elem().Size()) + s.of(rv.Elem())
}

// hasPointers reports whether values of t refer to other memory.
func (s *sizer) hasPointers(t reflect.Type) bool {
	if p, ok := s.pointers[t]; ok {
		return p
	}
	s.pointers[t] = true // recursive types: assume so while deciding
	p := false
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.String, reflect.Map, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		p = true
	case reflect.Array:
		p = t.Len() > 0 && s.hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if s.hasPointers(t.Field(i).Type) {
				p = true
				break
			}
		}
	}
	s.pointers[t] = p
	return p
}

// inMapping reports whether addr lies in the file mapping.
func (s *sizer) inMapping(addr uintptr) bool {
	if len(s.mapped) == 0 {
		return false
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(s.mapped)))
	return addr >= lo && addr < lo+uintptr(len(s.mapped))
}

// of returns the bytes reachable from v, not counting v's own inline size
// (its parent counted that).
func (s *sizer) of(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || s.seen[v.Pointer()] {
			return 0
		}
		s.seen[v.Pointer()] = true
		return int64(v.Type().Elem().Size()) + s.of(v.Elem())
	case reflect.Slice:
		if v.IsNil() || v.Cap() == 0 {
			return 0
		}
		p := v.Pointer()
		if s.seen[p] || s.inMapping(p) {
			return 0
		}
		s.seen[p] = true
		et := v.Type().Elem()
		n := int64(v.Cap()) * int64(et.Size())
		if s.hasPointers(et) {
			for i := range v.Len() {
				n += s.of(v.Index(i))
			}
		}
		return n
	case reflect.String:
		if v.Len() == 0 {
			return 0
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(v.String())))
		if s.seen[p] || s.inMapping(p) {
			return 0
		}
		s.seen[p] = true
		return int64(v.Len())
	case reflect.Map:
		if v.IsNil() || s.seen[v.Pointer()] {
			return 0
		}
		s.seen[v.Pointer()] = true
		kt, vt := v.Type().Key(), v.Type().Elem()
		n := int64(v.Len()) * int64(kt.Size()+vt.Size()+1) * mapOverhead
		if s.hasPointers(kt) || s.hasPointers(vt) {
			it := v.MapRange()
			for it.Next() {
				n += s.of(it.Key()) + s.of(it.Value())
			}
		}
		return n
	case reflect.Struct:
		var n int64
		for i := range v.NumField() {
			if f := v.Field(i); s.hasPointers(f.Type()) {
				n += s.of(f)
			}
		}
		return n
	case reflect.Array:
		var n int64
		if s.hasPointers(v.Type().Elem()) {
			for i := range v.Len() {
				n += s.of(v.Index(i))
			}
		}
		return n
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer || e.Kind() == reflect.Map || e.Kind() == reflect.Slice || e.Kind() == reflect.String {
			return s.of(e)
		}
		return int64(e.Type().Size()) + s.of(e)
	}
	return 0
}

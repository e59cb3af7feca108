package ctypes

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParseTable holds the table's parser to its grammar: on any text it
// returns a table or an error, never panics, and what it accepts renders as
// declarations and constants without panicking.
func FuzzParseTable(f *testing.F) {
	f.Add(tableText)
	for _, block := range strings.Split(tableText, "\n\n") {
		f.Add(block)
	}
	f.Add("set s bits <x.h>\nA 1 mask=3 arm64=- win64=2\nheader <a.h> linux fortify\nint f(int x [s], ...);\nalias g f\n")
	f.Add("header -\nvoid (*f)(void);\nint g(int (*)(void (*)(int)), enum e x, struct s *y);\n")
	f.Fuzz(func(t *testing.T, text string) {
		tab, err := parseTable(text)
		if err != nil {
			return
		}
		for _, fn := range tab.order {
			if fn.Name == "" || !isIdent(fn.Name) {
				t.Fatalf("accepted a function without a name: %+v", fn)
			}
			d := fn.Declaration()
			if !strings.Contains(d, "("+fn.Name+")") {
				t.Fatalf("declaration %q does not name %s", d, fn.Name)
			}
			for abi := range numABIs {
				_ = fn.Return.Size(abi)
				for _, p := range fn.Params {
					_ = p.Type.Class(abi)
					_ = p.Render(0xffffffff, abi)
				}
			}
		}
		for _, s := range tab.sets {
			for abi := range numABIs {
				_ = s.Render(-1, abi)
			}
		}
	})
}

// FuzzRender checks Render's promise on arbitrary values: the expression
// evaluates, with the table's values, to the value it was given.
func FuzzRender(f *testing.F) {
	tab := theTable()
	var names []string
	for n := range tab.sets {
		names = append(names, n)
	}
	slices.Sort(names) // the fuzzer's inputs must mean the same set on every run
	f.Add(uint8(0), int64(0x241), uint8(0))
	f.Add(uint8(3), int64(-100), uint8(2))
	f.Fuzz(func(t *testing.T, set uint8, value int64, abiN uint8) {
		s := tab.sets[names[int(set)%len(names)]]
		abi := ABI(abiN % uint8(numABIs))
		byName := map[string]int64{}
		for _, c := range s.Consts(abi) {
			byName[c.Name] = c.Value
		}
		expr := s.Render(value, abi)
		if got, ok := evalRendered(expr, byName, s.Kind); !ok || got != value {
			t.Fatalf("set %s on %s: %d rendered %q = %d (ok=%v)", s.Name, abi, value, expr, got, ok)
		}
	})
}

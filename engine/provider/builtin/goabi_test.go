package builtin

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/abi"
)

// goABISource has //go:noinline functions of every register class Go's
// internal ABI assigns; each uses every word of its parameters (a
// string's pointer and length, a slice's three words), so the code reads
// all the registers the source passes.
const goABISource = `package main

import (
	"fmt"
	"os"
)

//go:noinline
func addInts(a, b, c int) int { return a*b + c }

//go:noinline
func mixed(a int, x float64, b int, y float64) float64 { return float64(a)*x + float64(b)*y }

//go:noinline
func strLen(s string, k int) int {
	if len(s) == 0 {
		return k
	}
	return int(s[0]) + len(s) + k
}

//go:noinline
func ptrSum(p *int, q *int32, n int) int { return *p + int(*q) + n }

//go:noinline
func manyInts(a, b, c, d, e, f, g, h, i int) int { return a + b*c - d + e*f - g + h*i }

//go:noinline
func floats3(x, y, z float64) float64 { return x*y - z }

//go:noinline
func flag(b bool, n int) int {
	if b {
		return n
	}
	return -n
}

//go:noinline
func none() int { return len(os.Args) }

//go:noinline
func sliceSum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s + cap(xs)
}

//go:noinline
func widths(a byte, b uint16, c int32, d int64) int64 { return int64(a) + int64(b) + int64(c) + d }

func main() {
	n := len(os.Args)
	p, q := n, int32(n)
	xs := make([]int, n, n+3)
	fmt.Println(addInts(n, 2, 3), mixed(n, 1.5, 4, 2.5), strLen(os.Args[0], n), ptrSum(&p, &q, n),
		manyInts(n, 1, 2, 3, 4, 5, 6, 7, 8), floats3(float64(n), 2, 3), flag(n > 1, n), none(), sliceSum(xs),
		widths(byte(n), uint16(n), int32(n), int64(n)))
}
`

// goABIWant reads goABISource and returns, per noinline function, the
// registers Go's internal ABI passes its parameters in under cv: each
// integer, pointer or bool word in the next integer register, each float
// in the next floating-point one, a string as two words and a slice as
// three; the integer registers first, then the floating ones, as
// prototypes list them.
func goABIWant(t *testing.T, cv *abi.Convention) map[string][]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", goABISource, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		// (CommentGroup.Text leaves directives out)
		if !ok || fd.Doc == nil || !strings.Contains(fmtComments(fd.Doc), "//go:noinline") {
			continue
		}
		ni, nf := 0, 0
		for _, field := range fd.Type.Params.List {
			words, float := 1, false
			switch ty := field.Type.(type) {
			case *ast.Ident:
				switch ty.Name {
				case "float64", "float32":
					float = true
				case "string":
					words = 2
				}
			case *ast.ArrayType:
				words = 3 // a slice
			}
			for range max(1, len(field.Names)) {
				if float {
					nf++
				} else {
					ni += words
				}
			}
		}
		regs := append([]string{}, cv.IntArgs[:ni]...)
		out["main."+fd.Name.Name] = append(regs, cv.FloatArgs[:nf]...)
	}
	return out
}

func fmtComments(g *ast.CommentGroup) string {
	var sb strings.Builder
	for _, c := range g.List {
		sb.WriteString(c.Text)
	}
	return sb.String()
}

// TestGoABIInternalPrototypes: the Go functions of a stripped Go binary
// (amd64 and arm64; pclntab names them) get prototypes under Go's
// internal register ABI whose parameter registers are the ones the Go
// source's parameters travel in; assembly functions of the runtime are no
// register-ABI code.
func TestGoABIInternalPrototypes(t *testing.T) {
	for _, arch := range []struct {
		goarch string
		cv     *abi.Convention
	}{{"amd64", abi.GoAMD64()}, {"arm64", abi.GoARM64()}} {
		t.Run(arch.goarch, func(t *testing.T) {
			path := keyedFixture(t, "goabi-"+arch.goarch, []string{"goabi", arch.goarch, goABISource}, func(dir, out string) (string, error) {
				if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(goABISource), 0o644); err != nil {
					return "", err
				}
				if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module goabi\n\ngo 1.22\n"), 0o644); err != nil {
					return "", err
				}
				goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
				if _, err := os.Stat(goBin); err != nil {
					goBin = "go"
				}
				return "", run(dir, []string{"GOOS=linux", "GOARCH=" + arch.goarch, "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false", "GOWORK=off"},
					goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
			})
			_, _, c := open(t, path)
			want := goABIWant(t, arch.cv)
			if len(want) != 10 {
				t.Fatalf("%d noinline functions in the source", len(want))
			}
			agree := 0
			for name, regs := range want {
				pi := procInfo(t, c, name)
				if pi.Prototype == nil {
					t.Errorf("%s: no prototype", name)
					continue
				}
				var got []string
				for _, q := range pi.Prototype.Params {
					got = append(got, q.Storage)
				}
				if pi.Prototype.CallingConvention != "abiinternal" || strings.Join(got, " ") != strings.Join(regs, " ") {
					t.Errorf("%s: %s %v, the source passes %v", name, pi.Prototype.CallingConvention, got, regs)
					continue
				}
				agree++
			}
			t.Logf("%s: %d of %d Go functions with the source's parameter registers", arch.goarch, agree, len(want))
			if agree != len(want) {
				t.Errorf("%d of %d", agree, len(want))
			}
			// runtime.memmove is assembly: its prototype is not Go's
			// register ABI (the table's flag says so).
			if pi := procInfo(t, c, "runtime.memmove"); pi.Prototype != nil && pi.Prototype.CallingConvention == "abiinternal" {
				t.Errorf("runtime.memmove (assembly) under %s", pi.Prototype.CallingConvention)
			}
		})
	}
}

// TestGoDWARFPrototypes: with Go's DWARF (an unstripped build), a
// function's DWARF prototype has the Go source's parameters, its results
// (output parameters in Go's DWARF) left out.
func TestGoDWARFPrototypes(t *testing.T) {
	path := keyedFixture(t, "goabi-dwarf", []string{"goabi-dwarf", goABISource}, func(dir, out string) (string, error) {
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(goABISource), 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module goabi\n\ngo 1.22\n"), 0o644); err != nil {
			return "", err
		}
		goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			goBin = "go"
		}
		return "", run(dir, []string{"GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false", "GOWORK=off"},
			goBin, "build", "-trimpath", "-o", out, ".")
	})
	_, _, c := open(t, path)
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", goABISource, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Doc == nil || !strings.Contains(fmtComments(fd.Doc), "//go:noinline") {
			continue
		}
		n := 0
		for _, field := range fd.Type.Params.List {
			n += max(1, len(field.Names))
		}
		pi := procInfo(t, c, "main."+fd.Name.Name)
		if pi.Prototype == nil || pi.Prototype.Source != "dwarf" || len(pi.Prototype.Params) != n || pi.Prototype.CallingConvention != "abiinternal" {
			t.Errorf("main.%s: %+v, the source has %d parameters", fd.Name.Name, pi.Prototype, n)
		}
		checked++
	}
	if checked != 10 {
		t.Errorf("%d functions checked", checked)
	}
}

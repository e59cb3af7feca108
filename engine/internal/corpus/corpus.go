// Package corpus is the C corpus of the signature and call-argument tests
// (issue 25): ≥ 120 functions written for the purpose (corpus.c), built
// with gcc and clang at -O0 … -O3 for x86-64, i386 and arm64 with -g, and
// what the tests read of a build: its procedures (bounded by the -g
// build's symbols), an image (strings, symbols, PLT stubs) and the two
// oracles, DWARF parameters and the literal arguments of the source's
// calls. It is a helper of tests (engine/signature and later stages) and
// never imported by the product.
package corpus

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed csrc/corpus.c
var source string

// Source is the corpus's C source.
func Source() string { return source }

// Target is one build of the corpus.
type Target struct {
	Arch     string // "x86-64", "i386", "arm64"
	Compiler string // "gcc", "clang", "mingw" (x86_64-w64-mingw32-gcc: PE, Win64)
	Opt      int    // 0 … 3
}

func (t Target) String() string { return fmt.Sprintf("%s/%s/O%d", t.Arch, t.Compiler, t.Opt) }

// Targets is the full matrix: three architectures, two compilers, four
// levels, and mingw's x86-64 PE (the Win64 convention) at four levels.
func Targets() []Target {
	var out []Target
	for _, a := range []string{"x86-64", "i386", "arm64"} {
		for _, c := range []string{"gcc", "clang"} {
			for o := 0; o <= 3; o++ {
				out = append(out, Target{a, c, o})
			}
		}
	}
	for o := 0; o <= 3; o++ {
		out = append(out, Target{"x86-64", "mingw", o})
	}
	return out
}

// command is the compiler and its target flags for t.
func (t Target) command() (string, []string) {
	switch t.Compiler {
	case "gcc":
		switch t.Arch {
		case "x86-64":
			return "gcc", nil
		case "i386":
			return "i686-linux-gnu-gcc", nil
		case "arm64":
			return "aarch64-linux-gnu-gcc", nil
		}
	case "mingw":
		switch t.Arch {
		case "x86-64":
			return "x86_64-w64-mingw32-gcc", nil
		case "i386":
			return "i686-w64-mingw32-gcc", nil
		}
	case "clang":
		switch t.Arch {
		case "x86-64":
			return "clang", nil
		case "i386":
			return "clang", []string{"--target=i686-linux-gnu"}
		case "arm64":
			return "clang", []string{"--target=aarch64-linux-gnu"}
		}
	}
	return "", nil
}

// ErrMissingTool says a build's compiler is not installed; Build wraps it
// with the tool's name, and tests skip (or fail under
// REA_REQUIRE_ALL_TOOLS=1) on it.
var ErrMissingTool = errors.New("corpus: compiler not installed")

// Build compiles the corpus for t into dir and returns the executable's
// path (with -g: it is its own unstripped twin).
func Build(dir string, t Target) (string, error) {
	cc, flags := t.command()
	if cc == "" {
		return "", fmt.Errorf("corpus: no compiler for %s", t)
	}
	path, err := exec.LookPath(cc)
	if err != nil {
		return "", fmt.Errorf("%w: %s (for %s)", ErrMissingTool, cc, t)
	}
	src := filepath.Join(dir, "corpus.c")
	if err := os.WriteFile(src, []byte(source), 0o600); err != nil {
		return "", err
	}
	out := filepath.Join(dir, strings.NewReplacer("/", "-").Replace(t.String()))
	if t.Compiler == "mingw" {
		out += ".exe"
	}
	args := append(flags, fmt.Sprintf("-O%d", t.Opt), "-g", "-w", "-fno-stack-protector", "-fcf-protection=none", "-o", out, src)
	if t.Arch == "arm64" && t.Compiler == "gcc" || t.Arch == "arm64" && t.Compiler == "clang" {
		args = append(flags, fmt.Sprintf("-O%d", t.Opt), "-g", "-w", "-fno-stack-protector", "-o", out, src)
	}
	if b, err := exec.Command(path, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("corpus: %s: %w\n%s", t, err, b)
	}
	return out, nil
}

package decompile_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/internal/corpus"
	"github.com/rea-re/rea/engine/signature"
	"github.com/rea-re/rea/internal/testkit"
)

// paramCType mirrors the emitter's C type of a parameter in a
// definition, for the harness's declarations.
func paramCType(q signature.Param) string {
	switch q.Class {
	case ctypes.ClassPointer:
		return "uint8_t *"
	case ctypes.ClassFloating:
		if q.Width == 32 {
			return "float"
		}
		return "double"
	}
	w := q.Width
	switch w {
	case 8, 16, 32, 64:
	default:
		w = 64
	}
	if q.Signed {
		return fmt.Sprintf("int%d_t", w)
	}
	return fmt.Sprintf("uint%d_t", w)
}

// behaves reports whether u can be run on random inputs: it calls
// nothing and takes and returns only numbers.
func behaves(u unit) bool {
	if u.calls || u.proto == nil || u.proto.Return == nil || u.proto.Variadic || u.name == "main" {
		return false
	}
	if u.proto.Return.Class == ctypes.ClassPointer {
		return false
	}
	for _, q := range u.proto.Params {
		if q.Class == ctypes.ClassPointer || strings.HasPrefix(q.Storage, "stack+") {
			return false
		}
	}
	return true
}

// harness writes the C driver that runs each original and its
// decompiled twin (rea_<name>) on the same random inputs, each call in a
// child process, and prints "name agreed disagreed" per function.
func harness(units []unit) string {
	var sb strings.Builder
	sb.WriteString(`#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
static uint64_t s = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static int64_t ival(void) {
	uint64_t r = rnd();
	switch (r & 7) {
	case 0: return 0;
	case 1: return 1;
	case 2: return -1;
	case 3: return (int64_t)(r >> 3);
	}
	return (int64_t)((r >> 3) % 41) - 20;
}
static double dval(void) { uint64_t r = rnd(); return ((double)((int64_t)((r >> 11) % 2001)) - 1000) / 8; }
typedef void (*thunk)(int which, uint64_t *out);
`)
	var table []string
	for k, u := range units {
		p := u.proto
		ret := paramCType(*p.Return)
		var types, args []string
		for i, q := range p.Params {
			types = append(types, paramCType(q))
			args = append(args, fmt.Sprintf("x%d_%d", k, i))
		}
		tl := strings.Join(types, ", ")
		if tl == "" {
			tl = "void"
		}
		fmt.Fprintf(&sb, "%s %s(%s);\n%s rea_%s(%s);\n", ret, u.name, tl, ret, u.name, tl)
		for i, t := range types {
			fmt.Fprintf(&sb, "static %s %s;\n", t, args[i])
		}
		fmt.Fprintf(&sb, "static void gen_%d(void) {", k)
		for i, q := range p.Params {
			if q.Class == ctypes.ClassFloating {
				fmt.Fprintf(&sb, " %s = (%s)dval();", args[i], types[i])
			} else {
				fmt.Fprintf(&sb, " %s = (%s)ival();", args[i], types[i])
			}
		}
		sb.WriteString(" }\n")
		al := strings.Join(args, ", ")
		fmt.Fprintf(&sb, "static void run_%d(int w, uint64_t *o) { %s r = w ? rea_%s(%s) : %s(%s); *o = 0; memcpy(o, &r, sizeof r); }\n", k, ret, u.name, al, u.name, al)
		table = append(table, fmt.Sprintf("{%q, gen_%d, run_%d}", u.name, k, k))
	}
	sb.WriteString("static struct { const char *name; void (*gen)(void); thunk run; } fns[] = {\n\t" + strings.Join(table, ",\n\t") + "\n};\n")
	sb.WriteString(`
static int once(thunk f, int w, uint64_t *out) {
	int fd[2];
	if (pipe(fd)) return -1;
	pid_t p = fork();
	if (p == 0) {
		close(fd[0]);
		alarm(2);
		uint64_t o;
		f(w, &o);
		if (write(fd[1], &o, 8) != 8) _exit(3);
		_exit(0);
	}
	close(fd[1]);
	*out = 0;
	ssize_t n = read(fd[0], out, 8);
	close(fd[0]);
	int st = 0;
	waitpid(p, &st, 0);
	if (n != 8 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return -1;
	return 0;
}
int main(void) {
	for (unsigned k = 0; k < sizeof fns / sizeof fns[0]; k++) {
		int ok = 0, bad = 0;
		for (int it = 0; it < 64; it++) {
			fns[k].gen();
			uint64_t a, b;
			if (once(fns[k].run, 0, &a) != 0) continue;
			if (once(fns[k].run, 1, &b) != 0 || a != b) bad++; else ok++;
		}
		printf("%s %d %d\n", fns[k].name, ok, bad);
		fflush(stdout);
	}
	return 0;
}
`)
	return sb.String()
}

// TestCorpusBehaves runs every corpus procedure that calls nothing and
// takes and returns numbers, decompiled, against the original on the
// same random inputs (64 per procedure, each call in a child process; an
// input on which the original faults or loops is left out), and prints
// the table of procedures that agree on every input.
func TestCorpusBehaves(t *testing.T) {
	targets := x86Targets()
	if testing.Short() {
		targets = []corpus.Target{{Arch: "x86-64", Compiler: "gcc", Opt: 0}, {Arch: "x86-64", Compiler: "gcc", Opt: 2}}
	}
	var table []string
	total, agreed := 0, 0
	for _, tg := range only(targets) {
		units, _, _ := decompileAll(t, tg, func(n string) string { return "rea_" + n })
		if units == nil {
			return
		}
		cc := testkit.Need(t, tg.Compiler)
		var sel []unit
		inCorpus := map[string]bool{}
		for _, n := range corpus.Functions() {
			inCorpus[n] = true
		}
		for _, u := range units {
			if behaves(u) && inCorpus[u.name] {
				sel = append(sel, u)
			}
		}
		dir := t.TempDir()
		src := filepath.Join(dir, "corpus.c")
		if err := os.WriteFile(src, []byte(corpus.Source()), 0o600); err != nil {
			t.Fatal(err)
		}
		run := func(name string, args ...string) ([]byte, error) {
			cmd := exec.Command(name, args...)
			cmd.Dir = dir
			return cmd.CombinedOutput()
		}
		if b, err := run(cc, fmt.Sprintf("-O%d", tg.Opt), "-c", "-w", "-fno-stack-protector", "-fcf-protection=none", "-Dmain=corpus_main", "-o", "corpus.o", "corpus.c"); err != nil {
			t.Fatalf("%s: %v\n%s", tg, err, b)
		}
		// Link; a unit that refers to a symbol the original's object does
		// not export (a local object REA could not copy) is left out and
		// counted as disagreeing.
		var unlinked []string
		for round := 0; ; round++ {
			files := []string{"h.c", "corpus.o"}
			for i, u := range sel {
				f := fmt.Sprintf("u%d.c", i)
				files = append(files, f)
				if err := os.WriteFile(filepath.Join(dir, f), []byte(u.text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "h.c"), []byte(harness(sel)), 0o600); err != nil {
				t.Fatal(err)
			}
			b, err := run(cc, append([]string{"-std=gnu11", "-O1", "-w", "-o", "h"}, files...)...)
			if err == nil {
				break
			}
			drop := map[string]bool{}
			for _, l := range strings.Split(string(b), "\n") {
				if i := strings.Index(l, "in function `rea_"); i >= 0 {
					n := l[i+len("in function `rea_"):]
					n, _, _ = strings.Cut(n, "'")
					drop[n] = true
				}
			}
			if len(drop) == 0 || round > 3 {
				t.Fatalf("%s: link: %v\n%s", tg, err, firstLines(string(b), 30))
			}
			kept := sel[:0]
			for _, u := range sel {
				if drop[u.name] {
					unlinked = append(unlinked, u.name)
				} else {
					kept = append(kept, u)
				}
			}
			sel = kept
		}
		out, err := run(filepath.Join(dir, "h"))
		if err != nil {
			t.Fatalf("%s: harness: %v\n%s", tg, err, out)
		}
		n, ok := len(unlinked), 0
		var bad []string
		for _, u := range unlinked {
			bad = append(bad, u+"(unlinked)")
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			var name string
			var a, d int
			if _, err := fmt.Sscanf(sc.Text(), "%s %d %d", &name, &a, &d); err != nil {
				t.Fatalf("harness output %q: %v", sc.Text(), err)
			}
			if a == 0 && d == 0 {
				continue // no input the original survives
			}
			n++
			if d == 0 {
				ok++
			} else {
				bad = append(bad, fmt.Sprintf("%s(%d/%d)", name, d, a+d))
			}
		}
		total += n
		agreed += ok
		table = append(table, fmt.Sprintf("%-18s %3d/%3d agree", tg, ok, n))
		if len(bad) > 0 {
			t.Logf("%s: disagree: %s", tg, strings.Join(bad, " "))
		}
	}
	t.Logf("procedures without calls that agree with the original on every input:\n%s", strings.Join(table, "\n"))
	if total == 0 {
		t.Fatal("no procedure was run")
	}
}

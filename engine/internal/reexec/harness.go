package reexec

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Toolchain is a C compiler family.
type Toolchain string

// Arch is a target architecture.
type Arch string

// The toolchains and architectures of the matrix.
const (
	GCC   Toolchain = "gcc"
	Clang Toolchain = "clang"
	AMD64 Arch      = "amd64"
	ARM64 Arch      = "arm64"
)

// Toolchains is the matrix's compiler axis.
func Toolchains() []Toolchain { return []Toolchain{GCC, Clang} }

// Arches is the matrix's architecture axis.
func Arches() []Arch { return []Arch{AMD64, ARM64} }

// Levels is the matrix's optimisation axis, -O0 … -O3.
func Levels() []int { return []int{0, 1, 2, 3} }

// Config is one cell of the matrix.
type Config struct {
	Toolchain Toolchain
	Level     int
	Arch      Arch
}

func (c Config) String() string { return fmt.Sprintf("%s/%s/O%d", c.Arch, c.Toolchain, c.Level) }

// Matrix is every cell: toolchain × level × architecture.
func Matrix() []Config {
	var out []Config
	for _, a := range Arches() {
		for _, t := range Toolchains() {
			for _, l := range Levels() {
				out = append(out, Config{t, l, a})
			}
		}
	}
	return out
}

// ErrMissingTool says a compiler or emulator is not installed; the
// harness wraps it with the tool's name. Tests skip on it (and fail under
// REA_REQUIRE_ALL_TOOLS=1).
var ErrMissingTool = errors.New("reexec: tool not installed")

// QEMULibDir is the arm64 sysroot qemu-aarch64 loads the dynamic linker
// and libc from (Debian's libc6-arm64-cross).
const QEMULibDir = "/usr/aarch64-linux-gnu"

// RunTimeout bounds one run of a test binary: a unit that loops forever
// fails instead of hanging the test.
const RunTimeout = 20 * time.Second

// Harness builds, links and runs the corpus's programs. It caches every
// object and binary it makes below its directory (one per test run), and
// runs at most a bounded number of compilers and programs at once. Safe
// for concurrent use.
type Harness struct {
	dir   string
	slots chan struct{}

	mu    sync.Mutex
	cache map[string]*cached
	tools map[string]toolPath
}

type cached struct {
	once sync.Once
	path string
	out  string // the tool's output when it failed
	err  error
}

type toolPath struct {
	path string
	err  error
}

// New returns a harness that works in dir (the caller's, removed by the
// caller) and runs at most parallel processes at once (at least 1).
func New(dir string, parallel int) *Harness {
	if parallel < 1 {
		parallel = 1
	}
	return &Harness{dir: dir, slots: make(chan struct{}, parallel), cache: map[string]*cached{}, tools: map[string]toolPath{}}
}

// compiler returns the compiler and its target flags for t on a.
func compiler(t Toolchain, a Arch) (string, []string) {
	switch {
	case t == GCC && a == AMD64:
		return "gcc", nil
	case t == GCC && a == ARM64:
		return "aarch64-linux-gnu-gcc", nil
	case t == Clang && a == AMD64:
		return "clang", nil
	case t == Clang && a == ARM64:
		return "clang", []string{"--target=aarch64-linux-gnu"}
	}
	return "", nil
}

// Available returns nil when everything a cell needs (its compiler, and
// qemu-aarch64 and the arm64 sysroot for arm64) is installed, else an
// error wrapping ErrMissingTool.
func (h *Harness) Available(t Toolchain, a Arch) error {
	cc, _ := compiler(t, a)
	if cc == "" {
		return fmt.Errorf("reexec: no compiler for %s on %s", t, a)
	}
	if _, err := h.lookPath(cc); err != nil {
		return err
	}
	if a == ARM64 {
		if _, err := h.lookPath("qemu-aarch64"); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(QEMULibDir, "lib", "ld-linux-aarch64.so.1")); err != nil {
			return fmt.Errorf("%w: the arm64 sysroot %s (Debian libc6-arm64-cross)", ErrMissingTool, QEMULibDir)
		}
	}
	return nil
}

func (h *Harness) lookPath(tool string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.tools[tool]; ok {
		return p.path, p.err
	}
	p, err := exec.LookPath(tool)
	if err != nil {
		err = fmt.Errorf("%w: %s", ErrMissingTool, tool)
	}
	h.tools[tool] = toolPath{p, err}
	return p, err
}

// Binary is a build of one case: the function alone in its own object,
// linked with its test main.
type Binary struct {
	Path string // the executable (not stripped: the function keeps its symbol)
	Func string // the function's symbol
	Addr uint64 // the function's address in the executable
	Size uint64 // its symbol's size
	Arch Arch
}

// Build compiles c's function with toolchain t at -O<level> for a, as a
// user would (no flags beyond the level: the compiler's defaults decide
// inlining of its own callees, and the function is in an object of its own
// so it is never inlined into main), links it with the test main, and
// returns the executable.
func (h *Harness) Build(ctx context.Context, c Case, t Toolchain, level int, a Arch) (Binary, error) {
	if err := h.Available(t, a); err != nil {
		return Binary{}, err
	}
	fobj, err := h.object(ctx, t, a, c.Name+".c", c.Source, fmt.Sprintf("-O%d", level))
	if err != nil {
		return Binary{}, err
	}
	bin, err := h.link(ctx, t, a, c, fobj)
	if err != nil {
		return Binary{}, err
	}
	b := Binary{Path: bin, Func: c.Proto.Name, Arch: a}
	f, err := elf.Open(bin)
	if err != nil {
		return Binary{}, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return Binary{}, fmt.Errorf("reexec: %s: %w", bin, err)
	}
	for _, s := range syms {
		if s.Name == c.Proto.Name && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			b.Addr, b.Size = s.Value, s.Size
			return b, nil
		}
	}
	return Binary{}, fmt.Errorf("reexec: %s has no symbol %s", bin, c.Proto.Name)
}

// Result is the verdict of one run of a test main.
type Result struct {
	Pass bool
	// Stage is where a failure happened: "compile" (the unit), "link",
	// "run" (an assertion failed, or the program crashed or timed out);
	// "" on a pass.
	Stage  string
	Output string // the compiler's, linker's or program's output
}

// Check compiles unit (a C translation unit defining c's function) with
// toolchain t for a at -O0 with -std=gnu11, links it with c's test main
// and runs it. A unit that does not compile or link, or a program that
// fails, is a Result that does not pass; the error is for what keeps the
// check from happening (a missing tool, a cancelled ctx).
func (h *Harness) Check(ctx context.Context, c Case, t Toolchain, a Arch, unit string) (Result, error) {
	if err := h.Available(t, a); err != nil {
		return Result{}, err
	}
	uobj, err := h.object(ctx, t, a, c.Name+"_unit.c", unit, "-std=gnu11", "-O0", "-w")
	if err != nil {
		var ce *compileError
		if errors.As(err, &ce) {
			return Result{Stage: "compile", Output: ce.out}, nil
		}
		return Result{}, err
	}
	bin, err := h.link(ctx, t, a, c, uobj)
	if err != nil {
		var ce *compileError
		if errors.As(err, &ce) {
			return Result{Stage: "link", Output: ce.out}, nil
		}
		return Result{}, err
	}
	return h.Run(ctx, Binary{Path: bin, Func: c.Proto.Name, Arch: a})
}

// Run runs a built test main (under qemu-aarch64 on arm64) and reports
// whether its assertions held.
func (h *Harness) Run(ctx context.Context, b Binary) (Result, error) {
	name, args := b.Path, []string(nil)
	if b.Arch == ARM64 {
		q, err := h.lookPath("qemu-aarch64")
		if err != nil {
			return Result{}, err
		}
		name, args = q, []string{"-L", QEMULibDir, b.Path}
	}
	if err := h.acquire(ctx); err != nil {
		return Result{}, err
	}
	defer h.release()
	rctx, cancel := context.WithTimeout(ctx, RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, name, args...)
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	if err != nil {
		msg := out.String()
		if rctx.Err() != nil {
			msg += fmt.Sprintf("\n(timed out after %s)", RunTimeout)
		} else {
			msg += "\n(" + err.Error() + ")"
		}
		return Result{Stage: "run", Output: strings.TrimSpace(msg)}, nil
	}
	return Result{Pass: true, Output: out.String()}, nil
}

// compileError is a compiler's or linker's refusal, with its output.
type compileError struct {
	what, out string
}

func (e *compileError) Error() string { return "reexec: " + e.what + ":\n" + e.out }

// object compiles src (named name) with t for a and flags, once per
// distinct input, and returns the object's path.
func (h *Harness) object(ctx context.Context, t Toolchain, a Arch, name, src string, flags ...string) (string, error) {
	cc, tflags := compiler(t, a)
	key := append([]string{"object", string(t), string(a), name, src}, flags...)
	return h.once(ctx, key, func(dir string) (string, error) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, CheckHeader), []byte(header()), 0o600); err != nil {
			return "", err
		}
		obj := strings.TrimSuffix(path, ".c") + ".o"
		args := append(append(append([]string{}, tflags...), flags...), "-c", "-o", obj, path)
		return obj, h.exec(ctx, "compile "+name+" ("+string(t)+"/"+string(a)+")", dir, cc, args...)
	})
}

// link compiles c's test main (once per toolchain and architecture) and
// links it with fobj, the object that defines the function.
func (h *Harness) link(ctx context.Context, t Toolchain, a Arch, c Case, fobj string) (string, error) {
	tobj, err := h.object(ctx, t, a, c.Name+"_test.c", c.Test, "-O0", "-w")
	if err != nil {
		return "", err
	}
	cc, tflags := compiler(t, a)
	return h.once(ctx, []string{"link", string(t), string(a), fobj, tobj}, func(dir string) (string, error) {
		bin := filepath.Join(dir, c.Name)
		args := append(append([]string{}, tflags...), "-o", bin, fobj, tobj, "-lm")
		return bin, h.exec(ctx, "link "+c.Name+" ("+string(t)+"/"+string(a)+")", dir, cc, args...)
	})
}

// once runs build for key the first time only, in a directory of its
// own; later callers (concurrent ones wait) get the same answer. A build
// cut short by a cancelled context is not remembered.
func (h *Harness) once(ctx context.Context, key []string, build func(dir string) (string, error)) (string, error) {
	s := sha256.New()
	for _, k := range key {
		fmt.Fprintf(s, "%d:%s;", len(k), k)
	}
	id := hex.EncodeToString(s.Sum(nil))[:24]
	for {
		h.mu.Lock()
		e := h.cache[id]
		if e == nil {
			e = &cached{}
			h.cache[id] = e
		}
		h.mu.Unlock()
		e.once.Do(func() {
			dir := filepath.Join(h.dir, id)
			if e.err = os.MkdirAll(dir, 0o755); e.err == nil {
				e.path, e.err = build(dir)
			}
		})
		if e.err != nil && (errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded)) {
			h.mu.Lock()
			if h.cache[id] == e {
				delete(h.cache, id)
			}
			h.mu.Unlock()
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			continue // another caller's context ended: build again under ours
		}
		return e.path, e.err
	}
}

// exec runs one compiler or linker in dir within a slot.
func (h *Harness) exec(ctx context.Context, what, dir, tool string, args ...string) error {
	path, err := h.lookPath(tool)
	if err != nil {
		return err
	}
	if err := h.acquire(ctx); err != nil {
		return err
	}
	defer h.release()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return &compileError{what: what, out: strings.TrimSpace(string(out)) + "\n(" + err.Error() + ")"}
	}
	return nil
}

func (h *Harness) acquire(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *Harness) release() { <-h.slots }

package testkit

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Hostile loader paths (CONTRACTS.md §0.3 "Paths a sample names"): ELF
// programs whose bytes name, as the program interpreter (PT_INTERP) or as
// needed libraries on their DT_RUNPATH, files REA must not read: devices,
// a FIFO, its own standard input, a directory, a sparse file far larger
// than any loader table, a FIFO and a symbolic-link loop. Every program is
// a real one, linked by gcc with -Wl,--dynamic-linker=PATH, so that its
// headers are the toolchain's, not a patch's.

// HostileLoaderFixture is one program and what REA must answer for it.
type HostileLoaderFixture struct {
	// Name says which path kind the program exercises.
	Name string
	// Path is the program.
	Path string
	// Interpreter is the PT_INTERP path, "" for the library fixture.
	Interpreter string
	// Reasons maps what carries a reason to the reason REA must give:
	// "interpreter" (triage's loading.interpreter) or a DT_NEEDED name (that
	// list_dependencies item).
	Reasons map[string]string
}

// hostileProgram imports one symbol from each library of the library
// fixture (so that the linker keeps their DT_NEEDED) and none otherwise.
const (
	hostileMainC = `#include <stdio.h>
int main(void) { return puts("rea hostile loader fixture") < 0; }
`
	hostileLibsC = `#include <stdio.h>
extern int rea_fifo_fn(void);
extern int rea_loop_fn(void);
int main(void) { return printf("%d\n", rea_fifo_fn() + rea_loop_fn()) < 0; }
`
	hostileFifoLibC = `int rea_fifo_fn(void) { return 1; }
`
	hostileLoopLibC = `int rea_loop_fn(void) { return 2; }
`
)

// HostileSparseSize is the size of the sparse interpreter: more than the
// 256 MiB REA ever reads of a file a sample names.
const HostileSparseSize = 300 << 20

// HostileLoaderFixtures builds the hostile loader programs into
// t.TempDir(), with the FIFOs, the directory, the sparse file and the loop
// they name. It needs gcc (Need) and Linux's /dev and /proc.
func HostileLoaderFixtures(t testing.TB) []HostileLoaderFixture {
	t.Helper()
	gcc := Need(t, "gcc")
	for _, p := range []string{"/dev/zero", "/dev/urandom", "/proc/self/fd/0"} {
		if _, err := os.Lstat(p); err != nil {
			SkipOrFail(t, "the hostile loader fixtures need "+p+": "+err.Error())
		}
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "interp-fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	idir := filepath.Join(dir, "interp-dir")
	if err := os.Mkdir(idir, 0o700); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "interp-sparse")
	f, err := os.OpenFile(sparse, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		err = f.Truncate(HostileSparseSize)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []HostileLoaderFixture
	for _, c := range []struct{ name, interp, reason string }{
		{"interpreter /dev/zero", "/dev/zero", "not_regular_file"},
		{"interpreter /dev/urandom", "/dev/urandom", "not_regular_file"},
		{"interpreter FIFO", fifo, "not_regular_file"},
		{"interpreter /dev/stdin", "/dev/stdin", "not_regular_file"},
		{"interpreter /proc/self/fd/0", "/proc/self/fd/0", "not_regular_file"},
		{"interpreter directory", idir, "not_regular_file"},
		// Zeros, as far as the header: no ELF object, and nothing past the
		// header is read.
		{"interpreter 300 MB sparse file", sparse, "not_loadable"},
	} {
		name := "interp-" + filepath.Base(c.interp)
		exe, err := BuildC(gcc, dir, name, hostileMainC, "-O1", "-Wl,--dynamic-linker="+c.interp)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, HostileLoaderFixture{Name: c.name, Path: exe, Interpreter: c.interp,
			Reasons: map[string]string{"interpreter": c.reason}})
	}
	// The library fixture: DT_RUNPATH $ORIGIN/lib, where libreafifo.so is a
	// FIFO and librealoop.so a symbolic link to itself.
	ldir := filepath.Join(dir, "libs")
	lib := filepath.Join(ldir, "lib")
	if err := os.MkdirAll(lib, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct{ name, src string }{{"reafifo", hostileFifoLibC}, {"realoop", hostileLoopLibC}} {
		if _, err := BuildC(gcc, lib, "lib"+l.name+".so", l.src, "-shared", "-fPIC", "-Wl,-soname,lib"+l.name+".so"); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := BuildC(gcc, ldir, "app", hostileLibsC, "-O1", "-L"+lib, "-Wl,--no-as-needed", "-lreafifo", "-lrealoop",
		"-Wl,--enable-new-dtags,-rpath,$ORIGIN/lib")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"libreafifo.so", "librealoop.so", "libreafifo.so.c", "librealoop.so.c"} {
		if err := os.Remove(filepath.Join(lib, p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mkfifo(filepath.Join(lib, "libreafifo.so"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("librealoop.so", filepath.Join(lib, "librealoop.so")); err != nil {
		t.Fatal(err)
	}
	out = append(out, HostileLoaderFixture{Name: "DT_RUNPATH directory with a FIFO and a symlink loop", Path: exe,
		Reasons: map[string]string{"libreafifo.so": "not_regular_file", "librealoop.so": "symlink_loop"}})
	return out
}

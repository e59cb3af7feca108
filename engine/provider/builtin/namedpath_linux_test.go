package builtin

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/internal/testkit"
)

// hangBound is how long a call on a hostile path may take before the test
// calls it hung: not a performance bound (a normal answer takes
// milliseconds), the difference between an answer and a read that never
// returns.
const hangBound = time.Minute

// noHang runs fn, failing the test if it does not return within hangBound.
func noHang(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(hangBound):
		t.Fatalf("%s: no answer within %v (a blocking read of a path the sample names?)", what, hangBound)
	}
}

// hostilePaths makes, in a fresh directory, one path of each kind REA
// refuses to read and returns them by name.
func hostilePaths(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	p := map[string]string{
		"fifo":    filepath.Join(dir, "fifo"),
		"dir":     filepath.Join(dir, "dir"),
		"loop":    filepath.Join(dir, "loop"),
		"missing": filepath.Join(dir, "missing"),
		"sparse":  filepath.Join(dir, "sparse"),
		"socket":  filepath.Join(dir, "socket"),
	}
	if err := unix.Mkfifo(p["fifo"], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p["dir"], 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop", p["loop"]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p["sparse"], nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p["sparse"], testkit.HostileSparseSize); err != nil {
		t.Fatal(err)
	}
	// An ELF header whose program headers lie past the first 256 MiB.
	p["far"] = filepath.Join(dir, "far")
	hdr := make([]byte, 64)
	copy(hdr, elf.ELFMAG)
	hdr[elf.EI_CLASS], hdr[elf.EI_DATA], hdr[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), 1
	binary.LittleEndian.PutUint64(hdr[0x20:], testkit.HostileSparseSize-4096) // e_phoff
	binary.LittleEndian.PutUint16(hdr[0x36:], 56)                             // e_phentsize
	binary.LittleEndian.PutUint16(hdr[0x38:], 1)                              // e_phnum
	if err := os.WriteFile(p["far"], hdr, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p["far"], testkit.HostileSparseSize); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: p["socket"]}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOpenNamedRefusesWhatIsNotARegularFile: openNamed opens regular files
// only, and says why not otherwise; /dev/stdin (a pipe here, so that a read
// would block) is refused without being read.
func TestOpenNamedRefusesWhatIsNotARegularFile(t *testing.T) {
	p := hostilePaths(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	for _, c := range []struct{ path, reason string }{
		{"/dev/zero", pathNotRegularFile},
		{"/dev/urandom", pathNotRegularFile},
		{"/proc/self/fd/" + strconv.Itoa(int(pr.Fd())), pathNotRegularFile}, // a pipe nobody writes
		{p["fifo"], pathNotRegularFile},
		{p["dir"], pathNotRegularFile},
		{p["socket"], pathNotRegularFile},
		{p["loop"], pathSymlinkLoop},
		{p["missing"], pathNotFound},
		{p["missing"] + "/below", pathNotFound},
		{p["sparse"] + "/below", pathNotFound}, // ENOTDIR
	} {
		noHang(t, c.path, func() {
			f, err := openNamed(t.Context(), c.path)
			if err == nil {
				f.Close()
				t.Errorf("%s: opened", c.path)
				return
			}
			var ne *NamedPathError
			if !errors.As(err, &ne) || ne.Reason != c.reason || ne.Path != c.path {
				t.Errorf("%s: %v, want reason %s", c.path, err, c.reason)
			}
			if _, err := readNamedAll(t.Context(), c.path); namedReason(err) != c.reason {
				t.Errorf("%s: readNamedAll: %v, want reason %s", c.path, err, c.reason)
			}
		})
	}
	// Nothing was read from the pipe: its one byte is still there.
	if _, err := pw.Write([]byte{'x'}); err != nil {
		t.Fatal(err)
	}
	var b [1]byte
	if n, err := pr.Read(b[:]); n != 1 || err != nil || b[0] != 'x' {
		t.Fatalf("the pipe gave %d %q %v", n, b[:n], err)
	}

	// The sparse file opens; reads stop at 256 MiB.
	f, err := openNamed(t.Context(), p["sparse"])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != testkit.HostileSparseSize {
		t.Fatalf("size %d", f.Size())
	}
	head := make([]byte, 64)
	if n, err := f.ReadAt(head, 0); n != 64 || err != nil {
		t.Fatalf("head: %d %v", n, err)
	}
	if _, err := f.ReadAt(head, maxNamedRead-32); namedReason(err) != pathTooLarge {
		t.Fatalf("a read across 256 MiB: %v", err)
	}
	if _, err := readNamedAll(t.Context(), p["sparse"]); namedReason(err) != pathTooLarge {
		t.Fatalf("readNamedAll of 300 MB: %v", err)
	}
	small := filepath.Join(t.TempDir(), "small")
	if err := os.WriteFile(small, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	sf, err := openNamed(t.Context(), small)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	if n, err := sf.ReadAt(head, 4); n != 6 || !errors.Is(err, io.EOF) || string(head[:n]) != "456789" {
		t.Fatalf("a read past the end: %d %v", n, err)
	}
	// A regular file of /proc (its size is 0) reads as empty.
	if b, err := readNamedAll(t.Context(), "/proc/self/status"); err != nil || len(b) != 0 {
		t.Fatalf("/proc/self/status: %d bytes, %v", len(b), err)
	}
}

// TestNamedFileObservesContext: a cancelled request's reads stop with its
// error, before any byte and between chunks.
func TestNamedFileObservesContext(t *testing.T) {
	p := hostilePaths(t)
	ctx, cancel := context.WithCancel(t.Context())
	f, err := openNamed(ctx, p["sparse"])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cancel()
	if _, err := f.ReadAt(make([]byte, 3*namedReadChunk), 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: %v", err)
	}
	if _, err := openNamed(ctx, p["sparse"]); !errors.Is(err, context.Canceled) {
		t.Fatalf("open after cancel: %v", err)
	}
	if _, _, _, err := elfDependencies(ctx, nil, p["sparse"], &hostLoader{cachePath: ldCachePath}); err != nil {
		t.Fatalf("unparsable bytes are a limitation, not an error: %v", err)
	}
}

// TestDependenciesOfHostilePaths exercises every place list_dependencies
// (and triage's loading part, which is the same answer) opens a path that a
// sample's bytes name — the audit of CONTRACTS.md §0.3 — with a path of a
// kind REA must not read. Each answers at once with the item's reason and
// a limitation of the record. The table is the audit:
//
//	site (deps.go)              the path the sample names
//	interpreterSoname           PT_INTERP
//	elfLoadable                 DT_NEEDED under DT_RUNPATH, DT_RPATH ($ORIGIN expanded)
//	elfLoadable                 DT_NEEDED with a slash (a path of its own)
//	elfLoadable                 an /etc/ld.so.cache entry for a DT_NEEDED name
//	hostLoader.ldCache          /etc/ld.so.cache itself (the host's path, read the same way)
//	machoDependencies           LC_LOAD_DYLIB by @rpath (LC_RPATH), @loader_path, absolute path
//	peDependencies              a DLL beside the target
//	hwcapLimitations            stat(2) of searched directories' subdirectories: never opens
func TestDependenciesOfHostilePaths(t *testing.T) {
	p := hostilePaths(t)
	x8664 := func(needed ...string) *elfDeps {
		return &elfDeps{class: elf.ELFCLASS64, data: elf.ELFDATA2LSB, machine: elf.EM_X86_64, typ: elf.ET_EXEC, needed: needed}
	}
	noCache := &hostLoader{cachePath: p["missing"]}
	resolve := func(t *testing.T, d *elfDeps, target string, h *hostLoader) ([]provider.Dependency, []string) {
		t.Helper()
		var deps []provider.Dependency
		var lims []string
		noHang(t, "resolve", func() {
			var err error
			deps, lims, err = d.resolve(t.Context(), target, h, nil)
			if err != nil {
				t.Errorf("resolve: %v", err)
			}
		})
		return deps, lims
	}
	wantItem := func(t *testing.T, deps []provider.Dependency, lims []string, name, reason string) {
		t.Helper()
		i := slices.IndexFunc(deps, func(d provider.Dependency) bool { return d.Name == name })
		if i < 0 {
			t.Fatalf("no item %s in %+v", name, deps)
		}
		if d := deps[i]; d.CandidatePath != nil || d.Reason == nil || *d.Reason != reason {
			t.Errorf("%s: candidate %v reason %v, want reason %s (search %+v)", name, d.CandidatePath, d.Reason, reason, d.Search)
		}
		if !slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, reason) }) {
			t.Errorf("%s: no limitation says %s: %q", name, reason, lims)
		}
	}
	libDir := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(libDir, "libfifo.so.1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("libloop.so.1", filepath.Join(libDir, "libloop.so.1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(libDir, "libzero.so.1")); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(libDir, "prog")
	cases := []struct {
		site, kind string
		run        func(t *testing.T)
	}{
		{"interpreterSoname", "PT_INTERP", func(t *testing.T) {
			for _, interp := range []string{"/dev/zero", "/dev/urandom", "/dev/stdin", "/proc/self/fd/0", p["fifo"], p["dir"], p["loop"], p["sparse"], p["far"]} {
				d := x8664(filepath.Base(interp))
				d.interp = interp
				deps, lims := resolve(t, d, target, noCache)
				want := pathNotRegularFile
				switch interp {
				case p["loop"]:
					want = pathSymlinkLoop
				case p["sparse"]:
					want = depNotLoadable
				case p["far"]:
					want = pathTooLarge
				case "/dev/stdin", "/proc/self/fd/0":
					if fi, err := os.Stat(interp); err == nil && fi.Mode().IsRegular() {
						continue // the test's stdin is a file: nothing hostile to check
					}
				}
				if d.interpReason != want {
					t.Errorf("%s: interpreter reason %q, want %s", interp, d.interpReason, want)
				}
				// The needed name equal to the interpreter's file name is it.
				wantItem(t, deps, lims, filepath.Base(interp), want)
				if deps[0].Search[0].Source != "interpreter" {
					t.Errorf("%s: search %+v", interp, deps[0].Search)
				}
			}
		}},
		{"elfLoadable", "DT_NEEDED under DT_RUNPATH $ORIGIN", func(t *testing.T) {
			d := x8664("libfifo.so.1", "libloop.so.1", "libzero.so.1")
			rp := "$ORIGIN"
			d.runpath = &rp
			deps, lims := resolve(t, d, target, noCache)
			wantItem(t, deps, lims, "libfifo.so.1", pathNotRegularFile)
			wantItem(t, deps, lims, "libloop.so.1", pathSymlinkLoop)
			wantItem(t, deps, lims, "libzero.so.1", pathNotRegularFile)
			for _, d := range deps {
				if len(d.Search) != 1 || !d.Search[0].Exists {
					t.Errorf("%s: the search goes on past what the loader stops at: %+v", d.Name, d.Search)
				}
			}
		}},
		{"elfLoadable", "DT_NEEDED under DT_RPATH", func(t *testing.T) {
			d := x8664("libfifo.so.1")
			rp := libDir
			d.rpath = &rp
			deps, lims := resolve(t, d, target, noCache)
			wantItem(t, deps, lims, "libfifo.so.1", pathNotRegularFile)
		}},
		{"elfLoadable", "DT_NEEDED with a slash", func(t *testing.T) {
			deps, lims := resolve(t, x8664("/dev/zero", "/dev/stdin", p["fifo"], p["loop"]), target, noCache)
			wantItem(t, deps, lims, "/dev/zero", pathNotRegularFile)
			wantItem(t, deps, lims, p["fifo"], pathNotRegularFile)
			wantItem(t, deps, lims, p["loop"], pathSymlinkLoop)
		}},
		{"elfLoadable", "ld.so.cache entry", func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "ld.so.cache")
			b := buildLdCache([]ldCacheEntry{{Flags: ldFlagX8664Lib64 | ldFlagELFLibc6, Name: "libcached.so.1", Path: p["fifo"]}}, nil)
			if err := os.WriteFile(cache, b, 0o600); err != nil {
				t.Fatal(err)
			}
			deps, lims := resolve(t, x8664("libcached.so.1"), target, &hostLoader{cachePath: cache})
			wantItem(t, deps, lims, "libcached.so.1", pathNotRegularFile)
			if s := deps[0].Search; len(s) != 1 || s[0].Source != "ld_so_cache" {
				t.Errorf("search %+v", s)
			}
		}},
		{"hostLoader.ldCache", "/etc/ld.so.cache", func(t *testing.T) {
			for _, c := range []struct{ path, reason string }{{p["fifo"], pathNotRegularFile}, {p["loop"], pathSymlinkLoop}, {"/dev/zero", pathNotRegularFile}} {
				_, lims := resolve(t, x8664("libnothing.so.1"), target, &hostLoader{cachePath: c.path})
				if !slices.ContainsFunc(lims, func(l string) bool {
					return strings.HasPrefix(l, c.path+" could not be read") && strings.Contains(l, c.reason)
				}) {
					t.Errorf("cache %s: limitations %q", c.path, lims)
				}
			}
		}},
		{"machoDependencies", "LC_LOAD_DYLIB @rpath, @loader_path, absolute", func(t *testing.T) {
			dir := t.TempDir()
			if err := unix.Mkfifo(filepath.Join(dir, "libfifo.dylib"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("libloop.dylib", filepath.Join(dir, "libloop.dylib")); err != nil {
				t.Fatal(err)
			}
			data := machoWithDylibs(machoStrCmd(lcRpath, 12, "@loader_path"),
				machoStrCmd(lcLoadDylib, 24, "@rpath/libfifo.dylib"),
				machoStrCmd(lcLoadDylib, 24, "@loader_path/libloop.dylib"),
				machoStrCmd(lcLoadDylib, 24, "/dev/zero"))
			img, err := parseImage(data)
			if err != nil {
				t.Fatal(err)
			}
			var deps []provider.Dependency
			var lims []string
			noHang(t, "machoDependencies", func() { deps, lims = machoDependencies(img, data, filepath.Join(dir, "app")) })
			wantItem(t, deps, lims, "@rpath/libfifo.dylib", pathNotRegularFile)
			wantItem(t, deps, lims, "@loader_path/libloop.dylib", pathSymlinkLoop)
			wantItem(t, deps, lims, "/dev/zero", pathNotRegularFile)
		}},
		{"peDependencies", "DLL beside the target", func(t *testing.T) {
			exe, _ := linkWinApp(t)
			dir := t.TempDir()
			b, err := os.ReadFile(exe)
			if err != nil {
				t.Fatal(err)
			}
			app := filepath.Join(dir, "app.exe")
			if err := os.WriteFile(app, b, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := unix.Mkfifo(filepath.Join(dir, "REAFIX.dll"), 0o600); err != nil {
				t.Fatal(err)
			}
			var deps []provider.Dependency
			var lims []string
			noHang(t, "list_dependencies", func() { deps, lims = dependenciesOf(t, app) })
			wantItem(t, deps, lims, "reafix.dll", pathNotRegularFile)
		}},
	}
	for _, c := range cases {
		t.Run(c.site+"/"+c.kind, c.run)
	}
}

// TestHostileLoaderFixtures: the gcc-built programs of the acceptance test
// (testkit.HostileLoaderFixtures), through the provider's list_dependencies
// and binary_triage: each item and the interpreter carry their reason.
func TestHostileLoaderFixtures(t *testing.T) {
	for _, fx := range testkit.HostileLoaderFixtures(t) {
		t.Run(fx.Name, func(t *testing.T) {
			var deps []provider.Dependency
			var lims []string
			var tr provider.Result
			noHang(t, fx.Name, func() {
				deps, lims = dependenciesOf(t, fx.Path)
				_, _, c := open(t, fx.Path)
				tr = do(t, c, provider.OpBinaryTriage, nil)
			})
			loading := tr.Normalized.(provider.Triage).Loading
			for what, reason := range fx.Reasons {
				if what == "interpreter" {
					in, _ := loading["interpreter"].(*provider.Interpreter)
					if in == nil || in.Path != fx.Interpreter || in.Reason == nil || *in.Reason != reason {
						t.Errorf("loading.interpreter %+v, want reason %s", in, reason)
					}
					if !slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, "PT_INTERP") && strings.Contains(l, reason) }) {
						t.Errorf("no limitation names the interpreter's reason %s: %q", reason, lims)
					}
					continue
				}
				i := slices.IndexFunc(deps, func(d provider.Dependency) bool { return d.Name == what })
				if i < 0 || deps[i].Reason == nil || *deps[i].Reason != reason {
					t.Errorf("%s: want reason %s in %+v", what, reason, deps)
				}
				items, _ := loading["dependencies"].([]provider.LoadingItem)
				if j := slices.IndexFunc(items, func(d provider.LoadingItem) bool { return d.Name == what }); j < 0 || items[j].Reason == nil || *items[j].Reason != reason {
					t.Errorf("triage loading: %s: want reason %s in %+v", what, reason, items)
				}
			}
		})
	}
}

// TestResolveObservesCancellation: the search of the host's file system
// for a sample's dependencies ends with the request's cancellation, not
// with a complete answer. The work here (20,000 DT_NEEDED names on a
// DT_RUNPATH of 100 directories: two million lookups) takes far longer
// than the cancel that follows its start.
func TestResolveObservesCancellation(t *testing.T) {
	dir := t.TempDir()
	needed := make([]string, 20000)
	for i := range needed {
		needed[i] = "libnone" + strconv.Itoa(i) + ".so"
	}
	dirs := make([]string, 100)
	for i := range dirs {
		dirs[i] = filepath.Join(dir, "d"+strconv.Itoa(i))
	}
	rp := strings.Join(dirs, ":")
	d := &elfDeps{class: elf.ELFCLASS64, data: elf.ELFDATA2LSB, machine: elf.EM_X86_64, typ: elf.ET_EXEC, needed: needed, runpath: &rp}
	ctx, cancel := context.WithCancel(t.Context())
	var deps []provider.Dependency
	var err error
	noHang(t, "resolve after cancel", func() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			deps, _, err = d.resolve(ctx, filepath.Join(dir, "prog"), &hostLoader{cachePath: filepath.Join(dir, "no-cache")}, nil)
		}()
		cancel()
		<-done
	})
	if !errors.Is(err, context.Canceled) || deps != nil {
		t.Fatalf("resolve after cancel: %d items, %v", len(deps), err)
	}
}

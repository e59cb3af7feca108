package builtin

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// warmSubject copies a Debian executable over warmMinSize into a temporary
// file the test may change.
func warmSubject(t *testing.T) string {
	t.Helper()
	const src = "/usr/bin/gdb" // .ci/run installs gdb; ~10 MB
	in, err := os.Open(src)
	if err != nil {
		if requireAll() {
			t.Fatalf("%s: %v", src, err)
		}
		t.Skipf("%s is not installed (Debian package gdb): %v", src, err)
	}
	defer in.Close()
	path := filepath.Join(t.TempDir(), "subject")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// warming is the warm index in p's slot, or nil.
func warming(p *Provider) *warmIndex {
	p.warm.mu.Lock()
	defer p.warm.mu.Unlock()
	return p.warm.w
}

// warmed is a provider warming a fresh copy of a large Debian executable:
// the provider, the file, the warm index in its slot and its abandon.
func warmed(t *testing.T) (*Provider, string, *warmIndex, func()) {
	t.Helper()
	path := warmSubject(t)
	p := New("test")
	abandon := warmOf(t, p, path)
	w := warming(p)
	if w == nil {
		t.Fatal("no warm index for a large ELF file")
	}
	return p, path, w, abandon
}

func warmOf(t *testing.T, p *Provider, path string) func() {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return p.Warm(path, fi)
}

// An unchanged file's warm index is the one Profile caches and Start uses,
// with its symbols built in the background: the first listing does not
// build them again.
func TestWarmIndexAdoptedWhenFileUnchanged(t *testing.T) {
	p, path, w, abandon := warmed(t)
	tg := targetFor(t, path)
	prof, err := p.Profile(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	abandon() // after Profile took it over: must not stop it
	if got := lookupIndex(p, tg.SHA256, prof.Digest); got != w.ix {
		t.Fatal("Profile did not adopt the warm index")
	}
	if _, err := w.ix.syms.get(context.Background(), func(context.Context) (*symIndex, error) {
		t.Fatal("the warm build was stopped or never ran: the symbols were built again")
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	c := startOn(t, p, tg)
	if len(allProcedures(t, c)) == 0 {
		t.Fatal("no procedures from the warm index")
	}
}

// A file written after it was warmed (its status-change time moves) is
// profiled from its own bytes, and the warm index is stopped.
func TestWarmIndexDroppedWhenFileChanged(t *testing.T) {
	p, path, w, abandon := warmed(t)
	defer abandon()
	time.Sleep(10 * time.Millisecond) // a coarse file-system clock must tick
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0}, 64<<10); err != nil { // inside the file, past the headers
		t.Fatal(err)
	}
	f.Close()
	tg := targetFor(t, path)
	prof, err := p.Profile(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	if got := lookupIndex(p, tg.SHA256, prof.Digest); got == nil || got == w.ix {
		t.Fatalf("changed file: cached index %p, warm %p", got, w.ix)
	}
	left := warming(p)
	if left != w {
		t.Fatal("the warm slot changed though nothing took it")
	}
}

// Abandoning a warm index nobody took stops it and empties the slot; small
// files are not warmed at all.
func TestWarmAbandonAndSmallFiles(t *testing.T) {
	p, _, _, abandon := warmed(t)
	abandon()
	left := warming(p)
	if left != nil {
		t.Fatal("abandon left the warm index in its slot")
	}
	small := filepath.Join(t.TempDir(), "small")
	if err := os.WriteFile(small, []byte("\x7fELF"), 0o600); err != nil {
		t.Fatal(err)
	}
	warmOf(t, p, small)()
	left = warming(p)
	if left != nil {
		t.Fatal("a small file was warmed")
	}
}

func lookupIndex(p *Provider, sha256, profile string) *index {
	ix, _ := p.reg.lookup(indexKey{sha256: sha256, profile: profile})
	return ix
}

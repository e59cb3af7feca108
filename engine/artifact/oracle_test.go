package artifact

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// fixtureApp writes an Electron-shaped app tree: text sources, an
// executable script, a native addon (packed as unpacked), a multi-block
// file, an internal symlink and a nested ASAR packed by the packer itself.
func fixtureApp(t testing.TB, dir string) {
	t.Helper()
	write(t, filepath.Join(dir, "package.json"), []byte(`{"name":"fixture","version":"1.0.0","main":"main.js"}`), 0o644)
	write(t, filepath.Join(dir, "main.js"), []byte("const { app, BrowserWindow } = require('electron');\napp.whenReady();\n"), 0o644)
	write(t, filepath.Join(dir, "preload.js"), []byte("require('electron').contextBridge.exposeInMainWorld('api', {});\n"), 0o644)
	write(t, filepath.Join(dir, "renderer", "index.html"), []byte("<!doctype html><script src=app.js></script>\n"), 0o644)
	write(t, filepath.Join(dir, "renderer", "app.js"), []byte("window.api;\n"), 0o644)
	write(t, filepath.Join(dir, "bin", "run.sh"), []byte("#!/bin/sh\necho run\n"), 0o755)
	write(t, filepath.Join(dir, "native", "addon.node"), append([]byte("\x7fELF\x02\x01\x01\x00"), pattern(4000, 7)...), 0o644)
	write(t, filepath.Join(dir, "assets", "big.bin"), pattern(9<<20+123, 3), 0o644) // three 4 MiB blocks
	write(t, filepath.Join(dir, "assets", "empty.txt"), nil, 0o644)
	if err := os.Symlink("main.js", filepath.Join(dir, "entry.js")); err != nil {
		t.Fatal(err)
	}
	inner := filepath.Join(t.TempDir(), "inner")
	write(t, filepath.Join(inner, "index.js"), []byte("module.exports = 42;\n"), 0o644)
	write(t, filepath.Join(inner, "lib", "util.js"), []byte("exports.x = 1;\n"), 0o644)
	runAsar(t, "pack", inner, filepath.Join(dir, "vendor", "inner.asar"))
}

// packedApp packs the fixture app with the reference packer and returns the
// archive path and the source tree.
func packedApp(t testing.TB) (archive, src string) {
	t.Helper()
	base := t.TempDir()
	src = filepath.Join(base, "app")
	fixtureApp(t, src)
	archive = filepath.Join(base, "out", "app.asar")
	os.MkdirAll(filepath.Dir(archive), 0o755)
	runAsar(t, "pack", src, archive, "--unpack", "*.node")
	return archive, src
}

// TestASAROracle: REA's inventory of a packer-made archive agrees with the
// packer's own listing (`asar list -i`: paths and packed/unpacked) and with
// the bytes the packer extracts (`asar extract`), entry for entry, and the
// nested ASAR agrees with its own listing below its logical path.
func TestASAROracle(t *testing.T) {
	archive, src := packedApp(t)
	g := mustInventory(t, archive, FormatASAR, Options{})
	occ := occByPath(g)

	type listed struct{ path, where string }
	parse := func(out string) []listed {
		var ls []listed
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			where, p, ok := strings.Cut(line, " : ")
			if !ok {
				t.Fatalf("unexpected asar list line %q", line)
			}
			ls = append(ls, listed{strings.TrimPrefix(p, "/"), strings.TrimSpace(where)})
		}
		return ls
	}
	oracle := parse(runAsar(t, "list", "-i", archive))
	var want, got []string
	for _, l := range oracle {
		want = append(want, l.path)
		o, ok := occ[l.path]
		if !ok {
			t.Errorf("packer lists %q; REA has no occurrence", l.path)
			continue
		}
		if o.EntryKind == EntryFile && (l.where == "unpack") != (o.SourceLocation == nil) {
			t.Errorf("%s: packer says %s, REA source_location %v", l.path, l.where, o.SourceLocation)
		}
	}
	for p := range occ {
		if p != "." && !strings.HasPrefix(p, "vendor/inner.asar/") {
			got = append(got, p)
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if !slices.Equal(want, got) {
		t.Fatalf("paths differ:\npacker %v\nREA    %v", want, got)
	}

	// Bytes: what the packer extracts, what REA hashed, and the source.
	ex := filepath.Join(t.TempDir(), "ex")
	runAsar(t, "extract", archive, ex)
	files := 0
	for _, p := range want {
		o := occ[p]
		fi, err := os.Lstat(filepath.Join(ex, p))
		if err != nil {
			t.Fatalf("packer extract lacks %s: %v", p, err)
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			if o.EntryKind != EntrySymlink || linkTarget(&o) != "main.js" {
				t.Errorf("%s: REA %s %q, packer symlink", p, o.EntryKind, linkTarget(&o))
			}
		case fi.IsDir():
			if o.EntryKind != EntryDirectory {
				t.Errorf("%s: REA %s, packer directory", p, o.EntryKind)
			}
		default:
			files++
			b, _ := os.ReadFile(filepath.Join(ex, p))
			s, _ := os.ReadFile(filepath.Join(src, p))
			if o.EntryKind != EntryFile || o.HashStatus != HashVerified || nodeSHA(g, o) != sum(b) || sum(s) != sum(b) {
				t.Errorf("%s: REA %s %s %s, packer %s, source %s", p, o.EntryKind, o.HashStatus, nodeSHA(g, o), sum(b), sum(s))
			}
			if o.DeclaredSHA256 == nil || *o.DeclaredSHA256 != sum(b) {
				t.Errorf("%s: declared integrity %v", p, o.DeclaredSHA256)
			}
		}
	}
	if files < 9 {
		t.Fatalf("only %d files compared", files)
	}
	if !occ["bin/run.sh"].Executable || occ["main.js"].Executable {
		t.Errorf("executable flags: run.sh %v main.js %v", occ["bin/run.sh"].Executable, occ["main.js"].Executable)
	}

	// The nested archive agrees with its own listing.
	innerPath := filepath.Join(src, "vendor", "inner.asar")
	for _, l := range parse(runAsar(t, "list", "-i", innerPath)) {
		if _, ok := occ["vendor/inner.asar/"+l.path]; !ok {
			t.Errorf("nested: packer lists %q, REA lacks vendor/inner.asar/%s", l.path, l.path)
		}
	}
	if n := nodeOf(g, occ["vendor/inner.asar"]); n == nil || n.Kind != KindContainer || n.Format != FormatASAR {
		t.Errorf("inner.asar node %+v", n)
	}
	if len(g.Contradictions) != 0 {
		t.Errorf("contradictions on a clean pack: %+v", g.Contradictions)
	}
	// Without the .unpacked sibling the unpacked entry is unavailable, not an error.
	if err := os.Rename(archive+".unpacked", archive+".gone"); err != nil {
		t.Fatal(err)
	}
	g2 := mustInventory(t, archive, FormatASAR, Options{})
	if o := occByPath(g2)["native/addon.node"]; o.HashStatus != HashUnavailable {
		t.Errorf("addon without sibling: %s", o.HashStatus)
	}
}

func nodeOf(g *Graph, o Occurrence) *Node {
	if o.ArtifactID == nil {
		return nil
	}
	for i := range g.Nodes {
		if g.Nodes[i].ArtifactID == *o.ArtifactID {
			return &g.Nodes[i]
		}
	}
	return nil
}

// TestDirectoryMatchesASAR: the source tree inventoried as a directory and
// packed as ASAR have the same files with the same hashes, and the directory
// root digest equals engine/target's.
func TestDirectoryMatchesASAR(t *testing.T) {
	archive, src := packedApp(t)
	d := occByPath(mustInventory(t, src, FormatDirectory, Options{}))
	a := occByPath(mustInventory(t, archive, FormatASAR, Options{}))
	for p, o := range a {
		if p == "." {
			continue
		}
		do, ok := d[p]
		if !ok || do.EntryKind != o.EntryKind || deref(do.ArtifactID) != deref(o.ArtifactID) {
			t.Errorf("%s: asar %s %s, dir %s %s", p, o.EntryKind, deref(o.ArtifactID), do.EntryKind, deref(do.ArtifactID))
		}
	}
}

// TestZipOracles: archives written by Go's archive/zip and by the zip
// command list the same tree with the source bytes' hashes.
func TestZipOracles(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "src")
	files := map[string][]byte{
		"AndroidManifest.xml": []byte("<manifest/>"),
		"classes.dex":         pattern(70000, 1),
		"res/values/a.xml":    bytes.Repeat([]byte("<a/>"), 1000),
		"lib/arm64/libx.so":   append([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\xb7\x00"), pattern(100, 2)...),
	}
	var entries []zipEntry
	for name, b := range files {
		write(t, filepath.Join(src, name), b, 0o644)
		entries = append(entries, zipEntry{name: name, data: b, method: zip.Deflate})
	}
	goZip := filepath.Join(base, "go.apk")
	write(t, goZip, zipBytes(t, entries...), 0o644)

	check := func(t *testing.T, path string) {
		g := mustInventory(t, path, FormatAPK, Options{})
		occ := occByPath(g)
		for name, b := range files {
			o, ok := occ[name]
			if !ok || o.HashStatus != HashVerified || nodeSHA(g, o) != sum(b) {
				t.Errorf("%s: %+v sha %s want %s", name, o, nodeSHA(g, o), sum(b))
			}
			if o.CompressedSize == nil || o.DeclaredSize == nil || *o.DeclaredSize != int64(len(b)) {
				t.Errorf("%s: sizes %v %v", name, o.CompressedSize, o.DeclaredSize)
			}
		}
		for _, d := range []string{"res", "res/values", "lib", "lib/arm64"} {
			if occ[d].EntryKind != EntryDirectory {
				t.Errorf("%s: %+v", d, occ[d])
			}
		}
		if n := nodeOf(g, occ["lib/arm64/libx.so"]); n == nil || n.Kind != KindDynamicLibrary || n.Architecture == nil || *n.Architecture != "arm64" {
			t.Errorf("libx.so node %+v", n)
		}
		if g.Manifest.RootFormat != FormatAPK {
			t.Errorf("root format %s", g.Manifest.RootFormat)
		}
	}
	t.Run("archive/zip", func(t *testing.T) { check(t, goZip) })
	t.Run("zip-command", func(t *testing.T) {
		zipCmd := testkit.Need(t, "zip")
		out := filepath.Join(base, "cmd.apk")
		os.Symlink("../AndroidManifest.xml", filepath.Join(src, "res", "link.xml"))
		c := exec.Command(zipCmd, "-r", "-y", "-q", out, ".")
		c.Dir = src
		if b, err := c.CombinedOutput(); err != nil {
			t.Fatalf("zip: %v %s", err, b)
		}
		check(t, out)
		o := occByPath(mustInventory(t, out, FormatAPK, Options{}))["res/link.xml"]
		if o.EntryKind != EntrySymlink || linkTarget(&o) != "../AndroidManifest.xml" {
			t.Errorf("zip symlink: %+v", o)
		}
	})
}

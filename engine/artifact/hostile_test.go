package artifact

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
)

// fakeGraph is a manifest naming one file occurrence, so that extraction is
// attempted on an archive whose inventory would refuse it: extraction lists
// the container again and must refuse on its own.
func fakeGraph(name string) *Graph {
	art := ArtifactID(strings.Repeat("0", 64))
	id := OccurrenceID(art, name, EntryFile)
	return &Graph{
		Manifest:    Manifest{RootArtifactID: art},
		Nodes:       []Node{{ArtifactID: art, SHA256: strings.Repeat("0", 64), Size: 1}},
		Occurrences: []Occurrence{{OccurrenceID: id, ArtifactID: &art, LogicalPath: name, EntryKind: EntryFile, HashStatus: HashVerified}},
	}
}

func deepZip(t *testing.T, levels int) []byte {
	b := zipBytes(t, zipEntry{name: "leaf.txt", data: []byte("leaf")})
	for i := range levels {
		b = zipBytes(t, zipEntry{name: fmt.Sprintf("level%d.zip", i), data: b, method: zip.Store})
	}
	return b
}

// TestHostileArchives: each hostile container is a typed error from
// inventory and from extraction, with nothing written outside output_root
// (and nothing left inside it).
func TestHostileArchives(t *testing.T) {
	bomb := bytes.Repeat([]byte{0}, 10<<20) // deflates ~1030:1
	okData := []byte("ok")
	cases := []struct {
		name, format string
		data         []byte
		code         fault.Code
		reason       string
		lim          Limits
	}{
		{"zip-slip", FormatZip, zipBytes(t, zipEntry{name: "../evil.txt", data: okData}), fault.ArtifactOperationFailed, ReasonUnsafePath, Limits{}},
		{"zip-slip-deep", FormatZip, zipBytes(t, zipEntry{name: "a/../../evil.txt", data: okData}), fault.ArtifactOperationFailed, ReasonUnsafePath, Limits{}},
		{"absolute", FormatZip, zipBytes(t, zipEntry{name: "/etc/evil", data: okData}), fault.ArtifactOperationFailed, ReasonUnsafePath, Limits{}},
		{"backslash", FormatZip, zipBytes(t, zipEntry{name: "..\\evil", data: okData}), fault.ArtifactOperationFailed, ReasonUnsafePath, Limits{}},
		{"symlink-out", FormatZip, zipBytes(t,
			zipEntry{name: "link", data: []byte("/tmp"), mode: os.ModeSymlink | 0o777},
			zipEntry{name: "link/evil", data: okData}), fault.ArtifactOperationFailed, ReasonUnsafePath, Limits{}},
		{"duplicate", FormatZip, zipBytes(t, zipEntry{name: "a.txt", data: okData}, zipEntry{name: "a.txt", data: okData}), fault.ArtifactOperationFailed, ReasonCollision, Limits{}},
		{"bomb", FormatZip, zipBytes(t, zipEntry{name: "zeros", data: bomb, method: zip.Deflate}), fault.ArtifactOperationFailed, ReasonCompressionRatio, Limits{}},
		{"too-deep", FormatZip, deepZip(t, 3), fault.Truncated, "max_depth", Limits{MaxEntries: 100, MaxTotalBytes: 1 << 20, MaxEntryBytes: 1 << 20, MaxCompressionRatio: 1000, MaxDepth: 2, MaxPathBytes: 4096}},
		{"asar-past-eof", FormatASAR, asarBytes(`{"files":{"a":{"size":10,"offset":"5"}}}`, []byte("short")), fault.ArtifactOperationFailed, ReasonCorrupt, Limits{}},
		{"asar-100MB-header", FormatASAR, func() []byte {
			b := asarBytes(`{"files":{}}`, nil)
			b[12], b[13], b[14], b[15] = 0x00, 0xe1, 0xf5, 0x05 // J = 100,000,000
			return b
		}(), fault.ArtifactOperationFailed, ReasonCorrupt, Limits{}},
		{"asar-negative-size", FormatASAR, asarBytes(`{"files":{"a":{"size":-1,"offset":"0"}}}`, []byte("x")), fault.ArtifactOperationFailed, ReasonCorrupt, Limits{}},
		{"asar-string-size", FormatASAR, asarBytes(`{"files":{"a":{"size":"one","offset":"0"}}}`, []byte("x")), fault.ArtifactOperationFailed, ReasonCorrupt, Limits{}},
		{"asar-fraction-size", FormatASAR, asarBytes(`{"files":{"a":{"size":1.5,"offset":"0"}}}`, []byte("xx")), fault.ArtifactOperationFailed, ReasonCorrupt, Limits{}},
		{"asar-unknown-integrity", FormatASAR, asarBytes(`{"files":{"a":{"size":1,"offset":"0","integrity":{"algorithm":"MD5","hash":"`+sum([]byte("x"))+`","blockSize":4194304,"blocks":["`+sum([]byte("x"))+`"]}}}}`, []byte("x")), fault.ArtifactOperationFailed, ReasonUnsupportedIntegrity, Limits{}},
		{"asar-dotdot", FormatASAR, asarBytes(`{"files":{"..":{"files":{"evil":{"size":1,"offset":"0"}}}}}`, []byte("x")), fault.ArtifactOperationFailed, ReasonUnsafePath, Limits{}},
		{"asar-duplicate", FormatASAR, asarBytes(`{"files":{"a":{"size":1,"offset":"0"},"a":{"size":1,"offset":"0"}}}`, []byte("x")), fault.ArtifactOperationFailed, ReasonCollision, Limits{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			path := filepath.Join(base, "in", "hostile."+c.format)
			write(t, path, c.data, 0o644)
			_, err := inventoryOf(t, path, c.format, Options{Limits: c.lim})
			wantFault(t, err, c.code, c.reason)

			out := filepath.Join(base, "out")
			name := "evil.txt"
			if c.name == "too-deep" {
				name = "level2.zip/level1.zip/level0.zip/leaf.txt"
			}
			g := fakeGraph(name)
			if c.name == "too-deep" {
				// a manifest that claims the deep chain is expanded
				for _, p := range []string{"level2.zip", "level2.zip/level1.zip", "level2.zip/level1.zip/level0.zip"} {
					g.Occurrences = append(g.Occurrences, Occurrence{OccurrenceID: "occ_" + p, LogicalPath: p, EntryKind: EntryFile, HashStatus: HashVerified})
				}
			}
			_, xerr := Extract(context.Background(), Root{Path: path, Format: c.format}, g, ExtractOptions{
				OutputRoot: out, OccurrenceIDs: []string{g.Occurrences[0].OccurrenceID}, Limits: c.lim})
			if xerr == nil {
				t.Fatal("extraction succeeded")
			}
			if fault.Is(xerr, fault.ExecutionFailure) {
				t.Fatalf("untyped extraction failure: %v", xerr)
			}
			if got := listDir(t, base); strings.Join(got, ",") != "in,in/hostile."+c.format {
				t.Fatalf("written: %v (error %s)", got, details(xerr))
			}
		})
	}
}

// TestExtract: selected occurrences only, sha256 of every written file,
// never overwrite, no symlink escape through a pre-existing output tree.
func TestExtract(t *testing.T) {
	archive, src := packedApp(t)
	g := mustInventory(t, archive, FormatASAR, Options{})
	occ := occByPath(g)
	root := Root{Path: archive, Format: FormatASAR}
	out := filepath.Join(t.TempDir(), "out")
	ids := []string{occ["renderer"].OccurrenceID, occ["native/addon.node"].OccurrenceID, occ["vendor/inner.asar/lib/util.js"].OccurrenceID}
	x, err := Extract(context.Background(), root, g, ExtractOptions{OutputRoot: out, OccurrenceIDs: ids})
	if err != nil {
		t.Fatalf("%v %s", err, details(err))
	}
	want := []string{"native/addon.node", "renderer/app.js", "renderer/index.html", "vendor/inner.asar/lib/util.js"}
	if len(x.Artifacts) != len(want) {
		t.Fatalf("artifacts %+v", x.Artifacts)
	}
	for i, a := range x.Artifacts {
		b, err := os.ReadFile(filepath.Join(out, a.RelativePath))
		if a.RelativePath != want[i] || err != nil || sum(b) != a.SHA256 || a.BytesWritten != int64(len(b)) || !a.Created {
			t.Fatalf("%+v: %v", a, err)
		}
		fi, _ := os.Stat(filepath.Join(out, a.RelativePath))
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", a.RelativePath, fi.Mode())
		}
		if s, err := os.ReadFile(filepath.Join(src, a.RelativePath)); err == nil && sum(s) != a.SHA256 {
			t.Errorf("%s differs from source", a.RelativePath)
		}
	}
	if !x.ContainmentVerified || x.ExtractionManifest.SourceManifestID != g.Manifest.ManifestID ||
		!strings.HasPrefix(x.ExtractionManifest.ExtractionID, "aex_") || x.ExtractionManifest.OutputRootAlias != "$OUTPUT_ROOT" {
		t.Fatalf("manifest %+v", x.ExtractionManifest)
	}
	// Never overwrite: the same extraction again fails and removes only
	// what it created (nothing), leaving the first extraction intact.
	_, err = Extract(context.Background(), root, g, ExtractOptions{OutputRoot: out, OccurrenceIDs: ids})
	wantFault(t, err, fault.ArtifactOperationFailed, ReasonExists)
	if len(listDir(t, out)) != 9 {
		t.Fatalf("first extraction disturbed: %v", listDir(t, out))
	}
	// A symlink planted in the output tree is never followed.
	out2 := filepath.Join(t.TempDir(), "out2")
	outside := t.TempDir()
	os.MkdirAll(out2, 0o755)
	os.Symlink(outside, filepath.Join(out2, "renderer"))
	_, err = Extract(context.Background(), root, g, ExtractOptions{OutputRoot: out2, OccurrenceIDs: ids})
	wantFault(t, err, fault.OutsideApprovedRoot, "")
	if got := listDir(t, outside); len(got) != 0 {
		t.Fatalf("written outside: %v", got)
	}
	if got := listDir(t, out2); strings.Join(got, ",") != "renderer" {
		t.Fatalf("cleanup left %v", got)
	}
	// Symlinks are never materialized; an unknown id is invalid.
	_, err = Extract(context.Background(), root, g, ExtractOptions{OutputRoot: filepath.Join(t.TempDir(), "o3"), OccurrenceIDs: []string{occ["entry.js"].OccurrenceID}})
	wantFault(t, err, fault.ArtifactOperationFailed, ReasonUnsafePath)
	_, err = Extract(context.Background(), root, g, ExtractOptions{OutputRoot: filepath.Join(t.TempDir(), "o4"), OccurrenceIDs: []string{"occ_nope"}})
	wantFault(t, err, fault.InvalidRequest, "")
	// Bounds: total bytes and entry bytes are counted while streaming.
	_, err = Extract(context.Background(), root, g, ExtractOptions{OutputRoot: filepath.Join(t.TempDir(), "o5"),
		OccurrenceIDs: []string{occ["assets"].OccurrenceID}, Limits: Limits{MaxEntries: 100, MaxTotalBytes: 1 << 20, MaxEntryBytes: 1 << 30, MaxCompressionRatio: 1000, MaxDepth: 20, MaxPathBytes: 4096}})
	wantFault(t, err, fault.Truncated, "max_total_bytes")
	_, err = Extract(context.Background(), root, g, ExtractOptions{OutputRoot: filepath.Join(t.TempDir(), "o6"),
		OccurrenceIDs: []string{occ["assets/big.bin"].OccurrenceID}, Limits: Limits{MaxEntries: 100, MaxTotalBytes: 1 << 30, MaxEntryBytes: 1 << 20, MaxCompressionRatio: 1000, MaxDepth: 20, MaxPathBytes: 4096}})
	wantFault(t, err, fault.ArtifactOperationFailed, ReasonEntryTooLarge)
	// A cancelled extraction removes what it created.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out7 := filepath.Join(t.TempDir(), "o7")
	_, err = Extract(ctx, root, g, ExtractOptions{OutputRoot: out7, OccurrenceIDs: ids})
	wantFault(t, err, fault.Cancelled, "")
	if _, err := os.Stat(out7); !os.IsNotExist(err) {
		t.Fatalf("cancelled extraction left %v", listDir(t, out7))
	}
}

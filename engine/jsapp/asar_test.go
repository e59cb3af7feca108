package jsapp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
)

func integrity(data string) string {
	h := sha256Hex([]byte(data))
	return fmt.Sprintf(`{"algorithm":"SHA256","hash":%q,"blockSize":4194304,"blocks":[%q]}`, h, h)
}

func writeASAR(t *testing.T, header string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.asar")
	if err := os.WriteFile(p, rawASAR(header, data), 0o644); err != nil {
		t.Fatal(err)
	}
	return realAbs(t, p)
}

func TestHostileArchives(t *testing.T) {
	main := "ipcMain.on('x', f)"
	ok := fmt.Sprintf(`{"size":%d,"offset":"0","integrity":%s}`, len(main), integrity(main))
	for _, tc := range []struct {
		name, header string
		code         fault.Code
		reason       string
	}{
		{"offset past end", `{"files":{"a.js":{"size":10,"offset":"100000"}}}`, fault.ArtifactOperationFailed, "corrupt"},
		{"size past end", `{"files":{"a.js":{"size":1000000,"offset":"0"}}}`, fault.ArtifactOperationFailed, "corrupt"},
		{"negative size", `{"files":{"a.js":{"size":-1,"offset":"0"}}}`, fault.ArtifactOperationFailed, "corrupt"},
		{"non-numeric size", `{"files":{"a.js":{"size":"5","offset":"0"}}}`, fault.ArtifactOperationFailed, "corrupt"},
		// engine/artifact's reader also accepts a JSON number offset (the
		// packer writes a decimal string); anything else is corrupt.
		{"hex offset", `{"files":{"a.js":{"size":5,"offset":"0x0"}}}`, fault.ArtifactOperationFailed, "corrupt"},
		{"dot-dot", `{"files":{"..":{"files":{}}}}`, fault.ArtifactOperationFailed, "unsafe_path"},
		{"slash", `{"files":{"a/b.js":{"size":1,"offset":"0"}}}`, fault.ArtifactOperationFailed, "unsafe_path"},
		{"duplicate", `{"files":{"a.js":` + ok + `,"a.js":` + ok + `}}`, fault.ArtifactOperationFailed, "collision"},
		{"md5", `{"files":{"a.js":{"size":1,"offset":"0","integrity":{"algorithm":"MD5","hash":"00","blockSize":1,"blocks":[]}}}}`, fault.ArtifactOperationFailed, "unsupported_integrity"},
		{"zero block size", `{"files":{"a.js":{"size":1,"offset":"0","integrity":{"algorithm":"SHA256","hash":"` + strings.Repeat("0", 64) + `","blockSize":0,"blocks":[]}}}}`, fault.ArtifactOperationFailed, "unsupported_integrity"},
		{"truncated json", `{"files":`, fault.ArtifactOperationFailed, "corrupt"},
		{"not json", `not json at all`, fault.InvalidRequest, ""},
		{"no files", `{"other":1}`, fault.InvalidRequest, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeASAR(t, tc.header, []byte(main))
			_, err := Analyze(context.Background(), Request{InputPath: p, Limits: DefaultLimits()}, nil)
			fe := wantFault(t, err, tc.code)
			if tc.reason != "" && fe.Details["reason"] != tc.reason {
				t.Fatalf("details %v, want reason %s", fe.Details, tc.reason)
			}
		})
	}
}

func TestTamperedEntryIsAnIntegrityMismatch(t *testing.T) {
	main := "ipcMain.on('x', f)"
	header := fmt.Sprintf(`{"files":{"src":{"files":{"main.js":{"size":%d,"offset":"0","integrity":%s}}}}}`, len(main), integrity(main))
	good := writeASAR(t, header, []byte(main))
	r := analyzeOK(t, Request{InputPath: good})
	if r.Summary.MainHandlers != 1 || r.Format != FormatASAR {
		t.Fatalf("untampered archive: %+v", r.Summary)
	}
	tampered := strings.Replace(main, "x", "y", 1)
	p := writeASAR(t, header, []byte(tampered))
	_, err := Analyze(context.Background(), Request{InputPath: p, Limits: DefaultLimits()}, nil)
	fe := wantFault(t, err, fault.ArtifactIntegrityMismatch)
	want := map[string]any{"logical_path": "src/main.js", "declared_sha256": sha256Hex([]byte(main)),
		"calculated_sha256": sha256Hex([]byte(tampered)), "unpacked": false}
	if fmt.Sprint(fe.Details) != fmt.Sprint(want) {
		t.Fatalf("details %v, want %v", fe.Details, want)
	}
}

func TestMultiBlockIntegrity(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 10) // 100 bytes, blocks of 32
	var blocks []string
	for i := 0; i < len(data); i += 32 {
		blocks = append(blocks, fmt.Sprintf("%q", sha256Hex(data[i:min(i+32, len(data))])))
	}
	in := fmt.Sprintf(`{"algorithm":"SHA256","hash":%q,"blockSize":32,"blocks":[%s]}`, sha256Hex(data), strings.Join(blocks, ","))
	header := fmt.Sprintf(`{"files":{"d.bin":{"size":100,"offset":"0","integrity":%s}}}`, in)
	analyzeOK(t, Request{InputPath: writeASAR(t, header, data)})
	// A block list that disagrees while the whole hash agrees is still a contradiction.
	bad := strings.Replace(header, blocks[1], blocks[0], 1)
	_, err := Analyze(context.Background(), Request{InputPath: writeASAR(t, bad, data), Limits: DefaultLimits()}, nil)
	wantFault(t, err, fault.ArtifactIntegrityMismatch)
}

func TestUnpackedEntries(t *testing.T) {
	header := `{"files":{"a.node":{"size":3,"unpacked":true},"gone.node":{"size":3,"unpacked":true},"l":{"link":"a.node"}}}`
	p := writeASAR(t, header, nil)
	if err := os.MkdirAll(p+".unpacked", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p+".unpacked", "a.node"), []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := analyzeOK(t, Request{InputPath: p})
	if r.Summary.NativeAddons != 2 || r.Statistics.Entries != 3 {
		t.Fatalf("summary %+v statistics %+v", r.Summary, r.Statistics)
	}
	hasLimitation(t, r, "1 unpacked ASAR file(s) were unavailable and not read")
}

func TestNestedDepth(t *testing.T) {
	inner := rawASAR(`{"files":{"m.js":{"size":21,"offset":"0"}}}`, []byte("ipcMain.handle('n',f)"))
	header := fmt.Sprintf(`{"files":{"inner.asar":{"size":%d,"offset":"0"}}}`, len(inner))
	p := writeASAR(t, header, inner)
	r := analyzeOK(t, Request{InputPath: p})
	if r.Summary.MainHandlers != 1 || r.Electron.IPC.MainHandlers[0].File != "inner.asar/m.js" {
		t.Fatalf("nested: %+v", r.Electron.IPC)
	}
	l := DefaultLimits()
	l.MaxDepth = 0
	r = analyzeOK(t, Request{InputPath: p, Limits: l})
	if r.Summary.MainHandlers != 0 || r.Statistics.Entries != 1 {
		t.Fatalf("depth 0 must not expand: %+v", r.Statistics)
	}
	hasLimitation(t, r, "1 nested ASAR archive(s) beyond max_depth were not expanded (first: inner.asar)")
}

func TestCancelledDuringInventory(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rep := progress.Func(func(u progress.Update) {
		if u.Phase == "inventory" {
			cancel()
		}
	})
	_, err := Analyze(ctx, Request{InputPath: realAbs(t, fixtureDir), Limits: DefaultLimits()}, rep)
	wantFault(t, err, fault.Cancelled)
}

// The ASAR header reader is engine/artifact's: its fuzz target is
// artifact.FuzzASARHeader, which also reads every entry through OpenASAR.

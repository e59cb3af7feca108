package jsapp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
)

func str(s string) *string { return &s }

const fixtureDir = "testdata/electronapp"

// baseLimitations are present in every result.
var baseLimitations = []string{
	"static analysis: only the recognized call shapes are reported; Electron APIs reached through reassignment, computed member access or wrapper functions are not seen",
	"node_modules files are inventoried but not parsed",
	"source maps are inventoried, not parsed",
}

const scannedLimitation = "1 JavaScript file(s) name no Electron API and were scanned, not parsed: their AST nodes and syntax errors are not counted"

// fixtureBytes is what the fixture's selected text files hold.
func fixtureBytes(t *testing.T, root string) int64 {
	var n int64
	for _, p := range []string{"package.json", "src/main.js", "src/preload.js", "src/renderer.js", "src/worker.js"} {
		fi, err := os.Stat(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// expectedFixture is the whole result for testdata/electronapp, written by
// hand from its sources.
func expectedFixture(t *testing.T, input string, format Format, rootSHA string) *Result {
	op := func(ch, m, f string, line int) IPCOperation {
		return IPCOperation{Channel: ch, Method: m, File: f, Line: line}
	}
	return &Result{
		SchemaVersion: 1,
		InputPath:     input,
		Format:        format,
		RootSHA256:    rootSHA,
		Package:       Package{Name: str("fixture-app"), Version: str("1.2.3"), Main: str("src/main.js"), MainResolved: str("src/main.js")},
		Electron: Electron{
			BrowserWindows: []BrowserWindow{{
				File: "src/main.js", Line: 6, Column: 19,
				WebPreferences: WebPreferences{NodeIntegration: FlagFalse, ContextIsolation: FlagFalse, Sandbox: FlagTrue, WebviewTag: FlagAbsent},
				Preload:        str("src/preload.js"),
			}},
			PreloadEntrypoints: []PreloadEntrypoint{{Path: "src/preload.js", Resolved: true, ReferencedFrom: []Reference{{File: "src/main.js", Line: 6}}}},
			ContextBridge: []ContextBridgeAPI{{
				File: "src/preload.js", Line: 3, APIKey: str("fixtureApi"),
				Members: []string{"getSetting", "log", "version"},
			}},
			IPC: IPC{
				MainHandlers: []IPCOperation{
					op("settings:get", "handle", "src/main.js", 20),
					op("log:write", "on", "src/main.js", 24),
					op("updates:check", "on", "src/main.js", 29),
				},
				RendererTransmissions: []IPCOperation{
					op("settings:get", "invoke", "src/preload.js", 4),
					op("log:write", "send", "src/preload.js", 5),
				},
				RendererListeners:        []IPCOperation{op("theme:changed", "on", "src/renderer.js", 8)},
				DynamicChannelOperations: []DynamicOperation{{Method: "send", File: "src/renderer.js", Line: 5}},
				Pairing: []ChannelPairing{
					{Channel: "log:write", Status: Paired, Transmissions: 1, Handlers: 1},
					{Channel: "settings:get", Status: Paired, Transmissions: 1, Handlers: 1},
					{Channel: "updates:check", Status: Unpaired, Transmissions: 0, Handlers: 1},
				},
			},
			UtilityProcesses: []UtilityProcess{{File: "src/main.js", Line: 31, Entrypoint: str("src/worker.js"), Resolved: true}},
			NativeAddons:     []NativeAddon{{Path: "native/addon.node"}},
		},
		Summary: Summary{
			BrowserWindows: 1, ExplicitWebPreferences: 1, PreloadEntrypoints: 1, ContextBridgeAPIs: 1,
			ExposedAPIMembers: 3, IPCLiteralChannels: 4, MainHandlers: 3, RendererTransmissions: 2,
			RendererListeners: 1, DynamicChannelOperations: 1, Paired: 2, Ambiguous: 0, Unpaired: 1,
			UtilityProcesses: 1, NativeAddons: 1,
		},
		Statistics: Statistics{
			// native, node_modules, node_modules/dep, src + 9 files
			Entries: 13, RelevantFiles: 7, TextFilesSelected: 5, TextBytesRead: fixtureBytes(t, fixtureDir),
			// src/worker.js names no Electron API: scanned, not parsed.
			PolicyFilteredTextFiles: 2, ParsedJavaScriptFiles: 3, ScannedJavaScriptFiles: 1, VisitedASTNodes: 346, Findings: 10,
			TruncatedScopes: []string{},
		},
		Limitations: append(slices.Clone(baseLimitations), scannedLimitation),
	}
}

func analyzeOK(t *testing.T, req Request) *Result {
	t.Helper()
	if req.Limits == (Limits{}) {
		req.Limits = DefaultLimits()
	}
	r, err := Analyze(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("Analyze(%s): %v", req.InputPath, err)
	}
	return r
}

func diff(t *testing.T, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("result differs\n got: %s\nwant: %s", g, w)
	}
}

func realAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := filepath.EvalSymlinks(a)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFixtureDirectory(t *testing.T) {
	root := realAbs(t, fixtureDir)
	got := analyzeOK(t, Request{InputPath: root, Format: FormatDirectory})
	diff(t, got, expectedFixture(t, root, FormatDirectory, dirDigest(t, root)))
}

// TestFixtureASAR packs the fixture with the independent packer
// (@electron/asar, native addons unpacked) and expects the same summary.
func TestFixtureASAR(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "app.asar")
	packASAR(t, realAbs(t, fixtureDir), out)
	if _, err := os.Stat(out + ".unpacked/native/addon.node"); err != nil {
		t.Fatalf("the packer did not unpack the addon: %v", err)
	}
	out = realAbs(t, out)
	got := analyzeOK(t, Request{InputPath: out})
	diff(t, got, expectedFixture(t, out, FormatASAR, fileSHA(t, out)))

	// The same archive inside a directory is expanded below its own path;
	// the addon is seen twice, in the archive and in its .unpacked sibling.
	nested := analyzeOK(t, Request{InputPath: realAbs(t, dir)})
	want := got.Summary
	want.NativeAddons = 2
	if nested.Package.MainResolved == nil || *nested.Package.MainResolved != "app.asar/src/main.js" ||
		nested.Summary != want {
		t.Fatalf("nested archive: package %+v summary %+v", nested.Package, nested.Summary)
	}
}

func TestSummaryProjection(t *testing.T) {
	root := realAbs(t, fixtureDir)
	r := analyzeOK(t, Request{InputPath: root})
	p := r.Project()
	if !reflect.DeepEqual(p.Top, r.Electron) || p.Summary != r.Summary || p.RootSHA256 != r.RootSHA256 {
		t.Fatalf("projection of a small result must keep every item")
	}
	big := &Result{Electron: Electron{NativeAddons: make([]NativeAddon, 50)}}
	if n := len(big.Project().Top.NativeAddons); n != TopItems {
		t.Fatalf("top native_addons = %d, want %d", n, TopItems)
	}
}

func TestMalformedJavaScriptIsAParseFailure(t *testing.T) {
	root := t.TempDir()
	copyTree(t, fixtureDir, root)
	if err := os.WriteFile(filepath.Join(root, "src", "broken.js"), []byte("function ( {\n  ipcMain.handle('x'"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "latin1.js"), []byte("const s = '\xe9';\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root = realAbs(t, root)
	got := analyzeOK(t, Request{InputPath: root})
	want := expectedFixture(t, root, FormatDirectory, dirDigest(t, root))
	want.Statistics.Entries += 2
	want.Statistics.RelevantFiles += 2
	want.Statistics.TextFilesSelected += 2
	want.Statistics.TextBytesRead += int64(len("function ( {\n  ipcMain.handle('x'") + len("const s = '\xe9';\n"))
	want.Statistics.ParseFailures = 1
	want.Statistics.InvalidUTF8Files = 1
	want.Limitations = append(slices.Clone(baseLimitations),
		"1 file(s) failed to parse and were not analyzed",
		scannedLimitation,
		"1 file(s) are not valid UTF-8 and were not parsed")
	diff(t, got, want)
}

func TestParseLimits(t *testing.T) {
	root := realAbs(t, fixtureDir)
	for _, tc := range []struct {
		name  string
		set   func(*Limits)
		check func(t *testing.T, r *Result)
	}{
		{"max_text_files", func(l *Limits) { l.MaxTextFiles = 2 }, func(t *testing.T, r *Result) {
			// package.json then main.js, nothing else.
			st := r.Statistics
			if st.OmittedTextFiles != 3 || st.ParsedJavaScriptFiles != 1 || !slices.Equal(st.TruncatedScopes, []string{"max_text_files"}) {
				t.Fatalf("statistics %+v", st)
			}
			if r.Summary.MainHandlers != 3 || r.Summary.ContextBridgeAPIs != 0 {
				t.Fatalf("main.js must be parsed first: %+v", r.Summary)
			}
			hasLimitation(t, r, "3 selected text file(s) were omitted by limit")
			hasLimitation(t, r, "parsing stopped at max_text_files; files after that point were not analyzed")
		}},
		{"max_text_file_bytes", func(l *Limits) { l.MaxTextFileBytes = 260 }, func(t *testing.T, r *Result) {
			st := r.Statistics
			// main.js and renderer.js are larger than 260 bytes.
			if st.OmittedTextFiles != 2 || len(st.TruncatedScopes) != 0 {
				t.Fatalf("statistics %+v", st)
			}
			hasLimitation(t, r, "2 file(s) over max_text_file_bytes were not parsed")
		}},
		{"max_total_text_bytes", func(l *Limits) { l.MaxTotalTextBytes = 1000 }, func(t *testing.T, r *Result) {
			if !slices.Equal(r.Statistics.TruncatedScopes, []string{"max_total_text_bytes"}) || r.Statistics.TextBytesRead > 1000 {
				t.Fatalf("statistics %+v", r.Statistics)
			}
		}},
		{"max_ast_nodes", func(l *Limits) { l.MaxASTNodes = 50 }, func(t *testing.T, r *Result) {
			if r.Statistics.VisitedASTNodes != 50 || !slices.Equal(r.Statistics.TruncatedScopes, []string{"max_ast_nodes"}) {
				t.Fatalf("statistics %+v", r.Statistics)
			}
		}},
		{"max_findings", func(l *Limits) { l.MaxFindings = 2 }, func(t *testing.T, r *Result) {
			if r.Statistics.Findings != 2 || !slices.Equal(r.Statistics.TruncatedScopes, []string{"max_findings"}) {
				t.Fatalf("statistics %+v", r.Statistics)
			}
			hasLimitation(t, r, "parsing stopped at max_findings; files after that point were not analyzed")
		}},
		{"max_artifact_entry_bytes", func(l *Limits) { l.MaxArtifactEntryBytes = 260 }, func(t *testing.T, r *Result) {
			if r.Statistics.OmittedTextFiles != 2 {
				t.Fatalf("statistics %+v", r.Statistics)
			}
			hasLimitation(t, r, "2 file(s) over max_artifact_entry_bytes were not hashed or parsed")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := DefaultLimits()
			tc.set(&l)
			tc.check(t, analyzeOK(t, Request{InputPath: root, Limits: l}))
		})
	}
}

func hasLimitation(t *testing.T, r *Result, s string) {
	t.Helper()
	if !slices.Contains(r.Limitations, s) {
		t.Fatalf("limitation %q missing from %q", s, r.Limitations)
	}
}

func wantFault(t *testing.T, err error, code fault.Code) *fault.Error {
	t.Helper()
	var fe *fault.Error
	if !fault.Is(err, code) {
		t.Fatalf("error = %v, want %s", err, code)
	}
	fe, _ = err.(*fault.Error)
	return fe
}

func TestInventoryLimitsAreTruncated(t *testing.T) {
	root := realAbs(t, fixtureDir)
	for name, set := range map[string]func(*Limits){
		"max_entries":              func(l *Limits) { l.MaxEntries = 5 },
		"max_total_artifact_bytes": func(l *Limits) { l.MaxTotalArtifactBytes = 1000 },
		"max_path_bytes":           func(l *Limits) { l.MaxPathBytes = 10 },
	} {
		l := DefaultLimits()
		set(&l)
		_, err := Analyze(context.Background(), Request{InputPath: root, Limits: l}, nil)
		fe := wantFault(t, err, fault.Truncated)
		if fe.Details["limit"] != name {
			t.Fatalf("%s: details %v", name, fe.Details)
		}
	}
}

func TestInvalidRequests(t *testing.T) {
	root := realAbs(t, fixtureDir)
	bad := DefaultLimits()
	bad.MaxDepth = 101
	for name, req := range map[string]Request{
		"relative":       {InputPath: "testdata/electronapp", Limits: DefaultLimits()},
		"missing":        {InputPath: filepath.Join(root, "nope"), Limits: DefaultLimits()},
		"not an archive": {InputPath: filepath.Join(root, "package.json"), Limits: DefaultLimits()},
		"format":         {InputPath: root, Format: FormatASAR, Limits: DefaultLimits()},
		"unknown format": {InputPath: root, Format: "zip", Limits: DefaultLimits()},
		"limits":         {InputPath: root, Limits: bad},
	} {
		_, err := Analyze(context.Background(), req, nil)
		if !fault.Is(err, fault.InvalidRequest) {
			t.Errorf("%s: error = %v, want invalid_request", name, err)
		}
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Analyze(ctx, Request{InputPath: realAbs(t, fixtureDir), Limits: DefaultLimits()}, nil)
	wantFault(t, err, fault.Cancelled)
}

func TestProgressPhases(t *testing.T) {
	var phases []string
	var last float64 = -1
	lastPhase := ""
	rep := progress.Func(func(u progress.Update) {
		if u.Phase != lastPhase {
			phases = append(phases, u.Phase)
			lastPhase, last = u.Phase, -1
		}
		if u.Completed < last || (u.Total != nil && u.Completed > *u.Total) {
			t.Errorf("non-monotonic update %+v", u)
		}
		last = u.Completed
	})
	final := map[string]float64{}
	check := rep
	rep = progress.Func(func(u progress.Update) { check.Report(u); final[u.Phase] = u.Completed })
	res, err := Analyze(context.Background(), Request{InputPath: realAbs(t, fixtureDir), Limits: DefaultLimits()}, rep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(phases, ",") != "inventory,parse,link" {
		t.Fatalf("phases %v", phases)
	}
	// Each phase's last update is its whole work (CONTRACTS.md §6.1): the
	// periodic updates alone stopped at the last 256th entry or 16th file.
	st := res.Statistics
	if final["inventory"] != float64(st.Entries) || final["parse"] != float64(st.TextFilesSelected-st.OmittedTextFiles) {
		t.Fatalf("final counts %v, statistics %+v", final, st)
	}
}

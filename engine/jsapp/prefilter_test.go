package jsapp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// analyzeBoth runs the analysis as the contract defines it (files that name
// no Electron API scanned, not parsed) and with every selected file parsed
// (options.parseAll) on root. Apart from the parse statistics and the
// limitation lines that report them, the results must be identical; the
// statistics must account for every file the prefilter left unparsed.
func analyzeBoth(t *testing.T, root string, lim Limits) (ref, pre *Result) {
	t.Helper()
	req := Request{InputPath: root, Limits: lim}
	ref, err := analyzeWith(context.Background(), req, nil, options{parseAll: true})
	if err != nil {
		t.Fatalf("every file parsed: %v", err)
	}
	pre, err = Analyze(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("prefilter: %v", err)
	}
	if len(ref.Statistics.TruncatedScopes)+len(pre.Statistics.TruncatedScopes) > 0 {
		t.Fatalf("a budget was reached (%v, %v): the two would legitimately differ", ref.Statistics.TruncatedScopes, pre.Statistics.TruncatedScopes)
	}
	rs, ps := ref.Statistics, pre.Statistics
	var rl, pl []string
	for _, l := range ref.Limitations {
		if !strings.Contains(l, "failed to parse") {
			rl = append(rl, l)
		}
	}
	scannedLine := ""
	for _, l := range pre.Limitations {
		switch {
		case strings.Contains(l, "scanned, not parsed"):
			scannedLine = l
		case !strings.Contains(l, "failed to parse"):
			pl = append(pl, l)
		}
	}
	if rs.ScannedJavaScriptFiles != 0 {
		t.Fatalf("every file parsed, yet %d scanned", rs.ScannedJavaScriptFiles)
	}
	if want := strconv.FormatInt(ps.ScannedJavaScriptFiles, 10) + " "; (ps.ScannedJavaScriptFiles > 0) != strings.HasPrefix(scannedLine, want) {
		t.Fatalf("scanned_javascript_files %d, limitation %q", ps.ScannedJavaScriptFiles, scannedLine)
	}
	if ps.ParsedJavaScriptFiles > rs.ParsedJavaScriptFiles || ps.ParseFailures > rs.ParseFailures || ps.VisitedASTNodes > rs.VisitedASTNodes ||
		ps.ParsedJavaScriptFiles+ps.ParseFailures+ps.ScannedJavaScriptFiles != rs.ParsedJavaScriptFiles+rs.ParseFailures {
		t.Fatalf("statistics do not account for the scanned files:\n all %+v\n pre %+v", rs, ps)
	}
	norm := *pre
	norm.Statistics.ParsedJavaScriptFiles, norm.Statistics.ParseFailures, norm.Statistics.VisitedASTNodes, norm.Statistics.ScannedJavaScriptFiles =
		rs.ParsedJavaScriptFiles, rs.ParseFailures, rs.VisitedASTNodes, 0
	norm.Limitations = pl
	refNorm := *ref
	refNorm.Limitations = rl
	diff(t, &norm, &refNorm)
	return ref, pre
}

// writeTree writes files (slash-separated names) below root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPrefilterFixture compares the two on the fixture application, as a
// directory and packed as ASAR.
func TestPrefilterFixture(t *testing.T) {
	check := func(t *testing.T, root string) {
		ref, pre := analyzeBoth(t, root, DefaultLimits())
		// Every JavaScript file of the fixture names an Electron API except
		// the worker (a utility process entrypoint, not a preload).
		if d := ref.Statistics.ParsedJavaScriptFiles - pre.Statistics.ParsedJavaScriptFiles; d != 1 || pre.Statistics.ScannedJavaScriptFiles != 1 {
			t.Fatalf("prefilter skipped %d files (scanned %d), want 1 (src/worker.js)", d, pre.Statistics.ScannedJavaScriptFiles)
		}
	}
	t.Run("directory", func(t *testing.T) { check(t, realAbs(t, fixtureDir)) })
	t.Run("asar", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "app.asar")
		packASAR(t, realAbs(t, fixtureDir), out)
		check(t, realAbs(t, out))
	})
}

// escapes reach (or seem to reach) an Electron API without its bytes:
// escaped identifiers and member names, escaped or concatenated strings in
// computed member access, quoted destructuring and import keys. scanJS
// recognizes none of them, so the prefilter, which scans these files, loses
// nothing. If a parser upgrade starts decoding escapes, TestPrefilterEscapes
// fails and mentionsElectronAPI must parse such files too.
var escapes = map[string]string{
	"id-escape.js":       "\\u0069pcMain.on('a', f);\n",
	"id-brace-escape.js": "\\u{69}pcMain.handle('a', f);\n",
	"member-escape.js":   "const electron = require('electron');\nelectron.\\u0069pcMain.on('a', f);\n",
	"ctor-escape.js":     "new \\u0042rowserWindow({ webPreferences: { nodeIntegration: true } });\n",
	"bridge-escape.js":   "\\u0063ontextBridge.exposeInMainWorld('api', { a: 1 });\n",
	"fork-escape.js":     "utility\\u0050rocess.fork('w.js');\n",
	"destructure.js":     "const { \\u0069pcRenderer: r } = require('electron');\nr.invoke('a');\n",
	"quoted-key.js":      "const { 'ipc\\u004dain': m } = require('electron');\nm.on('a', f);\n",
	"import-key.mjs":     "import { \"ipc\\u0052enderer\" as r } from 'electron';\nr.send('a');\n",
	"concat.js":          "const electron = require('electron');\nelectron['ipc' + 'Main'].on('a', f);\nnew electron['Browser' + 'Window']({});\n",
	"string-escape.js":   "const electron = require('electron');\nelectron['\\x69pcMain'].handle('a', f);\nelectron[\"\\u0069pcRenderer\"].send('a');\n",
	"computed.js":        "const k = 'ipc', e = require('electron');\ne[k + 'Main'].on('a', f);\n",
	"template.js":        "const e = require('electron');\ne[`ipc${'Main'}`].on('a', f);\n",
}

func TestPrefilterEscapes(t *testing.T) {
	for name, src := range escapes {
		if mentionsElectronAPI([]byte(src)) {
			t.Fatalf("%s names an API as bytes; it tests nothing", name)
		}
		f, err := scanJS(name, []byte(src), 1e6, 1e4)
		if err != nil {
			t.Errorf("%s does not parse (%v): it tests nothing", name, err)
			continue
		}
		if f.count() > 0 || f.unresolvedPaths > 0 {
			t.Errorf("%s: the parser path found %+v: the prefilter would lose it", name, f)
		}
	}
	// The same forms with the API's bytes present are parsed and found.
	for _, src := range []string{"ipcMain.on('a', f);", "const { ipcRenderer: r } = require('electron'); r.invoke('a');",
		"new BrowserWindow({});", "contextBridge.exposeInMainWorld('api', {});", "utilityProcess.fork('w.js');"} {
		if f, err := scanJS("c.js", []byte(src), 1e6, 1e4); err != nil || f.count() != 1 || !mentionsElectronAPI([]byte(src)) {
			t.Errorf("control %q: %+v %v", src, f, err)
		}
	}
	root := t.TempDir()
	writeTree(t, root, escapes)
	writeTree(t, root, map[string]string{"package.json": `{"name":"escapes","main":"main.js"}`, "main.js": "let x = 1;\n"})
	ref, pre := analyzeBoth(t, realAbs(t, root), DefaultLimits())
	if ref.Summary != (Summary{}) {
		t.Errorf("summary %+v", ref.Summary)
	}
	// main.js is parsed although it names no API (§11.2); the rest scanned.
	if st := pre.Statistics; st.ParsedJavaScriptFiles != 1 || st.ScannedJavaScriptFiles != int64(len(escapes)) {
		t.Errorf("statistics %+v", st)
	}
}

// mustTree has preloads that name no Electron API, which §11.2 parses
// anyway: p/early.js is named by main.js (so known before it is read),
// a/late.js only by z/win.js, which comes after it in byte order (so it is
// scanned first and parsed when named). Both hold a syntax error, which only
// a parse counts.
var mustTree = map[string]string{
	"package.json": `{"name":"must","main":"main.js"}`,
	"main.js": "const { BrowserWindow } = require('electron');\nconst path = require('path');\n" +
		"new BrowserWindow({ webPreferences: { preload: path.join(__dirname, 'p', 'early.js') } });\n",
	"z/win.js": "const { BrowserWindow } = require('electron');\nconst path = require('path');\n" +
		"new BrowserWindow({ webPreferences: { preload: path.join(__dirname, '..', 'a', 'late.js') } });\n",
	"a/late.js":  "window.x = function ( {\n",
	"p/early.js": "window.y = function ( {\n",
	"b/util.js":  "module.exports = 1;\n",
}

func TestPrefilterParsesMainAndPreloads(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, mustTree)
	ref, pre := analyzeBoth(t, realAbs(t, root), DefaultLimits())
	if len(ref.Electron.PreloadEntrypoints) != 2 {
		t.Fatalf("preloads %+v", ref.Electron.PreloadEntrypoints)
	}
	// Parsed: main.js, z/win.js; failed: a/late.js, p/early.js; scanned: b/util.js.
	if st := pre.Statistics; st.ParsedJavaScriptFiles != 2 || st.ParseFailures != 2 || st.ScannedJavaScriptFiles != 1 {
		t.Fatalf("statistics %+v", st)
	}
}

// tricky are files whose findings depend on lexing details: comments,
// strings, template literals and their substitutions, regular expressions
// next to divisions, nested objects, spreads, computed keys, optional
// chaining, aliases, escaped identifiers, odd line terminators, and files
// that name no API at all (one of them a syntax error).
var tricky = map[string]string{
	"package.json": `{"name":"tricky","version":"1.0.0","main":"main.js"}`,
	"main.js": `'use strict';
const { ipcMain, BrowserWindow: BW, utilityProcess: up } = require('electron');
const electron = require("electron");
const path = require('path');
// ipcMain.handle('in-a-comment', f)
/* new BrowserWindow({webPreferences:{nodeIntegration:true}}) */
const s = "ipcMain.on('in-a-string')";
const re = /ipcMain.on\('in-a-regex'\)/g, half = total / 2 / ipcMain.listenerCount('x');
const q = /'/; ipcMain.handle('after-quote-regex', () => 1);
const t = ` + "`" + `${ipcMain.handle('in-a-substitution', f)} and ipcMain.on('in-template-text')` + "`" + `;
ipcMain?.handle('optional-member', f);
ipcMain.on?.('optional-call', f);
(ipcMain).once('grouped', f);
electron.ipcMain.handleOnce(` + "`" + `plain-template` + "`" + `, f);
ipcMain.handle(prefix + 'dynamic', f);
ipcMain.on(...spread);
const win = new BW({
  width: 800,
  webPreferences: {
    ...defaults,
    nested: { preload: 'not-this.js', sandbox: false },
    ['sandbox']: true,
    contextIsolation: !1,
    nodeIntegration: (true),
    preload: path.join(__dirname, 'preload.js'),
  },
});
new electron.BrowserWindow({ webPreferences: { sandbox: !0, webviewTag: cond ? true : false } });
new BW;
up.fork(path.join(__dirname, 'workers', 'w.js'));
up.fork('/abs/elsewhere.js');
`,
	"preload.js": "const { contextBridge, ipcRenderer: r } = require('electron')\r\n" +
		"contextBridge.exposeInMainWorld('api', {\r\n" +
		"  ...base, ['computed']: 1, 'quoted': 2, 3: 'numeric', plain() {}, get g() { return 1 }, async *gen() {},\r\n" +
		"  nested: { inner: { deep: r.invoke('optional-member') } },\u2028" +
		"  send: (ch, ...a) => r.send(ch, ...a),\u2029" +
		"  ping: () => r.invoke(`plain-template`) / 2 / r.sendSync('grouped'),\n" +
		"});\n" +
		"contextBridge.exposeInMainWorld(key, api);\n" +
		"r.on('from-main', (e, v) => v); r.once(`once-${x}`, f);\n",
	"escaped.js":   "\\u0069pcMain.on('escaped', f);\n",
	"noapi.js":     "export default function add(a, b) { return a / b / /re/.exec(c)[0]; }\n",
	"broken.js":    "function ( {\n  return 1\n",
	"workers/w.js": "process.parentPort.on('message', () => {});\n",
	"hint.js":      "// mentions BrowserWindow only in a comment\nlet x = 1;\n",
}

func TestPrefilterTricky(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, tricky)
	ref, pre := analyzeBoth(t, realAbs(t, root), DefaultLimits())
	// The reference itself must have seen the constructs, or the comparison
	// proves little.
	ipc := ref.Electron.IPC
	var channels []string
	for _, o := range slices.Concat(ipc.MainHandlers, ipc.RendererTransmissions, ipc.RendererListeners) {
		channels = append(channels, o.Channel)
	}
	slices.Sort(channels)
	want := []string{"after-quote-regex", "from-main", "grouped", "grouped", "in-a-substitution", "optional-call",
		"optional-member", "optional-member", "plain-template", "plain-template"}
	if !slices.Equal(channels, want) {
		t.Errorf("channels %q, want %q", channels, want)
	}
	if n := len(ipc.DynamicChannelOperations); n != 4 { // prefix+'dynamic', ...spread, send(ch), once(`once-${x}`)
		t.Errorf("dynamic operations %+v", ipc.DynamicChannelOperations)
	}
	if len(ref.Electron.BrowserWindows) != 3 || len(ref.Electron.ContextBridge) != 2 || len(ref.Electron.UtilityProcesses) != 2 {
		t.Errorf("electron %+v", ref.Electron)
	}
	// Skipped: escaped.js, noapi.js, broken.js, workers/w.js.
	if d := ref.Statistics.ParsedJavaScriptFiles + ref.Statistics.ParseFailures -
		pre.Statistics.ParsedJavaScriptFiles - pre.Statistics.ParseFailures; d != 4 {
		t.Errorf("prefilter skipped %d files, want 4", d)
	}
	if ref.Statistics.ParseFailures != 1 || pre.Statistics.ParseFailures != 0 {
		t.Errorf("parse failures %d (reference) and %d (prefilter), want 1 and 0: broken.js names no API",
			ref.Statistics.ParseFailures, pre.Statistics.ParseFailures)
	}
}

// npmTree is a large real JavaScript tree: REA_JSAPP_NPM_TREE, or the
// installed npm package found from the npm executable — its node_modules
// when it bundles its dependencies (Node.js's own builds), else the package
// itself (Debian's npm, whose dependencies live beside it).
func npmTree(t *testing.T) string {
	if p := os.Getenv("REA_JSAPP_NPM_TREE"); p != "" {
		return p
	}
	bin, err := exec.LookPath("npm")
	if err != nil {
		testkit.SkipOrFail(t, "npm is not installed; set REA_JSAPP_NPM_TREE to a large JavaScript tree")
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	for dir := filepath.Dir(real); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
		var pkg struct{ Name string }
		if err != nil || json.Unmarshal(raw, &pkg) != nil || pkg.Name != "npm" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, "node_modules")); err == nil && fi.IsDir() {
			return filepath.Join(dir, "node_modules")
		}
		return dir
	}
	testkit.SkipOrFail(t, "no npm package directory above "+real+"; set REA_JSAPP_NPM_TREE")
	return ""
}

// TestPrefilterNPMTree compares the two on a large real tree (npm's).
func TestPrefilterNPMTree(t *testing.T) {
	root := npmTree(t)
	if testing.Short() {
		t.Skip("parses a few MB of JavaScript twice")
	}
	ref, _ := analyzeBoth(t, realAbs(t, root), benchLimits())
	t.Logf("%s: %+v", root, ref.Statistics)
	if ref.Statistics.ParsedJavaScriptFiles < 100 {
		t.Fatalf("only %d files parsed in %s", ref.Statistics.ParsedJavaScriptFiles, root)
	}
}

// TestPrefilterBenchTree compares the two on the benchmark's tree
// (typescript@5 unless REA_JSAPP_BENCH_TREE names another).
func TestPrefilterBenchTree(t *testing.T) {
	if testing.Short() {
		t.Skip("parses the benchmark tree (15 MB of JavaScript) twice")
	}
	root := benchTree(t)
	ref, pre := analyzeBoth(t, root, benchLimits())
	t.Logf("%s: every file parsed %+v; the analysis %+v", root, ref.Statistics, pre.Statistics)
	if ref.Statistics.ParsedJavaScriptFiles+ref.Statistics.ParseFailures < 5 {
		t.Fatalf("only %d files parsed in %s", ref.Statistics.ParsedJavaScriptFiles, root)
	}
}

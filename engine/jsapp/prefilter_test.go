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

// analyzeBoth runs the contract analysis (every selected file parsed) and the
// prefiltered one on root. Apart from the three parse statistics and the
// limitation lines that report them, the results must be identical; the
// statistics must account for every file the prefilter left unparsed.
func analyzeBoth(t *testing.T, root string, lim Limits) (ref, pre *Result) {
	t.Helper()
	req := Request{InputPath: root, Limits: lim}
	ref, err := analyzeWith(context.Background(), req, nil, options{})
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	pre, err = analyzeWith(context.Background(), req, nil, options{prefilter: true})
	if err != nil {
		t.Fatalf("prefilter: %v", err)
	}
	if len(ref.Statistics.TruncatedScopes)+len(pre.Statistics.TruncatedScopes) > 0 {
		t.Fatalf("a budget was reached (%v, %v): the two would legitimately differ", ref.Statistics.TruncatedScopes, pre.Statistics.TruncatedScopes)
	}
	rs, ps := ref.Statistics, pre.Statistics
	skipped := int64(0)
	var rl, pl []string
	for _, l := range ref.Limitations {
		if !strings.Contains(l, "failed to parse") {
			rl = append(rl, l)
		}
	}
	for _, l := range pre.Limitations {
		switch {
		case strings.Contains(l, "scanned, not parsed"):
			n, err := strconv.ParseInt(strings.Fields(l)[0], 10, 64)
			if err != nil {
				t.Fatalf("limitation %q", l)
			}
			skipped = n
		case !strings.Contains(l, "failed to parse"):
			pl = append(pl, l)
		}
	}
	if ps.ParsedJavaScriptFiles > rs.ParsedJavaScriptFiles || ps.ParseFailures > rs.ParseFailures || ps.VisitedASTNodes > rs.VisitedASTNodes ||
		ps.ParsedJavaScriptFiles+ps.ParseFailures+skipped != rs.ParsedJavaScriptFiles+rs.ParseFailures {
		t.Fatalf("statistics do not account for the prefiltered files (%d):\n ref %+v\n pre %+v", skipped, rs, ps)
	}
	norm := *pre
	norm.Statistics.ParsedJavaScriptFiles, norm.Statistics.ParseFailures, norm.Statistics.VisitedASTNodes =
		rs.ParsedJavaScriptFiles, rs.ParseFailures, rs.VisitedASTNodes
	norm.Limitations = pl
	refNorm := *ref
	refNorm.Limitations = rl
	diff(t, &norm, &refNorm)
	return ref, pre
}

func TestPrefilterFixture(t *testing.T) {
	ref, pre := analyzeBoth(t, realAbs(t, fixtureDir), DefaultLimits())
	// Every JavaScript file of the fixture names an Electron API except the
	// worker, which the prefilter skips.
	if d := ref.Statistics.ParsedJavaScriptFiles - pre.Statistics.ParsedJavaScriptFiles; d != 1 {
		t.Fatalf("prefilter skipped %d files, want 1 (src/worker.js)", d)
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
	for name, src := range tricky {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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

package jsapp

import (
	"reflect"
	"strings"
	"testing"
)

func scanOK(t *testing.T, src string) *fileFindings {
	t.Helper()
	f, err := scanJS("app/main.js", []byte(src), 1e6, 1e4)
	if err != nil {
		t.Fatalf("scanJS: %v", err)
	}
	return f
}

func TestRecognizedShapes(t *testing.T) {
	f := scanOK(t, `import { ipcMain as im, BrowserWindow as BW } from "electron";
import * as electron from 'electron';
const { ipcRenderer: r } = require("electron");
const cb = electron.contextBridge;
im.handle("a", () => 1);
electron.ipcMain.handleOnce(`+"`b`"+`, () => 1);
require("electron").ipcMain.once('c\x41', () => {});
r.sendSync("c\x41");
r.invoke("a"); r.invoke("a");
r.invoke(`+"`x${1}`"+`);
r.send(...args);
cb.exposeInMainWorld(key, { ...rest, ['k']: 1, 'quoted': 2, plain() {} });
new BW({ webPreferences: { ...more, nodeIntegration: !0, contextIsolation: !1, sandbox: flag } });
new electron.BrowserWindow({ webPreferences: prefs });
new BW(opts);
new BW({ webPreferences: { webviewTag: true, ...x, webviewTag: false, preload: '/abs/preload.js' } });
`)
	handlers := []rawOp{
		{loc{5, 4}, "a", "handle"},
		{loc{6, 18}, "b", "handleOnce"},
		{loc{7, 29}, "cA", "once"},
	}
	if !reflect.DeepEqual(f.handlers, handlers) {
		t.Errorf("handlers %+v", f.handlers)
	}
	trans := []rawOp{{loc{8, 3}, "cA", "sendSync"}, {loc{9, 3}, "a", "invoke"}, {loc{9, 18}, "a", "invoke"}}
	if !reflect.DeepEqual(f.transmissions, trans) {
		t.Errorf("transmissions %+v", f.transmissions)
	}
	if !reflect.DeepEqual(f.dynamic, []rawDynamic{{loc{10, 3}, "invoke"}, {loc{11, 3}, "send"}}) {
		t.Errorf("dynamic %+v", f.dynamic)
	}
	if len(f.bridges) != 1 || f.bridges[0].key != nil || !f.bridges[0].dynamic ||
		!reflect.DeepEqual(f.bridges[0].members, []string{"plain", "quoted"}) {
		t.Errorf("bridges %+v", f.bridges)
	}
	d := FlagDynamic
	wantPrefs := []WebPreferences{
		{FlagTrue, FlagFalse, d, d}, // the spread before them may hold webviewTag
		{d, d, d, d},
		{d, d, d, d},
		{d, d, d, FlagFalse}, // the last definition wins over the spread before it
	}
	wantLoc := []loc{{13, 5}, {14, 14}, {15, 5}, {16, 5}}
	if len(f.windows) != len(wantPrefs) {
		t.Fatalf("windows %+v", f.windows)
	}
	for i, w := range f.windows {
		if w.prefs != wantPrefs[i] || w.loc != wantLoc[i] {
			t.Errorf("window %d: %+v at %+v, want %+v at %+v", i, w.prefs, w.loc, wantPrefs[i], wantLoc[i])
		}
	}
	if f.unresolvedPaths != 1 { // the absolute preload
		t.Errorf("unresolved paths %d", f.unresolvedPaths)
	}
}

func TestPathExpressions(t *testing.T) {
	f := scanOK(t, `const { utilityProcess } = require('electron');
utilityProcess.fork(path.join(__dirname, 'workers', 'a.js'));
utilityProcess.fork('./b.js');
utilityProcess.fork(path.join(__dirname, '..', '..', 'c.js'));
utilityProcess.fork(path.resolve(__dirname, 'd.js'));
utilityProcess.fork(name);
`)
	var got []*string
	for _, u := range f.utilities {
		got = append(got, u.entry)
	}
	want := []*string{str("app/workers/a.js"), str("app/b.js"), nil, nil, nil}
	if !reflect.DeepEqual(got, want) || f.unresolvedPaths != 3 {
		t.Fatalf("entries %v (unresolved %d)", got, f.unresolvedPaths)
	}
}

func TestPairing(t *testing.T) {
	h := func(ch, m string) IPCOperation { return IPCOperation{Channel: ch, Method: m} }
	got := pair(
		[]IPCOperation{h("dup", "handle"), h("dup", "handleOnce"), h("ev", "on"), h("inv", "on"), h("lonely", "once")},
		[]IPCOperation{h("dup", "invoke"), h("ev", "send"), h("ev", "sendSync"), h("inv", "invoke"), h("nobody", "send")},
	)
	want := []ChannelPairing{
		{"dup", Ambiguous, 1, 2},
		{"ev", Paired, 2, 1},
		{"inv", Unpaired, 1, 0}, // an invoke is answered by handle, not on
		{"lonely", Unpaired, 0, 1},
		{"nobody", Unpaired, 1, 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pairing %+v", got)
	}
}

func TestUnquoteJS(t *testing.T) {
	for in, want := range map[string]string{
		`'a'`:                "a",
		`"\x41\u0042\u{43}"`: "ABC",
		`'\uD83D\uDE00'`:     "\U0001F600",
		"`a\r\nb`":           "a\nb",
		`'a\
b'`: "ab",
		`'\0'`: "\x00",
		`'\q'`: "q",
	} {
		got, ok := unquoteJS([]byte(in))
		if !ok || got != want {
			t.Errorf("unquoteJS(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{`'\01'`, `'\8'`, `'\x4'`, `'\u{110000}'`, `'a"`, `x`} {
		if _, ok := unquoteJS([]byte(in)); ok {
			t.Errorf("unquoteJS(%q) accepted", in)
		}
	}
}

func TestBudgets(t *testing.T) {
	src := []byte(`ipcMain.on('a', f); ipcMain.on('b', f); ipcMain.on('c', f);`)
	f, err := scanJS("m.js", src, 1e6, 2)
	if err != nil || len(f.handlers) != 2 || !f.findingsFull {
		t.Fatalf("findings budget: %+v %v", f, err)
	}
	f, err = scanJS("m.js", src, 5, 100)
	if err != nil || f.nodes != 5 || !f.nodesExceeded {
		t.Fatalf("node budget: %+v %v", f, err)
	}
}

// FuzzScanJS runs the per-file analyzer on arbitrary bytes: it must never
// panic, whatever it reports must be located inside the file, and a file it
// reports anything for must name an Electron API as bytes (the soundness of
// the prefilter: a file it skips would have yielded nothing).
func FuzzScanJS(f *testing.F) {
	for _, src := range tricky {
		f.Add([]byte(src))
	}
	for _, s := range []string{
		"",
		"new BrowserWindow({webPreferences:{preload:path.join(__dirname,'p.js'),sandbox:!0}})",
		"const {ipcMain:m}=require('electron');m.handle(`c`,()=>1);ipcRenderer.send(x)",
		"contextBridge.exposeInMainWorld('api',{a(){},...b,[c]:1})",
		"import {BrowserWindow as B} from 'electron'; new B(); new B; new\n/*x*/B({a:1})",
		"'\\u{D800}\\uDC00'; `a${b}c`; ((((((((((x))))))))))",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := scanJS("a/b.js", src, 1e5, 1e3)
		if err != nil {
			return
		}
		if (res.count() > 0 || res.unresolvedPaths > 0) && !mentionsElectronAPI(src) {
			t.Fatalf("findings %+v in a file that names no Electron API", res)
		}
		lines := len(lineStarts(src))
		check := func(l loc) {
			if l.line < 0 || l.line > lines {
				t.Fatalf("line %d outside 1..%d", l.line, lines)
			}
		}
		for _, w := range res.windows {
			check(w.loc)
		}
		for _, l := range [][]rawOp{res.handlers, res.transmissions, res.listeners} {
			for _, o := range l {
				check(o.loc)
			}
		}
	})
}

// TestDeepNestingIsAParseFailure: the parser's own nesting bound (1000) is
// what bounds the walk's depth; deeper input fails to parse, it never
// exhausts the stack.
func TestDeepNestingIsAParseFailure(t *testing.T) {
	deep := strings.Repeat("(", 100000) + "x" + strings.Repeat(")", 100000)
	if _, err := scanJS("d.js", []byte(deep), 1e7, 1e4); err == nil {
		t.Fatal("100000 nested parentheses parsed")
	}
	blocks := strings.Repeat("{", 100000) + strings.Repeat("}", 100000)
	if _, err := scanJS("d.js", []byte(blocks), 1e7, 1e4); err == nil {
		t.Fatal("100000 nested blocks parsed")
	}
	ok := strings.Repeat("(", 500) + "ipcMain.on('c', f)" + strings.Repeat(")", 500)
	if f, err := scanJS("d.js", []byte(ok), 1e7, 1e4); err != nil || len(f.handlers) != 1 {
		t.Fatalf("500 levels: %v", err)
	}
}

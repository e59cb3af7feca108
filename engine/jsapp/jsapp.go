// Package jsapp implements analyze_javascript_application (CONTRACTS.md §11):
// it reads an Electron application — a directory or an ASAR archive, chosen by
// content — inventories it fail-closed (every file hashed, every declared ASAR
// integrity verified), parses its JavaScript with tdewolff/parse and walks the
// AST for the Electron boundary: windows and their webPreferences, preload
// scripts, contextBridge APIs, IPC channels and their pairing, utility
// processes and native addons.
//
// Decisions recorded here (the contract leaves them open):
//   - line/column point at the called name: the member name of a.b(...) or
//     the constructor name of new X(...); columns count code points from 1.
//   - !0 and !1 count as the literals true and false (minifiers emit them).
//   - A relative string literal naming a preload or fork entrypoint resolves
//     against the directory of the file that names it, like __dirname.
//   - Exceeding max_entries, max_total_artifact_bytes or max_path_bytes is a
//     truncated error; a file over max_artifact_entry_bytes is listed, not
//     hashed; a nested ASAR beyond max_depth is listed, not expanded. Both
//     become limitations.
//   - The application's package.json is the shallowest one outside
//     node_modules (ties in byte order); main resolves like Node
//     (main, main.js, main/index.js; index.js when main is absent).
//   - A JavaScript file that names none of the five Electron APIs (and is
//     neither the main entry nor a preload) is scanned, not parsed (§11.2;
//     mentionsElectronAPI says why no finding is lost). A file scanned
//     before a window named it as its preload is parsed when named.
//   - Files that are not valid UTF-8 are counted, not parsed. The parser's own
//     nesting bound (1000 statements or expressions) makes deeper files parse
//     failures, which bounds the walk's depth.
package jsapp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rea-re/rea/engine/artifact"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
)

// Operation is the tool name used in error details.
const Operation = "analyze_javascript_application"

// Request is the validated input of CONTRACTS.md §11.1 (detail is the tool
// layer's business: it chooses between Result and Result.Project()).
type Request struct {
	InputPath string
	Format    Format // "" means auto
	Limits    Limits
}

// Analyze reads the application at req.InputPath and summarizes its Electron
// boundary. Failures are *fault.Error: invalid_request, truncated,
// artifact_operation_failed, artifact_integrity_mismatch, cancelled, or
// execution_failure. A file that does not parse is counted, never an error.
// Progress phases: inventory (entries; total unknown), parse (files; total
// known), link. The caller sends the terminal update and publishes.
func Analyze(ctx context.Context, req Request, rep progress.Reporter) (*Result, error) {
	return analyzeWith(ctx, req, rep, options{})
}

// options select analysis variants; the zero value is CONTRACTS.md §11
// exactly.
type options struct {
	// parseAll parses every selected JavaScript file, as the first edition
	// of §11.2 did, instead of scanning the files that name no Electron API
	// (mentionsElectronAPI). The findings are the same; only
	// parsed_javascript_files, visited_ast_nodes, parse_failures and
	// scanned_javascript_files differ. Tests use it to prove that, the
	// benchmark to show what the prefilter saves; MCP clients cannot set it.
	parseAll bool

	// procs is how many files are scanned at once (lookahead); 0 means
	// GOMAXPROCS. The result does not depend on it.
	procs int
}

func analyzeWith(ctx context.Context, req Request, rep progress.Reporter, opts options) (*Result, error) {
	rep = progress.OrNop(rep)
	res, err := analyze(ctx, req, rep, opts)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, fault.CancelledError(Operation).WithCause(err)
		}
		return nil, fault.From(Operation, err)
	}
	return res, nil
}

func analyze(ctx context.Context, req Request, rep progress.Reporter, opts options) (*Result, error) {
	if err := validate(req); err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(req.InputPath)
	if err != nil {
		return nil, fault.Invalid(Operation, fault.Issue{Path: "/input_path", Reason: "invalid_value",
			Message: "input_path does not exist or cannot be resolved"})
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return nil, fault.Internal(Operation, err)
	}
	rep.Report(progress.Update{Phase: "inventory", Completed: 0, Message: "listing entries"})
	inv := &inventory{lim: req.Limits, rep: rep}
	defer inv.close()
	format, rootSHA, err := inv.build(ctx, real)
	if err != nil {
		return nil, err
	}
	// The final count: add reports only every 256th entry.
	rep.Report(progress.Update{Phase: "inventory", Completed: float64(len(inv.entries)), Message: "listing entries"})
	if req.Format != "" && req.Format != FormatAuto && req.Format != format {
		return nil, fault.Invalid(Operation, fault.Issue{Path: "/format", Reason: "invalid_value",
			Message: "the input is " + string(format) + ", not " + string(req.Format), Expected: string(format)})
	}
	a := newApp(inv, req.Limits)
	a.opts = opts
	if err := a.parse(ctx, rep); err != nil {
		return nil, err
	}
	rep.Report(progress.Update{Phase: "link", Message: "pairing channels"})
	res := a.link()
	res.InputPath, res.Format, res.RootSHA256 = real, format, rootSHA
	return res, nil
}

func validate(req Request) error {
	var issues []fault.Issue
	if n := len(req.InputPath); n < 1 || n > 16384 || !filepath.IsAbs(req.InputPath) {
		issues = append(issues, fault.Issue{Path: "/input_path", Reason: "invalid_value",
			Message: "input_path must be an absolute path of 1..16384 bytes"})
	}
	switch req.Format {
	case "", FormatAuto, FormatASAR, FormatDirectory:
	default:
		issues = append(issues, fault.Issue{Path: "/format", Reason: "invalid_value", Expected: "auto|asar|directory"})
	}
	if len(issues) > 0 {
		return fault.Invalid(Operation, issues...)
	}
	return req.Limits.Validate()
}

// build inventories the root and returns its format and root_sha256.
func (inv *inventory) build(ctx context.Context, real string) (Format, string, error) {
	fi, err := os.Stat(real)
	if err != nil {
		return "", "", fault.Invalid(Operation, fault.Issue{Path: "/input_path", Reason: "invalid_value",
			Message: "input_path cannot be read"})
	}
	if fi.IsDir() {
		d, err := inv.walkDir(ctx, real, "")
		if err != nil {
			return "", "", err
		}
		sortEntries(inv.entries)
		return FormatDirectory, d, nil
	}
	notApp := fault.Invalid(Operation, fault.Issue{Path: "/input_path", Reason: "invalid_value",
		Message: "input_path is neither a directory nor an ASAR archive"})
	if !fi.Mode().IsRegular() {
		return "", "", notApp
	}
	f, err := openRegular(real)
	if err != nil {
		return "", "", fault.Internal(Operation, err)
	}
	inv.closers = append(inv.closers, f)
	fi, err = f.Stat()
	if err != nil {
		return "", "", fault.Internal(Operation, err)
	}
	a, err := inv.openASAR(f, fi.Size(), real+".unpacked", "")
	if errors.Is(err, artifact.ErrNotASAR) {
		return "", "", notApp
	}
	if err != nil {
		return "", "", err
	}
	inv.closers = append(inv.closers, a)
	whole := sha256.New()
	if _, err := copyHashed(ctx, whole, io.NewSectionReader(f, 0, fi.Size()), fi.Size()); err != nil {
		if ctx.Err() != nil {
			return "", "", err
		}
		return "", "", fault.Internal(Operation, err)
	}
	sum := hex.EncodeToString(whole.Sum(nil))
	if err := inv.expandASAR(ctx, a, real+".unpacked", "", 0); err != nil {
		return "", "", err
	}
	sortEntries(inv.entries)
	return FormatASAR, sum, nil
}

func sortEntries(es []*entry) {
	sort.Slice(es, func(i, j int) bool { return es[i].path < es[j].path })
}

// app accumulates the findings of every parsed file.
type app struct {
	inv    *inventory
	lim    Limits
	byPath map[string]*entry
	files  map[string]*fileFindings

	pkg        Package
	pkgPath    string
	stats      Statistics
	scopes     map[string]bool
	overFile   int64 // files over max_text_file_bytes
	unresolved int

	opts options
	// must are the files parsed whatever their bytes (§11.2): the main
	// entry and the preload files, as they are discovered.
	must map[*entry]bool
	// scanned are the files the prefilter left unparsed; one of them named
	// as a preload later is parsed then (late).
	scanned map[*entry]bool
	late    []*entry
}

func newApp(inv *inventory, lim Limits) *app {
	a := &app{inv: inv, lim: lim, byPath: map[string]*entry{}, files: map[string]*fileFindings{}, scopes: map[string]bool{},
		must: map[*entry]bool{}, scanned: map[*entry]bool{}}
	for _, e := range inv.entries {
		a.byPath[e.path] = e
	}
	a.stats.Entries = int64(len(inv.entries))
	return a
}

func inNodeModules(p string) bool {
	return p == "node_modules" || strings.HasPrefix(p, "node_modules/") || strings.Contains(p, "/node_modules/")
}

func isJS(p string) bool {
	switch path.Ext(p) {
	case ".js", ".cjs", ".mjs":
		return true
	}
	return false
}

func isPackageJSON(p string) bool { return path.Base(p) == "package.json" }

// isTextCandidate is a file the parse phase selects (§11.2).
func isTextCandidate(p string) bool { return (isJS(p) || isPackageJSON(p)) && !inNodeModules(p) }

// parse reads the selected text files in priority order — the application's
// package.json, its main entry, preload and fork entrypoints as they are
// discovered, then byte order — until a limit stops it.
func (a *app) parse(ctx context.Context, rep progress.Reporter) error {
	var selected []*entry
	for _, e := range a.inv.entries {
		if e.kind != kindFile || !(isJS(e.path) || isPackageJSON(e.path)) {
			continue
		}
		a.stats.RelevantFiles++
		if inNodeModules(e.path) {
			a.stats.PolicyFilteredTextFiles++
			continue
		}
		selected = append(selected, e)
	}
	a.stats.TextFilesSelected = int64(len(selected))
	total := float64(len(selected))
	rep.Report(progress.Update{Phase: "parse", Completed: 0, Total: progress.Total(total), Message: "parsing files"})

	// The application's package.json: the shallowest, then byte order.
	var pkgEntry *entry
	for _, e := range selected {
		if isPackageJSON(e.path) && (pkgEntry == nil || strings.Count(e.path, "/") < strings.Count(pkgEntry.path, "/")) {
			pkgEntry = e
		}
	}
	done := map[*entry]bool{}
	var front []*entry // priority queue, consumed before byte order
	if pkgEntry != nil {
		front = append(front, pkgEntry)
	}
	procs := a.opts.procs
	if procs == 0 {
		procs = runtime.GOMAXPROCS(0)
	}
	ahead := newLookahead(a, procs)
	defer ahead.wait()
	start := time.Now()
	budget := time.Duration(a.lim.MaxParseMilliseconds) * time.Millisecond
	next := 0
	processed := 0
files:
	for {
		// A file scanned before it was named as a preload is parsed now;
		// its bytes and its place among max_text_files are already counted.
		for len(a.late) > 0 {
			e := a.late[0]
			a.late = a.late[1:]
			if err := ctx.Err(); err != nil {
				return err
			}
			if time.Since(start) > budget {
				a.scopes["max_parse_milliseconds"] = true
				break files
			}
			src, err := e.read()
			if err != nil {
				return fault.Internal(Operation, err)
			}
			a.stats.ScannedJavaScriptFiles--
			if a.readJS(e, src, &front, nil) {
				break files
			}
		}
		var e *entry
		for len(front) > 0 && e == nil {
			if !done[front[0]] {
				e = front[0]
			}
			front = front[1:]
		}
		for e == nil && next < len(selected) {
			if !done[selected[next]] {
				e = selected[next]
			}
			next++
		}
		if e == nil {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if time.Since(start) > budget {
			a.scopes["max_parse_milliseconds"] = true
			break
		}
		if int64(processed) >= a.lim.MaxTextFiles {
			a.scopes["max_text_files"] = true
			break
		}
		done[e] = true
		if e.size > a.lim.MaxTextFileBytes || !e.readable() || e.sha256 == "" {
			a.stats.OmittedTextFiles++
			if e.size > a.lim.MaxTextFileBytes {
				a.overFile++
			}
			continue
		}
		if a.stats.TextBytesRead+e.size > a.lim.MaxTotalTextBytes {
			a.scopes["max_total_text_bytes"] = true
			done[e] = false
			break
		}
		processed++
		ahead.fill(e, front, selected[next:], done)
		j := ahead.take(e)
		var src []byte
		var err error
		if j != nil {
			<-j.done
			src, err = j.src, j.readErr
		} else {
			src, err = e.read()
		}
		if err != nil {
			return fault.Internal(Operation, err)
		}
		a.stats.TextBytesRead += int64(len(src))
		if !utf8.Valid(src) {
			a.stats.InvalidUTF8Files++
		} else if isPackageJSON(e.path) {
			a.readPackage(e, src, e == pkgEntry, &front)
		} else if !a.opts.parseAll && !a.must[e] && !j.namesAPI(src) {
			a.stats.ScannedJavaScriptFiles++
			a.scanned[e] = true
		} else {
			stop := a.readJS(e, src, &front, j)
			if stop {
				break
			}
		}
		if processed%16 == 0 {
			rep.Report(progress.Update{Phase: "parse", Completed: float64(len(done)), Total: progress.Total(total), Message: "parsing files"})
		}
	}
	finished := 0
	for _, e := range selected {
		if !done[e] {
			a.stats.OmittedTextFiles++
		} else {
			finished++
		}
	}
	// The final count: the loop reports only every 16th file.
	rep.Report(progress.Update{Phase: "parse", Completed: float64(finished), Total: progress.Total(total), Message: "parsing files"})
	return nil
}

func (a *app) readPackage(e *entry, src []byte, isApp bool, front *[]*entry) {
	var doc map[string]json.RawMessage
	src = []byte(strings.TrimPrefix(string(src), "\ufeff"))
	if err := json.Unmarshal(src, &doc); err != nil {
		a.stats.ParseFailures++
		return
	}
	if !isApp {
		return
	}
	str := func(k string) *string {
		var s string
		if raw, ok := doc[k]; ok && json.Unmarshal(raw, &s) == nil {
			return &s
		}
		return nil
	}
	a.pkgPath = e.path
	a.pkg = Package{Name: str("name"), Version: str("version"), Main: str("main")}
	dir := path.Dir(e.path)
	var cands []string
	if m := a.pkg.Main; m != nil && !strings.HasPrefix(*m, "/") {
		p := path.Join(dir, *m)
		cands = []string{p, p + ".js", p + ".cjs", p + ".mjs", p + "/index.js"}
	} else if m == nil {
		cands = []string{path.Join(dir, "index.js")}
	}
	for _, c := range cands {
		if c == ".." || strings.HasPrefix(c, "../") {
			break
		}
		if f, ok := a.byPath[c]; ok && f.kind == kindFile {
			c := c
			a.pkg.MainResolved = &c
			a.mustParse(f, front)
			break
		}
	}
}

// mustParse queues the main entry or a preload file, which §11.2 parses
// whatever its bytes; one the prefilter already scanned is parsed late.
func (a *app) mustParse(e *entry, front *[]*entry) {
	a.must[e] = true
	if a.scanned[e] {
		delete(a.scanned, e)
		a.late = append(a.late, e)
	}
	*front = append(*front, e)
}

// readJS scans one file and queues the entrypoints it names; it reports
// whether a global budget is exhausted. j, when not nil, is the file's scan
// done ahead; it is used only when it is what this scan would give.
func (a *app) readJS(e *entry, src []byte, front *[]*entry, j *job) bool {
	maxNodes := a.lim.MaxASTNodes - a.stats.VisitedASTNodes
	maxFindings := a.lim.MaxFindings - a.stats.Findings
	var f *fileFindings
	var err error
	if j.fits(maxNodes, maxFindings) {
		f = j.f
	} else {
		f, err = safeScan(e.path, src, maxNodes, maxFindings)
	}
	if err != nil {
		a.stats.ParseFailures++
		return false
	}
	a.stats.ParsedJavaScriptFiles++
	a.stats.VisitedASTNodes += f.nodes
	a.stats.Findings += f.count()
	a.unresolved += f.unresolvedPaths
	a.files[e.path] = f
	for _, w := range f.windows {
		if w.preload != nil {
			if p, ok := a.byPath[*w.preload]; ok {
				a.mustParse(p, front)
			}
		}
	}
	for _, u := range f.utilities {
		if u.entry != nil {
			if p, ok := a.byPath[*u.entry]; ok {
				*front = append(*front, p)
			}
		}
	}
	stop := false
	if f.nodesExceeded {
		a.scopes["max_ast_nodes"] = true
		stop = true
	}
	if f.findingsFull {
		a.scopes["max_findings"] = true
		stop = true
	}
	return stop
}

// safeScan is scanJS with a last line of defence: a panic inside the
// third-party parser on hostile input becomes a parse failure, not a crash.
func safeScan(file string, src []byte, maxNodes, maxFindings int64) (f *fileFindings, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, errors.New("parser panic")
		}
	}()
	return scanJS(file, src, maxNodes, maxFindings)
}

// link builds the result: lists sorted by (file, line, column), entrypoints
// resolved against the inventory, channels paired.
func (a *app) link() *Result {
	res := &Result{SchemaVersion: 1, Package: a.pkg}
	el := &res.Electron
	el.BrowserWindows = []BrowserWindow{}
	el.ContextBridge = []ContextBridgeAPI{}
	el.UtilityProcesses = []UtilityProcess{}
	el.NativeAddons = []NativeAddon{}
	el.PreloadEntrypoints = []PreloadEntrypoint{}
	ipc := &el.IPC
	ipc.MainHandlers, ipc.RendererTransmissions, ipc.RendererListeners = []IPCOperation{}, []IPCOperation{}, []IPCOperation{}
	ipc.DynamicChannelOperations, ipc.Pairing = []DynamicOperation{}, []ChannelPairing{}

	files := make([]string, 0, len(a.files))
	for p := range a.files {
		files = append(files, p)
	}
	sort.Strings(files)
	type opKey struct {
		loc
		op IPCOperation
	}
	var handlers, trans, listeners []opKey
	type dynKey struct {
		loc
		op DynamicOperation
	}
	var dyn []dynKey
	type winKey struct {
		loc
		w BrowserWindow
	}
	var wins []winKey
	preloads := map[string]*PreloadEntrypoint{}
	for _, file := range files {
		f := a.files[file]
		for _, w := range f.windows {
			wins = append(wins, winKey{w.loc, BrowserWindow{File: file, Line: w.line, Column: w.col, WebPreferences: w.prefs, Preload: w.preload}})
		}
		for _, b := range f.bridges {
			el.ContextBridge = append(el.ContextBridge, ContextBridgeAPI{File: file, Line: b.line, APIKey: b.key, Members: b.members, Dynamic: b.dynamic})
		}
		add := func(dst *[]opKey, ops []rawOp) {
			for _, o := range ops {
				*dst = append(*dst, opKey{o.loc, IPCOperation{Channel: o.channel, Method: o.method, File: file, Line: o.line}})
			}
		}
		add(&handlers, f.handlers)
		add(&trans, f.transmissions)
		add(&listeners, f.listeners)
		for _, d := range f.dynamic {
			dyn = append(dyn, dynKey{d.loc, DynamicOperation{Method: d.method, File: file, Line: d.line}})
		}
		for _, u := range f.utilities {
			up := UtilityProcess{File: file, Line: u.line, Entrypoint: u.entry}
			if u.entry != nil {
				e, ok := a.byPath[*u.entry]
				up.Resolved = ok && e.kind == kindFile
			}
			el.UtilityProcesses = append(el.UtilityProcesses, up)
		}
	}
	// Files are visited in byte order, so a stable sort on (line, column)
	// within the file order gives (file, line, column).
	byLoc := func(fi, fj string, li, lj loc) int {
		if c := strings.Compare(fi, fj); c != 0 {
			return c
		}
		if li.line != lj.line {
			return li.line - lj.line
		}
		return li.col - lj.col
	}
	sort.SliceStable(wins, func(i, j int) bool { return byLoc(wins[i].w.File, wins[j].w.File, wins[i].loc, wins[j].loc) < 0 })
	for _, w := range wins {
		el.BrowserWindows = append(el.BrowserWindows, w.w)
		if w.w.Preload != nil {
			p := preloads[*w.w.Preload]
			if p == nil {
				e, ok := a.byPath[*w.w.Preload]
				p = &PreloadEntrypoint{Path: *w.w.Preload, Resolved: ok && e.kind == kindFile, ReferencedFrom: []Reference{}}
				preloads[p.Path] = p
			}
			p.ReferencedFrom = append(p.ReferencedFrom, Reference{File: w.w.File, Line: w.w.Line})
		}
	}
	for _, p := range preloads {
		el.PreloadEntrypoints = append(el.PreloadEntrypoints, *p)
	}
	sort.Slice(el.PreloadEntrypoints, func(i, j int) bool { return el.PreloadEntrypoints[i].Path < el.PreloadEntrypoints[j].Path })
	sortOps := func(ks []opKey) []IPCOperation {
		sort.SliceStable(ks, func(i, j int) bool { return byLoc(ks[i].op.File, ks[j].op.File, ks[i].loc, ks[j].loc) < 0 })
		out := []IPCOperation{}
		for _, k := range ks {
			out = append(out, k.op)
		}
		return out
	}
	ipc.MainHandlers, ipc.RendererTransmissions, ipc.RendererListeners = sortOps(handlers), sortOps(trans), sortOps(listeners)
	sort.SliceStable(dyn, func(i, j int) bool { return byLoc(dyn[i].op.File, dyn[j].op.File, dyn[i].loc, dyn[j].loc) < 0 })
	for _, d := range dyn {
		ipc.DynamicChannelOperations = append(ipc.DynamicChannelOperations, d.op)
	}
	ipc.Pairing = pair(ipc.MainHandlers, ipc.RendererTransmissions)

	for _, e := range a.inv.entries {
		if e.kind == kindFile && strings.HasSuffix(e.path, ".node") {
			el.NativeAddons = append(el.NativeAddons, NativeAddon{Path: e.path})
		}
	}

	res.Summary = summarize(el)
	st := a.stats
	st.TruncatedScopes = []string{}
	for s := range a.scopes {
		st.TruncatedScopes = append(st.TruncatedScopes, s)
	}
	sort.Strings(st.TruncatedScopes)
	res.Statistics = st
	res.Limitations = a.limitations(st)
	return res
}

// pair relates each literal channel's transmissions to the handlers that can
// answer them: invoke → handle/handleOnce, send/sendSync → on/once.
func pair(handlers, trans []IPCOperation) []ChannelPairing {
	type counts struct{ invoke, send, handle, on int }
	by := map[string]*counts{}
	get := func(ch string) *counts {
		c := by[ch]
		if c == nil {
			c = &counts{}
			by[ch] = c
		}
		return c
	}
	for _, h := range handlers {
		c := get(h.Channel)
		if h.Method == "handle" || h.Method == "handleOnce" {
			c.handle++
		} else {
			c.on++
		}
	}
	for _, t := range trans {
		c := get(t.Channel)
		if t.Method == "invoke" {
			c.invoke++
		} else {
			c.send++
		}
	}
	out := []ChannelPairing{}
	for ch, c := range by {
		p := ChannelPairing{Channel: ch, Transmissions: c.invoke + c.send}
		switch {
		case p.Transmissions == 0:
			p.Handlers = c.handle + c.on
		default:
			if c.invoke > 0 {
				p.Handlers += c.handle
			}
			if c.send > 0 {
				p.Handlers += c.on
			}
		}
		switch {
		case p.Transmissions == 0 || p.Handlers == 0:
			p.Status = Unpaired
		case p.Handlers == 1:
			p.Status = Paired
		default:
			p.Status = Ambiguous
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Channel < out[j].Channel })
	return out
}

func summarize(el *Electron) Summary {
	s := Summary{
		BrowserWindows:           len(el.BrowserWindows),
		PreloadEntrypoints:       len(el.PreloadEntrypoints),
		ContextBridgeAPIs:        len(el.ContextBridge),
		MainHandlers:             len(el.IPC.MainHandlers),
		RendererTransmissions:    len(el.IPC.RendererTransmissions),
		RendererListeners:        len(el.IPC.RendererListeners),
		DynamicChannelOperations: len(el.IPC.DynamicChannelOperations),
		UtilityProcesses:         len(el.UtilityProcesses),
		NativeAddons:             len(el.NativeAddons),
	}
	for _, w := range el.BrowserWindows {
		p := w.WebPreferences
		if p.NodeIntegration != FlagAbsent || p.ContextIsolation != FlagAbsent || p.Sandbox != FlagAbsent || p.WebviewTag != FlagAbsent {
			s.ExplicitWebPreferences++
		}
	}
	for _, b := range el.ContextBridge {
		s.ExposedAPIMembers += len(b.Members)
	}
	channels := map[string]bool{}
	for _, l := range [][]IPCOperation{el.IPC.MainHandlers, el.IPC.RendererTransmissions, el.IPC.RendererListeners} {
		for _, o := range l {
			channels[o.Channel] = true
		}
	}
	s.IPCLiteralChannels = len(channels)
	for _, p := range el.IPC.Pairing {
		switch p.Status {
		case Paired:
			s.Paired++
		case Ambiguous:
			s.Ambiguous++
		case Unpaired:
			s.Unpaired++
		}
	}
	return s
}

func (a *app) limitations(st Statistics) []string {
	out := []string{
		"static analysis: only the recognized call shapes are reported; Electron APIs reached through reassignment, computed member access or wrapper functions are not seen",
		"node_modules files are inventoried but not parsed",
		"source maps are inventoried, not parsed",
	}
	out = append(out, a.inv.limitations()...)
	if a.pkgPath == "" {
		out = append(out, "no package.json was read; package fields are null")
	} else if a.pkg.MainResolved == nil {
		out = append(out, "the package main entry does not resolve to a file in the application")
	}
	if st.ParseFailures > 0 {
		out = append(out, strconv.FormatInt(st.ParseFailures, 10)+" file(s) failed to parse and were not analyzed")
	}
	if st.ScannedJavaScriptFiles > 0 {
		out = append(out, strconv.FormatInt(st.ScannedJavaScriptFiles, 10)+" JavaScript file(s) name no Electron API and were scanned, not parsed: their AST nodes and syntax errors are not counted")
	}
	if st.InvalidUTF8Files > 0 {
		out = append(out, strconv.FormatInt(st.InvalidUTF8Files, 10)+" file(s) are not valid UTF-8 and were not parsed")
	}
	if a.overFile > 0 {
		out = append(out, strconv.FormatInt(a.overFile, 10)+" file(s) over max_text_file_bytes were not parsed")
	}
	if st.OmittedTextFiles > 0 {
		out = append(out, strconv.FormatInt(st.OmittedTextFiles, 10)+" selected text file(s) were omitted by limit")
	}
	for _, s := range st.TruncatedScopes {
		out = append(out, "parsing stopped at "+s+"; files after that point were not analyzed")
	}
	if a.unresolved > 0 {
		out = append(out, strconv.Itoa(a.unresolved)+" preload or utility process entrypoint expression(s) did not resolve to a path in the application")
	}
	return out
}

package jsapp

import (
	"bytes"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// role is the Electron API an expression denotes.
type role uint8

const (
	roleNone role = iota
	roleBrowserWindow
	roleIPCMain
	roleIPCRenderer
	roleContextBridge
	roleUtilityProcess
)

func apiRole(name []byte) role {
	switch string(name) {
	case "BrowserWindow":
		return roleBrowserWindow
	case "ipcMain":
		return roleIPCMain
	case "ipcRenderer":
		return roleIPCRenderer
	case "contextBridge":
		return roleContextBridge
	case "utilityProcess":
		return roleUtilityProcess
	}
	return roleNone
}

// apiNames are the names apiRole recognizes.
func apiNames() [5]string {
	return [5]string{"BrowserWindow", "ipcMain", "ipcRenderer", "contextBridge", "utilityProcess"}
}

// mentionsElectronAPI reports whether one of the API names occurs in src as
// bytes: the §11.2 test that decides whether a file is parsed or only
// scanned. It must accept every file scanJS finds something in, and it does,
// because every finding starts from a token whose source bytes equal an API
// name: a callee or constructor identifier, a member name after a dot, or the
// key of a destructured require("electron") or of an import (an alias made
// from one of those). Nothing decodes on that path: tdewolff's lexer keeps an
// identifier such as \u0069pcMain as its source bytes, the parser does not
// decode escaped identifiers (its scopes tell variables apart by those
// bytes), and roleOf compares bytes. The forms that reach an API without
// its bytes — computed access (electron["ipc" + "Main"], electron[k]),
// escapes in identifiers or strings, a quoted destructuring or import key —
// are not recognized by scanJS either (the first limitation says so), so
// skipping a file without the bytes loses no finding, and widening this test
// (parsing every file with a backslash-u, or with fragments of the names)
// would only parse files that cannot yield one. TestPrefilterEscapes pins the
// parser's side of that argument: should a parser upgrade start decoding
// escapes, it fails, and this test must then parse such files too.
// Substring search runs at memory speed, far ahead of the lexer.
func mentionsElectronAPI(src []byte) bool {
	for _, n := range apiNames() {
		if bytes.Contains(src, []byte(n)) {
			return true
		}
	}
	return false
}

// loc is a finding's position: 1-based line, 1-based column in code points.
type loc struct{ line, col int }

type rawWindow struct {
	loc
	prefs   WebPreferences
	preload *string // logical path of a recognized preload expression

	// A window whose constructor is a plain identifier has no position in
	// the AST; it is located after the walk (see locateWindows).
	calleeName string
	hint       int
}

type rawOp struct {
	loc
	channel, method string
}

type rawDynamic struct {
	loc
	method string
}

type rawBridge struct {
	loc
	key     *string
	members []string
	dynamic bool
}

type rawUtility struct {
	loc
	entry *string
}

// fileFindings is what one JavaScript file contributed.
type fileFindings struct {
	windows       []rawWindow
	bridges       []rawBridge
	handlers      []rawOp
	transmissions []rawOp
	listeners     []rawOp
	dynamic       []rawDynamic
	utilities     []rawUtility

	unresolvedPaths int   // preload / fork expressions not resolved within the root
	nodes           int64 // AST nodes visited
	nodesExceeded   bool  // the walk stopped at the node budget
	findingsFull    bool  // a finding was dropped at the findings budget
}

func (f *fileFindings) count() int64 {
	return int64(len(f.windows) + len(f.bridges) + len(f.handlers) + len(f.transmissions) +
		len(f.listeners) + len(f.dynamic) + len(f.utilities))
}

// scanJS parses one file and walks its AST for the Electron constructs.
// file is the logical path (its directory stands for __dirname). A syntax
// error is returned as is; the caller counts it as a parse failure. src must
// not be used concurrently: the parser's input borrows its spare capacity.
func scanJS(file string, src []byte, maxNodes, maxFindings int64) (*fileFindings, error) {
	if cap(src) == len(src) {
		// Give the parser room for its NUL so it and the window locator
		// share one buffer (positions are addresses in it).
		src = append(make([]byte, 0, len(src)+1), src...)
	}
	in := parse.NewInputBytes(src)
	defer in.Restore()
	ast, err := js.Parse(in, js.Options{})
	if err != nil {
		return nil, err
	}
	dir := path.Dir(file)
	if dir == "." {
		dir = ""
	}
	s := &scanner{file: file, dir: dir, src: src, buf: in.Bytes(), maxNodes: maxNodes, maxFindings: maxFindings}
	js.Walk(s, ast)
	s.locateWindows()
	return &s.out, nil
}

type scanner struct {
	file, dir   string
	src         []byte // as given: its spare byte lets a lexer share the buffer
	buf         []byte
	maxNodes    int64
	maxFindings int64
	aliases     map[string]role
	lines       []int // offsets of line starts, built on first use
	pending     []int // indexes into out.windows still to locate
	stop        bool
	out         fileFindings
}

func (s *scanner) Exit(js.INode) {}

func (s *scanner) Enter(n js.INode) js.IVisitor {
	if s.stop {
		return nil
	}
	s.out.nodes++
	if s.out.nodes > s.maxNodes {
		s.out.nodes--
		s.out.nodesExceeded = true
		s.stop = true
		return nil
	}
	switch n := n.(type) {
	case *js.CallExpr:
		s.call(n)
	case *js.NewExpr:
		s.newExpr(n)
	case *js.VarDecl:
		s.varDecl(n)
	case *js.ImportStmt:
		s.importStmt(n)
	}
	return s
}

// room reports whether one more finding fits the budget.
func (s *scanner) room() bool {
	if s.out.count() >= s.maxFindings {
		s.out.findingsFull = true
		s.stop = true
		return false
	}
	return true
}

// offset returns where sub starts in the source, or -1 when sub is not a
// slice of it (the parser synthesizes some names). The AST keeps no
// positions, but every token it keeps is a sub-slice of the input buffer
// (the parser caps their capacity, so only the address tells where), and the
// buffer stays referenced while this runs.
func (s *scanner) offset(sub []byte) int {
	if len(sub) == 0 || len(s.buf) == 0 {
		return -1
	}
	d := uintptr(unsafe.Pointer(unsafe.SliceData(sub))) - uintptr(unsafe.Pointer(unsafe.SliceData(s.buf)))
	if d >= uintptr(len(s.buf)) {
		return -1
	}
	off := int(d)
	if &s.buf[off] != &sub[0] {
		return -1
	}
	return off
}

func (s *scanner) locate(off int) loc {
	if off < 0 {
		return loc{}
	}
	if s.lines == nil {
		s.lines = lineStarts(s.buf)
	}
	i := sort.SearchInts(s.lines, off+1) - 1
	return loc{line: i + 1, col: utf8.RuneCount(s.buf[s.lines[i]:off]) + 1}
}

// lineStarts indexes JavaScript line terminators: LF, CR, CRLF, U+2028, U+2029.
func lineStarts(b []byte) []int {
	ls := []int{0}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\n':
			ls = append(ls, i+1)
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			ls = append(ls, i+1)
		case 0xE2:
			if i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9) {
				i += 2
				ls = append(ls, i+1)
			}
		}
	}
	return ls
}

// roleOf resolves an expression to the Electron API it names: an identifier
// with the API's name (or an alias recorded from a destructuring require or
// import), or any member access ending in the API's name (electron.ipcMain,
// require("electron").ipcMain).
func (s *scanner) roleOf(e js.IExpr) (role, []byte) {
	switch e := e.(type) {
	case *js.Var:
		if e == nil {
			return roleNone, nil
		}
		name := e.Name()
		if r, ok := s.aliases[string(name)]; ok {
			return r, name
		}
		return apiRole(name), name
	case *js.DotExpr:
		if lit, ok := e.Y.(js.LiteralExpr); ok {
			return apiRole(lit.Data), lit.Data
		}
	case *js.GroupExpr:
		return s.roleOf(e.X)
	}
	return roleNone, nil
}

func (s *scanner) alias(name []byte, r role) {
	if r == roleNone {
		return
	}
	if s.aliases == nil {
		s.aliases = map[string]role{}
	}
	s.aliases[string(name)] = r
}

// isElectronModule reports require("electron") or an identifier named electron.
func isElectronModule(e js.IExpr) bool {
	switch e := e.(type) {
	case *js.Var:
		return e != nil && string(e.Name()) == "electron"
	case *js.CallExpr:
		v, ok := e.X.(*js.Var)
		if !ok || v == nil || string(v.Name()) != "require" || len(e.Args.List) != 1 {
			return false
		}
		m, ok := literalString(e.Args.List[0].Value)
		return ok && m == "electron"
	case *js.GroupExpr:
		return isElectronModule(e.X)
	}
	return false
}

// varDecl records aliases: const {ipcMain: m} = require("electron") and
// const m = electron.ipcMain.
func (s *scanner) varDecl(d *js.VarDecl) {
	for i := range d.List {
		el := &d.List[i]
		if el.Default == nil {
			continue
		}
		switch b := el.Binding.(type) {
		case *js.BindingObject:
			if !isElectronModule(el.Default) {
				continue
			}
			for _, it := range b.List {
				v, ok := it.Value.Binding.(*js.Var)
				if !ok || v == nil || it.Key == nil || it.Key.IsComputed() {
					continue
				}
				if r := apiRole(it.Key.Literal.Data); r != roleNone && string(v.Name()) != string(it.Key.Literal.Data) {
					s.alias(v.Name(), r)
				}
			}
		case *js.Var:
			if b == nil {
				continue
			}
			if r, name := s.roleOf(el.Default); r != roleNone && string(name) != string(b.Name()) {
				s.alias(b.Name(), r)
			}
		}
	}
}

// importStmt records import {ipcMain as m} from "electron".
func (s *scanner) importStmt(st *js.ImportStmt) {
	if m, ok := unquoteJS(st.Module); !ok || m != "electron" {
		return
	}
	for _, a := range st.List {
		if a.Name != nil && a.Binding != nil && string(a.Name) != string(a.Binding) {
			s.alias(a.Binding, apiRole(a.Name))
		}
	}
}

// literalString evaluates string literals and substitution-free templates.
func literalString(e js.IExpr) (string, bool) {
	switch e := e.(type) {
	case *js.LiteralExpr:
		if e.TokenType == js.StringToken {
			return unquoteJS(e.Data)
		}
	case *js.TemplateExpr:
		if e.Tag == nil && len(e.List) == 0 {
			return unquoteJS(e.Tail)
		}
	case *js.GroupExpr:
		return literalString(e.X)
	}
	return "", false
}

func firstArg(args []js.Arg, i int) (js.IExpr, bool) {
	for j, a := range args {
		if a.Rest {
			return nil, false // spread: positions past here are unknown
		}
		if j == i {
			return a.Value, true
		}
	}
	return nil, false
}

func (s *scanner) call(c *js.CallExpr) {
	dot, ok := c.X.(*js.DotExpr)
	if !ok {
		return
	}
	lit, ok := dot.Y.(js.LiteralExpr)
	if !ok {
		return
	}
	r, _ := s.roleOf(dot.X)
	if r == roleNone {
		return
	}
	method := lit.Data
	var list *[]rawOp
	switch r {
	case roleIPCMain:
		switch string(method) {
		case "handle", "handleOnce", "on", "once":
			list = &s.out.handlers
		}
	case roleIPCRenderer:
		switch string(method) {
		case "invoke", "send", "sendSync":
			list = &s.out.transmissions
		case "on", "once":
			list = &s.out.listeners
		}
	case roleContextBridge:
		if string(method) == "exposeInMainWorld" && s.room() {
			s.bridge(c, s.locate(s.offset(method)))
		}
		return
	case roleUtilityProcess:
		if string(method) == "fork" && s.room() {
			u := rawUtility{loc: s.locate(s.offset(method))}
			if a, ok := firstArg(c.Args.List, 0); ok {
				u.entry = s.pathExpr(a)
			}
			if u.entry == nil {
				s.out.unresolvedPaths++
			}
			s.out.utilities = append(s.out.utilities, u)
		}
		return
	}
	if list == nil || !s.room() {
		return
	}
	at := s.locate(s.offset(method))
	a, ok := firstArg(c.Args.List, 0)
	var ch string
	if ok {
		ch, ok = literalString(a)
	}
	if !ok {
		s.out.dynamic = append(s.out.dynamic, rawDynamic{loc: at, method: string(method)})
		return
	}
	*list = append(*list, rawOp{loc: at, channel: ch, method: string(method)})
}

func (s *scanner) bridge(c *js.CallExpr, at loc) {
	b := rawBridge{loc: at, members: []string{}}
	if a, ok := firstArg(c.Args.List, 0); ok {
		if k, ok := literalString(a); ok {
			b.key = &k
		}
	}
	if b.key == nil {
		b.dynamic = true
	}
	a, ok := firstArg(c.Args.List, 1)
	obj, isObj := a.(*js.ObjectExpr)
	if !ok || !isObj {
		b.dynamic = true
	} else {
		for _, p := range obj.List {
			name, ok := propName(p)
			if !ok {
				b.dynamic = true
				continue
			}
			b.members = append(b.members, name)
		}
		slices.Sort(b.members)
		b.members = slices.Compact(b.members)
	}
	s.out.bridges = append(s.out.bridges, b)
}

// propName is a property's static name; false for spreads and computed keys.
func propName(p js.Property) (string, bool) {
	name := p.Name
	if name == nil && !p.Spread {
		if m, ok := p.Value.(*js.MethodDecl); ok && m != nil { // plain() {}, get x() {}
			if m.Name.Private != nil {
				return "", false
			}
			name = &m.Name.PropertyName
		}
	}
	if p.Spread || name == nil || name.IsComputed() {
		return "", false
	}
	if name.Literal.TokenType == js.StringToken {
		return unquoteJS(name.Literal.Data)
	}
	return string(name.Literal.Data), true
}

// lookup finds key in an object literal as JavaScript would: the last
// definition wins, and a spread or computed key after it (or anywhere, when
// the key is missing) makes the value unknowable.
func lookup(obj *js.ObjectExpr, key string) (js.IExpr, Flag) {
	var found js.IExpr
	state := FlagAbsent
	for _, p := range obj.List {
		name, ok := propName(p)
		switch {
		case !ok:
			found, state = nil, FlagDynamic
		case name == key:
			found, state = p.Value, FlagTrue
		}
	}
	return found, state
}

// flagOf evaluates a webPreferences value. Minifiers write !0 and !1 for
// true and false, so those count as literals too.
func flagOf(e js.IExpr) Flag {
	switch e := e.(type) {
	case *js.LiteralExpr:
		switch e.TokenType {
		case js.TrueToken:
			return FlagTrue
		case js.FalseToken:
			return FlagFalse
		}
	case *js.UnaryExpr:
		if lit, ok := e.X.(*js.LiteralExpr); ok && e.Op == js.NotToken && lit.TokenType&js.NumericToken != 0 {
			switch string(lit.Data) {
			case "0":
				return FlagTrue
			case "1":
				return FlagFalse
			}
		}
	case *js.GroupExpr:
		return flagOf(e.X)
	}
	return FlagDynamic
}

func (s *scanner) newExpr(n *js.NewExpr) {
	r, name := s.roleOf(n.X)
	if r != roleBrowserWindow || !s.room() {
		return
	}
	absent := WebPreferences{FlagAbsent, FlagAbsent, FlagAbsent, FlagAbsent}
	dynamic := WebPreferences{FlagDynamic, FlagDynamic, FlagDynamic, FlagDynamic}
	w := rawWindow{prefs: absent}
	var args []js.Arg
	if n.Args != nil {
		args = n.Args.List
	}
	if dot, ok := n.X.(*js.DotExpr); ok {
		w.loc = s.locate(s.offset(dot.Y.(js.LiteralExpr).Data))
	} else {
		w.calleeName, w.hint = string(name), s.firstOffset(n.Args)
		s.pending = append(s.pending, len(s.out.windows))
	}
	if len(args) > 0 {
		if opts, ok := args[0].Value.(*js.ObjectExpr); ok && !args[0].Rest {
			wpv, st := lookup(opts, "webPreferences")
			switch st {
			case FlagDynamic:
				w.prefs = dynamic
			case FlagTrue:
				if wp, ok := wpv.(*js.ObjectExpr); ok {
					w.prefs = s.prefs(wp, &w)
				} else {
					w.prefs = dynamic
				}
			}
		} else {
			w.prefs = dynamic
		}
	}
	s.out.windows = append(s.out.windows, w)
}

func (s *scanner) prefs(wp *js.ObjectExpr, w *rawWindow) WebPreferences {
	flag := func(key string) Flag {
		v, st := lookup(wp, key)
		if st == FlagTrue {
			return flagOf(v)
		}
		return st
	}
	out := WebPreferences{
		NodeIntegration:  flag("nodeIntegration"),
		ContextIsolation: flag("contextIsolation"),
		Sandbox:          flag("sandbox"),
		WebviewTag:       flag("webviewTag"),
	}
	if v, st := lookup(wp, "preload"); st == FlagTrue {
		if w.preload = s.pathExpr(v); w.preload == nil {
			s.out.unresolvedPaths++
		}
	}
	return out
}

// pathExpr resolves a string literal (relative to the naming file's
// directory) or path.join(__dirname, <literals>) to a logical path inside the
// root; nil for anything else.
func (s *scanner) pathExpr(e js.IExpr) *string {
	var parts []string
	if lit, ok := literalString(e); ok {
		if strings.HasPrefix(lit, "/") {
			return nil
		}
		parts = []string{s.dir, lit}
	} else {
		c, ok := e.(*js.CallExpr)
		if !ok {
			return nil
		}
		dot, ok := c.X.(*js.DotExpr)
		if !ok {
			return nil
		}
		pv, ok1 := dot.X.(*js.Var)
		y, ok2 := dot.Y.(js.LiteralExpr)
		if !ok1 || !ok2 || pv == nil || string(pv.Name()) != "path" || string(y.Data) != "join" || len(c.Args.List) < 2 {
			return nil
		}
		d, ok := c.Args.List[0].Value.(*js.Var)
		if !ok || d == nil || string(d.Name()) != "__dirname" || c.Args.List[0].Rest {
			return nil
		}
		parts = []string{s.dir}
		for _, a := range c.Args.List[1:] {
			lit, ok := literalString(a.Value)
			if !ok || a.Rest || strings.HasPrefix(lit, "/") {
				return nil
			}
			parts = append(parts, lit)
		}
	}
	p := path.Join(parts...)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return nil
	}
	return &p
}

// firstOffset is the smallest source offset of a literal or member name
// inside args, or -1: an upper bound for where the constructor name sits.
func (s *scanner) firstOffset(args *js.Args) int {
	if args == nil {
		return -1
	}
	f := &offsetFinder{s: s, min: -1}
	js.Walk(f, args)
	return f.min
}

type offsetFinder struct {
	s   *scanner
	min int
}

func (f *offsetFinder) Exit(js.INode) {}

func (f *offsetFinder) Enter(n js.INode) js.IVisitor {
	var data []byte
	switch n := n.(type) {
	case *js.LiteralExpr:
		if n != nil {
			data = n.Data
		}
	case js.LiteralExpr:
		data = n.Data
	}
	if off := f.s.offset(data); off >= 0 && (f.min < 0 || off < f.min) {
		f.min = off
	}
	return f
}

// locateWindows places windows built with `new Name(...)`. The AST keeps no
// position for an identifier use, so the file is lexed once (only when such
// a window exists) for `new Name` token pairs; each window takes the last
// unused pair before its first argument token, or else the next unused one.
func (s *scanner) locateWindows() {
	if len(s.pending) == 0 {
		return
	}
	names := map[string]bool{}
	for _, i := range s.pending {
		names[s.out.windows[i].calleeName] = true
	}
	cands := map[string][]int{}
	l := js.NewLexer(parse.NewInputBytes(s.src))
	prevNew := false
	for {
		tt, data := l.Next()
		if tt == js.ErrorToken {
			break
		}
		switch tt {
		case js.WhitespaceToken, js.LineTerminatorToken, js.CommentToken, js.CommentLineTerminatorToken:
			continue
		}
		if prevNew && names[string(data)] {
			if off := s.offset(data); off >= 0 {
				cands[string(data)] = append(cands[string(data)], off)
			}
		}
		prevNew = tt == js.NewToken
	}
	used := map[int]bool{}
	for _, i := range s.pending {
		w := &s.out.windows[i]
		off := -1
		for _, c := range cands[w.calleeName] {
			if used[c] {
				continue
			}
			if w.hint >= 0 && c > w.hint {
				break
			}
			off = c
			if w.hint < 0 {
				break
			}
		}
		if off < 0 {
			off = w.hint
		}
		if off >= 0 {
			used[off] = true
		}
		w.loc = s.locate(off)
	}
}

package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"github.com/rea-re/rea/engine/evidence"
	"github.com/rea-re/rea/engine/session"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// Questions answered across the targets of a connection (CONTRACTS.md
// §15.4): which open target satisfies a dependency, and which one defines
// an import. Each target answers for itself through its client's
// provider.Linker; the engine matches the answers, following the loader's
// naming rules:
//
//   - a dependency named N is satisfied by an open target whose ELF
//     DT_SONAME is N, whose PE file name is N without regard to case, or
//     whose Mach-O install name has N's basename;
//   - when several open targets carry the name, the one at the
//     dependency's candidate path is the loader's; with none there the
//     dependency is left unresolved (ambiguous), never guessed.
//
// Every other target whose answer entered the result is named, with its
// profile digest, in the Evidence parameters (consulted), so an answer's
// id changes whenever another library would change it. Targets asked only
// for their library name and found not to match are not consulted: they
// do not change the answer.

// consultedTarget is one entry of the consulted parameter.
type consultedTarget struct {
	SHA256                string `json:"sha256"`
	AnalysisProfileDigest string `json:"analysis_profile_digest"`
}

// consultation collects the other targets an answer read.
type consultation map[consultedTarget]struct{}

func (cs consultation) add(o *session.Target) {
	if o.Binding() != nil {
		cs[consultedTarget{SHA256: o.Target().SHA256, AnalysisProfileDigest: o.Binding().Profile.Digest}] = struct{}{}
	}
}

// parameter is consulted as recorded: sorted by sha256, then digest.
func (cs consultation) parameter() []any {
	list := make([]consultedTarget, 0, len(cs))
	for c := range cs {
		list = append(list, c)
	}
	slices.SortFunc(list, func(a, b consultedTarget) int {
		return cmp.Or(strings.Compare(a.SHA256, b.SHA256), strings.Compare(a.AnalysisProfileDigest, b.AnalysisProfileDigest))
	})
	out := make([]any, len(list))
	for i, c := range list {
		out[i] = map[string]any{"sha256": c.SHA256, "analysis_profile_digest": c.AnalysisProfileDigest}
	}
	return out
}

// library is an open target as a dependency sees it.
type library struct {
	o    *session.Target
	name string // its LibraryName ("" when it has none)
}

// libraries are the connection's other open, bound targets whose client
// can answer as a Linker, with their library names. Each is held open
// (admitted) until release. A target whose client is still held by a call
// its caller abandoned (a provider that does not observe its context,
// session.Target.Run) is not asked, which could wait for good: it is left
// out, with a limitation, so that a call on one target never hangs on
// another (CONTRACTS.md §0.3). A name already known needs no question,
// unless the caller will ask the library more (asking).
func (c *Connection) libraries(ctx context.Context, op string, except *session.Target, asking bool) (libs []library, limitations []string, release func(), err error) {
	others, release := c.sc.AdmitOthers(except)
	for _, o := range others {
		if _, ok := o.Client().(provider.Linker); !ok {
			continue
		}
		c.mu.Lock()
		_, known := c.linkNames[o.RunID()]
		c.mu.Unlock()
		if (asking || !known) && o.Busy() {
			limitations = append(limitations, "Open target "+o.ID()+" was not consulted: its provider is still running a call "+
				"whose caller stopped waiting. Retry once binary_session shows it idle, or close it.")
			continue
		}
		name, err := c.libraryName(ctx, op, o)
		if err != nil {
			release()
			return nil, nil, nil, err
		}
		libs = append(libs, library{o: o, name: name})
	}
	return libs, limitations, release, nil
}

// linkerCall runs fn on o's Linker in o's request queue, so it never runs
// beside another request to the same client; the caller leaves when ctx
// ends even if fn does not (session.Target.Run). A provider panic is
// execution_failure.
func (c *Connection) linkerCall(ctx context.Context, o *session.Target, op string, fn func(provider.Linker) error) error {
	l, ok := o.Client().(provider.Linker)
	if !ok {
		return c.missingOperation(o, op)
	}
	if reason, bad := c.sc.Unhealthy(o, op); bad {
		return fault.New(fault.ProviderUnavailable, "The provider became unavailable during this session.",
			"Reopen the target to restart the provider, and run `rea doctor`.",
			map[string]any{"operation": op, "provider_id": o.Binding().Provider.ID, "reason": reason})
	}
	var ferr error
	if err := o.Run(ctx, op, 0, func(context.Context) { ferr = fn(l) }); err != nil {
		return err
	}
	if ferr != nil {
		if ctx.Err() != nil {
			return fault.CancelledError(op).WithCause(ctx.Err())
		}
		return fault.From(op, ferr)
	}
	return nil
}

// namedBy says whether lib satisfies a dependency named name of a target
// of format (the loader's comparison).
func (lib library) namedBy(format, name string) bool {
	if lib.name == "" || name == "" {
		return false
	}
	switch format {
	case "pe":
		return strings.EqualFold(lib.name, name)
	case "mach-o", "mach-o-universal":
		return filepath.Base(lib.name) == filepath.Base(name)
	}
	return lib.name == name
}

// satisfying picks the open target that satisfies a dependency: the only
// one carrying the name, or among several the one at candidate ("" when
// the loader would find none). ambiguous reports several with none there.
func satisfying(libs []library, format, name, candidate string) (lib *library, ambiguous bool) {
	var named []*library
	for i := range libs {
		if libs[i].namedBy(format, name) {
			named = append(named, &libs[i])
		}
	}
	switch len(named) {
	case 0:
		return nil, false
	case 1:
		return named[0], false
	}
	if candidate != "" {
		if real, err := filepath.EvalSymlinks(candidate); err == nil {
			for _, l := range named {
				if l.o.Target().Path == real {
					return l, false
				}
			}
		}
	}
	return nil, true
}

// dependencyItem is the part of a list_dependencies item the engine reads
// and fills; the rest passes through as the provider answered it.
type dependencyItem struct {
	Name          string  `json:"name"`
	CandidatePath *string `json:"candidate_path"`
}

// ListDependencies answers list_dependencies for the target ref names,
// filling each item's resolved with the open target that satisfies it.
func (c *Connection) ListDependencies(ctx context.Context, ref string, params provider.Params, rep progress.Reporter) (Published, error) {
	const op = "list_dependencies"
	o, release, err := c.bound(ctx, op, ref)
	if err != nil {
		return Published{}, err
	}
	defer release()
	res, err := c.invoke(ctx, o, op, params, rep)
	if err != nil {
		return Published{}, err
	}
	b, err := canon.Marshal(res.Normalized)
	if err != nil {
		return Published{}, fault.Internal(op, err)
	}
	// The items as the provider answered them, to fill resolved in, and
	// the two fields of each that the matching reads.
	var items []map[string]json.RawMessage
	var deps []dependencyItem
	if json.Unmarshal(b, &items) != nil || json.Unmarshal(b, &deps) != nil {
		return Published{}, unreadable(op, o)
	}
	libs, skipped, releaseLibs, err := c.libraries(ctx, op, o, false)
	if err != nil {
		return Published{}, err
	}
	defer releaseLibs()
	res.Limitations = appendNew(slices.Clip(res.Limitations), skipped...)
	consulted := consultation{}
	for i, item := range items {
		d := deps[i]
		candidate := ""
		if d.CandidatePath != nil {
			candidate = *d.CandidatePath
		}
		lib, ambiguous := satisfying(libs, o.Target().Format, d.Name, candidate)
		switch {
		case lib != nil:
			consulted.add(lib.o)
			item["resolved"] = mustJSON(map[string]string{"target_id": lib.o.ID(), "path": lib.o.Target().Path})
		case ambiguous:
			res.Limitations = appendNew(slices.Clip(res.Limitations), "Several open targets are named "+d.Name+
				" and none is at the path the loader would load; its resolved is null. Close all but one, or open the one at its candidate path.")
		}
	}
	res.Normalized = items
	recorded := withParameter(params, "consulted", consulted.parameter())
	return c.publishResult(ctx, o, op, recorded, evidence.ConfidenceObserved, res)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of JSON values reach here
	}
	return b
}

// withParameter is params plus one recorded key.
func withParameter(params provider.Params, key string, v any) provider.Params {
	out := make(provider.Params, len(params)+1)
	for k, x := range params {
		out[k] = x
	}
	out[key] = v
	return out
}

// ImportAnswer is resolve_import's result (§15.4).
type ImportAnswer struct {
	Import     ImportRef   `json:"import"`
	Resolution *Resolution `json:"resolution"`
	Reason     *string     `json:"reason"` // null | library_not_open | symbol_not_exported | ambiguous | not_an_import
}

// ImportRef is the import as the importing target names it.
type ImportRef struct {
	Name    string  `json:"name"`
	Version *string `json:"version"`
	Library *string `json:"library"`
	Address *string `json:"address"`
}

// Resolution is the open target and procedure that define an import.
type Resolution struct {
	TargetID    string       `json:"target_id"`
	LibraryPath string       `json:"library_path"`
	Procedure   ProcedureRef `json:"procedure"`
}

// maxForwards bounds a chain of PE forwarders or Mach-O re-exports; the
// Windows loader has no bound of its own, but a cycle must end.
const maxForwards = 8

// ResolveImport answers resolve_import for the target ref names: the
// import's own description from that target, then the open target that
// defines it, found as the loader would look (§15.4).
func (c *Connection) ResolveImport(ctx context.Context, ref string, params provider.Params, rep progress.Reporter) (Published, error) {
	const op = "resolve_import"
	o, release, err := c.bound(ctx, op, ref)
	if err != nil {
		return Published{}, err
	}
	defer release()
	if _, declared := findCapability(o.Binding().Impl().Capabilities(), op); !declared {
		return Published{}, c.missingOperation(o, op)
	}
	q := provider.ImportQuery{}
	q.Name, _ = params.String("name")
	if a, ok := params.String("address"); ok {
		q.Address = a
	}
	if (q.Name == "") == (q.Address == "") {
		return Published{}, fault.Invalid(op, fault.Issue{Path: "", Reason: "invalid_value", Message: "give exactly one of name and address"})
	}
	var imp provider.Import
	if err := c.linkerCall(ctx, o, op, func(l provider.Linker) (err error) {
		imp, err = l.Import(ctx, q)
		return err
	}); err != nil {
		return Published{}, err
	}
	libs, skipped, releaseLibs, err := c.libraries(ctx, op, o, true)
	if err != nil {
		return Published{}, err
	}
	defer releaseLibs()
	consulted := consultation{}
	ans, limitations, err := c.resolve(ctx, op, o, q, imp, libs, consulted)
	if err != nil {
		return Published{}, err
	}
	limitations = appendNew(limitations, skipped...)
	res := provider.Result{Normalized: ans, Limitations: append(slices.Clip(imp.Limitations), limitations...)}
	return c.publishResult(ctx, o, op, withParameter(params, "consulted", consulted.parameter()), evidence.ConfidenceObserved, res)
}

func reasonOf(r string) *string { return &r }

// resolve finds imp's definition among libs.
func (c *Connection) resolve(ctx context.Context, op string, o *session.Target, q provider.ImportQuery, imp provider.Import,
	libs []library, consulted consultation) (ImportAnswer, []string, error) {
	ans := ImportAnswer{Import: ImportRef{Name: imp.Name, Version: imp.Version, Library: imp.Library, Address: imp.Address}}
	if imp.NotAnImport {
		ans.Import = ImportRef{Name: q.Name}
		if name, version, versioned := strings.Cut(q.Name, "@"); versioned && o.Target().Format == "elf" {
			ans.Import.Name, ans.Import.Version = name, &version // as the query wrote it
		}
		if q.Address != "" {
			ans.Import.Address = &q.Address
		}
		ans.Reason = reasonOf("not_an_import")
		return ans, nil, nil
	}
	if imp.Ambiguous {
		ans.Reason = reasonOf("ambiguous")
		return ans, []string{"The name is imported from more than one library; give the library (PE: DLL!name) or the import's address."}, nil
	}
	format := o.Target().Format
	var limitations []string
	var order []string // library names to look in, in the loader's order
	switch imp.Lookup {
	case provider.LookupLibrary:
		if imp.Library != nil {
			order = []string{*imp.Library}
		}
	case provider.LookupSearch:
		order = imp.SearchOrder
		if format == "elf" && c.isLibrary(ctx, op, o) {
			limitations = append(limitations, "For a shared library's unversioned import the loader searches the "+
				"global scope (the main program, then its dependencies breadth-first); this answer searched the library's own DT_NEEDED list.")
		}
	case provider.LookupSelf:
		return c.definedIn(ctx, op, library{o: o}, imp, ans, consultation{})
	case provider.LookupMainExecutable:
		var mains []library
		for _, l := range libs {
			if l.name == "" && l.o.Target().Format == format {
				mains = append(mains, l)
			}
		}
		if len(mains) != 1 {
			ans.Reason = reasonOf("library_not_open")
			if len(mains) > 1 {
				ans.Reason = reasonOf("ambiguous")
			}
			return ans, []string{"The import is bound to the main executable of the process; exactly one open executable target without a library name is taken to be it."}, nil
		}
		return c.definedIn(ctx, op, mains[0], imp, ans, consulted)
	}
	var missing []string
	query := provider.ExportQuery{Name: imp.Name, Version: imp.Version, Ordinal: imp.Ordinal}
	for _, name := range order {
		lib, ambiguous := satisfying(libs, format, name, "")
		if ambiguous {
			ans.Reason = reasonOf("ambiguous")
			return ans, append(limitations, "Several open targets are named "+name+"; close all but the one the loader would load."), nil
		}
		if lib == nil {
			missing = append(missing, name)
			continue
		}
		found, stuck, more, err := c.follow(ctx, op, *lib, query, libs, format, consulted)
		limitations = append(limitations, more...)
		if err != nil {
			return ans, nil, err
		}
		if stuck != "" { // the definition is forwarded to a library that is not open, or open twice
			ans.Reason = reasonOf(stuck)
			return ans, limitations, nil
		}
		if found == nil {
			continue
		}
		if len(missing) > 0 {
			limitations = append(limitations, "Searched in load order, "+strings.Join(missing, ", ")+
				" precede the defining library and are not open; a definition there would be bound instead.")
		}
		ans.Resolution = found
		return ans, limitations, nil
	}
	if len(missing) > 0 {
		ans.Reason = reasonOf("library_not_open")
		return ans, append(limitations, "Not open: "+strings.Join(missing, ", ")+"; open it with open_binary (list_dependencies gives its path)."), nil
	}
	if len(order) == 0 {
		ans.Reason = reasonOf("library_not_open")
		return ans, append(limitations, "The import names no library to look in."), nil
	}
	ans.Reason = reasonOf("symbol_not_exported")
	return ans, limitations, nil
}

// definedIn looks imp up in one target (a Mach-O self or main-executable
// binding).
func (c *Connection) definedIn(ctx context.Context, op string, lib library, imp provider.Import, ans ImportAnswer, consulted consultation) (ImportAnswer, []string, error) {
	found, stuck, limitations, err := c.follow(ctx, op, lib, provider.ExportQuery{Name: imp.Name, Version: imp.Version, Ordinal: imp.Ordinal}, nil, lib.o.Target().Format, consulted)
	if err != nil {
		return ans, nil, err
	}
	switch {
	case stuck != "":
		ans.Reason = reasonOf(stuck)
	case found == nil:
		ans.Reason = reasonOf("symbol_not_exported")
	}
	ans.Resolution = found
	return ans, limitations, nil
}

// follow looks query up in lib, following forwarders (PE) and re-exports
// (Mach-O) through the open targets: the definition, or nil when lib does
// not export it. stuck is the reason (library_not_open, ambiguous) when a
// forwarder leads to a library that is not open or is open twice; a
// limitation says which.
func (c *Connection) follow(ctx context.Context, op string, lib library, query provider.ExportQuery, libs []library,
	format string, consulted consultation) (found *Resolution, stuck string, limitations []string, err error) {
	for range maxForwards {
		var exp provider.Export
		if err := c.linkerCall(ctx, lib.o, op, func(l provider.Linker) (err error) {
			exp, err = l.Export(ctx, query)
			return err
		}); err != nil {
			return nil, "", nil, err
		}
		consulted.add(lib.o)
		limitations = append(limitations, exp.Limitations...)
		if !exp.Found {
			return nil, "", limitations, nil
		}
		if exp.Forwarder == nil {
			return &Resolution{TargetID: lib.o.ID(), LibraryPath: lib.o.Target().Path,
				Procedure: ProcedureRef{Address: exp.Address, Name: exp.Name}}, "", limitations, nil
		}
		fw := exp.Forwarder
		next, ambiguous := satisfying(libs, format, fw.Library, "")
		if next == nil {
			if ambiguous {
				return nil, "ambiguous", append(limitations, "The export is forwarded to "+fw.Library+", which is open more than once."), nil
			}
			return nil, "library_not_open", append(limitations, "The export is forwarded to "+fw.Library+", which is not open."), nil
		}
		if fw.Name != "" || fw.Ordinal != nil {
			query = provider.ExportQuery{Name: fw.Name, Ordinal: fw.Ordinal}
		}
		lib = *next
	}
	return nil, "", append(limitations, "The export's forwarders do not end within 8 steps."), nil
}

// isLibrary says whether o names itself as a library (an ELF DT_SONAME).
func (c *Connection) isLibrary(ctx context.Context, op string, o *session.Target) bool {
	name, err := c.libraryName(ctx, op, o)
	return err == nil && name != ""
}

// libraryName is o's Linker.LibraryName, asked once per run: it is a fact
// of the bytes, and every list_dependencies and resolve_import on the
// connection asks it of every other open target.
func (c *Connection) libraryName(ctx context.Context, op string, o *session.Target) (string, error) {
	c.mu.Lock()
	name, known := c.linkNames[o.RunID()]
	c.mu.Unlock()
	if known {
		return name, nil
	}
	err := c.linkerCall(ctx, o, op, func(l provider.Linker) (err error) {
		name, err = l.LibraryName(ctx)
		return err
	})
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if c.linkNames == nil {
		c.linkNames = map[string]string{}
	}
	c.linkNames[o.RunID()] = name
	c.mu.Unlock()
	return name, nil
}

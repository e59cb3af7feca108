package builtin

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"sync"
	"testing"

	"github.com/rea-re/rea/engine/decompile"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/signature"
)

func TestIdentityCapabilitiesSupport(t *testing.T) {
	p := New("1.2.3")
	id := p.Identity()
	if id.ID != "builtin" || id.Name != "REA built-in analyzer" || id.VersionString() != "1.2.3" {
		t.Fatalf("identity %+v", id)
	}
	if p.Availability(context.Background()).Status != "available" {
		t.Fatal("not available")
	}
	caps := p.Capabilities()
	want := map[string]string{"list_documents": "none", "list_segments": "none", "list_names": "offset", "list_procedures": "offset", "list_strings": "offset",
		"address_name": "none", "procedure_address": "none", "resolve_containing_procedure": "none",
		"procedure_assembly": "none", "read_function_instructions": "offset", "procedure_info": "none",
		"procedure_callees": "offset", "procedure_callers": "offset", "procedure_calls": "offset", "procedure_references": "none", "procedure_pseudo_code": "none", "search_pseudo_code": "offset", "xrefs": "offset",
		"search_procedures": "offset", "search_strings": "offset", "binary_triage": "none",
		"list_dependencies": "none", "resolve_import": "none", "read_bytes": "none", "search_bytes": "offset"}
	if len(caps) != len(want) {
		t.Fatalf("caps %d", len(caps))
	}
	for _, c := range caps {
		if want[c.Operation] != c.Pagination || !c.Exhaustive || c.InputContractVersion != 1 || c.OutputContractVersion != 1 ||
			c.Effects != (provider.Effects{Idempotent: true}) || c.Limits.TimeoutMS == nil || *c.Limits.TimeoutMS != 60000 ||
			c.Limitations == nil || len(c.Limitations) != 0 || !c.Available {
			t.Errorf("capability %+v", c)
		}
		maxRes := int64(500)
		if c.Operation == "procedure_callees" || c.Operation == "procedure_callers" || c.Operation == "xrefs" {
			maxRes = 1000
		}
		if c.Operation == "search_procedures" || c.Operation == "search_strings" || c.Operation == "search_pseudo_code" {
			maxRes = 100
		}
		if (c.Pagination == "offset") != (c.Limits.MaxResults != nil && *c.Limits.MaxResults == maxRes) {
			t.Errorf("max_results of %s", c.Operation)
		}
	}
	cases := []struct {
		t    provider.Target
		code string
	}{
		{provider.Target{Kind: "executable", Format: "elf", Architecture: "x86_64"}, ""},
		{provider.Target{Kind: "executable", Format: "mach-o-universal", Architecture: "arm64"}, ""},
		{provider.Target{Kind: "executable", Format: "pe", Architecture: "x86"}, ""},
		{provider.Target{Kind: "executable", Format: "mach-o", Architecture: "arm"}, ""},
		{provider.Target{Kind: "archive", Format: "zip"}, "target_kind_unsupported"},
		{provider.Target{Kind: "directory", Format: "directory"}, "target_kind_unsupported"},
		{provider.Target{Kind: "executable", Format: "wasm", Architecture: "x86_64"}, "target_format_unsupported"},
		{provider.Target{Kind: "executable", Format: "elf", Architecture: ""}, "architecture_unsupported"},
		{provider.Target{Kind: "executable", Format: "elf", Architecture: "riscv64"}, "architecture_unsupported"},
	}
	for _, tc := range cases {
		s := p.Support(tc.t)
		if tc.code == "" && s.Status != "supported" || tc.code != "" && (s.Status != "unsupported" || *s.Code != tc.code || *s.Reason == "") {
			t.Errorf("support %+v: %+v", tc.t, s)
		}
	}
}

func TestProfileParameters(t *testing.T) {
	path := cFixture(t, "gcc-O2", "gcc", "-O2")
	p := New("v1")
	prof, err := p.Profile(context.Background(), targetFor(t, path))
	if err != nil {
		t.Fatal(err)
	}
	if err := prof.Verify(); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(prof.Parameters)
	want := `{"architecture":"x86_64","decompiler":"rea-decompile@` + decompile.Version + `","disassembler":"golang.org/x/arch@` + archVersion() + `","function_discovery":["symbols","dynamic-symbols","plt","entry-point","start-code","eh-frame","init-array","call-targets"],"lifter":"rea-lift@` + lift.Version + `","lifting":1,"loader":"go-debug","pseudo_code":1,"signatures":"rea-signature@` + signature.Version + `","symbolization":1,"syntax":"intel","target_format":"elf","triage":1}`
	if string(got) != want || prof.ProviderProfileSchemaVersion != 1 || prof.Provider.ID != "builtin" {
		t.Errorf("profile parameters\n got %s\nwant %s", got, want)
	}
	// Same bytes, same profile.
	prof2, _ := New("v1").Profile(context.Background(), targetFor(t, path))
	if prof2.Digest != prof.Digest {
		t.Errorf("profile not deterministic")
	}
	arm := goFixture(t, "linux", "arm64")
	pa, err := p.Profile(context.Background(), targetFor(t, arm))
	if err != nil {
		t.Fatal(err)
	}
	if pa.Parameters["syntax"] != "gnu" || pa.Parameters["architecture"] != "arm64" {
		t.Errorf("arm64 profile %v", pa.Parameters)
	}
}

func TestClientBasics(t *testing.T) {
	path := cFixture(t, "gcc-O2", "gcc", "-O2")
	p, tg, c := open(t, path)
	if _, ok := c.Lineage(context.Background()); ok {
		t.Error("lineage ok for an in-process client")
	}
	ctx := context.Background()
	// document: absent, null and the right name are accepted; another is not.
	for _, d := range []any{nil, baseName(path)} {
		if _, err := c.Do(ctx, provider.OpListProcedures, provider.Params{"document": d}, nil); err != nil {
			t.Errorf("document %v: %v", d, err)
		}
	}
	for _, op := range []string{provider.OpListDocuments, provider.OpListSegments, provider.OpListNames, provider.OpListProcedures, provider.OpListStrings} {
		_, err := c.Do(ctx, op, provider.Params{"document": "other"}, nil)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.InvalidRequest {
			t.Fatalf("%s with wrong document: %v", op, err)
		}
		issues := fe.Details["issues"].([]fault.Issue)
		if fe.Details["operation"] != op || len(issues) != 1 || issues[0].Path != "/document" || issues[0].Reason != "invalid_value" {
			t.Errorf("details %+v", fe.Details)
		}
	}
	_, err := c.Do(ctx, "comment", provider.Params{}, nil) // an engine-side operation
	if !fault.Is(err, fault.CapabilityUnavailable) {
		t.Errorf("unknown op: %v", err)
	}
	_, err = c.Do(ctx, provider.OpListNames, provider.Params{"address": "zz"}, nil)
	if !fault.Is(err, fault.InvalidRequest) {
		t.Errorf("bad address: %v", err)
	}

	// A second client of the same content shares the index.
	c2 := startOn(t, p, tg)
	if c.(*Client).ix != c2.(*Client).ix {
		t.Error("index not shared")
	}
	cl, err := c2.Close(ctx)
	if err != nil || !cl.Complete {
		t.Fatal(cl, err)
	}
	if _, err := c2.Do(ctx, provider.OpListDocuments, nil, nil); !fault.Is(err, fault.ProviderUnavailable) {
		t.Errorf("Do after Close: %v", err)
	}
}

func TestPagination(t *testing.T) {
	path := cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
	_, _, c := open(t, path)
	for _, op := range []string{provider.OpListNames, provider.OpListProcedures, provider.OpListStrings} {
		full := do(t, c, op, provider.Params{"limit": int64(500)}).Normalized
		fullJSON, _ := json.Marshal(full)
		var fp struct {
			Items []json.RawMessage
			Total int
		}
		json.Unmarshal(fullJSON, &fp)
		if fp.Total != len(fp.Items) || fp.Total < 5 {
			t.Fatalf("%s: total %d items %d", op, fp.Total, len(fp.Items))
		}
		var got []json.RawMessage
		for off := 0; ; {
			r := do(t, c, op, provider.Params{"offset": int64(off), "limit": int64(7)})
			b, _ := json.Marshal(r.Normalized)
			var pg struct {
				Items      []json.RawMessage
				Offset     int
				Limit      int
				Returned   int
				Total      int
				NextOffset *int `json:"next_offset"`
				Truncated  bool
			}
			json.Unmarshal(b, &pg)
			if pg.Offset != off || pg.Limit != 7 || pg.Returned != len(pg.Items) || pg.Total != fp.Total {
				t.Fatalf("%s page %s", op, b)
			}
			got = append(got, pg.Items...)
			if !pg.Truncated {
				if pg.NextOffset != nil {
					t.Fatalf("%s: next_offset on the last page", op)
				}
				break
			}
			if pg.NextOffset == nil || *pg.NextOffset != off+7 {
				t.Fatalf("%s: next_offset %v", op, pg.NextOffset)
			}
			off = *pg.NextOffset
		}
		if !reflect.DeepEqual(got, fp.Items) {
			t.Errorf("%s: paged items differ from one page", op)
		}
		// Past the end: empty, complete.
		r := do(t, c, op, provider.Params{"offset": int64(fp.Total + 10), "limit": int64(5)})
		b, _ := json.Marshal(r.Normalized)
		var pg struct {
			Returned  int
			Total     int
			Truncated bool
			Items     []any
		}
		json.Unmarshal(b, &pg)
		if pg.Returned != 0 || pg.Truncated || pg.Total != fp.Total || pg.Items == nil {
			t.Errorf("%s past the end: %s", op, b)
		}
	}
	// limit bounds
	for _, l := range []int64{0, 501} {
		if _, err := c.Do(context.Background(), provider.OpListNames, provider.Params{"limit": l}, nil); !fault.Is(err, fault.InvalidRequest) {
			t.Errorf("limit %d: %v", l, err)
		}
	}
	// address filters
	ss := allStrings(t, c)
	a := ss[len(ss)/2].Address
	r := do(t, c, provider.OpListStrings, provider.Params{"address": a}).Normalized.(provider.Page[provider.StringItem])
	if r.Returned != 1 || r.Items[0].Address != a {
		t.Errorf("strings at %s: %+v", a, r)
	}
	r = do(t, c, provider.OpListStrings, provider.Params{"address": "0x1"}).Normalized.(provider.Page[provider.StringItem])
	if r.Returned != 0 || *r.Total != 0 {
		t.Errorf("strings at 0x1: %+v", r)
	}
}

// monotonicReporter fails the test when an index update goes backwards.
type monotonicReporter struct {
	t    *testing.T
	mu   sync.Mutex
	last map[string]float64
	n    int
	hook func(progress.Update)
}

func (r *monotonicReporter) Report(u progress.Update) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if u.Phase != "index" || u.Total != nil || u.Terminal || u.Message == "" {
		r.t.Errorf("update %+v", u)
	}
	if prev, ok := r.last[u.Message]; ok && u.Completed < prev {
		r.t.Errorf("progress went back: %v after %v", u.Completed, prev)
	}
	r.last[u.Message] = u.Completed
	r.n++
	if r.hook != nil {
		r.hook(u)
	}
}

func TestCancellationDoesNotPoison(t *testing.T) {
	path := cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
	_, _, c := open(t, path)
	// Already cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Do(ctx, provider.OpListStrings, provider.Params{}, nil); !fault.Is(err, fault.Cancelled) {
		t.Fatalf("pre-cancelled: %v", err)
	}
	// An expired deadline is a timeout, not a cancellation.
	dctx, dcancel := context.WithTimeout(context.Background(), -1)
	defer dcancel()
	if _, err := c.Do(dctx, provider.OpListStrings, provider.Params{}, nil); !fault.Is(err, fault.ProviderTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("expired deadline: %v", err)
	}
	// Cancelled during the build: the first progress update cancels.
	for _, op := range []string{provider.OpListStrings, provider.OpListNames} {
		ctx, cancel := context.WithCancel(context.Background())
		rep := &monotonicReporter{t: t, last: map[string]float64{}, hook: func(progress.Update) { cancel() }}
		_, err := c.Do(ctx, op, provider.Params{}, rep)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.Cancelled || fe.Details["operation"] != op || fe.Details["cleanup"] != "complete" {
			t.Fatalf("%s cancelled mid-build: %v", op, err)
		}
		if rep.n == 0 {
			t.Errorf("%s: no progress reported", op)
		}
		// The next call builds afresh.
		rep2 := &monotonicReporter{t: t, last: map[string]float64{}}
		r, err := c.Do(context.Background(), op, provider.Params{}, rep2)
		if err != nil {
			t.Fatalf("%s after cancellation: %v", op, err)
		}
		b, _ := json.Marshal(r.Normalized)
		var pg struct{ Total int }
		json.Unmarshal(b, &pg)
		if pg.Total == 0 {
			t.Errorf("%s: empty after rebuild", op)
		}
	}
}

func TestConcurrentClientsShareOneBuild(t *testing.T) {
	path := goFixture(t, "linux", "arm64")
	p := New("test")
	tg := targetFor(t, path)
	var clients []provider.Client
	for i := 0; i < 4; i++ {
		clients = append(clients, startOn(t, p, tg))
	}
	var wg sync.WaitGroup
	results := make([][]byte, len(clients)*2)
	for i, c := range clients {
		for j, op := range []string{provider.OpListStrings, provider.OpListNames} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep := &monotonicReporter{t: t, last: map[string]float64{}}
				r, err := c.Do(context.Background(), op, provider.Params{"offset": int64(100), "limit": int64(50)}, rep)
				if err != nil {
					t.Error(err)
					return
				}
				results[2*i+j], _ = json.Marshal(r.Normalized)
			}()
		}
	}
	wg.Wait()
	for i := 2; i < len(results); i++ {
		if string(results[i]) != string(results[i%2]) {
			t.Errorf("client %d differs", i/2)
		}
	}
	ix := clients[0].(*Client).ix
	if _, ok := ix.strs.peek(); !ok {
		t.Error("string index not cached")
	}
}

func TestMalformedHeaders(t *testing.T) {
	path := cFixture(t, "gcc-O2", "gcc", "-O2")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) provider.Target {
		p := dir + "/" + name
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return provider.Target{Path: p, Kind: "executable", Format: "elf", Architecture: "x86_64", SHA256: name}
	}
	p := New("test")
	// Truncated: section headers are gone, debug/elf rejects the file.
	for _, n := range []int{0, 3, 64, len(data) / 2} {
		_, err := p.Profile(context.Background(), write("trunc", data[:n]))
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.TargetUnavailable || fe.Details["reason"] != "unsupported_format" || fe.Details["path"] != dir+"/trunc" {
			t.Errorf("truncated to %d: %v %v", n, err, fe)
		}
	}
	// A symbol table pointing past the end of the file: symbols from it are
	// missing and a limitation says so; everything else still works.
	bad := append([]byte(nil), data...)
	shoff := binary.LittleEndian.Uint64(bad[0x28:])
	shnum := int(binary.LittleEndian.Uint16(bad[0x3c:]))
	for i := 0; i < shnum; i++ {
		sh := bad[shoff+uint64(i)*64:]
		if binary.LittleEndian.Uint32(sh[4:]) == 2 { // SHT_SYMTAB
			binary.LittleEndian.PutUint64(sh[24:], 1<<40)
		}
	}
	tg := write("badsym", bad)
	c := startOn(t, p, tg)
	r, err := c.Do(context.Background(), provider.OpListProcedures, provider.Params{"limit": int64(500)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Limitations) == 0 {
		t.Errorf("no limitation for a damaged symbol table")
	}
	// main is still named, from _start (source analysis), not from the table.
	for _, n := range allNames(t, c) {
		if n.Value == "main" && n.Symbol.Source != "analysis" {
			t.Errorf("main came from a damaged table: %+v", n)
		}
	}
	if _, err := c.Do(context.Background(), provider.OpListStrings, provider.Params{}, nil); err != nil {
		t.Fatal(err)
	}
	// Not a file.
	if _, err := p.Profile(context.Background(), provider.Target{Path: dir + "/missing"}); !fault.Is(err, fault.TargetUnavailable) {
		t.Errorf("missing file: %v", err)
	}
}

func TestRelocatableObject(t *testing.T) {
	path := cFixture(t, "gcc-object.o", "gcc", "-O1", "-c")
	_, _, c := open(t, path)
	r := do(t, c, provider.OpListStrings, nil)
	if len(r.Limitations) == 0 || r.Normalized.(provider.Page[provider.StringItem]).Returned != 0 {
		t.Errorf("object file strings: %+v", r)
	}
	if segs := do(t, c, provider.OpListSegments, nil).Normalized.([]provider.Segment); len(segs) != 0 {
		t.Errorf("object file segments: %+v", segs)
	}
	do(t, c, provider.OpListProcedures, nil)
}

// TestIndexProgressFinalCount: each index build's last update is its whole
// count (symbols, string bytes, code bytes decoded), not the last periodic
// value: on a small fixture the periodic updates never fire, so only the
// final one counts the work (CONTRACTS.md §6.1).
func TestIndexProgressFinalCount(t *testing.T) {
	path := cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
	_, _, c := open(t, path)
	rep := &monotonicReporter{t: t, last: map[string]float64{}}
	for _, call := range []struct {
		op     string
		params provider.Params
	}{{provider.OpListNames, provider.Params{}}, {provider.OpListStrings, provider.Params{}}, {provider.OpXrefs, provider.Params{"address": "0x0"}}} {
		if _, err := c.Do(context.Background(), call.op, call.params, rep); err != nil && !fault.Is(err, fault.InvalidRequest) {
			t.Fatalf("%s: %v", call.op, err)
		}
	}
	for _, what := range []string{"symbols indexed", "bytes scanned for strings", "code bytes decoded for references"} {
		if n, ok := rep.last[what]; !ok || n <= 0 {
			t.Errorf("%s: last update %v (reported %v)", what, n, ok)
		}
	}
}

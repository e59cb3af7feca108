package builtin

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/internal/jcs"
)

// slowCanonical is what canon.Marshal produced before the items wrote
// themselves: encoding/json, then Transform.
func slowCanonical(t testing.TB, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// plainPage is provider.Page without its methods: encoding/json writes it
// field by field, items included, as it did before pages wrote themselves.
type plainPage[T any] struct {
	Items      []T  `json:"items"`
	Offset     int  `json:"offset"`
	Limit      int  `json:"limit"`
	Returned   int  `json:"returned"`
	Total      *int `json:"total"`
	NextOffset *int `json:"next_offset"`
	Truncated  bool `json:"truncated"`
}

// checkPage compares the page's own canonical form with the slow path. A
// page over the byte budget is encoded cut short; the slow path gets the
// same cut (the first n items, resumable after them), where n is what the
// fast path kept, and n must be all items or the most that fit.
func checkPage[T any](t testing.TB, items []T) {
	t.Helper()
	total, next := len(items), 7
	for _, p := range []provider.Page[T]{
		{Items: items, Offset: 3, Limit: 500, Returned: len(items), Total: &total, NextOffset: &next, Truncated: true},
		{Items: items, Limit: 100, Returned: len(items)},
		{Items: []T{}, Limit: 1},
	} {
		fast, err := canon.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Returned int }
		if err := json.Unmarshal(fast, &got); err != nil {
			t.Fatal(err)
		}
		want := plainPage[T](p)
		if n := got.Returned; n < len(p.Items) {
			if len(fast) > provider.ResultBudget || n == 0 {
				t.Fatalf("page of %T cut to %d items is %d bytes", p.Items, n, len(fast))
			}
			next := p.Offset + n
			want.Items, want.Returned, want.NextOffset, want.Truncated = p.Items[:n], n, &next, true
			if longer := slowCanonical(t, plainPage[T]{Items: p.Items[:n+1]}); len(longer) <= provider.ResultBudget-192 {
				t.Fatalf("page of %T cut to %d items although %d fit in %d bytes", p.Items, n, n+1, len(longer))
			}
		}
		if want := slowCanonical(t, want); !bytes.Equal(fast, want) {
			t.Fatalf("page of %T:\n got %.300s\nwant %.300s", p.Items, fast, want)
		}
	}
}

func TestItemsAppendCanonical(t *testing.T) {
	odd := []string{"", "plain", `quote" back\slash`, "\x00\x01\x1f\x7f\t\n\r\b\f", "<tag> & é \u2028 😀", "\xff\xfe bad \xc3", "\xed\xa0\x80"}
	var procs []provider.ProcedureItem
	var names []provider.NameItem
	var strs []provider.StringItem
	var addrs []provider.AddressItem
	var found []provider.SearchItem
	var hits []provider.BytesItem
	for i, s := range odd {
		section := s
		procs = append(procs, provider.ProcedureItem{Address: "0x" + s, Value: s, Aliases: odd[:i], Procedure: provider.ProcedureInfo{External: i%2 == 0, Thunk: i%3 == 0}},
			provider.ProcedureItem{Address: "0x1", Value: s, Aliases: []string{}, Procedure: provider.ProcedureInfo{Thunk: true, ThunkTarget: &section}},
			provider.ProcedureItem{Address: "0x2", Value: s})
		addrs = append(addrs, provider.AddressItem{Address: s, Name: &section, Procedure: &provider.ProcRef{Address: "0x5", Name: s}},
			provider.AddressItem{Address: "0x6"})
		found = append(found, provider.SearchItem{Address: "0x7", Value: s, ValueTruncated: i%2 == 1, Procedure: &provider.ProcRef{Address: s, Name: s}},
			provider.SearchItem{Address: s})
		hits = append(hits, provider.BytesItem{Address: s, Section: s, Procedure: &provider.ProcRef{Address: "0x8", Name: s}},
			provider.BytesItem{Address: "0x9", Section: s})
		names = append(names, provider.NameItem{Address: "0x2", Value: s, Symbol: provider.SymbolInfo{Primary: i%2 == 1, Dynamic: true, Type: s, Source: "analysis"}})
		strs = append(strs, provider.StringItem{Address: "0x3", Value: s, ValueTruncated: i%2 == 0,
			String: provider.StringInfo{Encoding: "ascii", Termination: s, ByteLength: i * 1000003, Section: &section}},
			provider.StringItem{Address: "0x4", Value: s})
	}
	checkPage(t, procs)
	checkPage(t, names)
	checkPage(t, strs)
	checkPage(t, addrs)
	checkPage(t, found)
	checkPage(t, hits)
	// Items that do not write themselves: the page falls back to encoding/json.
	type plain struct {
		Zed   string `json:"zed"`
		Alpha int    `json:"alpha"`
	}
	checkPage(t, []plain{{Zed: "\xff<", Alpha: 1 << 60}, {}})

	// Real pages: every procedure, name and string of the test binary.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, _, c := open(t, self)
	checkPage(t, allProcedures(t, c))
	checkPage(t, allNames(t, c))
	checkPage(t, allStrings(t, c))
	var edges []provider.AddressItem
	for _, p := range allProcedures(t, c)[:200] {
		edges = append(edges, allItems[provider.AddressItem](t, c, provider.OpProcedureCallees, provider.Params{"procedure": p.Address})...)
	}
	if len(edges) == 0 {
		t.Fatal("no callees in 200 procedures")
	}
	checkPage(t, edges)
	checkPage(t, do(t, c, provider.OpSearchProcedures, provider.Params{"pattern": "_"}).Normalized.(provider.Page[provider.SearchItem]).Items)
	checkPage(t, do(t, c, provider.OpSearchStrings, provider.Params{"pattern": "e"}).Normalized.(provider.Page[provider.SearchItem]).Items)
}

func FuzzItemsAppendCanonical(f *testing.F) {
	f.Add("name", "0x401000", int64(12))
	f.Add("\xff\"\\\x01<", "", int64(-1))
	f.Fuzz(func(t *testing.T, s, addr string, n int64) {
		section := s + addr
		checkPage(t, []provider.ProcedureItem{{Address: addr, Value: s, Aliases: []string{s, addr}, Procedure: provider.ProcedureInfo{ThunkTarget: &section}}})
		checkPage(t, []provider.AddressItem{{Address: addr, Name: &s, Procedure: &provider.ProcRef{Address: s, Name: addr}}, {Address: s}})
		checkPage(t, []provider.SearchItem{{Address: addr, Value: s, Procedure: &provider.ProcRef{Address: addr, Name: s}}, {Value: addr}})
		checkPage(t, []provider.NameItem{{Address: addr, Value: s, Symbol: provider.SymbolInfo{Type: s, Source: addr}}})
		checkPage(t, []provider.StringItem{{Address: addr, Value: s, String: provider.StringInfo{Encoding: s, ByteLength: int(n), Section: &section}}})
	})
}

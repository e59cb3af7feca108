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
	var procs []ProcedureItem
	var names []NameItem
	var strs []StringItem
	var addrs []AddressItem
	var found []SearchItem
	for i, s := range odd {
		section := s
		procs = append(procs, ProcedureItem{Address: "0x" + s, Value: s, Aliases: odd[:i], Procedure: ProcedureInfo{External: i%2 == 0, Thunk: i%3 == 0}},
			ProcedureItem{Address: "0x1", Value: s, Aliases: []string{}, Procedure: ProcedureInfo{Thunk: true, ThunkTarget: &section}},
			ProcedureItem{Address: "0x2", Value: s})
		addrs = append(addrs, AddressItem{Address: s, Name: &section, Procedure: &ProcRef{Address: "0x5", Name: s}},
			AddressItem{Address: "0x6"})
		found = append(found, SearchItem{Address: "0x7", Value: s, ValueTruncated: i%2 == 1, Procedure: &ProcRef{Address: s, Name: s}},
			SearchItem{Address: s})
		names = append(names, NameItem{Address: "0x2", Value: s, Symbol: SymbolInfo{Primary: i%2 == 1, Dynamic: true, Type: s, Source: "analysis"}})
		strs = append(strs, StringItem{Address: "0x3", Value: s, ValueTruncated: i%2 == 0,
			String: StringInfo{Encoding: "ascii", Termination: s, ByteLength: i * 1000003, Section: &section}},
			StringItem{Address: "0x4", Value: s})
	}
	checkPage(t, procs)
	checkPage(t, names)
	checkPage(t, strs)
	checkPage(t, addrs)
	checkPage(t, found)
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
	var edges []AddressItem
	for _, p := range allProcedures(t, c)[:200] {
		edges = append(edges, allItems[AddressItem](t, c, OpProcedureCallees, provider.Params{"procedure": p.Address})...)
	}
	if len(edges) == 0 {
		t.Fatal("no callees in 200 procedures")
	}
	checkPage(t, edges)
	checkPage(t, do(t, c, OpSearchProcedures, provider.Params{"pattern": "_"}).Normalized.(provider.Page[SearchItem]).Items)
	checkPage(t, do(t, c, OpSearchStrings, provider.Params{"pattern": "e"}).Normalized.(provider.Page[SearchItem]).Items)
}

func FuzzItemsAppendCanonical(f *testing.F) {
	f.Add("name", "0x401000", int64(12))
	f.Add("\xff\"\\\x01<", "", int64(-1))
	f.Fuzz(func(t *testing.T, s, addr string, n int64) {
		section := s + addr
		checkPage(t, []ProcedureItem{{Address: addr, Value: s, Aliases: []string{s, addr}, Procedure: ProcedureInfo{ThunkTarget: &section}}})
		checkPage(t, []AddressItem{{Address: addr, Name: &s, Procedure: &ProcRef{Address: s, Name: addr}}, {Address: s}})
		checkPage(t, []SearchItem{{Address: addr, Value: s, Procedure: &ProcRef{Address: addr, Name: s}}, {Value: addr}})
		checkPage(t, []NameItem{{Address: addr, Value: s, Symbol: SymbolInfo{Type: s, Source: addr}}})
		checkPage(t, []StringItem{{Address: addr, Value: s, String: StringInfo{Encoding: s, ByteLength: int(n), Section: &section}}})
	})
}

package provider

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/internal/jcs"
)

// selfItem writes its own canonical form, like builtin's list items.
type selfItem struct {
	V string `json:"v"`
}

func (it selfItem) AppendCanonical(b []byte) ([]byte, bool) {
	b = append(b, `{"v":`...)
	return append(jcs.AppendString(b, it.V), '}'), true
}

type decodedPage struct {
	Items      []json.RawMessage `json:"items"`
	Offset     int               `json:"offset"`
	Returned   int               `json:"returned"`
	Total      *int              `json:"total"`
	NextOffset *int              `json:"next_offset"`
	Truncated  bool              `json:"truncated"`
}

func decodePage(t *testing.T, b []byte) decodedPage {
	t.Helper()
	var p decodedPage
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("%v: %.200s", err, b)
	}
	if len(p.Items) != p.Returned {
		t.Fatalf("returned %d, %d items", p.Returned, len(p.Items))
	}
	return p
}

// checkBudget checks an encoded page of n items of itemBytes each (commas
// apart) against §1.4's byte budget: within it, at least one item, cut
// exactly where the next item would exceed it, resumable after the last.
func checkBudget(t *testing.T, b []byte, offset, n, itemBytes int) {
	t.Helper()
	p := decodePage(t, b)
	fits := (ResultBudget - pageEnvelope + 1) / (itemBytes + 1) // items whose bytes and commas fit
	want := min(n, max(fits, 1))
	if p.Returned != want {
		t.Fatalf("%d items of %d bytes: returned %d, want %d", n, itemBytes, p.Returned, want)
	}
	if want > 1 && len(b) > ResultBudget {
		t.Fatalf("page of %d items is %d bytes, over %d", want, len(b), ResultBudget)
	}
	if want < n {
		if !p.Truncated || p.NextOffset == nil || *p.NextOffset != offset+want {
			t.Fatalf("cut page: truncated %v next_offset %v, want true and %d", p.Truncated, p.NextOffset, offset+want)
		}
		if p.Total == nil || *p.Total != n+offset {
			t.Fatalf("total %v changed", p.Total)
		}
	}
}

func TestPageByteBudget(t *testing.T) {
	for _, tc := range []struct{ n, valueLen int }{
		{10, 100},      // well within
		{2000, 100},    // cut
		{700, 93},      // about at the edge
		{3, 70 << 10},  // one item over the whole budget: still one item
		{1, 200 << 10}, // the only item
	} {
		value := strings.Repeat("x", tc.valueLen)
		strs := make([]string, tc.n)
		selfs := make([]selfItem, tc.n)
		for i := range strs {
			strs[i], selfs[i] = value, selfItem{V: value}
		}
		offset := 5
		all := PageOf(append(make([]string, offset), strs...), offset, tc.n)
		self := PageOf(append(make([]selfItem, offset), selfs...), offset, tc.n)

		// encoding/json path (items that do not write themselves).
		b, err := json.Marshal(all)
		if err != nil {
			t.Fatal(err)
		}
		checkBudget(t, b, offset, tc.n, tc.valueLen+2)
		c, err := canon.Marshal(all)
		if err != nil {
			t.Fatal(err)
		}
		checkBudget(t, c, offset, tc.n, tc.valueLen+2)

		// canonical path (canon.Appender items), top level and through encoding/json.
		c, err = canon.Marshal(self)
		if err != nil {
			t.Fatal(err)
		}
		checkBudget(t, c, offset, tc.n, tc.valueLen+8)
		if b, err = json.Marshal(self); err != nil {
			t.Fatal(err)
		}
		checkBudget(t, b, offset, tc.n, tc.valueLen+8)

		// A page inside another result is cut the same way.
		nested, err := canon.Marshal(struct {
			Name  string       `json:"name"`
			Items Page[string] `json:"items"`
		}{"f", all})
		if err != nil {
			t.Fatal(err)
		}
		var outer struct {
			Items json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(nested, &outer); err != nil {
			t.Fatal(err)
		}
		checkBudget(t, outer.Items, offset, tc.n, tc.valueLen+2)
		if all.Returned != tc.n || len(all.Items) != tc.n {
			t.Fatalf("encoding changed the Go value: %d items", len(all.Items))
		}
	}
}

// The encoding/json path measures items in their canonical form: text that
// encoding/json would escape (<, >, &) does not cut a page early.
func TestPageByteBudgetMeasuresCanonicalBytes(t *testing.T) {
	value := strings.Repeat("<>", 50) // 100 bytes canonical, 600 escaped by encoding/json
	items := make([]string, 2000)
	for i := range items {
		items[i] = value
	}
	b, err := canon.Marshal(PageOf(items, 0, len(items)))
	if err != nil {
		t.Fatal(err)
	}
	checkBudget(t, b, 0, len(items), len(value)+2)
}

// A page within its budget encodes exactly as before: every item, and its
// own truncated and next_offset.
func TestPageWithinBudgetUnchanged(t *testing.T) {
	p := PageOf([]string{"a", "b", "c"}, 1, 1)
	b, err := canon.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"items":["b"],"limit":1,"next_offset":2,"offset":1,"returned":1,"total":3,"truncated":true}`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
	empty, err := json.Marshal(PageOf([]string{}, 0, 10))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"items":[],"limit":10,"next_offset":null,"offset":0,"returned":0,"total":0,"truncated":false}`; string(empty) != want {
		t.Fatalf("got %s, want %s", empty, want)
	}
}

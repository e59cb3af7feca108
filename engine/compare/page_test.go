package compare

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/internal/testkit"
)

// TestPageFilters pages one stored result: status filter, RE2 name
// pattern, offset and limit, with no recomputation (Page reads the stored
// items only), and typed errors for bad input.
func TestPageFilters(t *testing.T) {
	oldPath, newPath := testkit.CompareFixture(t, "x86_64", "-O2", false)
	res := compareFiles(t, oldPath, newPath)
	b, err := res.Encode()
	if err != nil {
		t.Fatal(err)
	}
	stored, err := DecodeResult(b) // what a second call reads back
	if err != nil {
		t.Fatal(err)
	}
	pat := "^(grid|scale|early)_"
	a, err := stored.Page(Query{Status: []string{StatusChanged, StatusAdded}, NamePattern: &pat}, "tgt_L", "tgt_R")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range a.Procedures.Items {
		n := it.Right.Name
		names = append(names, it.Status+":"+n)
	}
	if got := strings.Join(names, ","); got != "added:early_probe,changed:scale_value,changed:grid_fill" {
		t.Fatalf("filtered page: %s", got)
	}
	all, err := stored.Page(Query{Limit: 10}, "tgt_L", "tgt_R")
	if err != nil {
		t.Fatal(err)
	}
	if all.Procedures.Returned != 10 || *all.Procedures.Total != len(res.Items) || *all.Procedures.NextOffset != 10 {
		t.Fatalf("page: returned %d total %d next %v", all.Procedures.Returned, *all.Procedures.Total, all.Procedures.NextOffset)
	}
	second, err := stored.Page(Query{Offset: 10, Limit: 10}, "tgt_L", "tgt_R")
	if err != nil {
		t.Fatal(err)
	}
	if second.Procedures.Items[0].Left.Address != res.Items[10].Left.Address {
		t.Fatal("second page does not continue the first")
	}
	for _, q := range []Query{{Status: []string{"gone"}}, {NamePattern: ptr("(")}, {Limit: 501}, {Offset: -1}, {NamePattern: ptr("")}} {
		if _, err := stored.Page(q, "", ""); !fault.Is(err, fault.InvalidRequest) {
			t.Errorf("%+v: %v, want invalid_request", q, err)
		}
	}
}

// TestPageByteBudget: a page whose items exceed 64 KiB of compact JSON is
// cut short with truncated:true and a next_offset (CONTRACTS.md §0, §1.4).
func TestPageByteBudget(t *testing.T) {
	r := &Result{Items: []Item{}}
	long := strings.Repeat("n", 1000)
	for i := range 200 {
		it := Item{Status: StatusRemoved, Left: &ProcRef{Address: formatAddr(uint64(0x1000 + i)), Name: long}, leftAddr: uint64(0x1000 + i)}
		r.Items = append(r.Items, it)
	}
	a, err := r.Page(Query{Limit: 500}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(a.Procedures)
	if err != nil {
		t.Fatal(err)
	}
	var pg struct {
		Items      []json.RawMessage `json:"items"`
		Truncated  bool              `json:"truncated"`
		NextOffset *int              `json:"next_offset"`
	}
	if err := json.Unmarshal(b, &pg); err != nil {
		t.Fatal(err)
	}
	if len(b) > 64<<10 || !pg.Truncated || pg.NextOffset == nil || *pg.NextOffset != len(pg.Items) || len(pg.Items) == 0 {
		t.Fatalf("page of %d bytes, %d items, truncated %v next %v", len(b), len(pg.Items), pg.Truncated, pg.NextOffset)
	}
}

func ptr(s string) *string { return &s }

// TestComparisonIDIgnoresPaging: comparison_id is the digest of the
// parameters without status, name_pattern, offset and limit, so every page
// of one comparison names the same stored result, and it changes with
// either side's bytes or profile, or max_procedures.
func TestComparisonIDIgnoresPaging(t *testing.T) {
	l := Identity{SHA256: strings.Repeat("a", 64), AnalysisProfileDigest: strings.Repeat("b", 64)}
	r := Identity{SHA256: strings.Repeat("c", 64), AnalysisProfileDigest: strings.Repeat("d", 64)}
	id, err := ComparisonID(l, r, DefaultMaxProcedures)
	if err != nil {
		t.Fatal(err)
	}
	// The digest of the JCS text written out by hand.
	want := `{"left_analysis_profile_digest":"` + l.AnalysisProfileDigest + `","left_sha256":"` + l.SHA256 +
		`","max_procedures":200000,"right_analysis_profile_digest":"` + r.AnalysisProfileDigest + `","right_sha256":"` + r.SHA256 + `"}`
	if id != "cmp_"+canonSHA(want) {
		t.Fatalf("id %s", id)
	}
	for _, other := range [][3]any{{r, l, DefaultMaxProcedures}, {l, r, 10}, {Identity{l.SHA256, r.SHA256}, r, DefaultMaxProcedures}} {
		o, _ := ComparisonID(other[0].(Identity), other[1].(Identity), other[2].(int))
		if o == id {
			t.Fatalf("%v: same id", other)
		}
	}
	p := ParametersOf(l, r, Query{Offset: 100}, 0)
	if p.Limit != DefaultLimit || p.MaxProcedures != DefaultMaxProcedures || p.Status != nil || p.NamePattern != nil {
		t.Fatalf("%+v", p)
	}
}

// TestAssemblyEqualsPages: a procedure read through procedure_assembly is
// the one read through every page of read_function_instructions, so a
// comparison gives the same result whichever its provider serves.
func TestAssemblyEqualsPages(t *testing.T) {
	for _, arch := range []string{"x86_64", "arm64"} {
		oldPath, _ := testkit.CompareFixture(t, arch, "-O2", true)
		a, _ := builtinSide(t, oldPath)
		b, _ := builtinSide(t, oldPath)
		b.pagedOnly = true
		l, err := a.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range l.Procedures {
			x, err1 := a.Instructions(context.Background(), p)
			y, err2 := b.Instructions(context.Background(), p)
			if err1 != nil || err2 != nil || !reflect.DeepEqual(x, y) {
				t.Fatalf("%s %s: assembly %+v %v, pages %+v %v", arch, p.Name, x, err1, y, err2)
			}
		}
		if a.pagedOnly {
			t.Fatal("the builtin provider's procedure_assembly was not used")
		}
	}
}

package builtin

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

func search(t *testing.T, c provider.Client, op string, in provider.Params) provider.Page[provider.SearchItem] {
	t.Helper()
	return do(t, c, op, in).Normalized.(provider.Page[provider.SearchItem])
}

func TestSearch(t *testing.T) {
	path := cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
	syms := nmSymbols(t, path)
	_, _, c := open(t, path)

	// Procedures: every match, in address order, equals nm.
	p := search(t, c, provider.OpSearchProcedures, provider.Params{"pattern": "REA_", "mode": "literal", "case_sensitive": false})
	var got []string
	for _, it := range p.Items {
		got = append(got, it.Value+"@"+it.Address)
		if it.ValueTruncated {
			t.Errorf("truncated %+v", it)
		}
	}
	var want []string
	for _, fn := range []string{"rea_static_helper", "rea_add", "rea_mul"} {
		want = append(want, fn+"@"+provider.FormatAddress(nmFind(t, syms, fn).addr))
	}
	if strings.Join(got, ",") != strings.Join(sortByAddr(want), ",") || p.Total == nil || *p.Total != 3 || p.Truncated || p.NextOffset != nil {
		t.Errorf("search_procedures rea_: %v (page %+v), want %v", got, p, sortByAddr(want))
	}
	if p := search(t, c, provider.OpSearchProcedures, provider.Params{"pattern": "REA_", "case_sensitive": true}); *p.Total != 0 || len(p.Items) != 0 {
		t.Errorf("case-sensitive REA_: %+v", p)
	}
	if p := search(t, c, provider.OpSearchProcedures, provider.Params{"pattern": "^rea_(add|mul)$", "mode": "regex"}); *p.Total != 2 {
		t.Errorf("regex: %+v", p)
	}
	// Paging.
	p = search(t, c, provider.OpSearchProcedures, provider.Params{"pattern": "rea_", "offset": int64(1), "limit": int64(1)})
	if len(p.Items) != 1 || *p.Total != 3 || !p.Truncated || p.NextOffset == nil || *p.NextOffset != 2 {
		t.Errorf("page 1/1: %+v", p)
	}

	// Strings: the matches of list_strings, in order.
	re := regexp.MustCompile(`(?i)fixture banner`)
	var wantS []string
	for _, s := range allStrings(t, c) {
		if re.MatchString(s.Value) {
			wantS = append(wantS, s.Address+" "+s.Value)
		}
	}
	ps := search(t, c, provider.OpSearchStrings, provider.Params{"pattern": "FIXTURE banner"})
	var gotS []string
	for _, it := range ps.Items {
		gotS = append(gotS, it.Address+" "+it.Value)
	}
	if len(wantS) == 0 || strings.Join(gotS, "|") != strings.Join(wantS, "|") || !strings.Contains(strings.Join(gotS, "|"), "REA fixture banner string") {
		t.Errorf("search_strings: %v, want %v", gotS, wantS)
	}
	// A literal is not a regex.
	if p := search(t, c, provider.OpSearchStrings, provider.Params{"pattern": "REA.fixture"}); *p.Total != 0 {
		t.Errorf("literal with a dot matched: %+v", p)
	}
	if fe := opErr(t, c, provider.OpSearchStrings, provider.Params{"pattern": "(", "mode": "regex"}); issueReason(fe) != "/pattern invalid_value" {
		t.Errorf("bad regex: %v", fe.Details)
	}
	if fe := opErr(t, c, provider.OpSearchStrings, provider.Params{"pattern": "a", "limit": int64(101)}); issueReason(fe) != "/limit out_of_range" {
		t.Errorf("limit 101: %v", fe.Details)
	}

	// An exhausted budget: truncated, not resumable, total unknown.
	old := searchBudget
	searchBudget = 64
	defer func() { searchBudget = old }()
	r := do(t, c, provider.OpSearchStrings, provider.Params{"pattern": "e"})
	pb := r.Normalized.(provider.Page[provider.SearchItem])
	if !pb.Truncated || pb.NextOffset != nil || pb.Total != nil || len(r.Limitations) == 0 {
		t.Errorf("budget: %+v %v", pb, r.Limitations)
	}
}

func sortByAddr(v []string) []string {
	out := append([]string{}, v...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			ai, _ := provider.ParseAddress(strings.SplitN(out[i], "@", 2)[1])
			aj, _ := provider.ParseAddress(strings.SplitN(out[j], "@", 2)[1])
			if aj < ai {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

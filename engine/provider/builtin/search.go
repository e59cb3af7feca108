package builtin

import (
	"context"
	"regexp"
	"slices"
	"unicode/utf8"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// search_procedures and search_strings: the pattern (a literal, quoted, or
// an RE2 expression; case-insensitive unless case_sensitive) is matched
// against each procedure name or string value in address order. Every
// candidate is scanned so the total is exact, within a budget of 64 MiB of
// candidate text; exhausting it ends the page with truncated:true,
// next_offset:null and total:null.

// searchBudget is the candidate text scanned per call (a variable for tests).
var searchBudget = 64 << 20

const (
	maxSearchResults = 100
	maxPatternLen    = 256
)

// SearchItem is one search match.
type SearchItem struct {
	Address        string `json:"address"`
	Value          string `json:"value"`
	ValueTruncated bool   `json:"value_truncated"`
}

func searchParams(op string, in provider.Params) (*regexp.Regexp, int, int, error) {
	pat, ok := in.String("pattern")
	if !ok {
		return nil, 0, 0, fault.Invalid(op, fault.Issue{Path: "/pattern", Reason: "missing_argument"})
	}
	if n := utf8.RuneCountInString(pat); n < 1 || n > maxPatternLen {
		return nil, 0, 0, fault.Invalid(op, fault.Issue{Path: "/pattern", Reason: "out_of_range", Minimum: i64(1), Maximum: i64(maxPatternLen)})
	}
	mode, _ := in.String("mode")
	switch mode {
	case "", "literal":
		pat = regexp.QuoteMeta(pat)
	case "regex":
	default:
		return nil, 0, 0, fault.Invalid(op, fault.Issue{Path: "/mode", Reason: "invalid_value", Expected: "literal or regex"})
	}
	if !in.Bool("case_sensitive", false) {
		pat = "(?i)" + pat
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, 0, 0, fault.Invalid(op, fault.Issue{Path: "/pattern", Reason: "invalid_value",
			Message: "Not a valid Go RE2 expression: " + err.Error()})
	}
	offset, limit := in.Int("offset", 0), in.Int("limit", maxSearchResults)
	if offset < 0 {
		return nil, 0, 0, fault.Invalid(op, fault.Issue{Path: "/offset", Reason: "out_of_range", Minimum: i64(0)})
	}
	if limit < 1 || limit > maxSearchResults {
		return nil, 0, 0, fault.Invalid(op, fault.Issue{Path: "/limit", Reason: "out_of_range", Minimum: i64(1), Maximum: i64(maxSearchResults)})
	}
	return re, int(min(offset, 1<<53)), int(limit), nil
}

// searcher pages the matches of a candidate sequence.
type searcher struct {
	re            *regexp.Regexp
	offset, limit int
	budget        int
	matches       int
	items         []SearchItem
	exhausted     bool
}

// visit scans one candidate; it returns false when the budget is spent.
func (s *searcher) visit(addr uint64, v string, trunc bool) bool {
	if s.budget < len(v) {
		s.exhausted = true
		return false
	}
	s.budget -= len(v)
	if !s.re.MatchString(v) {
		return true
	}
	if s.matches >= s.offset && len(s.items) < s.limit {
		s.items = append(s.items, SearchItem{Address: provider.FormatAddress(addr), Value: v, ValueTruncated: trunc})
	}
	s.matches++
	return true
}

func (s *searcher) page() provider.Page[SearchItem] {
	p := provider.Page[SearchItem]{Items: s.items, Offset: s.offset, Limit: s.limit, Returned: len(s.items)}
	if p.Items == nil {
		p.Items = []SearchItem{}
	}
	if s.exhausted {
		p.Truncated = true
		return p
	}
	total := s.matches
	p.Total = &total
	if end := s.offset + len(s.items); end < total {
		p.NextOffset, p.Truncated = &end, true
	}
	return p
}

func (c *Client) doSearch(ctx context.Context, op string, in provider.Params, rep progress.Reporter) (provider.Result, error) {
	re, offset, limit, err := searchParams(op, in)
	if err != nil {
		return provider.Result{}, err
	}
	s := &searcher{re: re, offset: offset, limit: limit, budget: searchBudget}
	var lims []string
	if op == OpSearchProcedures {
		six, err := c.symbols(ctx, op, rep)
		if err != nil {
			return provider.Result{}, err
		}
		lims = append(slices.Clip(c.ix.img.limitations), six.limitations...)
		for n, k := range six.procs {
			if n&4095 == 4095 {
				if err := ctx.Err(); err != nil {
					return provider.Result{}, buildFault(op, err)
				}
			}
			sym := &six.syms[k]
			if !s.visit(sym.addr, nameString(six.name(c.data, sym)), false) {
				break
			}
		}
	} else {
		stx, err := c.strings(ctx, op, rep)
		if err != nil {
			return provider.Result{}, err
		}
		lims = append(slices.Clip(c.ix.img.limitations), stx.limitations...)
		for i, e := range stx.from(0) {
			if i&4095 == 4095 {
				if err := ctx.Err(); err != nil {
					return provider.Result{}, buildFault(op, err)
				}
			}
			v, trunc := e.value(c.data)
			if !s.visit(stx.addrAt(i, e), v, trunc) {
				break
			}
		}
	}
	if s.exhausted {
		lims = append(lims, "the 64 MiB search budget was exhausted before every candidate was scanned")
	}
	return provider.Result{Normalized: s.page(), Limitations: lims}, nil
}

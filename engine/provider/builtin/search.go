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
// against each procedure's names (display name, then aliases; one match per
// entry address) or each string value, in address order. Every
// candidate is scanned so the total is exact, within a budget of 64 MiB of
// candidate text; exhausting it ends the page with truncated:true,
// next_offset:null and total:null.

// searchBudget is the candidate text scanned per call (a variable for tests).
var searchBudget = 64 << 20

const (
	maxSearchResults = 100
	maxPatternLen    = 256
)

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
	items         []provider.SearchItem
	addrs         []uint64 // of items
	exhausted     bool
}

// match scans one candidate; ok is false when the budget is spent.
func (s *searcher) match(v string) (matched, ok bool) {
	if s.budget < len(v) {
		s.exhausted = true
		return false, false
	}
	s.budget -= len(v)
	return s.re.MatchString(v), true
}

// hit counts one match, keeping it when it falls in the page.
func (s *searcher) hit(addr uint64, v string, trunc bool) {
	if s.matches >= s.offset && len(s.items) < s.limit {
		s.items = append(s.items, provider.SearchItem{Address: provider.FormatAddress(addr), Value: v, ValueTruncated: trunc})
		s.addrs = append(s.addrs, addr)
	}
	s.matches++
}

func (s *searcher) page() provider.Page[provider.SearchItem] {
	p := provider.Page[provider.SearchItem]{Items: s.items, Offset: s.offset, Limit: s.limit, Returned: len(s.items)}
	if p.Items == nil {
		p.Items = []provider.SearchItem{}
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
	var n *namer
	if op == provider.OpSearchProcedures {
		six, err := c.symbols(ctx, op, rep)
		if err != nil {
			return provider.Result{}, err
		}
		n = c.namer(six)
		lims = append(slices.Clip(c.ix.img.limitations), six.limitations...)
	scan:
		for k := range six.entries {
			if k&4095 == 4095 {
				if err := ctx.Err(); err != nil {
					return provider.Result{}, buildFault(op, err)
				}
			}
			addr, value, aliases := n.procedureNames(k)
			for _, v := range append([]string{value}, aliases...) {
				m, ok := s.match(v)
				if !ok {
					break scan
				}
				if m {
					s.hit(addr, v, false)
					break
				}
			}
		}
		n.use = provider.UserNameUse{} // only the names of the page are shown
		for i, a := range s.addrs {
			s.items[i].Procedure = n.procRef(a)
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
			m, ok := s.match(v)
			if !ok {
				break
			}
			if m {
				s.hit(stx.addrAt(i, e), v, trunc)
			}
		}
		if len(s.addrs) > 0 {
			six, ex, err := c.extents(ctx, op, rep)
			if err != nil {
				return provider.Result{}, err
			}
			n = c.namer(six)
			if err := n.containingItems(ctx, op, ex, s); err != nil {
				return provider.Result{}, err
			}
		}
	}
	if s.exhausted {
		lims = append(lims, "the 64 MiB search budget was exhausted before every candidate was scanned")
	}
	if n != nil {
		lims = append(lims, n.limitations()...)
	}
	return provider.Result{Normalized: s.page(), Limitations: lims}, nil
}

// containingItems sets the containing procedure of each string found.
func (n *namer) containingItems(ctx context.Context, op string, ex *extentIndex, s *searcher) error {
	cache := map[uint64][]insn{}
	for i, a := range s.addrs {
		entry, ok, _, err := n.containing(ctx, op, ex, a, cache)
		if err != nil {
			return err
		}
		if ok {
			s.items[i].Procedure = n.procRef(entry)
		}
	}
	return nil
}

package provider

import (
	"strings"

	"github.com/rea-re/rea/engine/fault"
)

// Pseudo-code (CONTRACTS.md §20): procedure_pseudo_code answers a procedure's
// C text whole; the tool pages it by lines (PseudoView) and records the
// whole text, so paging is a view of one Evidence record.

// Bounds of the pseudo-code operations.
const (
	MaxPseudoLines     = 2000 // the largest procedure_pseudo_code page, in lines
	DefaultPseudoLines = 400
	MaxPseudoSearch    = 100 // the largest search_pseudo_code page
)

// PseudoCode is the procedure_pseudo_code answer.
type PseudoCode struct {
	Procedure   ProcRef         `json:"procedure"`
	Language    string          `json:"language"`
	Prelude     string          `json:"prelude"`
	Code        string          `json:"code"`
	Lines       PseudoLines     `json:"lines"`
	AddressMap  []PseudoLineMap `json:"address_map"`
	Structure   PseudoStructure `json:"structure"`
	Limitations []string        `json:"limitations"`
}

// PseudoLines says which lines of the procedure's text Code holds.
type PseudoLines struct {
	Offset     int  `json:"offset"`
	Limit      int  `json:"limit"`
	Total      int  `json:"total"`
	NextOffset *int `json:"next_offset"`
}

// PseudoLineMap is one line of the text (1-based) and the address ranges
// [start, end) of the instructions it stands for.
type PseudoLineMap struct {
	Line   int         `json:"line"`
	Ranges [][2]string `json:"ranges"`
}

// PseudoStructure counts the text's control flow.
type PseudoStructure struct {
	Gotos              int `json:"gotos"`
	Loops              int `json:"loops"`
	Switches           int `json:"switches"`
	UnresolvedIndirect int `json:"unresolved_indirect"`
}

// PseudoLine is one search_pseudo_code item: a line of a procedure's text.
type PseudoLine struct {
	Procedure ProcRef `json:"procedure"`
	Line      int     `json:"line"`
	Text      string  `json:"text"`
}

// PseudoWindow validates procedure_pseudo_code's offset and limit.
func PseudoWindow(op string, in Params) (offset, limit int, err error) {
	o, l := in.Int("offset", 0), in.Int("limit", DefaultPseudoLines)
	if o < 0 {
		return 0, 0, fault.Invalid(op, fault.Issue{Path: "/offset", Reason: "out_of_range", Minimum: i64(0)})
	}
	if l < 1 || l > MaxPseudoLines {
		return 0, 0, fault.Invalid(op, fault.Issue{Path: "/limit", Reason: "out_of_range", Minimum: i64(1), Maximum: i64(MaxPseudoLines)})
	}
	return int(min(o, 1<<53)), int(l), nil
}

// SplitLines cuts text into its lines, without their newlines; a final
// newline ends the last line rather than starting an empty one.
func SplitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// PseudoView is the page of whole (an answer holding every line, as the
// provider gives it) of lines [offset, offset+limit): Code holds those
// lines, AddressMap the entries of those lines, everything else is whole's.
func PseudoView(whole PseudoCode, offset, limit int) PseudoCode {
	lines := SplitLines(whole.Code)
	total := len(lines)
	start := min(offset, total)
	end := min(start+limit, total)
	v := whole
	v.Code = ""
	if start < end {
		v.Code = strings.Join(lines[start:end], "\n") + "\n"
	}
	v.Lines = PseudoLines{Offset: offset, Limit: limit, Total: total}
	if end < total {
		next := end
		v.Lines.NextOffset = &next
	}
	v.AddressMap = []PseudoLineMap{}
	for _, m := range whole.AddressMap {
		if m.Line > start && m.Line <= end {
			v.AddressMap = append(v.AddressMap, m)
		}
	}
	return v
}

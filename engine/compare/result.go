package compare

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// Statuses in their sort order (§16.1).
const (
	StatusUnchanged = "unchanged"
	StatusChanged   = "changed"
	StatusAdded     = "added"
	StatusRemoved   = "removed"
	StatusUnknown   = "unknown"
)

var statusOrder = map[string]int{StatusUnchanged: 0, StatusChanged: 1, StatusAdded: 2, StatusRemoved: 3, StatusUnknown: 4}

// Match kinds.
const (
	MatchName      = "name"
	MatchStructure = "structure"
	MatchCallGraph = "call_graph"
)

// ProcRef names a procedure on one side.
type ProcRef struct {
	Address string `json:"address"`
	Name    string `json:"name"`
}

// Item is one classified pair or leftover (§16.1).
type Item struct {
	Status        string   `json:"status"`
	Match         *string  `json:"match"`
	Left          *ProcRef `json:"left"`
	Right         *ProcRef `json:"right"`
	Similarity    *float64 `json:"similarity"`
	ChangedBlocks *int     `json:"changed_blocks"`
	Delta         *Delta   `json:"delta,omitempty"` // changed only

	leftAddr, rightAddr uint64
}

// MatchedBy counts matched pairs by match kind.
type MatchedBy struct {
	Name      int `json:"name"`
	Structure int `json:"structure"`
	CallGraph int `json:"call_graph"`
}

// Summary counts items by status.
type Summary struct {
	Unchanged int       `json:"unchanged"`
	Changed   int       `json:"changed"`
	Added     int       `json:"added"`
	Removed   int       `json:"removed"`
	Unknown   int       `json:"unknown"`
	MatchedBy MatchedBy `json:"matched_by"`
}

// Result is a whole comparison: what Page serves pages from and what the
// engine stores (Encode) in the comparison_completed blob.
type Result struct {
	Version      int      `json:"version"` // resultVersion
	ComparisonID string   `json:"comparison_id"`
	Left         Identity `json:"left"`
	Right        Identity `json:"right"`
	Summary      Summary  `json:"summary"`
	Items        []Item   `json:"items"`
	Limitations  []string `json:"limitations"`
}

// Parameters are the Evidence parameters of §16.1: every declared input key
// after defaults (absent optional keys null), targets replaced by their
// identities.
type Parameters struct {
	LeftSHA256                 string   `json:"left_sha256"`
	LeftAnalysisProfileDigest  string   `json:"left_analysis_profile_digest"`
	RightSHA256                string   `json:"right_sha256"`
	RightAnalysisProfileDigest string   `json:"right_analysis_profile_digest"`
	Status                     []string `json:"status"`
	NamePattern                *string  `json:"name_pattern"`
	Offset                     int      `json:"offset"`
	Limit                      int      `json:"limit"`
	MaxProcedures              int      `json:"max_procedures"`
}

// ParametersOf builds the Evidence parameters of a call: q as given (an
// absent status or name_pattern is null), offset and limit after defaults.
func ParametersOf(left, right Identity, q Query, maxProcedures int) Parameters {
	if maxProcedures <= 0 {
		maxProcedures = DefaultMaxProcedures
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	return Parameters{LeftSHA256: left.SHA256, LeftAnalysisProfileDigest: left.AnalysisProfileDigest,
		RightSHA256: right.SHA256, RightAnalysisProfileDigest: right.AnalysisProfileDigest, Status: q.Status,
		NamePattern: q.NamePattern, Offset: q.Offset, Limit: q.Limit, MaxProcedures: maxProcedures}
}

// idParameters are Parameters without status, name_pattern, offset and limit.
type idParameters struct {
	LeftSHA256                 string `json:"left_sha256"`
	LeftAnalysisProfileDigest  string `json:"left_analysis_profile_digest"`
	RightSHA256                string `json:"right_sha256"`
	RightAnalysisProfileDigest string `json:"right_analysis_profile_digest"`
	MaxProcedures              int    `json:"max_procedures"`
}

// ComparisonID is "cmp_" + sha256(JCS of the parameters without status,
// name_pattern, offset and limit) (§16.1).
func ComparisonID(left, right Identity, maxProcedures int) (string, error) {
	d, err := canon.Digest(idParameters{left.SHA256, left.AnalysisProfileDigest, right.SHA256,
		right.AnalysisProfileDigest, maxProcedures})
	if err != nil {
		return "", fmt.Errorf("compare: comparison id: %w", err)
	}
	return "cmp_" + d, nil
}

// Encode is the result's canonical JSON (the comparison_completed blob);
// its sha256 is the result_digest.
func (r *Result) Encode() ([]byte, error) {
	b, err := canon.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("compare: encode result: %w", err)
	}
	return b, nil
}

// DecodeResult reads a result that Encode wrote; one of another version
// is ErrStale.
func DecodeResult(b []byte) (*Result, error) {
	var r Result
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("compare: decode result: %w", err)
	}
	if r.Version != resultVersion {
		return nil, fmt.Errorf("%w: result version %d", ErrStale, r.Version)
	}
	for i := range r.Items {
		it := &r.Items[i]
		if _, ok := statusOrder[it.Status]; !ok || it.Left == nil && it.Right == nil {
			return nil, fmt.Errorf("compare: decode result: item %d is malformed", i)
		}
		var err error
		if it.Left != nil {
			if it.leftAddr, err = provider.ParseAddress(it.Left.Address); err != nil {
				return nil, fmt.Errorf("compare: decode result: item %d: %w", i, err)
			}
		}
		if it.Right != nil {
			if it.rightAddr, err = provider.ParseAddress(it.Right.Address); err != nil {
				return nil, fmt.Errorf("compare: decode result: item %d: %w", i, err)
			}
		}
	}
	if r.Items == nil {
		r.Items = []Item{}
	}
	if r.Limitations == nil {
		r.Limitations = []string{}
	}
	return &r, nil
}

// sortItems orders items as §16.1 says: by left.address (right.address when
// left is null), then right.address, then status.
func sortItems(items []Item) {
	key := func(it *Item) uint64 {
		if it.Left != nil {
			return it.leftAddr
		}
		return it.rightAddr
	}
	slices.SortStableFunc(items, func(a, b Item) int {
		if c := cmp.Compare(key(&a), key(&b)); c != 0 {
			return c
		}
		ar, br := int64(-1), int64(-1) // a null right sorts first
		if a.Right != nil {
			ar = int64(a.rightAddr)
		}
		if b.Right != nil {
			br = int64(b.rightAddr)
		}
		if c := cmp.Compare(ar, br); c != 0 {
			return c
		}
		return cmp.Compare(statusOrder[a.Status], statusOrder[b.Status])
	})
}

// Query selects a page of a stored result (§16.1 status, name_pattern,
// offset, limit).
type Query struct {
	Status      []string
	NamePattern *string
	Offset      int
	Limit       int // 0 = DefaultLimit
}

// Page bounds (§16.1).
const (
	DefaultLimit = 100
	MaxLimit     = 500
)

// Answer is the compare_binaries result (§16.1) for one page.
type Answer struct {
	Left         AnswerSide          `json:"left"`
	Right        AnswerSide          `json:"right"`
	Summary      Summary             `json:"summary"`
	Procedures   provider.Page[Item] `json:"procedures"`
	ComparisonID string              `json:"comparison_id"`
	Limitations  []string            `json:"limitations"`
}

// AnswerSide names one compared target.
type AnswerSide struct {
	TargetID              string `json:"target_id"`
	SHA256                string `json:"sha256"`
	AnalysisProfileDigest string `json:"analysis_profile_digest"`
}

// Filter validates q and returns the items it selects, in result order.
// The page (offset, limit, and the 64 KiB byte budget of §1.4, applied when
// the page is encoded) is provider.PageOf over them; Page does both.
func (r *Result) Filter(q Query) ([]Item, error) {
	want := map[string]bool{}
	for _, s := range q.Status {
		if _, ok := statusOrder[s]; !ok {
			return nil, fault.Invalid(Operation, fault.Issue{Path: "/status", Reason: "invalid_value",
				Expected: "unchanged, changed, added, removed or unknown"})
		}
		want[s] = true
	}
	var re *regexp.Regexp
	if q.NamePattern != nil {
		if n := len(*q.NamePattern); n < 1 || n > 256 {
			return nil, fault.Invalid(Operation, fault.Issue{Path: "/name_pattern", Reason: "out_of_range",
				Minimum: i64(1), Maximum: i64(256)})
		}
		var err error
		if re, err = regexp.Compile(*q.NamePattern); err != nil {
			return nil, fault.Invalid(Operation, fault.Issue{Path: "/name_pattern", Reason: "invalid_format",
				Message: "Not an RE2 regular expression."})
		}
	}
	out := []Item{}
	for _, it := range r.Items {
		if len(want) > 0 && !want[it.Status] {
			continue
		}
		if re != nil && !(it.Left != nil && re.MatchString(it.Left.Name) || it.Right != nil && re.MatchString(it.Right.Name)) {
			continue
		}
		out = append(out, it)
	}
	return out, nil
}

// Page answers one page of the stored result: no recomputation.
func (r *Result) Page(q Query, leftTarget, rightTarget string) (*Answer, error) {
	if q.Offset < 0 {
		return nil, fault.Invalid(Operation, fault.Issue{Path: "/offset", Reason: "out_of_range", Minimum: i64(0)})
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	if q.Limit < 1 || q.Limit > MaxLimit {
		return nil, fault.Invalid(Operation, fault.Issue{Path: "/limit", Reason: "out_of_range", Minimum: i64(1), Maximum: i64(MaxLimit)})
	}
	items, err := r.Filter(q)
	if err != nil {
		return nil, err
	}
	return &Answer{
		Left:         AnswerSide{leftTarget, r.Left.SHA256, r.Left.AnalysisProfileDigest},
		Right:        AnswerSide{rightTarget, r.Right.SHA256, r.Right.AnalysisProfileDigest},
		Summary:      r.Summary,
		Procedures:   provider.PageOf(items, q.Offset, q.Limit),
		ComparisonID: r.ComparisonID,
		Limitations:  r.Limitations,
	}, nil
}

func i64(v int64) *int64 { return &v }

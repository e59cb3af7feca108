package tools

import (
	"context"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

type overviewSegment struct {
	Name   string `json:"name"`
	Start  string `json:"start"`
	End    string `json:"end"`
	Length *int64 `json:"length,omitempty"`
}

// binaryOverview composes list_documents, list_segments, list_procedures and
// list_strings (§2.3). Counts are exhaustive or the call fails truncated.
func (s *Server) binaryOverview(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
	detail, _ := params.String("detail")
	limit := int(params.Int("limit", 10))
	return sess.conn.Compose(ctx, "binary_overview", params, rep, func(call engine.Caller) (provider.Result, error) {
		var docs []string
		if err := decodeResult(call, "list_documents", provider.Params{}, &docs); err != nil {
			return provider.Result{}, err
		}
		var segs []struct{ Name, Start, End string }
		if err := decodeResult(call, "list_segments", provider.Params{"document": nil}, &segs); err != nil {
			return provider.Result{}, err
		}
		count := func(op string) (int, error) {
			var page struct {
				Total *int `json:"total"`
			}
			if err := decodeResult(call, op, provider.Params{"document": nil, "address": nil, "offset": int64(0), "limit": int64(1)}, &page); err != nil {
				return 0, err
			}
			if page.Total == nil {
				return 0, fault.New(fault.Truncated, "The provider could not count the collection within its budget.",
					"Page through the collection directly.", map[string]any{"operation": "binary_overview", "limit": op, "maximum": 0, "truncated": true})
			}
			return *page.Total, nil
		}
		procs, err := count("list_procedures")
		if err != nil {
			return provider.Result{}, err
		}
		strs, err := count("list_strings")
		if err != nil {
			return provider.Result{}, err
		}
		out := []overviewSegment{}
		for i, sg := range segs {
			if i == limit {
				break
			}
			o := overviewSegment{Name: sg.Name, Start: sg.Start, End: sg.End}
			if detail == "detailed" {
				a, _ := provider.ParseAddress(sg.Start)
				b, _ := provider.ParseAddress(sg.End)
				l := int64(b - a)
				o.Length = &l
			}
			out = append(out, o)
		}
		doc := ""
		if len(docs) > 0 {
			doc = docs[0]
		}
		return provider.Result{Normalized: map[string]any{"document": doc, "detail": detail, "segments": out,
			"segment_count": len(segs), "procedure_count": procs, "string_count": strs}}, nil
	})
}

func decodeResult(call engine.Caller, op string, p provider.Params, v any) error {
	res, err := call(op, p)
	if err != nil {
		return err
	}
	b, err := canon.Marshal(res.Normalized)
	if err != nil {
		return fault.Internal(op, err)
	}
	if err := rawJSON(b, v); err != nil {
		return fault.New(fault.UnreadableOutput, "The provider's answer does not match its output contract.",
			"Run `rea doctor`.", map[string]any{"operation": op, "provider_id": nil})
	}
	return nil
}

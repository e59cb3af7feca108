package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/tools/catalog"
)

// Composed tools (kind composed, CONTRACTS.md §2.3): several provider
// operations answered as one derived Evidence record.

func composedTools() []tool {
	return []tool{
		{catBinaryOverview, (*Server).binaryOverview},
		{catGetCallGraph, (*Server).callGraph},
		{catCompareBinaries, (*Server).compareBinaries},
	}
}

func catBinaryOverview() catalog.Spec {
	return catalog.Spec{
		Name:        "binary_overview",
		Title:       "Binary overview",
		Description: "Summarize the executable: segments and exact counts; call it first." + catalog.SampleText,
		Kind:        "composed",
		Effects:     catalog.Effects("I"),
		Evidence:    true,
		Input: catalog.In(catalog.M{
			"detail": catalog.D(catalog.Def(catalog.Enum("concise", "detailed"), "concise"), "detailed adds segment lengths and the triage section."),
			"limit":  catalog.D(catalog.Def(catalog.Int(1, 50), int64(10)), "Segments listed."),
		}),
		Result: catalog.Out(catalog.M{
			"document": catalog.String(),
			"detail":   catalog.Enum("concise", "detailed"),
			"segments": catalog.List(catalog.Out(catalog.M{
				"name": catalog.String(), "start": catalog.AddrOut(), "end": catalog.AddrOut(), "length": catalog.Count(),
			}, "name", "start", "end")),
			"segment_count":   catalog.Count(),
			"procedure_count": catalog.Count(),
			"string_count":    catalog.Count(),
			"main":            catalog.Nullable(catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.String(), "source": catalog.String()})),
			"stripped":        catalog.Bool(),
			"triage":          catTriage(),
		}, "document", "detail", "segments", "segment_count", "procedure_count", "string_count", "main"),
		RequiredOperations: []string{"list_documents", "list_procedures", "list_segments", "list_strings"},
	}
}

func catGetCallGraph() catalog.Spec {
	node := catalog.M{"oneOf": []any{
		catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.Nullable(catalog.String()), "depth": catalog.Count(), "status": catalog.Const("ok"),
			"calls": catalog.List(catAddressItem())}),
		catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.Nullable(catalog.String()), "depth": catalog.Count(), "status": catalog.Const("error"),
			"error": catalog.ErrorEnvelope()}),
	}}
	return catalog.Spec{
		Name:        "get_call_graph",
		Title:       "Get call graph",
		Description: "Walk direct calls breadth-first from a procedure, to callees or callers." + catalog.SampleText,
		Kind:        "composed",
		Effects:     catalog.Effects("I"),
		Evidence:    true,
		Input: catalog.In(catalog.M{
			"address":   catalog.AddrIn(""),
			"direction": catalog.Def(catalog.Enum("forward", "backward"), "forward"),
			"depth":     catalog.Def(catalog.Int(1, 5), int64(2)),
			"max_nodes": catalog.Def(catalog.Int(1, 1000), int64(200)),
		}, "address"),
		Result: catalog.OutAll(catalog.M{
			"root":      catalog.AddrOut(),
			"direction": catalog.Enum("forward", "backward"),
			"depth":     catalog.Count(),
			"nodes":     catalog.List(node),
			"truncated": catalog.Bool(),
		}),
		ResultDepth:        2, // nodes are the answer
		RequiredOperations: []string{"address_name", "procedure_callees", "procedure_callers"},
	}
}

// catCompareBinaries is §16.1. It names its two targets itself, so it takes
// no target argument.
func catCompareBinaries() catalog.Spec {
	status := []string{"unchanged", "changed", "added", "removed", "unknown"}
	ref := catalog.Nullable(catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.String()}))
	side := catalog.OutAll(catalog.M{"target_id": catalog.String(), "sha256": catalog.Hex64(), "analysis_profile_digest": catalog.Hex64()})
	return catalog.Spec{
		Name:        "compare_binaries",
		Title:       "Compare binaries",
		Description: "Match two open executables' procedures and page what changed." + catalog.SampleText,
		Kind:        "composed",
		Effects:     catalog.Effects("I"),
		Evidence:    true,
		Input: catalog.In(catalog.PageIn(catalog.M{
			"left_target":    catalog.String(),
			"right_target":   catalog.String(),
			"status":         catalog.List(catalog.Enum(status...)),
			"name_pattern":   catalog.Str(1, 256),
			"max_procedures": catalog.Def(catalog.Int(1, 1000000), int64(200000)),
		}, 500, 100), "left_target", "right_target"),
		Result: catalog.OutAll(catalog.M{
			"left": side, "right": side,
			"summary": catalog.OutAll(catalog.M{"unchanged": catalog.Count(), "changed": catalog.Count(), "added": catalog.Count(), "removed": catalog.Count(),
				"unknown": catalog.Count(), "matched_by": catalog.OutAll(catalog.M{"name": catalog.Count(), "structure": catalog.Count(), "call_graph": catalog.Count()})}),
			"procedures": catalog.PageOf(catalog.Out(catalog.M{
				"status": catalog.Enum(status...), "match": catalog.Nullable(catalog.Enum("name", "structure", "call_graph")),
				"left": ref, "right": ref, "similarity": catalog.Nullable(catalog.M{"type": "number"}), "changed_blocks": catalog.Nullable(catalog.Count()),
				"delta": catalog.M{"type": "object"}, // changed only (CONTRACTS.md §0.3)
			}, "status", "match", "left", "right", "similarity", "changed_blocks")),
			"comparison_id": catalog.String(),
			"limitations":   catalog.List(catalog.String()),
		}),
		RequiredOperations: []string{"list_procedures", "read_function_instructions"},
	}
}

// catTriage describes binary_overview's triage section (§18) compactly:
// five objects of facts, each fact {value, source} or an object carrying
// source; or unavailable with a reason.
func catTriage() catalog.M {
	part := catalog.M{"type": "object"}
	return catalog.M{"type": "object", "properties": catalog.M{"identity": part, "toolchain": part, "hardening": part,
		"loading": part, "anomalies": part, "unavailable": catalog.Out(catalog.M{"reason": catalog.String()}, "reason")}}
}

func (s *Server) compareBinaries(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	return sess.conn.CompareBinaries(ctx, in.Params, rep, nil)
}

type overviewSegment struct {
	Name   string `json:"name"`
	Start  string `json:"start"`
	End    string `json:"end"`
	Length *int64 `json:"length,omitempty"`
}

// binaryOverview composes list_documents, list_segments, list_procedures and
// list_strings (§2.3). Counts are exhaustive or the call fails truncated.
func (s *Server) binaryOverview(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	detail, _ := in.Params.String("detail")
	limit := int(in.Params.Int("limit", 10))
	return sess.conn.Compose(ctx, in.target, "binary_overview", in.Params, rep, func(call engine.Caller) (provider.Result, error) {
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
		res := map[string]any{"document": doc, "detail": detail, "segments": out,
			"segment_count": len(segs), "procedure_count": procs, "string_count": strs}
		lims, err := overviewTriage(call, detail, res)
		if err != nil {
			return provider.Result{}, err
		}
		return provider.Result{Normalized: res, Limitations: lims}, nil
	})
}

// overviewTriage adds the triage facts of §18 to res: main and stripped
// (both views) and, detailed, the whole triage. A provider that does not
// declare binary_triage leaves them out, said in a limitation; main is
// then null.
func overviewTriage(call engine.Caller, detail string, res map[string]any) ([]string, error) {
	var tr struct {
		Identity  map[string]json.RawMessage `json:"identity"`
		Toolchain map[string]any             `json:"toolchain"`
		Hardening map[string]any             `json:"hardening"`
		Loading   map[string]any             `json:"loading"`
		Anomalies map[string]any             `json:"anomalies"`
	}
	r, err := call("binary_triage", provider.Params{})
	var fe *fault.Error
	if errors.As(err, &fe) && fe.Code == fault.CapabilityUnavailable {
		res["main"] = nil
		lim := "triage: the bound provider does not offer binary_triage, so main, stripped and the triage section are not reported"
		if detail == "detailed" {
			res["triage"] = map[string]any{"unavailable": map[string]any{"reason": "provider_missing",
				"remediation": "Reopen the target with the builtin provider (provider_id builtin)."}}
		}
		return []string{lim}, nil
	}
	if err != nil {
		return nil, err
	}
	b, err := canon.Marshal(r.Normalized)
	if err != nil {
		return nil, fault.Internal("binary_triage", err)
	}
	if err := rawJSON(b, &tr); err != nil {
		return nil, fault.New(fault.UnreadableOutput, "The provider's answer does not match its output contract.",
			"Run `rea doctor`.", map[string]any{"operation": "binary_triage", "provider_id": nil})
	}
	res["main"] = nil
	if m, ok := tr.Identity["main"]; ok {
		res["main"] = m
	}
	var stripped struct {
		Value *bool `json:"value"`
	}
	if s, ok := tr.Identity["stripped"]; ok && rawJSON(s, &stripped) == nil && stripped.Value != nil {
		res["stripped"] = *stripped.Value
	}
	if detail == "detailed" {
		res["triage"] = tr
	}
	return r.Limitations, nil
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

// edgeItem is one procedure_callers / procedure_callees item (§0, §2.2).
type edgeItem struct {
	Address   string   `json:"address"`
	Name      *string  `json:"name"`
	Procedure *procRef `json:"procedure"`
}

type procRef struct {
	Address string `json:"address"`
	Name    string `json:"name"`
}

type callGraphNode struct {
	Address string     `json:"address"`
	Name    *string    `json:"name"`
	Depth   int        `json:"depth"`
	Status  string     `json:"status"` // ok
	Calls   []edgeItem `json:"calls"`
}

type callGraphErrorNode struct {
	Address string       `json:"address"`
	Name    *string      `json:"name"`
	Depth   int          `json:"depth"`
	Status  string       `json:"status"` // error
	Error   *fault.Error `json:"error"`
}

// callGraphEnvelope bounds the bytes of a call graph's members other than
// its nodes (root, direction, depth, truncated, the brackets).
const callGraphEnvelope = 256

// callGraph walks procedure_callees (forward) or procedure_callers (backward)
// breadth first from address, to depth levels and at most maxNodes nodes.
// Every node lists all of its direct edges (every page) and carries its name:
// the root's from address_name, every other node's from the edge item that
// reached it (the provider's one display name either way). A node whose
// edges cannot be read is an error node, never a failed call; truncated says
// that maxNodes or the answer's byte budget stopped the expansion. The budget
// is measured on each node as encoded, whatever its shape; the root node is
// always returned.
func (s *Server) callGraph(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	root, _ := in.Params.String("address")
	direction, _ := in.Params.String("direction")
	depth := int(in.Params.Int("depth", 2))
	maxNodes := int(in.Params.Int("max_nodes", 200))
	op := "procedure_callees"
	if direction == "backward" {
		op = "procedure_callers"
	}
	return sess.conn.Compose(ctx, in.target, "get_call_graph", in.Params, rep, func(inner engine.Caller) (provider.Result, error) {
		userNames := false
		call := func(op string, p provider.Params) (provider.Result, error) {
			res, err := inner(op, p)
			userNames = userNames || provider.ShowsUserNames(res.Limitations)
			return res, err
		}
		var rootName *string
		if err := decodeResult(call, "address_name", provider.Params{"address": root, "document": nil}, &rootName); err != nil {
			return provider.Result{}, err
		}
		nodes := []any{}
		size := callGraphEnvelope
		// add appends a node unless it would take the answer over its byte
		// budget.
		add := func(n any) (bool, error) {
			b, err := json.Marshal(n)
			if err != nil {
				return false, fault.Internal("get_call_graph", err)
			}
			if len(nodes) > 0 && size+len(b)+1 > provider.ResultBudget {
				return false, nil
			}
			size += len(b) + 1
			nodes = append(nodes, n)
			return true, nil
		}
		seen := map[string]bool{root: true}
		names := map[string]*string{root: rootName}
		frontier := []string{root}
		truncated := false
	walk:
		for d := 0; len(frontier) > 0; d++ {
			slices.SortFunc(frontier, compareAddresses)
			var next []string
			for _, addr := range frontier {
				edges, edgeErr := allEdges(call, op, addr)
				var node any = callGraphNode{Address: addr, Name: names[addr], Depth: d, Status: "ok", Calls: edges}
				if edgeErr != nil {
					if fe := fault.From(op, edgeErr); fe.Code == fault.Cancelled || fe.Code == fault.ProviderTimeout {
						return provider.Result{}, fe
					}
					node = callGraphErrorNode{Address: addr, Name: names[addr], Depth: d, Status: "error", Error: fault.From(op, edgeErr)}
				}
				fits, err := add(node)
				if err != nil {
					return provider.Result{}, err
				}
				if !fits {
					truncated = true
					break walk
				}
				if edgeErr != nil {
					continue
				}
				if d == depth {
					continue
				}
				for _, e := range edges {
					if seen[e.Address] {
						continue
					}
					if len(seen) >= maxNodes {
						truncated = true
						break
					}
					seen[e.Address] = true
					names[e.Address] = e.Name
					next = append(next, e.Address)
				}
			}
			frontier = next
		}
		var lims []string
		if userNames {
			lims = append(lims, provider.LimitationSomeUserNames)
		}
		return provider.Result{Normalized: map[string]any{"root": root, "direction": direction, "depth": depth,
			"nodes": nodes, "truncated": truncated}, Limitations: lims}, nil
	})
}

// allEdges reads every page of one procedure's callers or callees.
func allEdges(call engine.Caller, op, addr string) ([]edgeItem, error) {
	edges := []edgeItem{}
	for offset := int64(0); ; {
		var page struct {
			Items      []edgeItem `json:"items"`
			NextOffset *int64     `json:"next_offset"`
			Truncated  bool       `json:"truncated"`
		}
		if err := decodeResult(call, op, provider.Params{"procedure": addr, "document": nil, "offset": offset, "limit": int64(1000)}, &page); err != nil {
			return nil, err
		}
		edges = append(edges, page.Items...)
		if page.NextOffset == nil {
			if page.Truncated {
				return nil, fault.New(fault.Truncated, "The provider could not list every edge within its budget.",
					"Call "+op+" directly.", map[string]any{"operation": op, "limit": "edges", "maximum": len(edges), "truncated": true})
			}
			return edges, nil
		}
		offset = *page.NextOffset
	}
}

func compareAddresses(a, b string) int {
	x, _ := provider.ParseAddress(a)
	y, _ := provider.ParseAddress(b)
	return cmp.Compare(x, y)
}

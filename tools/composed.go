package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	return catalog.Spec{
		Name:        "get_call_graph",
		Title:       "Get call graph",
		Description: "Walk direct calls breadth-first from a procedure, to callees or callers; edges are [caller, callee] node indexes, paged." + catalog.SampleText,
		Kind:        "composed",
		Effects:     catalog.Effects("I"),
		Evidence:    true,
		Input: catalog.In(catalog.PageIn(catalog.M{
			"procedure": catalog.ProcIn(),
			"address":   catalog.AddrIn(""),
			"direction": catalog.Def(catalog.Enum("forward", "backward"), "forward"),
			"depth":     catalog.Def(catalog.Int(1, 5), int64(2)),
			"max_nodes": catalog.Def(catalog.Int(1, maxCallGraphNodes), int64(200)),
		}, 1000, 500)),
		Result: catalog.OutAll(catalog.M{
			"root":  catalog.AddrOut(),
			"depth": catalog.Count(),
			"nodes": catalog.List(catalog.Out(catalog.M{"address": catalog.AddrOut(), "name": catalog.Nullable(catalog.String()),
				"error": catalog.ErrorEnvelope()}, "address", "name")),
			"edges":       catalog.List(catalog.Arr(catalog.Count(), 2, 2)),
			"truncated":   catalog.Bool(),
			"next_offset": catalog.Nullable(catalog.Count()),
		}),
		ResultDepth:        2, // nodes and edges are the answer
		RequiredOperations: []string{"address_name", "procedure_address", "procedure_callees", "procedure_callers"},
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

// maxCallGraphNodes bounds max_nodes: the work of one walk, which every page
// of a graph repeats.
const maxCallGraphNodes = 5000

// callGraphNode is one node of a get_call_graph page; Error is set when the
// node's own edges could not be read (a node error never fails the call).
type callGraphNode struct {
	Address string       `json:"address"`
	Name    *string      `json:"name"`
	Error   *fault.Error `json:"error,omitempty"`
}

// callGraphPage is get_call_graph's result (CONTRACTS.md §0.3): the nodes
// this page's edges name (and the root), each once, sorted by address, and
// the page's edges as sorted [caller, callee] index pairs into them.
type callGraphPage struct {
	Root       string           `json:"root"`
	Depth      int              `json:"depth"`
	Nodes      []*callGraphNode `json:"nodes"`
	Edges      [][2]int         `json:"edges"`
	Truncated  bool             `json:"truncated"`
	NextOffset *int             `json:"next_offset"`
}

// callGraph is the whole graph of one walk: every node reached, every edge
// read, in walk order.
type callGraph struct {
	root  uint64
	depth int
	nodes map[uint64]*callGraphNode
	edges [][2]uint64 // [caller, callee], in walk order
	cut   bool        // max_nodes left nodes (and the edges to them) out
}

// walkCallGraph reads the graph breadth first from root: the procedures
// fewer than depth calls away are expanded, in order of (distance, address),
// each through every page of op (procedure_callees forward,
// procedure_callers backward), its edges in the order op lists them. So the
// graph holds every node at most depth calls away and every edge out of (or,
// backward, into) a node fewer than depth calls away; at most maxNodes
// nodes, the edges to a node left out being left out too (cut).
func walkCallGraph(call engine.Caller, op string, root uint64, rootName *string, depth, maxNodes int) (*callGraph, error) {
	g := &callGraph{root: root, depth: depth,
		nodes: map[uint64]*callGraphNode{root: {Address: provider.FormatAddress(root), Name: rootName}}}
	frontier := []uint64{root}
	for d := 0; d < depth && len(frontier) > 0; d++ {
		slices.Sort(frontier)
		var next []uint64
		for _, a := range frontier {
			items, err := allEdges(call, op, provider.FormatAddress(a))
			if err != nil {
				fe := fault.From(op, err)
				if fe.Code == fault.Cancelled || fe.Code == fault.ProviderTimeout {
					return nil, fe
				}
				g.nodes[a].Error = fe
				continue
			}
			for _, e := range items {
				b, err := provider.ParseAddress(e.Address)
				if err != nil {
					return nil, fault.New(fault.UnreadableOutput, "The provider's answer does not match its output contract.",
						"Run `rea doctor`.", map[string]any{"operation": op, "provider_id": nil})
				}
				if _, seen := g.nodes[b]; !seen {
					if len(g.nodes) >= maxNodes {
						g.cut = true
						continue
					}
					g.nodes[b] = &callGraphNode{Address: provider.FormatAddress(b), Name: e.Name}
					next = append(next, b)
				}
				if op == provider.OpProcedureCallers {
					g.edges = append(g.edges, [2]uint64{b, a})
				} else {
					g.edges = append(g.edges, [2]uint64{a, b})
				}
			}
		}
		frontier = next
	}
	return g, nil
}

// callGraphEnvelope bounds the bytes of a page's members other than its
// nodes and edges (root, depth, truncated, next_offset, the brackets).
const callGraphEnvelope = 256

// callGraphEdgeBytes bounds one edge's bytes, `[i,j],`: a page within the
// byte budget holds fewer than 10,000 nodes (each takes more than 7 bytes),
// so an index has at most 4 digits.
const callGraphEdgeBytes = len("[9999,9999],")

// page is the edges [offset, offset+limit) of the walk order, fewer when
// their nodes and themselves would exceed the answer's byte budget (at
// least one edge when any is left), with the root and the nodes they name.
// The pages from offset 0 on, each from the last's next_offset, hold every
// edge exactly once. truncated says that more edges follow (next_offset)
// or that max_nodes cut the graph.
func (g *callGraph) page(offset, limit int) (callGraphPage, error) {
	onPage := map[uint64]bool{}
	size := callGraphEnvelope
	add := func(a uint64) (int, error) {
		if onPage[a] {
			return 0, nil
		}
		b, err := json.Marshal(g.nodes[a])
		if err != nil {
			return 0, fault.Internal("get_call_graph", err)
		}
		return len(b) + 1, nil
	}
	n, err := add(g.root)
	if err != nil {
		return callGraphPage{}, err
	}
	size += n
	onPage[g.root] = true
	end := min(offset, len(g.edges))
	for end < len(g.edges) && end-offset < limit {
		e := g.edges[end]
		grow := callGraphEdgeBytes
		for i, a := range e {
			if i == 1 && a == e[0] {
				break
			}
			n, err := add(a)
			if err != nil {
				return callGraphPage{}, err
			}
			grow += n
		}
		if end > offset && size+grow > provider.ResultBudget {
			break
		}
		size += grow
		onPage[e[0]], onPage[e[1]] = true, true
		end++
	}
	addrs := make([]uint64, 0, len(onPage))
	for a := range onPage {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	index := make(map[uint64]int, len(addrs))
	p := callGraphPage{Root: provider.FormatAddress(g.root), Depth: g.depth, Nodes: make([]*callGraphNode, len(addrs)),
		Edges: make([][2]int, 0, end-min(offset, end)), Truncated: g.cut}
	for i, a := range addrs {
		index[a] = i
		p.Nodes[i] = g.nodes[a]
	}
	for _, e := range g.edges[min(offset, end):end] {
		p.Edges = append(p.Edges, [2]int{index[e[0]], index[e[1]]})
	}
	slices.SortFunc(p.Edges, func(x, y [2]int) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
	if end < len(g.edges) {
		p.NextOffset, p.Truncated = &end, true
	}
	return p, nil
}

// callGraph answers get_call_graph: the root is the procedure named by
// procedure or address (procedure_address), its name from address_name;
// every other node's name is the one the edge item that reached it gives
// (the provider's one display name either way). The walk is
// walkCallGraph's, repeated by every page; a page is callGraph.page.
func (s *Server) callGraph(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	proc, hasProc := in.Params.String("procedure")
	addr, hasAddr := in.Params.String("address")
	switch {
	case hasProc && hasAddr:
		return nil, fault.Invalid("get_call_graph", fault.Issue{Path: "/address", Reason: "invalid_value",
			Message: "Pass procedure or address, not both."})
	case !hasProc && !hasAddr:
		return nil, fault.Invalid("get_call_graph", fault.Issue{Path: "/procedure", Reason: "missing_argument"})
	case hasAddr:
		proc = addr
	}
	direction, _ := in.Params.String("direction")
	depth := int(in.Params.Int("depth", 2))
	maxNodes := int(in.Params.Int("max_nodes", 200))
	offset := int(min(in.Params.Int("offset", 0), 1<<53))
	limit := int(in.Params.Int("limit", 500))
	op := provider.OpProcedureCallees
	if direction == "backward" {
		op = provider.OpProcedureCallers
	}
	return sess.conn.Compose(ctx, in.target, "get_call_graph", in.Params, rep, func(inner engine.Caller) (provider.Result, error) {
		userNames := false
		call := func(op string, p provider.Params) (provider.Result, error) {
			res, err := inner(op, p)
			userNames = userNames || provider.ShowsUserNames(res.Limitations)
			return res, err
		}
		var rootText string
		if err := decodeResult(call, provider.OpProcedureAddress, provider.Params{"procedure": proc, "document": nil}, &rootText); err != nil {
			return provider.Result{}, err
		}
		root, err := provider.ParseAddress(rootText)
		if err != nil {
			return provider.Result{}, fault.New(fault.UnreadableOutput, "The provider's answer does not match its output contract.",
				"Run `rea doctor`.", map[string]any{"operation": provider.OpProcedureAddress, "provider_id": nil})
		}
		var rootName *string
		if err := decodeResult(call, provider.OpAddressName, provider.Params{"address": rootText, "document": nil}, &rootName); err != nil {
			return provider.Result{}, err
		}
		g, err := walkCallGraph(call, op, root, rootName, depth, maxNodes)
		if err != nil {
			return provider.Result{}, err
		}
		p, err := g.page(offset, limit)
		if err != nil {
			return provider.Result{}, err
		}
		var lims []string
		if userNames {
			lims = append(lims, provider.LimitationSomeUserNames)
		}
		if g.cut {
			lims = append(lims, fmt.Sprintf("max_nodes (%d) stopped the walk: calls to further procedures are not in the graph", maxNodes))
		}
		return provider.Result{Normalized: p, Limitations: lims}, nil
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

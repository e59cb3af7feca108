package engine

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/session"
	"github.com/rea-re/rea/ledger"
	"github.com/rea-re/rea/projections"
)

// Annotations (comments, inline comments, bookmarks, names) and the
// navigation cursor are REA's own state, not a provider's: annotations live on
// the target's ledger stream, shared by every provider and connection that
// opens the same bytes and surviving restarts; the cursor is connection state
// recorded as cursor_moved. The engine answers these operations for whichever
// provider is bound, and records their Evidence under that binding like any
// provider operation (CONTRACTS.md §2.2).

// answerLocally runs an engine-owned operation.
func (c *Connection) answerLocally(ctx context.Context, o *session.Target, op string, params provider.Params) (provider.Result, error) {
	doc := DocumentName(o.Target())
	if d, ok := params.String("document"); ok && d != doc {
		return provider.Result{}, fault.Invalid(op, fault.Issue{Path: "/document", Reason: "invalid_value", Message: "not a document of this target"})
	}
	switch op {
	case "current_document":
		return provider.Result{Normalized: doc}, nil
	case "current_address":
		return provider.Result{Normalized: c.cursor(o)}, nil
	case "goto_address":
		return c.gotoAddress(ctx, o, doc, params)
	case "comment", "inline_comment":
		addr := c.addressOrCursor(o, params)
		v, ok, err := c.annotation(ctx, o, op, addr)
		if err != nil || !ok {
			return provider.Result{Normalized: nil, Locations: cursorLocation(params, addr)}, err
		}
		return provider.Result{Normalized: v, Locations: cursorLocation(params, addr)}, nil
	case "list_bookmarks":
		marks, err := c.bookmarks(ctx, o)
		return provider.Result{Normalized: marks}, err
	case "set_comment", "set_inline_comment":
		value, _ := params.String("comment")
		return c.setAnnotation(ctx, o, op[len("set_"):], params, value, value != "")
	case "set_address_name":
		value, _ := params.String("name")
		return c.setAnnotation(ctx, o, kindName, params, value, value != "")
	case "set_bookmark":
		addr, _ := params.String("address")
		name, ok := params.String("name")
		if !ok {
			name = addr
		}
		return c.setAnnotation(ctx, o, kindBookmark, params, name, true)
	case "unset_bookmark":
		return c.setAnnotation(ctx, o, kindBookmark, params, "", false)
	}
	return provider.Result{}, c.missingOperation(o, op)
}

// cursor is the connection's navigation cursor: the target's entry point
// until goto_address moves it.
func (c *Connection) cursor(o *session.Target) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.cursors[o.RunID()]
	if !ok {
		cur = "0x0"
		if ep, ok := o.Client().(provider.EntryPointer); ok {
			if a, ok := ep.EntryPoint(); ok {
				cur = provider.FormatAddress(a)
			}
		}
		c.setCursorLocked(o, cur)
	}
	return cur
}

// setCursorLocked moves o's cursor. c.mu is held.
func (c *Connection) setCursorLocked(o *session.Target, addr string) {
	if c.cursors == nil {
		c.cursors = map[string]string{}
	}
	c.cursors[o.RunID()] = addr
}

func (c *Connection) addressOrCursor(o *session.Target, params provider.Params) string {
	if a, ok := params.String("address"); ok {
		return a
	}
	return c.cursor(o)
}

// cursorLocation records the address a cursor-defaulted call observed (an
// explicit address is recorded from the parameters already).
func cursorLocation(params provider.Params, addr string) []provider.Location {
	if _, explicit := params.String("address"); explicit {
		return nil
	}
	return []provider.Location{{Kind: "address", Address: addr}}
}

func (c *Connection) gotoAddress(ctx context.Context, o *session.Target, doc string, params provider.Params) (provider.Result, error) {
	addr, _, _ := params.Address("address")
	inside, err := c.insideSegments(ctx, o, addr)
	if err != nil {
		return provider.Result{}, err
	}
	if !inside {
		return provider.Result{}, fault.Invalid("goto_address", fault.Issue{Path: "/address", Reason: "out_of_range", Message: "outside every segment"})
	}
	canonical := provider.FormatAddress(addr)
	if _, err := c.eng.appendEvents(ctx, c.sc.Stream(), -1, []ledger.NewEvent{c.eng.targetEvent(events.CursorMoved, events.CursorMovedData{
		ConnectionID: c.ID(), RunID: o.RunID(), TargetID: o.ID(), Document: doc, Address: canonical,
	})}, nil); err != nil {
		return provider.Result{}, err
	}
	c.mu.Lock()
	c.setCursorLocked(o, canonical)
	c.mu.Unlock()
	return provider.Result{Normalized: canonical}, nil
}

// insideSegments asks the provider for the segments (no Evidence) and tests
// containment, ranges end-exclusive.
func (c *Connection) insideSegments(ctx context.Context, o *session.Target, addr uint64) (bool, error) {
	capability, declared := findCapability(o.Binding().Impl().Capabilities(), "list_segments")
	if !declared {
		return false, c.missingOperation(o, "list_segments")
	}
	res, err := c.call(ctx, o, capability, provider.Params{"document": nil}, nil)
	if err != nil {
		return false, err
	}
	b, err := json.Marshal(res.Normalized)
	if err != nil {
		return false, fault.Internal("goto_address", err)
	}
	var segs []struct{ Start, End string }
	if err := json.Unmarshal(b, &segs); err != nil {
		return false, fault.New(fault.UnreadableOutput, "The provider's segments do not match their contract.", "Run `rea doctor`.",
			map[string]any{"operation": "list_segments", "provider_id": o.Binding().Provider.ID})
	}
	for _, s := range segs {
		start, err1 := provider.ParseAddress(s.Start)
		end, err2 := provider.ParseAddress(s.End)
		if err1 == nil && err2 == nil && start <= addr && addr < end {
			return true, nil
		}
	}
	return false, nil
}

func (c *Connection) annotation(ctx context.Context, o *session.Target, kind, addr string) (string, bool, error) {
	v, ok, err := projections.Annotation(ctx, c.eng.cfg.Ledger.ReadDB(), o.Target().SHA256, kind, addr)
	if err != nil {
		return "", false, fault.From(kind, err)
	}
	return v, ok, nil
}

// Bookmark is one list_bookmarks entry.
type Bookmark struct {
	Address string `json:"address"`
	Name    string `json:"name"`
}

func (c *Connection) bookmarks(ctx context.Context, o *session.Target) ([]Bookmark, error) {
	all, err := c.annotationsOfKind(ctx, o, kindBookmark)
	if err != nil {
		return nil, fault.From("list_bookmarks", err)
	}
	out := make([]Bookmark, 0, len(all))
	for _, a := range all {
		out = append(out, Bookmark{Address: a.Address, Name: a.Value})
	}
	sort.Slice(out, func(i, j int) bool { // by address value, not by text
		x, _ := provider.ParseAddress(out[i].Address)
		y, _ := provider.ParseAddress(out[j].Address)
		return x < y
	})
	return out, nil
}

// setAnnotation appends annotation_set (present) or annotation_removed on the
// target's stream, then reads the projection back: the result says whether
// the stored state is what was asked for.
func (c *Connection) setAnnotation(ctx context.Context, o *session.Target, kind string, params provider.Params, value string, present bool) (provider.Result, error) {
	addr, _ := params.String("address")
	var ev ledger.NewEvent
	if present {
		ev = c.eng.event(events.AnnotationSet, events.AnnotationSetData{TargetSHA256: o.Target().SHA256, Kind: kind,
			Address: addr, Value: value, ConnectionID: c.ID(), RunID: o.RunID()})
	} else {
		ev = c.eng.event(events.AnnotationRemoved, events.AnnotationRemovedData{TargetSHA256: o.Target().SHA256, Kind: kind,
			Address: addr, ConnectionID: c.ID(), RunID: o.RunID()})
	}
	if _, err := c.eng.appendEvents(ctx, events.TargetStream(o.Target().SHA256), -1, []ledger.NewEvent{ev}, nil); err != nil {
		return provider.Result{}, err
	}
	got, ok, err := c.annotation(ctx, o, kind, addr)
	if err != nil {
		return provider.Result{}, err
	}
	return provider.Result{Normalized: ok == present && (!present || got == value)}, nil
}

// withUserName applies set_address_name for a client that does not show
// user names itself: a user name overrides the provider's answer to
// address_name.
func (c *Connection) withUserName(ctx context.Context, o *session.Target, addr string, res provider.Result) (provider.Result, error) {
	name, ok, err := c.annotation(ctx, o, kindName, addr)
	if err != nil || !ok {
		return res, err
	}
	if s, isStr := res.Normalized.(*string); !isStr || s == nil || *s != name {
		res.Raw, res.Normalized = res.Normalized, name
		res.Limitations = append(res.Limitations, provider.UserNameLimitation(1))
	}
	return res, nil
}

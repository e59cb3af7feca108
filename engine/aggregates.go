package engine

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/session"
)

// The aggregate native-context tools (CONTRACTS.md §8) compose operations of
// the bound provider and the engine. They are observations for the analyst,
// not Evidence: the operations they run publish nothing.

// query answers one operation without publishing Evidence.
func (c *Connection) query(ctx context.Context, o *session.Target, op string, params provider.Params) (json.RawMessage, error) {
	res, err := c.invoke(ctx, o, op, params, nil)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(res.Normalized)
	if err != nil {
		return nil, fault.Internal(op, err)
	}
	return b, nil
}

// ProcedureRef names a procedure.
type ProcedureRef struct {
	Address string `json:"address"`
	Name    string `json:"name"`
}

// NavigationContext is get_navigation_context's result.
type NavigationContext struct {
	Mode      string        `json:"mode"`
	Document  string        `json:"document"`
	Address   string        `json:"address"`
	Procedure *ProcedureRef `json:"procedure"`
}

// NavigationContext composes the document, the cursor and the procedure
// containing it: explicit_document mode when document is given (it then
// needs no current_document), current_selection otherwise.
func (c *Connection) NavigationContext(ctx context.Context, target string, document *string) (NavigationContext, error) {
	const op = "get_navigation_context"
	o, release, err := c.bound(ctx, op, target)
	if err != nil {
		return NavigationContext{}, err
	}
	defer release()
	nc := NavigationContext{Mode: "explicit_document"}
	if document != nil {
		nc.Document = *document
	} else {
		nc.Mode = "current_selection"
		b, err := c.query(ctx, o, "current_document", provider.Params{})
		if err != nil {
			return NavigationContext{}, err
		}
		if err := json.Unmarshal(b, &nc.Document); err != nil {
			return NavigationContext{}, unreadable("current_document", o)
		}
	}
	b, err := c.query(ctx, o, "current_address", provider.Params{"document": nc.Document})
	if err != nil {
		return NavigationContext{}, err
	}
	if err := json.Unmarshal(b, &nc.Address); err != nil {
		return NavigationContext{}, unreadable("current_address", o)
	}
	nc.Procedure, err = c.containing(ctx, o, nc.Document, nc.Address)
	return nc, err
}

func (c *Connection) containing(ctx context.Context, o *session.Target, document, address string) (*ProcedureRef, error) {
	b, err := c.query(ctx, o, "resolve_containing_procedure", provider.Params{"document": document, "address": address})
	if err != nil {
		return nil, err
	}
	var r struct {
		Found     bool          `json:"found"`
		Procedure *ProcedureRef `json:"procedure"`
	}
	if err := json.Unmarshal(b, &r); err != nil || (r.Found && r.Procedure == nil) {
		return nil, unreadable("resolve_containing_procedure", o)
	}
	if !r.Found {
		return nil, nil
	}
	return r.Procedure, nil
}

func unreadable(op string, o *session.Target) *fault.Error {
	return fault.New(fault.UnreadableOutput, "The provider's answer does not match its output contract.", "Run `rea doctor`.",
		map[string]any{"operation": op, "provider_id": o.Binding().Provider.ID})
}

// Facet is one facet of inspect_address_context.
type Facet struct {
	State       string          `json:"state"` // available | unavailable
	Value       json.RawMessage `json:"value,omitempty"`
	Reason      string          `json:"reason,omitempty"` // an error code
	Remediation string          `json:"remediation,omitempty"`
}

// AddressContext is inspect_address_context's result.
type AddressContext struct {
	Address       string  `json:"address"`
	Document      *string `json:"document"`
	Name          Facet   `json:"name"`
	Procedure     Facet   `json:"procedure"`
	Comment       Facet   `json:"comment"`
	InlineComment Facet   `json:"inline_comment"`
	Bookmarks     Facet   `json:"bookmarks"`
}

// Facet bounds (§8.2).
const (
	maxFacetString    = 4096
	maxFacetBookmarks = 1000
)

// InspectAddressContext runs the five facet operations concurrently. A facet
// that fails is unavailable with its error code; only cancellation, timeouts,
// a missing target and permission denials fail the whole call.
func (c *Connection) InspectAddressContext(ctx context.Context, target, address string, document *string) (AddressContext, error) {
	const op = "inspect_address_context"
	o, release, err := c.bound(ctx, op, target)
	if err != nil {
		return AddressContext{}, err
	}
	defer release()
	ac := AddressContext{Address: address, Document: document}
	if document == nil {
		b, err := c.query(ctx, o, "current_document", provider.Params{})
		if err != nil {
			if wholeCallFailure(err) {
				return AddressContext{}, err
			}
		} else {
			var d string
			if json.Unmarshal(b, &d) != nil {
				return AddressContext{}, unreadable("current_document", o)
			}
			ac.Document = &d
		}
	}
	var doc any
	if ac.Document != nil {
		doc = *ac.Document
	}
	at := provider.Params{"document": doc, "address": address}
	facets := []struct {
		dst *Facet
		op  string
		in  provider.Params
	}{
		{&ac.Name, "address_name", at},
		{&ac.Procedure, "resolve_containing_procedure", at},
		{&ac.Comment, "comment", at},
		{&ac.InlineComment, "inline_comment", at},
		{&ac.Bookmarks, "list_bookmarks", provider.Params{"document": doc}},
	}
	errs := make([]error, len(facets))
	var wg sync.WaitGroup
	for i, f := range facets {
		wg.Go(func() {
			b, err := c.query(ctx, o, f.op, f.in)
			if err != nil {
				errs[i] = err
				*f.dst = unavailableFacet(f.op, err)
				return
			}
			*f.dst = boundedFacet(f.op, b)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if wholeCallFailure(err) {
			return AddressContext{}, err
		}
	}
	if ac.Procedure.State == "available" {
		var r struct {
			QueryAddress string `json:"query_address"`
		}
		if json.Unmarshal(ac.Procedure.Value, &r) == nil && r.QueryAddress != "" {
			ac.Address = r.QueryAddress
		}
	}
	if ac.Bookmarks.State == "available" {
		ac.Bookmarks = bookmarksAt(ac.Bookmarks.Value, ac.Address)
	}
	return ac, nil
}

func wholeCallFailure(err error) bool {
	var fe *fault.Error
	if !errors.As(err, &fe) {
		return false
	}
	switch fe.Code {
	case fault.Cancelled, fault.ProviderTimeout, fault.TargetUnavailable, fault.PermissionRequired:
		return true
	}
	return false
}

func unavailableFacet(op string, err error) Facet {
	return Facet{State: "unavailable", Reason: string(fault.From(op, err).Code),
		Remediation: "Call " + op + " directly for its availability and diagnostics."}
}

func boundedFacet(op string, b json.RawMessage) Facet {
	var s string
	if json.Unmarshal(b, &s) == nil && len([]rune(s)) > maxFacetString {
		return Facet{State: "unavailable", Reason: string(fault.Truncated), Remediation: "Call " + op + " directly for its availability and diagnostics."}
	}
	return Facet{State: "available", Value: b}
}

// bookmarksAt keeps the bookmarks at address; malformed output is an
// unavailable facet, never an empty list.
func bookmarksAt(all json.RawMessage, address string) Facet {
	var marks []Bookmark
	if err := json.Unmarshal(all, &marks); err != nil {
		return Facet{State: "unavailable", Reason: string(fault.UnreadableOutput), Remediation: "Call list_bookmarks directly for its availability and diagnostics."}
	}
	at := []Bookmark{}
	for _, m := range marks {
		if a, err := provider.ParseAddress(m.Address); err == nil && provider.FormatAddress(a) == address {
			at = append(at, m)
		}
	}
	if len(at) > maxFacetBookmarks {
		return Facet{State: "unavailable", Reason: string(fault.Truncated), Remediation: "Call list_bookmarks directly for its availability and diagnostics."}
	}
	b, _ := json.Marshal(at)
	return Facet{State: "available", Value: b}
}

package gdb

import (
	"slices"

	"github.com/rea-re/rea/engine/provider"
)

// Names as the builtin provider shows them: a user name (set_address_name)
// first, else the primary minimal symbol; list_procedures has one item per
// entry address with the other names as aliases.

// SetUserNames implements provider.UserNames.
func (c *Client) SetUserNames(names map[uint64]string) {
	c.user.Store(provider.NewNameSet(names))
}

// namer names addresses for one answer, recording the user names shown.
type namer struct {
	tab  *symTable
	user *provider.NameSet
	use  provider.UserNameUse
}

func (c *Client) namer(tab *symTable) *namer { return &namer{tab: tab, user: c.user.Load()} }

// displayName is the name shown for an address: the user's name, else the
// primary minimal symbol.
func (n *namer) displayName(a uint64) (string, bool) {
	if u, ok := n.user.At(a); ok {
		n.use.Shown(a)
		return u, true
	}
	if i, ok := n.tab.primaryAt(a); ok {
		return n.tab.syms[i].name, true
	}
	return "", false
}

// procName is the display name of the procedure at an entry.
func (n *namer) procName(a uint64) (string, bool) {
	if !n.tab.isEntry(a) {
		return "", false
	}
	return n.displayName(a)
}

// procedurePage lists the procedures that pass f: every one is named (a
// minimal symbol, or the user's name), so NamedOnly keeps all; a thunk is
// an import stub ("NAME@plt"); MinLength is refused before (doNamed).
func (n *namer) procedurePage(f provider.ProcedureFilter, offset, limit int) provider.Page[provider.ProcedureItem] {
	t := n.tab
	keys := t.entries
	if f.ExcludeThunks {
		keys = []int{}
		for k := range t.entries {
			if !n.stubAt(k) {
				keys = append(keys, k)
			}
		}
	}
	page := provider.PageOf(keys, offset, limit)
	start := min(offset, len(keys))
	items := make([]provider.ProcedureItem, len(page.Items))
	for i := range page.Items {
		k := start + i
		if f.ExcludeThunks {
			k = page.Items[i]
		}
		lo, hi := t.entryRange(k)
		addr := t.syms[t.procs[lo]].addr
		value, _ := n.displayName(addr)
		aliases := make([]string, 0, hi-lo)
		for _, j := range t.procs[lo:hi] {
			aliases = append(aliases, t.syms[j].name)
		}
		slices.Sort(aliases)
		aliases = slices.Compact(aliases)
		if j, found := slices.BinarySearch(aliases, value); found {
			aliases = slices.Delete(aliases, j, j+1)
		}
		stub := n.stubAt(k)
		items[i] = provider.ProcedureItem{Address: provider.FormatAddress(addr), Value: value, Aliases: aliases,
			Procedure: provider.ProcedureInfo{External: stub, Thunk: stub}}
	}
	return provider.Page[provider.ProcedureItem]{Items: items, Offset: page.Offset, Limit: page.Limit,
		Returned: page.Returned, Total: page.Total, NextOffset: page.NextOffset, Truncated: page.Truncated}
}

// stubAt reports whether a symbol of the k-th entry is an import stub.
func (n *namer) stubAt(k int) bool {
	t := n.tab
	lo, hi := t.entryRange(k)
	for _, j := range t.procs[lo:hi] {
		if isStub(&t.syms[j]) {
			return true
		}
	}
	return false
}

func (n *namer) namePage(a uint64, hasAddr bool, offset, limit int) provider.Page[provider.NameItem] {
	t := n.tab
	lo, hi := 0, len(t.syms)
	user := n.user.Sorted()
	if hasAddr {
		lo, hi = t.namesAt(a)
		user = nil
		if u, ok := n.user.At(a); ok {
			user = []provider.UserName{{Address: a, Name: u}}
		}
	}
	refs, total := provider.MergeUserNames(hi-lo, func(i int) (uint64, string) {
		return t.syms[lo+i].addr, t.syms[lo+i].name
	}, user, offset, limit)
	items := make([]provider.NameItem, len(refs))
	for i, r := range refs {
		if u := r.User; u != nil {
			typ := "label"
			if t.isEntry(u.Address) {
				typ = "function"
			}
			n.use.Shown(u.Address)
			items[i] = provider.NameItem{Address: provider.FormatAddress(u.Address), Value: u.Name,
				Symbol: provider.SymbolInfo{Primary: true, Type: typ, Source: "user_defined"}}
			continue
		}
		k := lo + r.Base
		s := &t.syms[k]
		src := "default"
		if isStub(s) {
			src = "imported"
		}
		primary := t.primary[k]
		if u, ok := n.user.At(s.addr); ok {
			primary = u == s.name
		}
		items[i] = provider.NameItem{Address: provider.FormatAddress(s.addr), Value: s.name,
			Symbol: provider.SymbolInfo{Primary: primary, External: isStub(s), Type: symbolType(s.typ), Source: src}}
	}
	p := provider.Page[provider.NameItem]{Items: items, Offset: offset, Limit: limit, Returned: len(items), Total: &total}
	if end := min(offset, total) + len(items); end < total {
		p.NextOffset, p.Truncated = &end, true
	}
	return p
}

package builtin

import (
	"context"
	"slices"
	"sort"

	"github.com/rea-re/rea/engine/provider"
)

// Names: every name the provider answers (listings, searches, resolution,
// call edges, procedure names) comes from namer.displayName, so a user name
// (set_address_name) shows everywhere at once and one rule chooses among
// aliases (primaryOrder).

// SetUserNames implements provider.UserNames.
func (c *Client) SetUserNames(names map[uint64]string) {
	c.user.Store(provider.NewNameSet(names))
}

// namer names addresses for one answer: one snapshot of the user's names
// over the symbol index, recording which user names the answer shows.
type namer struct {
	c    *Client
	six  *symIndex
	user *provider.NameSet
	use  provider.UserNameUse
}

func (c *Client) namer(six *symIndex) *namer {
	return &namer{c: c, six: six, user: c.user.Load()}
}

// displayName is the name shown for an address, the one lookup behind
// every name the built-in provider answers: the user's name
// (set_address_name), else the primary symbol (primaryOrder), which is an
// analysis name (sub_…, entry) only when the address has no other; ok is
// false when the address has no name.
func (n *namer) displayName(a uint64) (string, bool) {
	if u, ok := n.user.At(a); ok {
		n.use.Shown(a)
		return u, true
	}
	if s := n.six.primaryAt(a); s != nil {
		return nameString(n.six.name(n.c.data, s)), true
	}
	return "", false
}

// namePtr is displayName as an optional value.
func (n *namer) namePtr(a uint64) *string {
	if s, ok := n.displayName(a); ok {
		return &s
	}
	return nil
}

// procRef names the procedure at entry.
func (n *namer) procRef(entry uint64) *provider.ProcRef {
	name, _ := n.displayName(entry)
	return &provider.ProcRef{Address: provider.FormatAddress(entry), Name: name}
}

// limitations are the Evidence limitations about the user names used.
func (n *namer) limitations() []string { return n.use.Limitations() }

// primaryAt is the primary symbol at a, or nil.
func (ix *symIndex) primaryAt(a uint64) *symbol {
	i := sort.Search(len(ix.syms), func(i int) bool { return ix.syms[i].addr >= a })
	for ; i < len(ix.syms) && ix.syms[i].addr == a; i++ {
		if ix.syms[i].flags&flagPrimary != 0 {
			return &ix.syms[i]
		}
	}
	return nil
}

// procedureNames are the names of the k-th procedure entry: its display
// name and its other names (the procedure symbols there, and the primary
// symbol when a user name replaced it), sorted and without repeats.
func (n *namer) procedureNames(k int) (uint64, string, []string) {
	six := n.six
	lo, hi := six.entryRange(k)
	addr := six.syms[six.procs[lo]].addr
	value, _ := n.displayName(addr)
	aliases := make([]string, 0, hi-lo)
	for _, i := range six.procs[lo:hi] {
		aliases = append(aliases, nameString(six.name(n.c.data, &six.syms[i])))
	}
	if _, user := n.user.At(addr); user {
		if s := six.primaryAt(addr); s != nil && s.flags&flagProcedure == 0 {
			aliases = append(aliases, nameString(six.name(n.c.data, s)))
		}
	}
	slices.Sort(aliases)
	aliases = slices.Compact(aliases)
	if i, found := slices.BinarySearch(aliases, value); found {
		aliases = slices.Delete(aliases, i, i+1)
	}
	return addr, value, aliases
}

// containing is the procedure at or containing a: an entry, a known
// extent, else recursive descent from the nearest entry below (byDescent).
// cache holds decodings by entry across one answer.
func (n *namer) containing(ctx context.Context, op string, ex *extentIndex, a uint64, cache map[uint64][]insn) (entry uint64, ok, byDescent bool, err error) {
	if lo, hi := procsAt(n.six, a); lo < hi {
		return a, true, false, nil
	}
	if e, ok := ex.containing(a); ok {
		return e, true, false, nil
	}
	e, ok, err := n.c.containingByDescent(ctx, op, n.six, ex, a, cache)
	return e, ok, ok, err
}

// addressItems names a page of addresses.
func (n *namer) addressItems(ctx context.Context, op string, ex *extentIndex, page provider.Page[uint64]) (provider.Page[provider.AddressItem], error) {
	items := make([]provider.AddressItem, len(page.Items))
	cache := map[uint64][]insn{}
	for i, a := range page.Items {
		items[i] = provider.AddressItem{Address: provider.FormatAddress(a), Name: n.namePtr(a)}
		entry, ok, _, err := n.containing(ctx, op, ex, a, cache)
		if err != nil {
			return provider.Page[provider.AddressItem]{}, err
		}
		if ok {
			items[i].Procedure = n.procRef(entry)
		}
	}
	return provider.Page[provider.AddressItem]{Items: items, Offset: page.Offset, Limit: page.Limit,
		Returned: page.Returned, Total: page.Total, NextOffset: page.NextOffset, Truncated: page.Truncated}, nil
}

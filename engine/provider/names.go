package provider

import (
	"cmp"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// User names (set_address_name) are REA's annotations, owned by the engine;
// a name the user gives an address is the name every listing, search,
// resolution and call edge shows from then on (CONTRACTS.md §0, §2.2). A
// client that implements UserNames shows them itself, from the same index
// as the symbols, so aliases, primary flags and resolution stay consistent;
// the engine hands it the target's current names before every operation.

// UserNames is implemented by clients that show the user's names. names
// maps an address to its user name; the client keeps the map (the engine
// never changes it afterwards) until the next call.
type UserNames interface {
	SetUserNames(names map[uint64]string)
}

// UserName is one user-defined name.
type UserName struct {
	Address uint64
	Name    string
}

// NameSet is an immutable snapshot of a target's user names. The nil set
// has no names.
type NameSet struct {
	byAddr map[uint64]string
	sorted []UserName // by (address, name)
	byName map[string][]uint64
}

// NewNameSet snapshots names; nil when there are none.
func NewNameSet(names map[uint64]string) *NameSet {
	if len(names) == 0 {
		return nil
	}
	s := &NameSet{byAddr: maps.Clone(names), byName: map[string][]uint64{}}
	for a, n := range names {
		s.sorted = append(s.sorted, UserName{a, n})
	}
	slices.SortFunc(s.sorted, func(x, y UserName) int { return cmp.Compare(x.Address, y.Address) })
	for _, u := range s.sorted {
		s.byName[u.Name] = append(s.byName[u.Name], u.Address)
	}
	return s
}

// At is the user name of a.
func (s *NameSet) At(a uint64) (string, bool) {
	if s == nil {
		return "", false
	}
	n, ok := s.byAddr[a]
	return n, ok
}

// Before is the user name at the highest address at or below a.
func (s *NameSet) Before(a uint64) (UserName, bool) {
	if s == nil {
		return UserName{}, false
	}
	i := sort.Search(len(s.sorted), func(i int) bool { return s.sorted[i].Address > a }) - 1
	if i < 0 {
		return UserName{}, false
	}
	return s.sorted[i], true
}

// Named lists the addresses the user gave this name, sorted.
func (s *NameSet) Named(name string) []uint64 {
	if s == nil {
		return nil
	}
	return s.byName[name]
}

// Sorted lists the names by address.
func (s *NameSet) Sorted() []UserName {
	if s == nil {
		return nil
	}
	return s.sorted
}

// Len is the number of names.
func (s *NameSet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.sorted)
}

// UserNameUse records the user names one answer shows or was resolved
// through, for its Evidence: an answer built on a user's names says so, and
// its record (and id) differs from the answer without them.
type UserNameUse struct {
	shown    map[uint64]bool
	resolved bool
}

// Shown records that the answer shows the user name of a.
func (u *UserNameUse) Shown(a uint64) {
	if u.shown == nil {
		u.shown = map[uint64]bool{}
	}
	u.shown[a] = true
}

// Limitations are the answer's Evidence limitations about user names.
func (u *UserNameUse) Limitations() []string {
	var out []string
	if u.resolved {
		out = append(out, LimitationUserResolved)
	}
	if len(u.shown) > 0 {
		out = append(out, UserNameLimitation(len(u.shown)))
	}
	return out
}

// LimitationUserResolved says that a procedure argument named a procedure
// by its user name.
const LimitationUserResolved = "the procedure argument was resolved through a user-defined name (set_address_name)"

// UserNameLimitation is the limitation of an answer showing the user names
// of n addresses.
func UserNameLimitation(n int) string {
	return strconv.Itoa(n) + userNameSuffix
}

// LimitationSomeUserNames is the limitation of a composed answer built
// from answers that showed user names.
const LimitationSomeUserNames = "some names in this answer are user-defined (set_address_name), not read from the binary"

// ShowsUserNames reports whether limitations say that an answer shows user
// names or was resolved through one.
func ShowsUserNames(limitations []string) bool {
	for _, l := range limitations {
		if l == LimitationUserResolved || l == LimitationSomeUserNames || strings.HasSuffix(l, userNameSuffix) {
			return true
		}
	}
	return false
}

const userNameSuffix = " name(s) in this answer are user-defined (set_address_name), not read from the binary"

// NameRef is one entry of a list_names page with the user's names merged
// in: a base name (its index) or a user name.
type NameRef struct {
	Base int
	User *UserName
}

// MergeUserNames pages a name listing with the user's names merged in. The
// base listing is n names sorted by (address, name bytes), key(i) giving the
// i-th; each user name that is not already a name at its address is
// inserted in that order. It returns the page [offset, offset+limit) and the
// merged total.
func MergeUserNames(n int, key func(i int) (uint64, string), user []UserName, offset, limit int) ([]NameRef, int) {
	less := func(a uint64, s string, b uint64, t string) bool { return a < b || a == b && s < t }
	type extra struct {
		u   *UserName
		pos int // position in the merged listing
	}
	var extras []extra
	for i := range user {
		u := &user[i]
		lb := sort.Search(n, func(i int) bool { a, s := key(i); return !less(a, s, u.Address, u.Name) })
		if lb < n {
			if a, s := key(lb); a == u.Address && s == u.Name {
				continue
			}
		}
		extras = append(extras, extra{u: u, pos: lb + len(extras)})
	}
	total := n + len(extras)
	start := min(max(offset, 0), total)
	end := min(start+max(limit, 0), total)
	j := sort.Search(len(extras), func(j int) bool { return extras[j].pos >= start })
	b := start - j
	refs := make([]NameRef, 0, end-start)
	for k := start; k < end; k++ {
		if j < len(extras) && extras[j].pos == k {
			refs = append(refs, NameRef{Base: -1, User: extras[j].u})
			j++
			continue
		}
		refs = append(refs, NameRef{Base: b})
		b++
	}
	return refs, total
}

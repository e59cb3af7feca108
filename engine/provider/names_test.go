package provider

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/rea-re/rea/engine/fault"
)

// TestMergeUserNames: every page of the merged listing equals the same page
// of the listing built by inserting the extra user names and sorting; a
// user name equal to a name at its address adds nothing.
func TestMergeUserNames(t *testing.T) {
	type kv struct {
		a uint64
		s string
	}
	base := []kv{{1, "a"}, {1, "c"}, {3, "x"}, {5, "m"}, {5, "n"}, {9, "z"}}
	user := []UserName{{0, "first"}, {1, "b"}, {3, "x"}, {5, "zz"}, {7, "seven"}, {12, "last"}}
	want := slices.Clone(base)
	for _, u := range user {
		if !slices.Contains(base, kv{u.Address, u.Name}) {
			want = append(want, kv{u.Address, u.Name})
		}
	}
	sort.Slice(want, func(i, j int) bool {
		return want[i].a < want[j].a || want[i].a == want[j].a && want[i].s < want[j].s
	})
	key := func(i int) (uint64, string) { return base[i].a, base[i].s }
	for offset := 0; offset <= len(want)+1; offset++ {
		for limit := 1; limit <= len(want)+1; limit++ {
			refs, total := MergeUserNames(len(base), key, user, offset, limit)
			if total != len(want) {
				t.Fatalf("total %d, want %d", total, len(want))
			}
			var got []kv
			for _, r := range refs {
				if r.User != nil {
					got = append(got, kv{r.User.Address, r.User.Name})
				} else {
					got = append(got, base[r.Base])
				}
			}
			end := min(offset+limit, len(want))
			if exp := want[min(offset, len(want)):end]; !slices.Equal(got, exp) {
				t.Fatalf("offset %d limit %d: got %v, want %v", offset, limit, got, exp)
			}
		}
	}
	if refs, total := MergeUserNames(0, key, nil, 0, 10); len(refs) != 0 || total != 0 {
		t.Fatalf("empty: %v %d", refs, total)
	}
}

// TestResolveUserNames: a user name resolves before the symbol names (which
// still resolve), through the procedure containing its address, and the
// resolution is recorded; a user name of two procedures is ambiguous.
func TestResolveUserNames(t *testing.T) {
	symbols := map[string][]uint64{"foo": {0x100}, "bar": {0x200}, "dup": {0x100, 0x200}}
	names := NewNameSet(map[uint64]string{0x100: "mine", 0x208: "inner", 0x300: "outside", 0x200: "foo2"})
	lookup := func(use *UserNameUse) ProcedureLookup {
		return ProcedureLookup{
			ValidName: func(v string) bool { return v != "bad name" },
			Named:     func(v string) []uint64 { return symbols[v] },
			At: func(a uint64) (uint64, bool, error) {
				switch {
				case a >= 0x100 && a < 0x180:
					return 0x100, true, nil
				case a >= 0x200 && a < 0x280:
					return 0x200, true, nil
				}
				return 0, false, nil
			},
			User: names, Use: use,
		}
	}
	for _, c := range []struct {
		arg  string
		want uint64
		user bool
	}{{"mine", 0x100, true}, {"foo", 0x100, false}, {"inner", 0x200, true}, {"bar", 0x200, false}, {"0x208", 0x200, false}} {
		var use UserNameUse
		got, err := ResolveProcedure("op", Params{"procedure": c.arg}, lookup(&use))
		if err != nil || got != c.want {
			t.Errorf("%s: %#x %v, want %#x", c.arg, got, err, c.want)
		}
		if resolved := slices.Contains(use.Limitations(), LimitationUserResolved); resolved != c.user {
			t.Errorf("%s: resolved through a user name %v, want %v", c.arg, resolved, c.user)
		}
	}
	// A user name of an address outside every procedure names none.
	if _, err := ResolveProcedure("op", Params{"procedure": "outside"}, lookup(nil)); !fault.Is(err, fault.InvalidRequest) {
		t.Errorf("outside: %v", err)
	}
	two := NewNameSet(map[uint64]string{0x100: "same", 0x200: "same"})
	l := lookup(nil)
	l.User = two
	_, err := ResolveProcedure("op", Params{"procedure": "same"}, l)
	var fe *fault.Error
	if !fault.Is(err, fault.InvalidRequest) || !asFault(err, &fe) || fmt.Sprint(fe.Details["candidates"]) != "[0x100 0x200]" {
		t.Errorf("ambiguous user name: %v", err)
	}
	// A user name shadows the same symbol name elsewhere: it names what the
	// user meant.
	l = lookup(nil)
	l.User = NewNameSet(map[uint64]string{0x100: "bar"})
	if got, err := ResolveProcedure("op", Params{"procedure": "bar"}, l); err != nil || got != 0x100 {
		t.Errorf("user name shadowing a symbol: %#x %v", got, err)
	}
	// A user name is matched even where the symbol grammar would refuse it.
	l = lookup(nil)
	l.User = NewNameSet(map[uint64]string{0x100: "bad name"})
	if got, err := ResolveProcedure("op", Params{"procedure": "bad name"}, l); err != nil || got != 0x100 {
		t.Errorf("user name outside the symbol grammar: %#x %v", got, err)
	}
}

func asFault(err error, fe **fault.Error) bool {
	f, ok := err.(*fault.Error)
	*fe = f
	return ok
}

func TestUserNameUse(t *testing.T) {
	var u UserNameUse
	if len(u.Limitations()) != 0 {
		t.Fatal("no use, yet limitations")
	}
	u.Shown(1)
	u.Shown(1)
	u.Shown(2)
	if got := u.Limitations(); !slices.Equal(got, []string{UserNameLimitation(2)}) || !ShowsUserNames(got) {
		t.Fatalf("limitations %v", got)
	}
	if ShowsUserNames([]string{"0 indirect call(s) unresolved"}) {
		t.Fatal("unrelated limitation taken for a user-name one")
	}
}

package builtin

import (
	"context"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// TestCalleeNames: at -O0 and -O2 every callee of every procedure carries the
// callee's name (the display name list_procedures gives its entry) and its
// procedure; a user name then replaces it in the callee items, in
// list_procedures (the symbol name kept as an alias), in list_names, in
// search and in resolution, and the Evidence says so.
func TestCalleeNames(t *testing.T) {
	for _, opt := range []string{"-O0", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			_, _, c := open(t, cFixture(t, "gcc"+opt, "gcc", opt, "-g"))
			procs := allProcedures(t, c)
			byAddr := map[string]provider.ProcedureItem{}
			for _, p := range procs {
				byAddr[p.Address] = p
			}
			edges := 0
			for _, p := range procs {
				if p.Procedure.External {
					continue
				}
				for _, it := range allItems[provider.AddressItem](t, c, provider.OpProcedureCallees, provider.Params{"procedure": p.Address}) {
					edges++
					callee, entry := byAddr[it.Address]
					switch {
					case it.Name == nil:
						t.Errorf("%s calls %s: no name", p.Value, it.Address)
					case entry && *it.Name != callee.Value:
						t.Errorf("%s calls %s: name %q, list_procedures %q", p.Value, it.Address, *it.Name, callee.Value)
					case entry && (it.Procedure == nil || it.Procedure.Address != it.Address || it.Procedure.Name != callee.Value):
						t.Errorf("%s calls %s: procedure %+v", p.Value, it.Address, it.Procedure)
					}
				}
			}
			mainAddr := do(t, c, provider.OpProcedureAddress, provider.Params{"procedure": "main"}).Normalized.(string)
			callees := allItems[provider.AddressItem](t, c, provider.OpProcedureCallees, provider.Params{"procedure": "main"})
			var names []string
			for _, it := range callees {
				if it.Name != nil {
					names = append(names, *it.Name)
				}
			}
			for _, want := range []string{"rea_add", "rea_static_helper"} { // -O2 tail-calls rea_mul
				if !slices.ContainsFunc(names, func(n string) bool { return n == want || strings.HasPrefix(n, want+".") }) {
					t.Errorf("main's callees %v lack %s", names, want)
				}
			}
			if edges == 0 {
				t.Fatal("no call edges")
			}

			// A user name.
			add := do(t, c, provider.OpProcedureAddress, provider.Params{"procedure": "rea_add"}).Normalized.(string)
			addAt, _ := provider.ParseAddress(add)
			c.(provider.UserNames).SetUserNames(map[uint64]string{addAt: "my add"})
			r := do(t, c, provider.OpProcedureCallees, provider.Params{"procedure": mainAddr, "offset": int64(0), "limit": int64(1000)})
			found := false
			for _, it := range r.Normalized.(provider.Page[provider.AddressItem]).Items {
				if it.Address == add {
					found = it.Name != nil && *it.Name == "my add" && it.Procedure != nil && it.Procedure.Name == "my add"
				}
			}
			if !found {
				t.Errorf("callee item of rea_add does not show the user name: %+v", r.Normalized)
			}
			if want := provider.UserNameLimitation(1); !slices.Contains(r.Limitations, want) {
				t.Errorf("limitations %v lack %q", r.Limitations, want)
			}
			item := byAddrOf(allProcedures(t, c), add)
			if item.Value != "my add" || !slices.Contains(item.Aliases, "rea_add") {
				t.Errorf("list_procedures item %+v", item)
			}
			for _, name := range []string{"my add", "rea_add"} {
				r := do(t, c, provider.OpProcedureInfo, provider.Params{"procedure": name})
				if got := r.Normalized.(provider.ProcedureInfoResult); got.Name != "my add" || got.Entrypoint != add {
					t.Errorf("procedure_info %q: %+v", name, got)
				}
				if name == "my add" && !slices.Contains(r.Limitations, provider.LimitationUserResolved) {
					t.Errorf("procedure_info by user name: limitations %v", r.Limitations)
				}
				s := do(t, c, provider.OpSearchProcedures, provider.Params{"pattern": name, "case_sensitive": true}).Normalized.(provider.Page[provider.SearchItem])
				if len(s.Items) != 1 || s.Items[0].Address != add || s.Items[0].Value != name || s.Items[0].Procedure.Name != "my add" {
					t.Errorf("search_procedures %q: %+v", name, s.Items)
				}
			}
			names2 := do(t, c, provider.OpListNames, provider.Params{"address": add}).Normalized.(provider.Page[provider.NameItem])
			primaries := 0
			for _, it := range names2.Items {
				if it.Symbol.Primary {
					primaries++
					if it.Value != "my add" || it.Symbol.Source != "user_defined" || it.Symbol.Type != "function" {
						t.Errorf("primary name at rea_add: %+v", it)
					}
				}
			}
			if primaries != 1 || *names2.Total != len(names2.Items) {
				t.Errorf("names at rea_add: %+v", names2)
			}
			asm := do(t, c, provider.OpProcedureAssembly, provider.Params{"procedure": mainAddr})
			if call := add + " <my add>"; !strings.Contains(asm.Normalized.(string), call) {
				t.Errorf("procedure_assembly of main does not show the call target as %q", call)
			}
			if want := provider.UserNameLimitation(1); !slices.Contains(asm.Limitations, want) {
				t.Errorf("procedure_assembly limitations %v lack %q", asm.Limitations, want)
			}
			// ProcedureInstructions (the comparison's way) gives the same
			// lines and limitations, the user name's included.
			mainAt, _ := provider.ParseAddress(mainAddr)
			var lines []string
			lims, err := c.(*Client).ProcedureInstructions(context.Background(), "", mainAt, func(_, _ int, a uint64, n int, text string) {
				code, _ := c.(*Client).codeAt(a)
				lines = append(lines, provider.FormatAddress(a)+"  "+hex.EncodeToString(code[:n])+"  "+text)
			})
			if err != nil || strings.Join(lines, "\n") != asm.Normalized.(string) || !slices.Equal(lims, asm.Limitations) {
				t.Errorf("ProcedureInstructions of main: %v, limitations %v, lines\n%s", err, lims, strings.Join(lines, "\n"))
			}
			withUser := len(allNames(t, c))
			c.(provider.UserNames).SetUserNames(nil)
			without := len(allNames(t, c))
			c.(provider.UserNames).SetUserNames(map[uint64]string{addAt: "my add"})
			if withUser != without+1 {
				t.Errorf("list_names has %d items with the user name, %d without; want one more", withUser, without)
			}
			if r := do(t, c, provider.OpAddressName, provider.Params{"address": add}); *r.Normalized.(*string) != "my add" {
				t.Errorf("address_name: %v", r.Normalized)
			}
		})
	}
}

func byAddrOf(items []provider.ProcedureItem, a string) provider.ProcedureItem {
	for _, it := range items {
		if it.Address == a {
			return it
		}
	}
	return provider.ProcedureItem{}
}

// TestLibcAliases: libc's procedures are one item per entry address, total
// is the number of addresses, every procedure name appears exactly once (as
// the value or an alias of its address), and the familiar names are shown.
func TestLibcAliases(t *testing.T) {
	skipLarge(t)
	const libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		if requireAll() {
			t.Fatalf("%s: %v", libc, err)
		}
		t.Skipf("%s is not present (Debian x86-64 libc6)", libc)
	}
	_, _, c := open(t, libc)
	procs := allProcedures(t, c) // checks total = items
	seen := map[string]string{}  // name@address → address
	pairs := 0
	var prev uint64
	for i, p := range procs {
		a, err := provider.ParseAddress(p.Address)
		if err != nil || (i > 0 && a <= prev) {
			t.Fatalf("item %d address %s not strictly increasing", i, p.Address)
		}
		prev = a
		if !slices.IsSorted(p.Aliases) || slices.Contains(p.Aliases, p.Value) {
			t.Errorf("%s: aliases %v of %q not sorted or repeat the value", p.Address, p.Aliases, p.Value)
		}
		for _, n := range append([]string{p.Value}, p.Aliases...) {
			k := n + "@" + p.Address
			if _, dup := seen[k]; dup {
				t.Errorf("%s appears twice", k)
			}
			seen[k] = p.Address
			pairs++
		}
	}
	// Every function name list_names knows at a procedure entry is one of
	// that entry's names.
	entries := map[string]bool{}
	for _, p := range procs {
		entries[p.Address] = true
	}
	for _, n := range allNames(t, c) {
		if n.Symbol.Type == "function" && entries[n.Address] {
			if _, ok := seen[n.Value+"@"+n.Address]; !ok {
				t.Errorf("function name %s at %s is not a name of its procedure", n.Value, n.Address)
			}
		}
	}
	for value, alias := range map[string]string{"printf": "_IO_printf", "malloc": "__libc_malloc", "open": "__open", "sigaction": "__sigaction", "fopen": "_IO_fopen", "lseek": "llseek", "memcmp": "bcmp", "strchr": "index"} {
		item := byAddrOf(procs, addrOfName(procs, alias))
		if item.Value != value || !slices.Contains(item.Aliases, alias) {
			t.Errorf("%s: item %+v, want value %s with alias %s", alias, item, value, alias)
		}
	}
	t.Logf("libc: %d procedure entries, %d names", len(procs), pairs)
	if pairs <= len(procs) {
		t.Errorf("no aliases: %d names at %d entries", pairs, len(procs))
	}
}

func addrOfName(procs []provider.ProcedureItem, name string) string {
	for _, p := range procs {
		if p.Value == name || slices.Contains(p.Aliases, name) {
			return p.Address
		}
	}
	return ""
}

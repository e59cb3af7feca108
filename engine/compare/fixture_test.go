package compare

import (
	"context"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

var fixtureConfigs = []struct{ arch, opt string }{
	{"x86_64", "-O0"}, {"x86_64", "-O2"}, {"arm64", "-O0"}, {"arm64", "-O2"},
}

// TestFixtureWithSymbols: with symbols, every added, removed and changed
// function of the known edit list is reported as such, the renamed static
// function is unchanged, and no other function is reported changed.
func TestFixtureWithSymbols(t *testing.T) {
	e := testkit.CompareFixtureEdits(t)
	v1, v2 := sourceFunctions(t, "v1"), sourceFunctions(t, "v2")
	if len(v1) < 60 || len(v2) < 60 {
		t.Fatalf("fixture has %d and %d functions, want >= 60", len(v1), len(v2))
	}
	for _, cfg := range fixtureConfigs {
		t.Run(cfg.arch+cfg.opt, func(t *testing.T) {
			oldPath, newPath := testkit.CompareFixture(t, cfg.arch, cfg.opt, false)
			res := compareFiles(t, oldPath, newPath)
			changed, added, removed := set(e.Changed...), set(e.Added...), set(e.Removed...)
			got := map[string]string{} // source function -> status
			for _, it := range res.Items {
				var name string
				switch {
				case it.Left != nil && v1[it.Left.Name]:
					name = it.Left.Name
				case it.Right != nil && v2[it.Right.Name]:
					name = it.Right.Name
				}
				if it.Status == StatusChanged && !changed[name] {
					t.Errorf("reported changed but not edited: %+v %+v", it.Left, it.Right)
				}
				if name == "" {
					continue
				}
				if it.Left != nil && it.Right != nil && it.Left.Name != it.Right.Name && e.Renamed[it.Left.Name] != it.Right.Name {
					t.Errorf("paired different functions: %s and %s", it.Left.Name, it.Right.Name)
				}
				got[name] = it.Status
			}
			for f := range v1 {
				want := StatusUnchanged
				switch {
				case changed[f]:
					want = StatusChanged
				case removed[f]:
					want = StatusRemoved
				}
				if got[f] != want {
					t.Errorf("%s: %q, want %q", f, got[f], want)
				}
			}
			for f := range added {
				if got[f] != StatusAdded {
					t.Errorf("%s: %q, want added", f, got[f])
				}
			}
			t.Logf("summary %+v", res.Summary)
		})
	}
}

// TestFixtureStripped: without symbols, changed functions are still found
// (recall >= 90%), pairs reported unchanged are right (precision >= 98%),
// and no procedure without a name of its own is called added or removed.
func TestFixtureStripped(t *testing.T) {
	e := testkit.CompareFixtureEdits(t)
	changed := set(e.Changed...)
	var found, total, correct, unchanged int
	for _, cfg := range fixtureConfigs {
		t.Run(cfg.arch+cfg.opt, func(t *testing.T) {
			oldPath, newPath := testkit.CompareFixture(t, cfg.arch, cfg.opt, true)
			lnames := symbolNames(t, strings.TrimSuffix(oldPath, ".stripped"))
			rnames := symbolNames(t, strings.TrimSuffix(newPath, ".stripped"))
			res := compareFiles(t, oldPath, newPath)
			cfgFound := 0
			for _, it := range res.Items {
				var ln, rn string
				if it.Left != nil {
					ln = lnames[it.Left.Address]
					if syntheticName(it.Left.Name, it.leftAddr) && (it.Status == StatusAdded || it.Status == StatusRemoved) {
						t.Errorf("unnamed procedure %s reported %s", it.Left.Address, it.Status)
					}
				}
				if it.Right != nil {
					rn = rnames[it.Right.Address]
					if syntheticName(it.Right.Name, it.rightAddr) && (it.Status == StatusAdded || it.Status == StatusRemoved) {
						t.Errorf("unnamed procedure %s reported %s", it.Right.Address, it.Status)
					}
				}
				if it.Status != StatusUnchanged && testing.Verbose() {
					t.Logf("%s %s: %+v (%s) / %+v (%s)", it.Status, deref(it.Match), it.Left, ln, it.Right, rn)
				}
				switch it.Status {
				case StatusChanged:
					if changed[ln] && ln == rn {
						cfgFound++
					}
				case StatusUnchanged:
					unchanged++
					if ln != "" && (ln == rn || e.Renamed[ln] == rn) && !changed[ln] {
						correct++
					} else {
						t.Logf("wrong unchanged pair: %s (%s) / %s (%s)", it.Left.Address, ln, it.Right.Address, rn)
					}
				}
			}
			found += cfgFound
			total += len(changed)
			t.Logf("changed found %d/%d; summary %+v", cfgFound, len(changed), res.Summary)
		})
	}
	if total == 0 {
		return
	}
	if recall := float64(found) / float64(total); recall < 0.9 {
		t.Errorf("changed recall %.3f (%d/%d), want >= 0.9", recall, found, total)
	}
	if unchanged == 0 {
		t.Fatal("nothing reported unchanged")
	}
	if precision := float64(correct) / float64(unchanged); precision < 0.98 {
		t.Errorf("unchanged precision %.3f (%d/%d), want >= 0.98", precision, correct, unchanged)
	}
	t.Logf("stripped: changed recall %d/%d, unchanged precision %d/%d", found, total, correct, unchanged)
}

// TestSameBinaryTwice: a binary against itself, and against the same source
// rebuilt in another directory (a different build-id, the same code), is
// unchanged throughout.
func TestSameBinaryTwice(t *testing.T) {
	for _, cfg := range fixtureConfigs {
		for _, stripped := range []bool{false, true} {
			name := cfg.arch + cfg.opt
			if stripped {
				name += "-stripped"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel() // two compiles and three comparisons, independent of the other builds
				a := testkit.CompareFixtureBuild(t, 1, cfg.arch, cfg.opt, stripped, t.TempDir(), "-g")
				b := testkit.CompareFixtureBuild(t, 1, cfg.arch, cfg.opt, stripped, t.TempDir(), "-g")
				if fileDigest(t, a) == fileDigest(t, b) {
					t.Fatal("the rebuild in another directory has the same bytes: the test would prove nothing")
				}
				one, id := builtinSide(t, a)
				self, err := (&Comparison{Left: one, Right: one, LeftID: id, RightID: id}).Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if s := self.Summary; s.Changed+s.Added+s.Removed+s.Unknown != 0 || s.Unchanged == 0 {
					t.Errorf("one target against itself: %+v", s)
				}
				for _, pair := range [][2]string{{a, a}, {a, b}} {
					res := compareFiles(t, pair[0], pair[1])
					s := res.Summary
					if s.Changed+s.Added+s.Removed+s.Unknown != 0 || s.Unchanged == 0 {
						t.Errorf("%s vs %s: %+v", pair[0], pair[1], s)
						for _, it := range res.Items {
							if it.Status != StatusUnchanged {
								t.Logf("%s %+v %+v", it.Status, it.Left, it.Right)
							}
						}
					}
				}
			})
		}
	}
}

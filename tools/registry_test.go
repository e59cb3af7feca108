package tools

import "testing"

// TestEveryToolHasItsHandler: the families declare each of the 45 tools
// once, each with a handler, and the catalog is exactly those tools: a
// spec cannot be published without the handler that answers it.
func TestEveryToolHasItsHandler(t *testing.T) {
	seen := map[string]bool{}
	for _, family := range families() {
		for _, tl := range family {
			name := tl.spec().Name
			if seen[name] {
				t.Errorf("%s is declared twice", name)
			}
			seen[name] = true
			if tl.handle == nil {
				t.Errorf("%s has no handler", name)
			}
		}
	}
	cat := Catalog()
	if len(cat) != 45 || len(seen) != len(cat) {
		t.Fatalf("%d tools declared, catalog has %d, want 45", len(seen), len(cat))
	}
	for _, s := range cat {
		if !seen[s.Name] {
			t.Errorf("catalog tool %s is in no family", s.Name)
		}
	}
}

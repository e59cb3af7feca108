package structure

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestDebugRender(t *testing.T) {
	src := os.Getenv("STRUCT_GRAPH")
	if src == "" {
		t.Skip()
	}
	var succs [][]int
	if err := json.Unmarshal([]byte(strings.ReplaceAll(strings.ReplaceAll(src, " ", ","), "null", "[]")), &succs); err != nil {
		t.Fatal(err)
	}
	g := Graph{Succs: succs}
	tree, err := Structure(g)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s\ncheck: %v", render(tree), Check(g, tree))
}

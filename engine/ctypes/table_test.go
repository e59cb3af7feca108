package ctypes

import "testing"

func TestTableParses(t *testing.T) {
	tab, err := parseTable(tableText)
	if err != nil {
		t.Fatal(err)
	}
	for abi := range numABIs {
		t.Logf("%s: %d functions", abi, len(Funcs(abi)))
	}
	t.Logf("%d declarations, %d sets", len(tab.order), len(tab.sets))
}

package dataflow

import (
	"os"
	"testing"
)

func TestDumpCorpus(t *testing.T) {
	name, opt := os.Getenv("DUMP"), os.Getenv("DUMPOPT")
	if name == "" {
		t.Skip("DUMP not set")
	}
	for _, p := range objectProcs(t, corpusObject(t, opt), 64) {
		if p.name == name {
			_, f := buildOpt(t, amd64, p)
			t.Log("\n" + f.String())
		}
	}
}

package builtin

import (
	"context"
	"os"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// BenchmarkDependencies times list_dependencies alone on a client of
// $REA_DEPS_BENCH: the search of the host's file system for every needed
// library and the interpreter, where the checks of paths a sample names
// (namedpath.go) are paid.
func BenchmarkDependencies(b *testing.B) {
	p := os.Getenv("REA_DEPS_BENCH")
	if p == "" {
		b.Skip("set REA_DEPS_BENCH to a binary")
	}
	_, _, c := open(b, p)
	defer c.Close(context.Background())
	for b.Loop() {
		do(b, c, provider.OpListDependencies, nil)
	}
}

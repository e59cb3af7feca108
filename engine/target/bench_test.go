package target

import (
	"context"
	"os"
	"testing"
)

// BenchmarkHashFile hashes REA_BENCH_FILE (default /usr/bin/node) the way
// open_binary does; compare with `sha256sum` via bench/compare.sh.
func BenchmarkHashFile(b *testing.B) {
	path := os.Getenv("REA_BENCH_FILE")
	if path == "" {
		path = "/usr/bin/node"
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Skipf("no benchmark file: %v (set REA_BENCH_FILE)", err)
	}
	b.SetBytes(fi.Size())
	for b.Loop() {
		if _, err := HashFile(context.Background(), path, fi.Size(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

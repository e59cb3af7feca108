package target

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/engine/progress"
)

// lastHash records the last "hash" update.
func lastHash(last *float64) progress.Reporter {
	return progress.Func(func(u progress.Update) {
		if u.Phase == "hash" {
			*last = u.Completed
		}
	})
}

// TestHashProgressCountsEveryByte: the last "hash" update is every byte
// hashed, also when the file ends in a partial chunk (it was the last whole
// MiB) and for a directory tree (which reported nothing), so that a
// request's terminal progress counts the real work (CONTRACTS.md §0, §6.1).
func TestHashProgressCountsEveryByte(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.bin")
	const size = 5<<19 + 17 // 2.5 MiB and a partial chunk
	if err := os.WriteFile(file, bytes.Repeat([]byte{0xa5}, size), 0o644); err != nil {
		t.Fatal(err)
	}
	var last float64
	if _, err := HashFile(context.Background(), file, size, lastHash(&last)); err != nil {
		t.Fatal(err)
	}
	if last != size {
		t.Fatalf("HashFile: last hash update %v, want %d", last, size)
	}

	tree := filepath.Join(dir, "tree")
	var want int
	for i, n := range []int{700 << 10, 900 << 10, 3, 0} {
		p := filepath.Join(tree, string(rune('a'+i)), "file")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.Repeat([]byte{byte(i)}, n), 0o644); err != nil {
			t.Fatal(err)
		}
		want += n
	}
	last = -1
	if _, err := HashDirectory(context.Background(), tree, lastHash(&last)); err != nil {
		t.Fatal(err)
	}
	if last != float64(want) {
		t.Fatalf("HashDirectory: last hash update %v, want %d", last, want)
	}
}

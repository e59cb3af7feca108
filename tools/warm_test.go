package tools_test

import (
	"context"
	"io/fs"
	"os"
	"sync"
	"testing"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/internal/testkit"
)

// warmRecorder is the builtin provider, noting the engine's Warm calls.
type warmRecorder struct {
	*builtin.Provider
	mu        sync.Mutex
	warmed    []string
	abandoned int
}

func (w *warmRecorder) Warm(path string, fi fs.FileInfo) func() {
	abandon := w.Provider.Warm(path, fi)
	w.mu.Lock()
	w.warmed = append(w.warmed, path)
	w.mu.Unlock()
	return func() {
		abandon()
		w.mu.Lock()
		w.abandoned++
		w.mu.Unlock()
	}
}

var _ provider.Warmer = (*warmRecorder)(nil)

// open_binary lets the provider warm the file it is about to hash and ends
// the warm when the open is over; a directory is not warmed. The answers
// are those of an unwarmed open.
func TestOpenBinaryWarmsTheProvider(t *testing.T) {
	const subject = "/usr/bin/gdb" // .ci/run installs gdb; over builtin's 4 MiB warm threshold
	if _, err := os.Stat(subject); err != nil {
		testkit.SkipOrFail(t, subject+" is not installed (Debian package gdb): "+err.Error())
	}
	w := &warmRecorder{Provider: builtin.New("test")}
	s := startWith(t, w)
	ctx := context.Background()
	if r := s.call(ctx, "open_binary", map[string]any{"path": subject}); r.IsError {
		t.Fatalf("open_binary: %s", r.Text)
	}
	w.mu.Lock()
	warmed, abandoned := append([]string(nil), w.warmed...), w.abandoned
	w.mu.Unlock()
	if len(warmed) != 1 || warmed[0] != subject || abandoned != 1 {
		t.Fatalf("warmed %v, abandoned %d times; want %s once, abandoned once", warmed, abandoned, subject)
	}
	if r := s.call(ctx, "list_procedures", map[string]any{"limit": 5}); r.IsError {
		t.Fatalf("list_procedures: %s", r.Text)
	}
	if r := s.call(ctx, "open_binary", map[string]any{"path": t.TempDir()}); r.IsError {
		t.Fatalf("open_binary of a directory: %s", r.Text)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.warmed) != 1 {
		t.Fatalf("a directory was warmed: %v", w.warmed)
	}
}

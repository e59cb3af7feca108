//go:build linux

package builtin

import (
	"context"
	"os"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// A file truncated while mapped makes page reads fault (SIGBUS). That must
// become a typed execution_failure, never a crash.
func TestTruncatedWhileMapped(t *testing.T) {
	src := goFixture(t, "linux", "arm64")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/victim"
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, c := open(t, path)
	if c.(*Client).e.m.unmap == nil {
		t.Skip("file was not memory-mapped")
	}
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	// The string scan reads every mapped page, so it must hit the hole.
	_, err = c.Do(context.Background(), provider.OpListStrings, provider.Params{}, nil)
	if !fault.Is(err, fault.ExecutionFailure) {
		t.Errorf("list_strings on a truncated mapping: %v", err)
	}
	// The symbol pass may or may not touch missing pages; either way no crash.
	if _, err := c.Do(context.Background(), provider.OpListNames, provider.Params{}, nil); err != nil && !fault.Is(err, fault.ExecutionFailure) {
		t.Errorf("list_names on a truncated mapping: %v", err)
	}
}

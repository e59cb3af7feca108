package tools_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// TestStrippedMainOverMCP is issue 12's walk on the stripped Debian gdb over
// a real MCP client: procedure_info main, procedure_address main and
// search_procedures main find main (named from _start; the builtin tests
// check the address against objdump and .eh_frame).
func TestStrippedMainOverMCP(t *testing.T) {
	const gdb = "/usr/bin/gdb"
	if _, err := os.Stat(gdb); err != nil {
		testkit.SkipOrFail(t, "/usr/bin/gdb is not installed (Debian package gdb); install it to run this test")
	}
	s := startInProcess(t, newInProcessServer(t, filepath.Join(t.TempDir(), "ledger.db")))
	s.ok("open_binary", map[string]any{"path": gdb})
	addr := result[string](t, s.ok("procedure_address", map[string]any{"procedure": "main"}))
	info := result[struct {
		Name       string `json:"name"`
		Entrypoint string `json:"entrypoint"`
	}](t, s.ok("procedure_info", map[string]any{"procedure": "main"}))
	if info.Name != "main" || info.Entrypoint != addr {
		t.Errorf("procedure_info main: %+v, procedure_address %s", info, addr)
	}
	found := result[page](t, s.ok("search_procedures", map[string]any{"pattern": "^main$", "mode": "regex"}))
	if len(found.Items) != 1 || found.Items[0].Address != addr || found.Items[0].Value != "main" {
		t.Errorf("search_procedures main: %+v, want main at %s", found.Items, addr)
	}
	t.Logf("gdb: main at %s", addr)
}

package tools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/internal/testkit"
)

// TestListProceduresFilteredBytesGDB measures issue 27's enumeration of
// Debian's stripped gdb over MCP: every page of list_procedures at limit
// 500, unfiltered and with named_only+exclude_thunks. The filtered
// enumeration lists a subset of the unfiltered items, none a thunk and none
// named by analysis, in a tenth of the bytes or less. (The filters' counts
// against binutils are engine/provider/builtin's
// TestListProcedureFiltersDebianGDB.)
func TestListProceduresFilteredBytesGDB(t *testing.T) {
	const gdb = "/usr/bin/gdb"
	if _, err := os.Stat(gdb); err != nil {
		testkit.SkipOrFail(t, fmt.Sprintf("%s is not installed: %v", gdb, err))
	}
	s := startInProcess(t, newInProcessServer(t, filepath.Join(t.TempDir(), "ledger.db")))
	s.ok("open_binary", map[string]any{"path": gdb})
	type item struct {
		Address, Value string
		Procedure      struct{ Thunk bool }
	}
	enumerate := func(filters map[string]any) (items []item, calls, bytes int) {
		for offset := 0; ; calls++ {
			args := map[string]any{"offset": offset, "limit": 500}
			for k, v := range filters {
				args[k] = v
			}
			r := s.ok("list_procedures", args)
			bytes += len(r.Text)
			p := result[struct {
				Items      []item
				NextOffset *int `json:"next_offset"`
			}](t, r)
			items = append(items, p.Items...)
			if p.NextOffset == nil {
				return items, calls + 1, bytes
			}
			offset = *p.NextOffset
		}
	}
	all, allCalls, allBytes := enumerate(nil)
	some, someCalls, someBytes := enumerate(map[string]any{"named_only": true, "exclude_thunks": true})
	t.Logf("gdb list_procedures: all %d procedures in %d calls, %d B; named_only+exclude_thunks %d in %d calls, %d B",
		len(all), allCalls, allBytes, len(some), someCalls, someBytes)
	listed := map[string]item{}
	for _, it := range all {
		listed[it.Address] = it
	}
	for _, it := range some {
		if it.Procedure.Thunk || strings.HasPrefix(it.Value, "sub_") || listed[it.Address].Value != it.Value {
			t.Errorf("filtered item %+v (unfiltered %+v)", it, listed[it.Address])
		}
	}
	if len(some) == 0 || someBytes*10 > allBytes {
		t.Errorf("named_only+exclude_thunks: %d items, %d B of %d B", len(some), someBytes, allBytes)
	}
}

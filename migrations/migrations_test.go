package migrations

import (
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every migration is a numbered up/down pair, numbered without gaps, so
// golang-migrate applies them in order and each can be rolled back.
func TestMigrationFilesArePairedAndNumbered(t *testing.T) {
	pg, err := fs.Sub(PostgresFS, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	sqlite := checkMigrations(t, FS)
	postgres := checkMigrations(t, pg)
	// A schema version names the same tables on both backends.
	if !slices.Equal(sqlite, postgres) {
		t.Errorf("postgres/ migrations %v differ from the SQLite ones %v", postgres, sqlite)
	}
}

// checkMigrations checks one dialect's files and returns their base names.
func checkMigrations(t *testing.T, FS fs.FS) []string {
	t.Helper()
	names, err := fs.Glob(FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^(\d{4})_[a-z0-9_]+\.(up|down)\.sql$`)
	ups := map[string]string{}
	downs := map[string]bool{}
	for _, n := range names {
		m := re.FindStringSubmatch(n)
		if m == nil {
			t.Errorf("%s: not NNNN_name.up.sql / .down.sql", n)
			continue
		}
		base := strings.TrimSuffix(strings.TrimSuffix(n, ".up.sql"), ".down.sql")
		if m[2] == "up" {
			ups[m[1]] = base
		} else {
			downs[base] = true
		}
	}
	if len(ups) == 0 {
		t.Fatal("no migrations embedded")
	}
	for i := 1; i <= len(ups); i++ {
		num := fmt.Sprintf("%04d", i)
		base, ok := ups[num]
		if !ok {
			t.Errorf("migration %s missing (numbers must be contiguous)", num)
			continue
		}
		if !downs[base] {
			t.Errorf("%s.up.sql has no %s.down.sql", base, base)
		}
	}
	if _, err := fs.ReadFile(FS, "0001_ledger.up.sql"); err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Values(ups))
}

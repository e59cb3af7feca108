package doctor

import (
	"slices"
	"strings"
	"testing"
)

const fuzzExe = "/opt/rea/bin/rea"

// fuzzRegistration: the reader never panics on any bytes, never puts bytes
// of the file other than command and args into what it returns, and setup's
// edit of any file the reader accepts reads back as aligned.
func fuzzRegistration(f *testing.F, format Format) {
	for _, c := range fixtures[format] {
		f.Add([]byte(strings.NewReplacer("%EXE%", fuzzExe, "%LINK%", "/l").Replace(c.body)))
	}
	table := "mcpServers"
	if format == TOML {
		table = "mcp_servers"
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e := readEntry(format, table, data)
		if e.invalid != "" {
			if strings.Contains(e.invalid, secret) {
				t.Fatalf("problem quotes the file: %q", e.invalid)
			}
			return
		}
		var out []byte
		var err error
		if format == TOML {
			out, err = setTOMLEntry(table, data, fuzzExe)
		} else {
			out, err = setJSONEntry(table, data, fuzzExe)
		}
		if err != nil {
			// The reader accepted it, so the writer must too.
			t.Fatalf("edit of an accepted file failed: %v", err)
		}
		after := readEntry(format, table, out)
		if after.invalid != "" || !after.present || after.command == nil || *after.command != fuzzExe ||
			!slices.Equal(after.args, mcpArgs) {
			t.Fatalf("edited file reads back as %+v\n%s", after, out)
		}
	})
}

func FuzzReadJSONEntry(f *testing.F) { fuzzRegistration(f, JSON) }
func FuzzReadTOMLEntry(f *testing.F) { fuzzRegistration(f, TOML) }

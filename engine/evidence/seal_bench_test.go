package evidence

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// BenchmarkSealAndCanonical is the record work of publishing one page of a
// hundred procedures: the evidence id (Seal) and the stored body
// (Canonical), with the compact and the full inline contexts encoded.
func BenchmarkSealAndCanonical(b *testing.B) {
	var items []string
	for i := range 100 {
		items = append(items, fmt.Sprintf(`{"address":"0x%x","procedure":{"external":false,"thunk":false,"thunk_target":null},"value":"_ZN2v88internal%s%d"}`, 0x400000+i*64, strings.Repeat("x", 120), i))
	}
	result := []byte(`{"items":[` + strings.Join(items, ",") + `],"limit":100,"next_offset":200,"offset":100,"returned":100,"total":86300,"truncated":true}`)
	prof, err := provider.NewProfile(fixtureIdentity(), 1, map[string]any{"loader": "default", "strings": map[string]any{"min_length": 4}})
	if err != nil {
		b.Fatal(err)
	}
	arch := "x86-64"
	for b.Loop() {
		r := &Record{SchemaVersion: 2, Subject: &Subject{Name: "node", Digest: Digest{SHA256: strings.Repeat("a", 64)}, Format: "elf", Architecture: &arch, LocalPath: "/usr/bin/node"},
			Claim: Claim{Provider: fixtureIdentity(), AnalysisProfile: &prof, PredicateType: PredicateAnalysis, Operation: "list_procedures",
				Parameters: map[string]any{"document": nil, "offset": int64(100), "limit": int64(100)}, Confidence: "observed", Authority: "shipped-artifact"},
			NormalizedResult: result}
		if err := r.Seal(); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Canonical(); err != nil {
			b.Fatal(err)
		}
		_ = ContextOf(r, LedgerRef{Seq: 1, EventID: "E"}).Compact().AppendJSON(nil)
	}
}

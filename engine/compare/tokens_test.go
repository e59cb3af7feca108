package compare

import (
	"context"
	"fmt"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/internal/testkit"
)

// TestTooManyTokens: a comparison whose sides spell more distinct
// instructions than a packed instruction can name stops with truncated
// instead of naming the wrong tokens (the limit lowered to reach it).
func TestTooManyTokens(t *testing.T) {
	oldPath, newPath := testkit.CompareFixture(t, "x86_64", "-O0", false)
	r, err := comparison(t, oldPath, newPath).newRun()
	if err != nil {
		t.Fatal(err)
	}
	r.toks.max = 50
	res, err := r.run(context.Background())
	if !fault.Is(err, fault.Truncated) || res != nil {
		t.Fatalf("got %v, %v; want truncated", res, err)
	}
	if n := r.toks.count(); n != 50 {
		t.Fatalf("%d tokens interned past a limit of 50", n)
	}
}

// TestTokensIntern: every distinct spelling gets the next id, an equal one
// the same id, and each id's bytes are its spelling, across the table's
// growth (100,000 tokens, from 1,024 slots) and with the empty token.
func TestTokensIntern(t *testing.T) {
	var toks tokens
	want := []string{""}
	for i := range 100000 {
		want = append(want, fmt.Sprintf("mov rax, 0x%x", i*7919))
	}
	for round := range 2 {
		for i, s := range want {
			if got := toks.id(s); got != uint32(i) {
				t.Fatalf("round %d: id(%q) = %d, want %d", round, s, got, i)
			}
		}
	}
	if toks.count() != len(want) || toks.full {
		t.Fatalf("%d tokens (full %v), want %d", toks.count(), toks.full, len(want))
	}
	for i, s := range want {
		if got := string(toks.bytes(uint32(i))); got != s {
			t.Fatalf("bytes(%d) = %q, want %q", i, got, s)
		}
	}
}

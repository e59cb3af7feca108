package compare

import (
	"context"
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
	if n := len(r.toks.list); n != 50 {
		t.Fatalf("%d tokens interned past a limit of 50", n)
	}
}

package builtin

import (
	"context"
	"fmt"
	"testing"
)

// TestPseudoCodeDeterministic: decompiling the same procedure again gives
// the same text. The procedures are arm64 libc.so.6's whose pointer
// variables once depended on the order a Go map was walked in (the
// emitter's ptrVars), which Go randomizes on every walk, so repeating
// each a dozen times in one process exercises many orders.
func TestPseudoCodeDeterministic(t *testing.T) {
	c, six, ex := openExtents(t, "/usr/aarch64-linux-gnu/lib/libc.so.6")
	ctx := context.Background()
	pe, err := c.pseudoEnvOf(ctx, "test", six, ex)
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range []uint64{0xecd30, 0xed6f0, 0x103ad0} {
		t.Run(fmt.Sprintf("%#x", entry), func(t *testing.T) {
			var first string
			for i := range 12 {
				p, err := c.decompileProc(ctx, "test", pe, nil, entry)
				if err != nil {
					t.Fatal(err)
				}
				if p.failure != "" {
					t.Fatalf("not decompiled: %s", p.failure)
				}
				if i == 0 {
					first = p.whole.Code
				} else if p.whole.Code != first {
					t.Fatalf("decompilation %d differs from the first:\n%s\n---\n%s", i+1, p.whole.Code, first)
				}
			}
		})
	}
}

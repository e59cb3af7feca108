package arm64

import (
	"sort"
	"testing"

	"github.com/rea-re/rea/engine/lift/internal/lifttest"
)

// TestHandPickedCoverModelledOps keeps the differential test honest as the
// lifter grows: every mnemonic the lifter models somewhere in AArch64 libc's
// .text (the lifter dispatches on encodings, so its source names no
// mnemonics to scan) must appear in a hand-picked sequence, and so must
// every condition code in a b.cond.
func TestHandPickedCoverModelledOps(t *testing.T) {
	if testing.Short() {
		t.Skip("reads AArch64 libc")
	}
	gcc, _ := tools(t)
	text, addr, path := bigText(t)
	modelled := map[string]bool{}
	var lf Lifter
	for off := 0; off+4 <= len(text); off += 4 {
		in, err := lf.Lift(text[off:], addr+uint64(off))
		if err != nil {
			continue
		}
		if _, bad := in.Unmodelled(); !bad {
			modelled[in.Mnemonic] = true
		}
	}
	for _, cc := range []string{"eq", "ne", "cs", "cc", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le"} {
		modelled["b."+cc] = true
	}
	seen := map[string]bool{}
	for _, code := range lifttest.Assemble(t, gcc, ".arch armv8.5-a", append(append([]string{}, handPicked...), handPickedSystem...)) {
		for off := 0; off+4 <= len(code); off += 4 {
			if in, err := Lift(code[off:], 0); err == nil {
				seen[in.Mnemonic] = true
			}
		}
	}
	var missing []string
	for name := range modelled {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(modelled) < 100 {
		t.Fatalf("only %d modelled mnemonics in %s: the scan is broken", len(modelled), path)
	}
	t.Logf("%d mnemonics modelled in %s, %d in the hand-picked sequences", len(modelled), path, len(seen))
	if len(missing) > 0 {
		t.Errorf("modelled but in no hand-picked sequence: %v", missing)
	}
}

package armdecode

import (
	"encoding/binary"
	"sync"
	"testing"

	"golang.org/x/arch/arm/armasm"
)

// TestConcurrentDecodes decodes ARM and AArch64 words from several
// goroutines at once; under -race it fails if a call bypasses the lock.
func TestConcurrentDecodes(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			b := make([]byte, 4)
			for i := uint32(0); i < 2000; i++ {
				binary.LittleEndian.PutUint32(b, i*2654435761+uint32(g))
				if g%2 == 0 {
					_, _ = ARM64(b)
				} else {
					_, _ = ARM(b, armasm.ModeARM)
				}
			}
		}(g)
	}
	wg.Wait()
	inst, err := ARM64([]byte{0x20, 0x00, 0x02, 0x8b}) // add x0, x1, x2
	if err != nil || inst.String() != "ADD X0, X1, X2" {
		t.Fatalf("decoded %v, %v", inst, err)
	}
}

// Package armdecode serialises golang.org/x/arch's ARM and AArch64
// decoders for every package of REA that calls them.
//
// x/arch's arm and arm64 decoders record test coverage in a package-level
// array on every call (decoderCover[i] = true), so two decodes at once race:
// two open targets read concurrently, compare_binaries reading both of its
// sides, or the arm64 lifter decoding while the builtin analyzer does. A
// lock per caller would not do (each would guard the same array alone), so
// every call goes through this package's one lock (uncontended, it costs
// about as much as a function call; the x86 decoder writes its coverage
// array only when a test sets one, and needs none).
package armdecode

import (
	"sync"

	"golang.org/x/arch/arm/armasm"
	"golang.org/x/arch/arm64/arm64asm"
)

var mu sync.Mutex

// ARM64 is arm64asm.Decode under the lock.
func ARM64(b []byte) (arm64asm.Inst, error) {
	mu.Lock()
	defer mu.Unlock()
	return arm64asm.Decode(b)
}

// ARM is armasm.Decode under the lock.
func ARM(b []byte, mode armasm.Mode) (armasm.Inst, error) {
	mu.Lock()
	defer mu.Unlock()
	return armasm.Decode(b, mode)
}

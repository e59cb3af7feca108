package builtin

import (
	"sync"

	"golang.org/x/arch/arm/armasm"
	"golang.org/x/arch/arm64/arm64asm"
)

// x/arch's arm and arm64 decoders record test coverage in a package-level
// array on every call (decoderCover[i] = true), so two decodes at once race:
// two open targets read concurrently, or compare_binaries reading both of
// its sides. Every call goes through these, under one lock (uncontended, it
// costs about as much as a function call; the x86 decoder writes its
// coverage array only when a test sets one, and needs none).
var armDecodeMu sync.Mutex

func decodeARM64(b []byte) (arm64asm.Inst, error) {
	armDecodeMu.Lock()
	defer armDecodeMu.Unlock()
	return arm64asm.Decode(b)
}

func decodeARM(b []byte, mode armasm.Mode) (armasm.Inst, error) {
	armDecodeMu.Lock()
	defer armDecodeMu.Unlock()
	return armasm.Decode(b, mode)
}

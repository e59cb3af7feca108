package builtin

import (
	"golang.org/x/arch/arm/armasm"
	"golang.org/x/arch/arm64/arm64asm"

	"github.com/rea-re/rea/internal/armdecode"
)

// Every decode goes through internal/armdecode's one lock: x/arch's ARM
// decoders write a package-level array on every call, shared with every
// other caller in the process (the arm64 lifter too).

func decodeARM64(b []byte) (arm64asm.Inst, error) { return armdecode.ARM64(b) }

func decodeARM(b []byte, mode armasm.Mode) (armasm.Inst, error) { return armdecode.ARM(b, mode) }

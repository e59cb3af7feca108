package x86

import (
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// unmodelledReason names the family of an instruction the lifter does not
// model, for the limitation later stages report.
func unmodelledReason(op x86asm.Op, name string) string {
	switch {
	case op >= x86asm.F2XM1 && op <= x86asm.FYL2XP1:
		return "x87 instruction outside the model (status word, 80-bit operands, transcendentals, environment)"
	case strings.HasPrefix(name, "v") && op != x86asm.VERR && op != x86asm.VERW, strings.HasPrefix(name, "k"):
		return "AVX/AVX-512 (VEX/EVEX) is not modelled"
	}
	switch op {
	case x86asm.SYSCALL, x86asm.SYSENTER, x86asm.SYSEXIT, x86asm.SYSRET, x86asm.INT, x86asm.INTO, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ,
		x86asm.IN, x86asm.INSB, x86asm.INSW, x86asm.INSD, x86asm.OUT, x86asm.OUTSB, x86asm.OUTSW, x86asm.OUTSD,
		x86asm.CPUID, x86asm.RDTSC, x86asm.RDTSCP, x86asm.XGETBV, x86asm.CLI, x86asm.STI, x86asm.LGDT, x86asm.LIDT,
		x86asm.RDMSR, x86asm.WRMSR, x86asm.SWAPGS, x86asm.LRET, x86asm.LCALL, x86asm.LJMP:
		return "system or privileged instruction"
	}
	return "instruction not modelled"
}

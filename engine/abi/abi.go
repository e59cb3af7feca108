// Package abi describes the calling conventions REA recovers prototypes
// and call arguments under (issue 25 item 3, CONTRACTS.md §0.3
// procedure_info.prototype and §19 procedure_calls): which registers and
// stack slots carry arguments, which registers hand back results, which
// ones a callee preserves and which ones a call destroys, named as the
// lifters (engine/lift/x86, engine/lift/arm64) name them.
//
// A Convention is plain data; dataflow.ArchFor turns one into what SSA
// construction needs, and the signature package reads the rest. Each
// constructor returns a fresh value the caller owns.
package abi

import (
	"slices"

	"github.com/rea-re/rea/engine/lift"
)

// Convention is one calling convention of one architecture.
type Convention struct {
	// Name is the convention's name as procedure_info.prototype's
	// calling_convention spells it: "sysv", "win64", "cdecl", "stdcall",
	// "fastcall", "aapcs64", "abiinternal" (Go's register ABI).
	Name string
	// Arch is the architecture as the lifters' Arch names spell it:
	// "x86-64", "i386", "arm64".
	Arch     string
	PtrWidth lift.Width
	SP       string
	// RetAddr is how far a call moves the stack pointer to push its
	// return address (x86: the pointer size; arm64 keeps it in x30: 0).
	RetAddr int64
	// IntArgs and FloatArgs are the registers that carry the first
	// integer/pointer and floating-point arguments, in order.
	IntArgs   []string
	FloatArgs []string
	// Positional: an argument's position picks its register in both files
	// (Win64: the third argument is r8 or xmm2, whatever the first two
	// were), instead of each class counting on its own (System V, AAPCS64).
	Positional bool
	// StackArgs is the offset from the stack pointer at entry of the
	// first argument passed on the stack; StackSlot the size each takes
	// at least (arguments are rounded up to it).
	StackArgs int64
	StackSlot int64
	// IntReturn and FloatReturn are the registers a result comes back in.
	IntReturn   []string
	FloatReturn []string
	// CalleeSaved are the registers a callee preserves; Clobbered the ones
	// a call leaves unknown (caller-saved registers and flags). The stack
	// pointer is in neither.
	CalleeSaved []string
	Clobbered   []string
	// Hidden are registers a caller may set besides the arguments (System
	// V's al, the number of vector registers a variadic call uses; AAPCS64's
	// x8, the address of a returned aggregate).
	Hidden []string
	// CalleePops: the callee removes its stack arguments (stdcall).
	CalleePops bool
}

var (
	x86Flags   = []string{"cf", "pf", "af", "zf", "sf", "of"}
	arm64Flags = []string{"n", "z", "c", "v"}
)

func regs(prefix string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, prefix+itoa(i))
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}

// SysV is the System V AMD64 convention (Linux, the BSDs, macOS).
func SysV() *Convention {
	return &Convention{
		Name: "sysv", Arch: "x86-64", PtrWidth: 64, SP: "rsp", RetAddr: 8,
		IntArgs:   []string{"rdi", "rsi", "rdx", "rcx", "r8", "r9"},
		FloatArgs: regs("xmm", 0, 7),
		StackArgs: 8, StackSlot: 8,
		IntReturn:   []string{"rax", "rdx"},
		FloatReturn: []string{"xmm0"},
		CalleeSaved: []string{"rbx", "rbp", "r12", "r13", "r14", "r15"},
		Clobbered:   slices.Concat([]string{"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"}, regs("xmm", 0, 15), x86Flags),
		Hidden:      []string{"rax"},
	}
}

// Win64 is the Microsoft x64 convention: four positional register
// arguments and 32 bytes of shadow space above the return address.
func Win64() *Convention {
	return &Convention{
		Name: "win64", Arch: "x86-64", PtrWidth: 64, SP: "rsp", RetAddr: 8,
		IntArgs:   []string{"rcx", "rdx", "r8", "r9"},
		FloatArgs: regs("xmm", 0, 3), Positional: true,
		StackArgs: 8 + 32, StackSlot: 8,
		IntReturn:   []string{"rax"},
		FloatReturn: []string{"xmm0"},
		CalleeSaved: slices.Concat([]string{"rbx", "rbp", "rdi", "rsi", "r12", "r13", "r14", "r15"}, regs("xmm", 6, 15)),
		Clobbered:   slices.Concat([]string{"rax", "rcx", "rdx", "r8", "r9", "r10", "r11"}, regs("xmm", 0, 5), x86Flags),
	}
}

// CDecl is the System V i386 convention: every argument on the stack,
// the caller pops them. eax, ecx and edx are listed as hidden argument
// registers because a callee compiled with regparm or fastcall reads them
// (the SSA of a caller keeps their values at a call).
func CDecl() *Convention {
	return &Convention{
		Name: "cdecl", Arch: "i386", PtrWidth: 32, SP: "esp", RetAddr: 4,
		StackArgs: 4, StackSlot: 4,
		IntReturn: []string{"eax", "edx"},
		// float and double come back in the x87 st0 (the lifter's named
		// slot for the top of the register stack); the stack is empty
		// at a call, so every slot is the callee's.
		FloatReturn: []string{"st0"},
		CalleeSaved: []string{"ebx", "ebp", "esi", "edi"},
		Clobbered:   slices.Concat([]string{"eax", "ecx", "edx", "st0", "st1", "st2", "st3", "st4", "st5", "st6", "st7"}, x86Flags),
		Hidden:      []string{"eax", "ecx", "edx"},
	}
}

// StdCall is i386 stdcall (the Win32 API): cdecl's arguments, popped by
// the callee (ret imm16 says how many bytes).
func StdCall() *Convention {
	c := CDecl()
	c.Name, c.CalleePops = "stdcall", true
	return c
}

// FastCall is i386 fastcall (Microsoft and GCC's __attribute__((fastcall))):
// the first two integer arguments in ecx and edx, the rest as stdcall.
func FastCall() *Convention {
	c := StdCall()
	c.Name = "fastcall"
	c.IntArgs = []string{"ecx", "edx"}
	c.Hidden = []string{"eax"}
	return c
}

// AAPCS64 is the procedure call standard of the Arm 64-bit architecture
// (Linux and the BSDs; Apple's variant differs only for variadic calls and
// small stack arguments).
func AAPCS64() *Convention {
	return &Convention{
		Name: "aapcs64", Arch: "arm64", PtrWidth: 64, SP: "sp", RetAddr: 0,
		IntArgs:   regs("x", 0, 7),
		FloatArgs: regs("v", 0, 7),
		StackArgs: 0, StackSlot: 8,
		IntReturn:   []string{"x0", "x1"},
		FloatReturn: []string{"v0", "v1"},
		// v8–v15 are preserved in their low 64 bits only; a callee that
		// writes the upper half is within the standard, so they count as
		// callee-saved for scalar code, which is what prototypes read.
		CalleeSaved: slices.Concat(regs("x", 19, 29), regs("v", 8, 15)),
		Clobbered:   slices.Concat(regs("x", 0, 18), []string{"x30"}, regs("v", 0, 7), regs("v", 16, 31), arm64Flags),
		Hidden:      []string{"x8"},
	}
}

// GoAMD64 is Go's internal register ABI (ABIInternal, Go ≥ 1.17) on
// amd64: nine integer registers, fifteen floating-point ones, results in
// the same registers; r14 holds the goroutine and x15 is zero, both fixed;
// no other register survives a call.
func GoAMD64() *Convention {
	ints := []string{"rax", "rbx", "rcx", "rdi", "rsi", "r8", "r9", "r10", "r11"}
	return &Convention{
		Name: "abiinternal", Arch: "x86-64", PtrWidth: 64, SP: "rsp", RetAddr: 8,
		IntArgs: ints, FloatArgs: regs("xmm", 0, 14),
		StackArgs: 8, StackSlot: 8,
		IntReturn: ints, FloatReturn: regs("xmm", 0, 14),
		CalleeSaved: []string{"rbp", "r14", "xmm15"},
		Clobbered:   slices.Concat(ints, []string{"rdx", "r12", "r13", "r15"}, regs("xmm", 0, 14), x86Flags),
	}
}

// GoARM64 is Go's internal register ABI on arm64 (Go ≥ 1.18): sixteen
// integer and sixteen floating-point registers, results in the same; x28
// holds the goroutine and x29 the frame pointer.
func GoARM64() *Convention {
	return &Convention{
		Name: "abiinternal", Arch: "arm64", PtrWidth: 64, SP: "sp", RetAddr: 0,
		IntArgs: regs("x", 0, 15), FloatArgs: regs("v", 0, 15),
		StackArgs: 8, StackSlot: 8,
		IntReturn: regs("x", 0, 15), FloatReturn: regs("v", 0, 15),
		CalleeSaved: []string{"x28", "x29"},
		Clobbered:   slices.Concat(regs("x", 0, 27), []string{"x30"}, regs("v", 0, 31), arm64Flags),
	}
}

// ForArch returns the default convention of an architecture (as the
// lifters name it) on a platform ("linux", "windows"; anything else is
// treated as a System V platform), or nil when REA knows none.
func ForArch(arch, platform string) *Convention {
	switch arch {
	case "x86-64", "amd64", "x86_64":
		if platform == "windows" {
			return Win64()
		}
		return SysV()
	case "i386", "386", "x86":
		return CDecl()
	case "arm64", "aarch64":
		return AAPCS64()
	}
	return nil
}

// Args is every register an argument may be passed in: the integer ones,
// the hidden ones, then the floating-point ones, each once.
func (c *Convention) Args() []string {
	var out []string
	for _, r := range slices.Concat(c.IntArgs, c.Hidden, c.FloatArgs) {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// Returns is every register a return hands back to the caller: the
// result registers and the callee-saved ones, each once.
func (c *Convention) Returns() []string {
	var out []string
	for _, r := range slices.Concat(c.IntReturn, c.FloatReturn, c.CalleeSaved) {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// IsArg reports whether register r carries an argument, and which: its
// class ("int" or "float") and its index in that class's register list.
func (c *Convention) IsArg(r string) (class string, index int, ok bool) {
	if i := slices.Index(c.IntArgs, r); i >= 0 {
		return "int", i, true
	}
	if i := slices.Index(c.FloatArgs, r); i >= 0 {
		return "float", i, true
	}
	return "", 0, false
}

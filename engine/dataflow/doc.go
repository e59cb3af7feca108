// Package dataflow builds the static single assignment (SSA) form of one
// procedure lifted to REA's IR (package lift) and runs the data-flow passes
// the prototypes, call arguments, jump tables and the decompiler stand on
// (DESIGN.md "Third edition", issue 25 item 2). It knows no instruction set:
// everything architectural comes in through an [Arch] the lifter package or
// the caller supplies (the stack pointer's name, the registers a call reads
// and clobbers, the registers a return hands back).
//
// # Pipeline
//
// [Build] takes a procedure's lifted instructions, in address order:
//
//  1. CFG. Basic blocks split at statement granularity (a branch may sit in
//     the middle of an instruction, as x86's rep stos does). Branch and
//     jump targets inside the procedure are edges; calls do not end a
//     block; a transfer to an address outside the procedure (a tail call),
//     to a register (an unresolved indirect jump, listed in
//     Func.Limitations) or past the last instruction ends the path as an
//     exit that keeps every register a callee could read.
//  2. SSA construction by Braun et al., "Simple and Efficient Construction
//     of SSA Form" (CC 2013): local value numbering per block and on-demand
//     phis at joins, with blocks sealed once all their predecessors are
//     filled. Locations are the full-width registers the IR names (sub-
//     register accesses are the IR's own Extract/Insert), the 1-bit flags,
//     a single memory token "mem" threaded through loads, stores, calls and
//     unmodelled instructions, and promoted stack slots (below).
//  3. Stack-pointer tracking: every value that is entry_sp + k (through
//     push, pop, sub, add, copies into a frame pointer, phis that agree) is
//     known by its offset; an and with a power-of-two mask (stack
//     realignment) starts a new frame base; anything else makes the
//     pointer unknown. Loads and stores at a known offset below the entry
//     stack pointer are stack slots. A slot is promoted when no address of
//     its frame escapes (is stored, passed to a call in an argument
//     register, or offset by a non-constant: any of these poisons every
//     slot of the frame) and no access overlaps it partially:
//     SSA is rebuilt with the slot as a variable, its loads become uses
//     and its stores definitions. A store to a slot at or above the stack
//     pointer of some call (a possible outgoing argument) stays a store too.
//  4. Passes ([Optimize]): copy propagation (copies and trivial phis),
//     constant folding with the IR interpreter's own semantics (so folding
//     cannot disagree with lift.Step), global value numbering over the
//     dominator tree, flag folding (fold.go: the table that turns x86's
//     and arm64's flag predicates into comparisons of the compared
//     operands), branches on constants made jumps (unreached blocks
//     removed), and dead-code elimination that keeps stores, calls, traps,
//     divisions (they may fault) and control.
//
// # Jump tables and indirect calls
//
// [ResolveJumpTables] (jumptable.go) bounds an indirect jump's index from
// the comparisons of the branches that dominate it, after flag folding,
// and reads the table through an [Image]; [ResolveIndirectCalls]
// (calltable.go) resolves calls and tail calls through GOT slots (the
// import's name), read-only slots and bounded tables of code pointers.
// [ResolveProcedure] (jtproc.go) is the integration point: it rewrites
// i386 PC thunks ([RewritePCThunks]), builds with [BuildWith] so that
// the resolved switches' cases are blocks of the procedure (a Jump on its
// target with the cases as successors), and rebuilds until no new table
// appears; a caller that knows which calls never return (Options.NoReturn)
// keeps the code after them from merging into what follows. An indirect
// jump left unresolved is listed with a named reason.
//
// [Func.String] prints the result as stable text (the golden tests read
// it), [Validate] checks that it is well-formed SSA (one definition per
// value, definitions dominate uses, one phi argument per predecessor), and
// [Run] interprets it with lift.Step's semantics so that tests compare the
// transformed procedure with the lifted one on random inputs.
//
// # Limits
//
// Calls are not interpreted by [Run]. A procedure with an Unmodelled
// statement promotes no stack slot (the instruction may write any memory),
// and the unmodelled instruction clobbers every register the procedure
// names. A callee that pops its own arguments (i386 stdcall) leaves the
// stack pointer off by the popped size until the calling convention pass
// corrects it; the Arch's CallPop is the return address only.
package dataflow

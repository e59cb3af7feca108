// Package decompile turns one procedure's SSA form (package dataflow) and
// its recovered prototype (package signature) into C that compiles
// (issue 26, CONTRACTS.md §20): a prelude of includes, typedefs, helpers
// and declarations, and the procedure's definition.
//
// # Pipeline
//
//  1. Liveness: what the C text needs, from the roots a C function
//     observes: stores outside the stack frame (and frame stores a live
//     load may read), calls, traps, unmodelled instructions, branch
//     conditions, switch targets, the prototype's return value and the
//     arguments of calls and tail calls. The machine's bookkeeping (the
//     return address, callee-saved spills, registers handed back but not
//     returned) is not a root and disappears.
//  2. Out of SSA: every live phi is a variable; the copies of an edge are
//     a parallel copy sequenced with a temporary only where a cycle needs
//     one, placed at the end of the predecessor when it has one successor
//     and on a node of its own (an edge split) otherwise. A pure value used
//     once in its own block is inlined as an expression tree (a load only
//     when no store, call or unmodelled instruction lies between); every
//     other value is a local v1, v2, ….
//  3. Expressions: IR operations are C operators over fixed-width unsigned
//     types with signed casts where the operation is signed; floats are
//     IEEE bit patterns in the IR, so float operations convert with
//     __rea_f64/__rea_b64 (exact bit casts). The stack frame, when an
//     address of it survives, is a local byte array whose end plays the
//     entry stack pointer.
//  4. Control flow: [Graph] hands the CFG (plus the edge-split nodes) to a
//     structurer as a structure.Graph; the tree it returns (any
//     structure.Kind) is printed. Until the structurer lands, the tree is
//     goto form: labels, blocks, `if (c) goto L;` and switches of gotos.
//  5. Prelude: <stdint.h> and <stdbool.h> only (no library header, so the
//     declarations REA writes from its prototype table cannot conflict
//     with one), the helpers the code uses with exact C definitions, and a
//     declaration of every callee.
//
// # Limits
//
// Every helper use that stands for something plain C lacks (rotates by a
// variable count, flag predicates, lane-wise SIMD, float conversions with
// x86's out-of-range results), every unmodelled instruction (a call of
// __rea_unmodelled that traps), branches out of the procedure and
// unresolved indirect jumps are listed in Result.Limitations. A variadic
// procedure's unnamed arguments are not available to the C text.
package decompile

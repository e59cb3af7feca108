package arm64

// handPicked are the differential test's hand-written sequences (GNU
// syntax, ';' between instructions): at least one for every mnemonic the
// lifter models, at both register widths where that changes the semantics.
// A register used as a memory base holds an address in the test memory; sp
// points into it.
var handPicked = []string{
	// moves
	"mov x0, x1", "mov w0, w1", "mov x0, sp", "mov sp, x1", "mov x2, #0x1234", "mov w3, #-1",
	"movz x0, #0xbeef, lsl #32", "movn x1, #0x12", "movn w1, #0x12, lsl #16", "movk x0, #0xcafe, lsl #48", "movk w5, #0x7777",
	"orr x0, x1, #0xff00ff00ff00ff00", "orr w0, wzr, #0x55555555", "and x0, x1, #0xfffffffffffffff0", "and w2, w3, #0x1f",
	"eor x4, x5, #0x8000000000000000", "ands x0, x1, #0xff", "ands w0, w1, #0x80000000", "tst w0, #0x7", "and sp, x1, #0xfffffffffffffff0; mov sp, x2",
	// add and subtract
	"add x0, x1, x2", "add w0, w1, w2", "add x0, x1, #4095", "add x0, sp, #16", "add sp, sp, #32", "add w3, w4, #1, lsl #12",
	"adds x0, x1, x2", "adds w0, w1, w2", "adds x0, x1, #1", "cmn x0, #5", "cmn w1, w2",
	"sub x0, x1, x2", "sub w0, w1, w2", "sub sp, sp, #48", "subs x0, x1, x2", "subs w0, w1, #7", "cmp x0, x1", "cmp w0, #0", "cmp x3, #0xfff",
	"add x0, x1, x2, lsl #3", "add w0, w1, w2, lsr #5", "sub x0, x1, x2, asr #63", "subs w0, w1, w2, lsl #31", "adds x4, x5, x6, asr #1",
	"add x0, x1, w2, sxtw", "add x0, x1, w2, uxtw #2", "add x0, sp, x2, lsl #4", "sub x0, x1, w2, sxtb", "add w0, w1, w2, uxth #1",
	"subs x0, x1, w2, sxth #3", "cmp x0, w1, uxtw", "adds w0, w1, w2, sxtb", "add x0, x1, x2, sxtx",
	"neg x0, x1", "neg w0, w1", "negs x0, x1", "negs w2, w3", "neg x0, x1, lsl #2",
	"adc x0, x1, x2", "adc w0, w1, w2", "adcs x0, x1, x2", "adcs w0, w1, w2", "sbc x0, x1, x2", "sbc w0, w1, w2", "sbcs x0, x1, x2", "sbcs w0, w1, w2",
	"ngc x0, x1", "ngcs w0, w1",
	// logic
	"and x0, x1, x2", "and w0, w1, w2, lsl #4", "orr x0, x1, x2, ror #7", "orr w0, w1, w2", "eor x0, x1, x2, asr #3", "eor w0, w1, w2",
	"bic x0, x1, x2", "bic w0, w1, w2, lsr #2", "orn x0, x1, x2", "orn w0, wzr, w2", "eon x0, x1, x2", "eon w0, w1, w2, ror #31",
	"ands x0, x1, x2", "ands w0, w1, w2", "bics x0, x1, x2", "bics w0, w1, w2", "tst x0, x1", "tst w0, w1, lsl #3", "mvn x0, x1", "mvn w0, w1",
	// multiply and divide
	"mul x0, x1, x2", "mul w0, w1, w2", "madd x0, x1, x2, x3", "madd w0, w1, w2, w3", "msub x0, x1, x2, x3", "msub w0, w1, w2, w3",
	"mneg x0, x1, x2", "smull x0, w1, w2", "umull x0, w1, w2", "smaddl x0, w1, w2, x3", "umaddl x0, w1, w2, x3", "smsubl x0, w1, w2, x3", "umsubl x0, w1, w2, x3",
	"smulh x0, x1, x2", "umulh x0, x1, x2", "smnegl x0, w1, w2",
	"sdiv x0, x1, x2", "sdiv w0, w1, w2", "udiv x0, x1, x2", "udiv w0, w1, w2", "mov x2, #0; sdiv x0, x1, x2", "mov x1, #0x8000000000000000; mov x2, #-1; sdiv x0, x1, x2",
	// shifts and bitfields
	"lsl x0, x1, x2", "lsl w0, w1, w2", "lsr x0, x1, x2", "lsr w0, w1, w2", "asr x0, x1, x2", "asr w0, w1, w2", "ror x0, x1, x2", "ror w0, w1, w2",
	"lsl x0, x1, #3", "lsl w0, w1, #31", "lsr x0, x1, #63", "lsr w0, w1, #1", "asr x0, x1, #7", "asr w0, w1, #31", "ror x0, x1, #13", "ror w0, w1, #5",
	"ubfx x0, x1, #4, #8", "ubfx w0, w1, #3, #29", "sbfx x0, x1, #60, #4", "sbfx w0, w1, #0, #7", "ubfiz x0, x1, #3, #10", "sbfiz x0, x1, #2, #32", "sbfiz w0, w1, #5, #3",
	"bfi x0, x1, #8, #16", "bfi w0, w1, #31, #1", "bfxil x0, x1, #4, #12", "bfxil w0, w1, #0, #32", "bfc x0, #3, #9",
	"uxtb w0, w1", "uxth w0, w1", "sxtb x0, w1", "sxtb w0, w1", "sxth x0, w1", "sxth w0, w1", "sxtw x0, w1",
	"sbfm x0, x1, #50, #3", "ubfm w0, w1, #20, #5", "bfm x0, x1, #60, #2",
	"extr x0, x1, x2, #17", "extr w0, w1, w2, #31", "extr x0, x1, x2, #0",
	"clz x0, x1", "clz w0, w1", "cls x0, x1", "cls w0, w1", "rbit x0, x1", "rbit w0, w1",
	"rev x0, x1", "rev w0, w1", "rev16 x0, x1", "rev16 w0, w1", "rev32 x0, x1", "rbit x0, x1; clz x0, x0",
	// conditional select and compare
	"cmp x0, x1; csel x2, x3, x4, eq", "cmp x0, x1; csel x2, x3, x4, ne", "cmp x0, x1; csel w2, w3, w4, hs", "cmp x0, x1; csel w2, w3, w4, lo",
	"cmp w0, w1; csel x2, x3, x4, mi", "cmp w0, w1; csel x2, x3, x4, pl", "cmp w0, w1; csel x2, x3, x4, vs", "cmp w0, w1; csel x2, x3, x4, vc",
	"cmp x0, x1; csel x2, x3, x4, hi", "cmp x0, x1; csel x2, x3, x4, ls", "cmp x0, x1; csel x2, x3, x4, ge", "cmp x0, x1; csel x2, x3, x4, lt",
	"cmp x0, x1; csel x2, x3, x4, gt", "cmp x0, x1; csel x2, x3, x4, le", "csel x2, x3, x4, al", "csel x2, x3, x4, nv",
	"csel x0, x1, x2, lt", "csinc x0, x1, x2, ne", "csinc w0, w1, w2, gt", "csinv x0, x1, x2, eq", "csinv w0, w1, w2, cc", "csneg x0, x1, x2, mi", "csneg w0, w1, w2, le",
	"cset x0, eq", "cset w0, lt", "csetm x0, hi", "csetm w0, vs", "cinc x0, x1, ge", "cinc w0, w1, ls", "cinv x0, x1, pl", "cneg w0, w1, mi",
	"ccmp x0, x1, #4, ne", "ccmp w0, w1, #0xf, eq", "ccmp x0, #31, #2, lt", "ccmp w0, #0, #0, gt", "ccmn x0, x1, #8, hs", "ccmn w0, #5, #1, lo",
	"cmp x0, x1; ccmp x2, x3, #0, eq; cset w4, gt",
	// addresses and memory
	"adr x0, .", "adr x1, . + 0x1234", "adrp x0, . + 0x5000", "adrp x2, . - 0x100000",
	"ldr x0, [x1]", "ldr w0, [x1, #12]", "ldr x0, [x1, #8]!", "ldr x0, [x1], #-16", "ldr w0, [x1, #4]!", "ldr w2, [x1], #24",
	"ldr x0, [x1, x2]", "ldr x0, [x1, x2, lsl #3]", "ldr w0, [x1, w2, uxtw #2]", "ldr w0, [x1, w2, sxtw]", "ldr x0, [x1, x2, sxtx #3]",
	"ldrb w0, [x1]", "ldrb w0, [x1, #255]", "ldrb w0, [x1, x2]", "ldrb w0, [x1], #1", "ldrh w0, [x1, #2]", "ldrh w0, [x1, x2, lsl #1]",
	"ldrsb x0, [x1]", "ldrsb w0, [x1, #3]", "ldrsh x0, [x1, #6]", "ldrsh w0, [x1]", "ldrsw x0, [x1, #4]", "ldrsw x0, [x1, x2, lsl #2]",
	"ldur x0, [x1, #-8]", "ldur w0, [x1, #3]", "ldurb w0, [x1, #-1]", "ldurh w0, [x1, #-3]", "ldursb w0, [x1, #5]", "ldursh x0, [x1, #-3]", "ldursw x0, [x1, #1]",
	"str x0, [x1]", "str w0, [x1, #8]", "str x0, [x1, #-8]!", "str x0, [x1], #16", "str x0, [sp, #8]", "str w0, [x1, x2, lsl #2]",
	"strb w0, [x1]", "strb w0, [x1, x2]", "strh w0, [x1, #2]", "strb wzr, [x1, #7]", "str xzr, [x1]",
	"stur x0, [x1, #-5]", "stur w0, [x1, #1]", "sturb w0, [x1, #-7]", "sturh w0, [x1, #9]",
	"ldp x0, x1, [x2]", "ldp w0, w1, [x2, #8]", "ldp x0, x1, [x2, #16]!", "ldp x0, x1, [x2], #-32", "ldpsw x0, x1, [x2, #8]", "ldp x0, x1, [x0]",
	"stp x0, x1, [x2]", "stp w0, w1, [x2, #-8]", "stp x29, x30, [sp, #-16]!", "stp x19, x20, [sp, #32]", "ldp x29, x30, [sp], #16", "stp xzr, xzr, [x2, #24]",
	"ldnp x0, x1, [x2]", "stnp x0, x1, [x2, #16]",
	"ldr d0, [x1]", "ldr s0, [x1, #4]", "ldr q0, [x1, #16]", "ldr h0, [x1, #2]", "ldr b0, [x1, #1]", "str d0, [x1, #8]", "str s1, [x1, #-4]!", "str q2, [x1]",
	"ldr d0, [x1, x2, lsl #3]", "ldur q0, [x1, #-16]", "ldp d0, d1, [x2]", "stp d8, d9, [sp, #-16]!", "ldp q0, q1, [x2, #32]", "stp s0, s1, [x2, #8]",
	"prfm pldl1keep, [x1]", "prfm pstl1strm, [x1, x2]",
	// control
	"b 1f; 1:", "bl 1f; 1:", "cmp x0, x1; b.eq 1f; 1:", "cmp x0, x1; b.ne 1f; mov x0, #1; 1:", "cmp w0, w1; b.lt 1f; mov x0, #1; 1:",
	"cmp x0, x1; b.hi 1f; mov x2, #3; 1:", "cmp x0, #0; b.le 1f; mov x2, #3; 1:", "b.ge 1f; mov x2, #3; 1:", "b.vs 1f; mov x2, #3; 1:", "b.cc 1f; mov x2, #3; 1:",
	"cbz x0, 1f; mov x2, #3; 1:", "cbz w0, 1f; mov x2, #3; 1:", "cbnz x0, 1f; mov x2, #3; 1:", "cbnz w0, 1f; mov x2, #3; 1:",
	"tbz x0, #63, 1f; mov x2, #3; 1:", "tbz w0, #3, 1f; mov x2, #3; 1:", "tbnz x0, #0, 1f; mov x2, #3; 1:", "tbnz x0, #40, 1f; mov x2, #3; 1:",
	"adr x0, 1f; br x0; mov x2, #3; 1:", "adr x0, 1f; blr x0; mov x2, #3; 1:", "adr x30, 1f; ret; mov x2, #3; 1:", "adr x3, 1f; ret x3; mov x2, #3; 1:",
	"cmp x0, x1; b.hs 1f; mov x2, #3; 1:", "cmp x0, x1; b.gt 1f; mov x2, #3; 1:", "cmp x0, x1; b.ls 1f; mov x2, #3; 1:",
	"cmp w0, w1; b.mi 1f; mov x2, #3; 1:", "cmp w0, w1; b.pl 1f; mov x2, #3; 1:", "cmp w0, w1; b.vc 1f; mov x2, #3; 1:",
	"nop", "yield", "bti c", "xpaclri", "paciasp; autiasp", "pacibsp; autibsp",
	// scalar floating point
	"fmov d0, d1", "fmov s0, s1", "fmov d0, x1", "fmov x0, d1", "fmov s0, w1", "fmov w0, s1", "fmov v0.d[1], x1", "fmov x0, v1.d[1]",
	"fmov d0, #1.0", "fmov s0, #-2.5", "fmov d3, #0.125", "fmov s1, #31.0",
	"fadd d0, d1, d2", "fadd s0, s1, s2", "fsub d0, d1, d2", "fsub s0, s1, s2", "fmul d0, d1, d2", "fmul s0, s1, s2",
	"fdiv d0, d1, d2", "fdiv s0, s1, s2", "fnmul d0, d1, d2", "fnmul s0, s1, s2",
	"fneg d0, d1", "fneg s0, s1", "fabs d0, d1", "fabs s0, s1", "fsqrt d0, d1", "fsqrt s0, s1",
	"fcvt d0, s1", "fcvt s0, d1",
	"fcmp d0, d1; cset w0, eq", "fcmp s0, s1; cset w0, mi", "fcmp d0, #0.0; cset w0, gt", "fcmpe d0, d1; cset w0, vs", "fcmpe s0, #0.0; cset w0, ls",
	"fcmp d0, d1; fcsel d2, d3, d4, lt", "fcmp s0, s1; fcsel s2, s3, s4, ge",
	"scvtf d0, x1", "scvtf d0, w1", "scvtf s0, x1", "scvtf s0, w1",
	"fcvtzs x0, d1", "fcvtzs w0, d1", "fcvtzs x0, s1", "fcvtzs w0, s1",
	// AdvSIMD integer
	"movi v0.2d, #0", "movi d1, #0xff00ff0000ffff00", "movi v2.16b, #0x7f", "movi v3.8b, #0x80", "movi v4.4s, #0x12, lsl #16", "movi v5.2s, #0xab, lsl #24",
	"movi v6.8h, #0x34, lsl #8", "movi v7.4h, #0x1", "movi v8.4s, #0x56, msl #8", "movi v9.2s, #0x9, msl #16",
	"mvni v0.4s, #0x12, lsl #8", "mvni v1.8h, #0xf0", "mvni v2.2s, #0x3, msl #16", "orr v0.4s, #0x80, lsl #24", "bic v1.8h, #0xff", "orr v2.4h, #0x1, lsl #8", "bic v3.2s, #0x7f",
	"fmov v0.4s, #1.0", "fmov v1.2d, #-0.5", "fmov v2.2s, #3.0",
	"dup v0.4s, w1", "dup v0.2d, x1", "dup v0.16b, w1", "dup v1.8h, w2", "dup v2.8b, w3", "dup v3.2s, w4", "dup v0.4s, v1.s[2]", "dup v0.8b, v1.b[15]", "dup v0.2d, v1.d[1]",
	"umov w0, v1.s[3]", "umov w0, v1.b[9]", "umov w0, v1.h[7]", "mov x0, v1.d[1]", "mov w0, v1.s[0]", "smov x0, v1.b[3]", "smov w0, v1.h[5]", "smov x0, v1.s[1]",
	"ins v0.s[1], w1", "mov v0.d[1], x1", "ins v0.b[15], w2", "ins v0.h[3], w3", "mov v0.s[3], v1.s[0]", "ins v0.d[0], v1.d[1]", "ins v0.b[1], v1.b[14]",
	"add v0.4s, v1.4s, v2.4s", "add v0.16b, v1.16b, v2.16b", "add v0.2d, v1.2d, v2.2d", "add v0.8h, v1.8h, v2.8h", "add v0.2s, v1.2s, v2.2s",
	"sub v0.4s, v1.4s, v2.4s", "sub v0.16b, v1.16b, v2.16b", "sub v0.2d, v1.2d, v2.2d", "sub v0.4h, v1.4h, v2.4h",
	"and v0.16b, v1.16b, v2.16b", "bic v0.16b, v1.16b, v2.16b", "orr v0.8b, v1.8b, v2.8b", "mov v0.16b, v1.16b", "orn v0.16b, v1.16b, v2.16b", "eor v0.16b, v1.16b, v2.16b", "eor v0.8b, v1.8b, v2.8b",
	"bsl v0.16b, v1.16b, v2.16b", "bit v0.16b, v1.16b, v2.16b", "bif v0.8b, v1.8b, v2.8b",
	"cmeq v0.4s, v1.4s, v2.4s", "cmeq v0.16b, v1.16b, v2.16b", "cmeq v0.2d, v1.2d, v2.2d", "cmtst v0.8h, v1.8h, v2.8h", "cmgt v0.4s, v1.4s, v2.4s", "cmhi v0.16b, v1.16b, v2.16b",
	"cmge v0.2d, v1.2d, v2.2d", "cmhs v0.8b, v1.8b, v2.8b", "cmgt v0.8h, v1.8h, v1.8h",
	"cnt v0.8b, v1.8b", "cnt v0.16b, v1.16b", "cnt v0.8b, v1.8b; addv b0, v0.8b", "not v0.16b, v1.16b", "mvn v0.8b, v1.8b", "neg v0.4s, v1.4s", "neg v0.16b, v1.16b", "neg v0.2d, v1.2d",
	"addv b0, v1.16b", "addv h0, v1.8h", "addv s0, v1.4s", "addv h0, v1.4h", "addv b0, v1.8b",
	"ld1 {v0.16b}, [x1]", "ld1 {v0.8b}, [x1]", "ld1 {v0.4s, v1.4s}, [x1]", "ld1 {v0.2d, v1.2d, v2.2d}, [x1]", "ld1 {v30.16b, v31.16b, v0.16b, v1.16b}, [x1]",
	"ld1 {v0.16b}, [x1], #16", "ld1 {v0.8b, v1.8b}, [x1], #16", "ld1 {v0.4s}, [x1], x2",
	"st1 {v0.16b}, [x1]", "st1 {v0.2s}, [x1]", "st1 {v0.16b, v1.16b}, [x1]", "st1 {v0.4s, v1.4s, v2.4s, v3.4s}, [x1]", "st1 {v0.16b}, [x1], #16", "st1 {v0.8h}, [x1], x2",
}

// handPickedSystem are the system register and ordered access forms.
var handPickedSystem = []string{
	"mrs x0, nzcv", "msr nzcv, x1", "msr nzcv, xzr", "cmp x0, x1; mrs x2, nzcv",
	"msr tpidr_el0, x1; mrs x0, tpidr_el0",
	"ldar x0, [x1]", "ldar w0, [x1]", "ldarb w0, [x1]", "ldarh w0, [x1]", "stlr x0, [x1]", "stlr w0, [x1]", "stlrb w0, [x1]", "stlrh w0, [x1]",
	"add x1, x1, #1; ldar x0, [x1]", "add x1, x1, #2; stlr w0, [x1]",
}

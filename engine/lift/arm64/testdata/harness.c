/* The arm64 differential tests' CPU side (engine/lift/arm64/diff_test.go
 * builds it with aarch64-linux-gnu-gcc -static and runs it under
 * qemu-aarch64). It reads an instruction sequence and machine states on
 * stdin, runs the sequence natively from each state and writes the
 * resulting states to stdout.
 *
 * Fixed addresses:
 *   0x01000000 code page: a trampoline that loads x0 last
 *              (`movz x0, #0x3000, lsl #16; ldr x0, [x0]`), the sequence
 *              at 0x01000008, then `b rea_exit` (the harness's text is
 *              within a direct branch's reach)
 *   0x20000000 memory the sequence may use (MEMSZ bytes compared)
 *   0x30000000 saved state: x[31] @0, sp @0xf8, nzcv @0x100,
 *              host sp @0x108, host tpidr_el0 @0x110, v[32] @0x200
 * Input: jobs until end of input, each a u32 code length, the code, a u32
 * count, then count records of x[31], sp, nzcv, v[32] (two u64 each),
 * mem[MEMSZ]. (One process runs many sequences: qemu's start-up dominates
 * a run of a few states.)
 * Output: per job, count records, each a u64 signal number (0: no fault)
 * and the record after the run.
 *
 * No register is free at the sequence's end, so rea_exit parks x0 in
 * tpidr_el0 (restored before returning to C) to get a base register. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE ((uint8_t *)0x01000000)
#define CODE (PAGE + 8)
#define MEM ((uint8_t *)0x20000000)
#define ST ((uint8_t *)0x30000000)
#define MEMSZ 4096

struct rec {
	uint64_t x[31];
	uint64_t sp;
	uint64_t nzcv;
	uint64_t v[64];
	uint8_t mem[MEMSZ];
};

void rea_enter(void);
void rea_exit(void);

#if !defined(__aarch64__)
#error "the harness runs on AArch64"
#endif

__asm__(
	".text\n"
	".globl rea_enter\n"
	"rea_enter:\n"
	"stp x29, x30, [sp, #-160]!\n"
	"stp x19, x20, [sp, #16]\n stp x21, x22, [sp, #32]\n stp x23, x24, [sp, #48]\n"
	"stp x25, x26, [sp, #64]\n stp x27, x28, [sp, #80]\n"
	"stp d8, d9, [sp, #96]\n stp d10, d11, [sp, #112]\n stp d12, d13, [sp, #128]\n stp d14, d15, [sp, #144]\n"
	"movz x0, #0x3000, lsl #16\n"
	"mov x1, sp\n str x1, [x0, #0x108]\n"
	"mrs x1, tpidr_el0\n str x1, [x0, #0x110]\n"
	"add x1, x0, #0x200\n"
	"ldp q0, q1, [x1, #0]\n"
	"ldp q2, q3, [x1, #32]\n"
	"ldp q4, q5, [x1, #64]\n"
	"ldp q6, q7, [x1, #96]\n"
	"ldp q8, q9, [x1, #128]\n"
	"ldp q10, q11, [x1, #160]\n"
	"ldp q12, q13, [x1, #192]\n"
	"ldp q14, q15, [x1, #224]\n"
	"ldp q16, q17, [x1, #256]\n"
	"ldp q18, q19, [x1, #288]\n"
	"ldp q20, q21, [x1, #320]\n"
	"ldp q22, q23, [x1, #352]\n"
	"ldp q24, q25, [x1, #384]\n"
	"ldp q26, q27, [x1, #416]\n"
	"ldp q28, q29, [x1, #448]\n"
	"ldp q30, q31, [x1, #480]\n"
	"ldr x1, [x0, #0x100]\n msr nzcv, x1\n"
	"ldr x1, [x0, #0xf8]\n mov sp, x1\n"
	"ldp x1, x2, [x0, #8]\n"
	"ldp x3, x4, [x0, #24]\n"
	"ldp x5, x6, [x0, #40]\n"
	"ldp x7, x8, [x0, #56]\n"
	"ldp x9, x10, [x0, #72]\n"
	"ldp x11, x12, [x0, #88]\n"
	"ldp x13, x14, [x0, #104]\n"
	"ldp x15, x16, [x0, #120]\n"
	"ldp x17, x18, [x0, #136]\n"
	"ldp x19, x20, [x0, #152]\n"
	"ldp x21, x22, [x0, #168]\n"
	"ldp x23, x24, [x0, #184]\n"
	"ldp x25, x26, [x0, #200]\n"
	"ldp x27, x28, [x0, #216]\n"
	"ldp x29, x30, [x0, #232]\n"
	"movz x0, #0x0100, lsl #16\n"
	"br x0\n"
	".globl rea_exit\n"
	"rea_exit:\n"
	"msr tpidr_el0, x0\n"
	"movz x0, #0x3000, lsl #16\n"
	"stp x1, x2, [x0, #8]\n"
	"stp x3, x4, [x0, #24]\n"
	"stp x5, x6, [x0, #40]\n"
	"stp x7, x8, [x0, #56]\n"
	"stp x9, x10, [x0, #72]\n"
	"stp x11, x12, [x0, #88]\n"
	"stp x13, x14, [x0, #104]\n"
	"stp x15, x16, [x0, #120]\n"
	"stp x17, x18, [x0, #136]\n"
	"stp x19, x20, [x0, #152]\n"
	"stp x21, x22, [x0, #168]\n"
	"stp x23, x24, [x0, #184]\n"
	"stp x25, x26, [x0, #200]\n"
	"stp x27, x28, [x0, #216]\n"
	"stp x29, x30, [x0, #232]\n"
	"mrs x1, tpidr_el0\n str x1, [x0]\n"
	"mov x1, sp\n str x1, [x0, #0xf8]\n"
	"mrs x1, nzcv\n str x1, [x0, #0x100]\n"
	"add x1, x0, #0x200\n"
	"stp q0, q1, [x1, #0]\n"
	"stp q2, q3, [x1, #32]\n"
	"stp q4, q5, [x1, #64]\n"
	"stp q6, q7, [x1, #96]\n"
	"stp q8, q9, [x1, #128]\n"
	"stp q10, q11, [x1, #160]\n"
	"stp q12, q13, [x1, #192]\n"
	"stp q14, q15, [x1, #224]\n"
	"stp q16, q17, [x1, #256]\n"
	"stp q18, q19, [x1, #288]\n"
	"stp q20, q21, [x1, #320]\n"
	"stp q22, q23, [x1, #352]\n"
	"stp q24, q25, [x1, #384]\n"
	"stp q26, q27, [x1, #416]\n"
	"stp q28, q29, [x1, #448]\n"
	"stp q30, q31, [x1, #480]\n"
	"ldr x1, [x0, #0x110]\n msr tpidr_el0, x1\n"
	"ldr x1, [x0, #0x108]\n mov sp, x1\n"
	"ldp x19, x20, [sp, #16]\n ldp x21, x22, [sp, #32]\n ldp x23, x24, [sp, #48]\n"
	"ldp x25, x26, [sp, #64]\n ldp x27, x28, [sp, #80]\n"
	"ldp d8, d9, [sp, #96]\n ldp d10, d11, [sp, #112]\n ldp d12, d13, [sp, #128]\n ldp d14, d15, [sp, #144]\n"
	"ldp x29, x30, [sp], #160\n"
	"ret\n");

static sigjmp_buf jb;

static void onfault(int sig) { siglongjmp(jb, sig); }

static void readall(void *p, size_t n) {
	if (fread(p, 1, n, stdin) != n) {
		fprintf(stderr, "harness: short input\n");
		exit(2);
	}
}

static void *mapat(void *addr, size_t n, int prot) {
	void *p = mmap(addr, n, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != addr) {
		perror("harness: mmap");
		exit(2);
	}
	return p;
}

int main(void) {
	mapat(PAGE, 0x10000, PROT_READ | PROT_WRITE | PROT_EXEC);
	mapat(MEM, MEMSZ, PROT_READ | PROT_WRITE);
	mapat(ST, 0x1000, PROT_READ | PROT_WRITE);

	static uint8_t altstack[1 << 16];
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = onfault;
	sa.sa_flags = SA_ONSTACK | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGTRAP, &sa, NULL);

	uint32_t n, count;
	while (fread(&n, 1, 4, stdin) == 4) {
		if (n > 0x10000 - 32 || n % 4 != 0) {
			fprintf(stderr, "harness: bad code length\n");
			return 2;
		}
		static const uint32_t trampoline[] = {0xd2a60000, 0xf9400000}; /* movz x0, #0x3000, lsl #16; ldr x0, [x0] */
		memcpy(PAGE, trampoline, sizeof trampoline);
		readall(CODE, n);
		int64_t off = ((int64_t)(uintptr_t)rea_exit - (int64_t)(uintptr_t)(CODE + n)) / 4;
		uint32_t b = 0x14000000u | ((uint32_t)off & 0x3ffffffu); /* b rea_exit */
		memcpy(CODE + n, &b, 4);
		__builtin___clear_cache((char *)PAGE, (char *)CODE + n + 4);
		readall(&count, 4);

		for (uint32_t i = 0; i < count; i++) {
			static struct rec r;
			readall(&r, sizeof r);
			memcpy(ST, r.x, 31 * 8);
			memcpy(ST + 0xf8, &r.sp, 8);
			memcpy(ST + 0x100, &r.nzcv, 8);
			memcpy(ST + 0x200, r.v, sizeof r.v);
			memcpy(MEM, r.mem, MEMSZ);
			volatile uint64_t sig = sigsetjmp(jb, 1);
			if (sig == 0)
				rea_enter();
			memcpy(r.x, ST, 31 * 8);
			memcpy(&r.sp, ST + 0xf8, 8);
			memcpy(&r.nzcv, ST + 0x100, 8);
			memcpy(r.v, ST + 0x200, sizeof r.v);
			memcpy(r.mem, MEM, MEMSZ);
			uint64_t s = sig;
			fwrite(&s, 8, 1, stdout);
			fwrite(&r, sizeof r, 1, stdout);
		}
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* The differential tests' CPU side (engine/lift/x86/diff_test.go builds it
 * with gcc into a temporary directory). It reads an instruction sequence and
 * machine states on stdin, runs the sequence natively from each state and
 * writes the resulting states to stdout.
 *
 * Fixed addresses (below 2 GiB, so plain disp32 absolute addressing reaches
 * them from the asm without relocations):
 *   0x10000000 code page: the sequence, then `jmp *EXIT`
 *   0x20000000 memory the sequence may use (MEMSZ bytes compared)
 *   0x30000000 saved state: gpr[16] @0, rflags @0x80, host rsp @0x88,
 *              entry @0x90, exit @0x98, xmm[16] @0x100, private stack @0x8000
 * Input: u32 code length, code, u32 count, then count records of
 * gpr[16], rflags, xmm[16] (two u64 each), mem[MEMSZ].
 * Output: count records, each a u64 signal number (0: no fault) and the
 * record after the run. Built for i386 (i686-linux-gnu-gcc -static) it runs
 * 32-bit code: eight registers in the low halves of the first eight slots,
 * xmm0-7. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CODE ((uint8_t *)0x10000000)
#define MEM ((uint8_t *)0x20000000)
#define ST ((uint8_t *)0x30000000)
#define MEMSZ 1024

struct rec {
	uint64_t gpr[16];
	uint64_t rflags;
	uint64_t xmm[32];
	uint8_t mem[MEMSZ];
};

void rea_enter(void);
void rea_exit(void);

#if defined(__x86_64__)
__asm__(
	".text\n"
	".globl rea_enter\n"
	"rea_enter:\n"
	"push %rbx\n push %rbp\n push %r12\n push %r13\n push %r14\n push %r15\n"
	"mov %rsp, 0x30000088\n"
	"movdqu 0x30000100, %xmm0\n movdqu 0x30000110, %xmm1\n movdqu 0x30000120, %xmm2\n movdqu 0x30000130, %xmm3\n"
	"movdqu 0x30000140, %xmm4\n movdqu 0x30000150, %xmm5\n movdqu 0x30000160, %xmm6\n movdqu 0x30000170, %xmm7\n"
	"movdqu 0x30000180, %xmm8\n movdqu 0x30000190, %xmm9\n movdqu 0x300001a0, %xmm10\n movdqu 0x300001b0, %xmm11\n"
	"movdqu 0x300001c0, %xmm12\n movdqu 0x300001d0, %xmm13\n movdqu 0x300001e0, %xmm14\n movdqu 0x300001f0, %xmm15\n"
	"mov $0x30008000, %rsp\n pushq 0x30000080\n popfq\n"
	"mov 0x30000000, %rax\n mov 0x30000008, %rcx\n mov 0x30000010, %rdx\n mov 0x30000018, %rbx\n"
	"mov 0x30000028, %rbp\n mov 0x30000030, %rsi\n mov 0x30000038, %rdi\n"
	"mov 0x30000040, %r8\n mov 0x30000048, %r9\n mov 0x30000050, %r10\n mov 0x30000058, %r11\n"
	"mov 0x30000060, %r12\n mov 0x30000068, %r13\n mov 0x30000070, %r14\n mov 0x30000078, %r15\n"
	"mov 0x30000020, %rsp\n"
	"jmp *0x30000090\n"
	".globl rea_exit\n"
	"rea_exit:\n"
	"mov %rax, 0x30000000\n mov %rcx, 0x30000008\n mov %rdx, 0x30000010\n mov %rbx, 0x30000018\n"
	"mov %rsp, 0x30000020\n mov %rbp, 0x30000028\n mov %rsi, 0x30000030\n mov %rdi, 0x30000038\n"
	"mov %r8, 0x30000040\n mov %r9, 0x30000048\n mov %r10, 0x30000050\n mov %r11, 0x30000058\n"
	"mov %r12, 0x30000060\n mov %r13, 0x30000068\n mov %r14, 0x30000070\n mov %r15, 0x30000078\n"
	"mov $0x30008000, %rsp\n pushfq\n popq 0x30000080\n cld\n"
	"movdqu %xmm0, 0x30000100\n movdqu %xmm1, 0x30000110\n movdqu %xmm2, 0x30000120\n movdqu %xmm3, 0x30000130\n"
	"movdqu %xmm4, 0x30000140\n movdqu %xmm5, 0x30000150\n movdqu %xmm6, 0x30000160\n movdqu %xmm7, 0x30000170\n"
	"movdqu %xmm8, 0x30000180\n movdqu %xmm9, 0x30000190\n movdqu %xmm10, 0x300001a0\n movdqu %xmm11, 0x300001b0\n"
	"movdqu %xmm12, 0x300001c0\n movdqu %xmm13, 0x300001d0\n movdqu %xmm14, 0x300001e0\n movdqu %xmm15, 0x300001f0\n"
	"mov 0x30000088, %rsp\n"
	"pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n pop %rbx\n"
	"ret\n");
#elif defined(__i386__)
/* i386: eight registers in the low halves of the same slots, xmm0-7. */
__asm__(
	".text\n"
	".globl rea_enter\n"
	"rea_enter:\n"
	"push %ebx\n push %ebp\n push %esi\n push %edi\n"
	"mov %esp, 0x30000088\n"
	"movdqu 0x30000100, %xmm0\n movdqu 0x30000110, %xmm1\n movdqu 0x30000120, %xmm2\n movdqu 0x30000130, %xmm3\n"
	"movdqu 0x30000140, %xmm4\n movdqu 0x30000150, %xmm5\n movdqu 0x30000160, %xmm6\n movdqu 0x30000170, %xmm7\n"
	"mov $0x30008000, %esp\n pushl 0x30000080\n popfl\n"
	"mov 0x30000000, %eax\n mov 0x30000008, %ecx\n mov 0x30000010, %edx\n mov 0x30000018, %ebx\n"
	"mov 0x30000028, %ebp\n mov 0x30000030, %esi\n mov 0x30000038, %edi\n"
	"mov 0x30000020, %esp\n"
	"jmp *0x30000090\n"
	".globl rea_exit\n"
	"rea_exit:\n"
	"mov %eax, 0x30000000\n mov %ecx, 0x30000008\n mov %edx, 0x30000010\n mov %ebx, 0x30000018\n"
	"mov %esp, 0x30000020\n mov %ebp, 0x30000028\n mov %esi, 0x30000030\n mov %edi, 0x30000038\n"
	"mov $0x30008000, %esp\n pushfl\n popl 0x30000080\n cld\n"
	"movdqu %xmm0, 0x30000100\n movdqu %xmm1, 0x30000110\n movdqu %xmm2, 0x30000120\n movdqu %xmm3, 0x30000130\n"
	"movdqu %xmm4, 0x30000140\n movdqu %xmm5, 0x30000150\n movdqu %xmm6, 0x30000160\n movdqu %xmm7, 0x30000170\n"
	"mov 0x30000088, %esp\n"
	"pop %edi\n pop %esi\n pop %ebp\n pop %ebx\n"
	"ret\n");
#else
#error "the harness runs on x86-64 or i386"
#endif

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
	mapat(CODE, 0x10000, PROT_READ | PROT_WRITE | PROT_EXEC);
	mapat(MEM, 0x1000, PROT_READ | PROT_WRITE);
	mapat(ST, 0x10000, PROT_READ | PROT_WRITE);

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
	readall(&n, 4);
	if (n > 0x10000 - 16) {
		fprintf(stderr, "harness: code too long\n");
		return 2;
	}
	readall(CODE, n);
#if defined(__x86_64__)
	static const uint8_t tail[] = {0xff, 0x24, 0x25, 0x98, 0x00, 0x00, 0x30}; /* jmp *0x30000098 */
#else
	static const uint8_t tail[] = {0xff, 0x25, 0x98, 0x00, 0x00, 0x30}; /* jmp *0x30000098 */
#endif
	memcpy(CODE + n, tail, sizeof tail);
	readall(&count, 4);

	for (uint32_t i = 0; i < count; i++) {
		struct rec r;
		readall(&r, sizeof r);
		memcpy(ST, r.gpr, sizeof r.gpr);
		memcpy(ST + 0x80, &r.rflags, 8);
		*(uint64_t *)(ST + 0x90) = (uint64_t)(uintptr_t)CODE;
		*(uint64_t *)(ST + 0x98) = (uint64_t)(uintptr_t)rea_exit;
		memcpy(ST + 0x100, r.xmm, sizeof r.xmm);
		memcpy(MEM, r.mem, MEMSZ);
		volatile uint64_t sig = sigsetjmp(jb, 1);
		if (sig == 0) {
			/* An empty x87 stack, every exception masked, rounding to
			 * nearest and the precision control at double: the IR's
			 * x87 model (x87.go) computes in binary64. */
			static const uint16_t cw = 0x027f;
			__asm__ volatile("fninit\n\tfldcw %0" : : "m"(cw));
			rea_enter();
		}
		__asm__ volatile("cld");
		memcpy(r.gpr, ST, sizeof r.gpr);
#if defined(__i386__)
		for (int k = 0; k < 16; k++)
			r.gpr[k] &= 0xffffffffu;
#endif
		memcpy(&r.rflags, ST + 0x80, 8);
		memcpy(r.xmm, ST + 0x100, sizeof r.xmm);
		memcpy(r.mem, MEM, MEMSZ);
		uint64_t s = sig;
		fwrite(&s, 8, 1, stdout);
		fwrite(&r, sizeof r, 1, stdout);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

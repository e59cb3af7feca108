int elf_machine_bits(unsigned machine) {
	switch (machine) {
	case 2: return 32;   /* SPARC */
	case 3: return 32;   /* 386 */
	case 4: return 32;   /* 68K */
	case 8: return 32;   /* MIPS */
	case 20: return 32;  /* PPC */
	case 21: return 64;  /* PPC64 */
	case 22: return 64;  /* S390 */
	case 40: return 32;  /* ARM */
	case 42: return 32;  /* SH */
	case 43: return 64;  /* SPARCV9 */
	case 50: return 64;  /* IA_64 */
	case 62: return 64;  /* X86_64 */
	case 183: return 64; /* AARCH64 */
	case 243: return 64; /* RISCV */
	case 258: return 64; /* LOONGARCH */
	default: return 0;
	}
}

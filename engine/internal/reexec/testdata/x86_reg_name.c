const char *x86_reg_name(int reg, int size) {
	static const char *const r64[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	                                    "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"};
	static const char *const r32[16] = {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi",
	                                    "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"};
	if (reg < 0 || reg > 15)
		return "?";
	switch (size) {
	case 8: return r64[reg];
	case 4: return r32[reg];
	default: return "?";
	}
}

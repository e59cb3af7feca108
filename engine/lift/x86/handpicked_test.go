package x86

// handPicked are the differential test's hand-written sequences (Intel
// syntax, ';' between instructions): at least one for every mnemonic the
// lifter models, at every operand width that changes its semantics. A
// register used as a memory base holds an address in the test memory; rsp
// points into it.
var handPicked = []string{
	// moves
	"mov rax, rbx", "mov eax, ebx", "mov al, bl", "mov ah, bl", "mov ax, bx", "mov sil, dil", "mov r9b, bl",
	"movabs rax, 0x123456789abcdef0", "mov ecx, -1", "mov qword ptr [rsp+16], rax", "mov rax, qword ptr [rsp+16]",
	"mov byte ptr [rsp], 0x92", "mov dword ptr [rsp+8], -1", "mov qword ptr [rsp], -2", "mov word ptr [rsp+2], cx",
	"mov eax, dword ptr [rbx+rcx*4+8]", "mov r10d, dword ptr [rsp-12]",
	"movzx eax, bl", "movzx ecx, word ptr [rsp]", "movzx edx, ah", "movsx rax, bl", "movsx eax, cx",
	"movsxd rax, ecx", "movsx ax, byte ptr [rsp+1]", "movsx rdx, word ptr [rsp+6]",
	"lea rax, [rbx+rcx*4+8]", "lea eax, [rbx+rcx*2-1]", "lea rax, [rip+0x100]", "lea r11, [r12+r13*8]", "lea ax, [rdx+rsi]",
	"push rax; pop rcx", "push qword ptr [rsp+8]", "push 0x12", "push -5", "push rsp", "pop rsp", "pop qword ptr [rsp+8]",
	"xchg rax, rbx", "xchg eax, ecx", "xchg al, ah", "xchg qword ptr [rsp], rdx", "xchg r8w, r9w",
	// arithmetic
	"add rax, rbx", "add eax, ebx", "add al, ah", "add ax, 0x1234", "add qword ptr [rsp+8], rcx", "add rcx, 0x7fffffff",
	"add dl, 0x80", "add rax, -8",
	"sub rax, rbx", "sub ecx, edx", "sub bh, cl", "sub word ptr [rsp], 3", "sub r15, qword ptr [rsp+24]",
	"adc rax, rbx", "adc ecx, 7", "adc al, bl", "stc; adc al, bl", "mov al, 0x7f; mov bl, 0; stc; adc al, bl", "mov al, 0x80; mov bl, 0; stc; sbb al, bl", "stc; adc eax, ebx", "stc; sbb al, bl", "stc; sbb rax, rbx", "sbb rax, rbx", "sbb ecx, edx", "sbb al, 5", "sbb eax, eax",
	"cmp rax, rbx", "cmp esi, 7", "cmp byte ptr [rsp], 0x80", "cmp ax, cx", "cmp rdi, -1",
	"inc eax", "inc rcx", "inc byte ptr [rsp]", "inc dx", "dec rcx", "dec al", "dec dword ptr [rsp+4]",
	"neg rax", "neg dl", "neg cx", "neg dword ptr [rsp]", "not ecx", "not rax", "not byte ptr [rsp+3]",
	// logic
	"and rax, rbx", "and ecx, 0xff", "and ah, al", "and qword ptr [rsp], rsi", "or rax, rbx", "or edx, -16",
	"or bl, 1", "xor eax, eax", "xor rax, rbx", "xor dl, byte ptr [rsp]", "test edi, edi", "test al, 1",
	"test rax, rbx", "test byte ptr [rsp+5], 0x40", "test cx, dx",
	// shifts and rotates
	"shl rax, 3", "shl eax, cl", "shr edx, 1", "sar rax, cl", "shl al, cl", "shr bx, cl", "sar cx, 5",
	"shl rdx, 1", "sar eax, 31", "shr rax, 63", "sar byte ptr [rsp], cl", "shl dword ptr [rsp+4], 7",
	"and ecx, 7; shl rax, cl", "and ecx, 1; sar rdx, cl", "and ecx, 15; shl dx, cl", "and ecx, 31; shr al, cl",
	"rol rax, 13", "ror eax, cl", "rol bl, cl", "ror dx, 1", "rol eax, 1", "ror rax, cl", "rol word ptr [rsp], 4",
	"and ecx, 1; rol rbx, cl", "and ecx, 8; ror al, cl",
	// multiply and divide
	"imul rax, rbx", "imul ecx, edx, 12345", "imul rcx", "imul bl", "imul dx", "imul eax, dword ptr [rsp+4], -3",
	"imul ecx", "imul r8, r9, 0x7fffffff", "imul ax, bx", "imul rax, qword ptr [rsp]",
	"mul rbx", "mul ecx", "mul bl", "mul cx", "mul qword ptr [rsp+8]",
	"xor edx, edx; div rcx", "cqo; idiv rcx", "cdq; idiv ecx", "xor edx, edx; div ecx", "cwd; idiv cx",
	"xor edx, edx; div qword ptr [rsp]", "movzx eax, ax; div bl", "cbw; idiv bl", "div rcx", "idiv ecx",
	"cdq", "cqo", "cdqe", "cwde", "cbw", "cwd",
	// conditions
	"cmp rax, rbx; seto cl", "cmp rax, rbx; setno cl", "cmp rax, rbx; setb cl", "cmp rax, rbx; setae cl",
	"cmp eax, ebx; sete cl", "cmp eax, ebx; setne cl", "cmp eax, ebx; setbe cl", "cmp eax, ebx; seta cl",
	"cmp al, bl; sets dh", "cmp al, bl; setns dh", "cmp al, bl; setp dh", "cmp al, bl; setnp dh",
	"cmp rdx, rsi; setl r8b", "cmp rdx, rsi; setge r8b", "cmp rdx, rsi; setle sil", "cmp rdx, rsi; setg byte ptr [rsp]",
	"setl al", "seta bh", "setne cl", "setp dl",
	"cmp eax, ebx; cmovo rdx, rsi", "cmp eax, ebx; cmovno rdx, rsi", "cmp eax, ebx; cmovb rdx, rsi",
	"cmp eax, ebx; cmovae edx, esi", "cmp eax, ebx; cmove edx, esi", "cmp eax, ebx; cmovne dx, si",
	"cmp eax, ebx; cmovbe rdx, qword ptr [rsp]", "cmp eax, ebx; cmova rdx, rsi", "cmp eax, ebx; cmovs rdx, rsi",
	"cmp eax, ebx; cmovns rdx, rsi", "cmp eax, ebx; cmovp rdx, rsi", "cmp eax, ebx; cmovnp rdx, rsi",
	"cmp rax, rbx; cmovl ecx, edi", "cmp rax, rbx; cmovge ecx, edi", "cmp rax, rbx; cmovle ecx, edi", "cmp rax, rbx; cmovg ecx, edi",
	"cmovl eax, ecx", "cmovg r10, r11",
	"cmp rax, rbx; jl 1f; 1:", "test eax, eax; je 1f; 1:", "jmp 1f; 1:", "ja 1f; 1:", "jp 1f; 1:",
	// control through the stack
	"call 1f; 1:", "lea rax, [rip+2]; push rax; ret", "lea rax, [rip+2]; jmp rax", "lea rax, [rip+2]; call rax",
	"lea rax, [rip+5]; push rax; push rax; ret 8", "lea rbp, [rsp+16]; leave",
	"lea rax, [rip+7]; mov qword ptr [rsp], rax; jmp qword ptr [rsp]",
	// bits
	"bswap eax", "bswap rax", "bswap r12",
	"bt rax, rbx", "bt eax, 5", "bts rcx, rdx", "btr eax, 31", "btc rax, 63", "bt cx, dx", "bts word ptr [rsp], 3",
	"and ecx, 255; bt qword ptr [rsp], rcx", "and ecx, 127; bts dword ptr [rsp], ecx", "and rcx, 63; btr qword ptr [rsp+8], rcx",
	"and ecx, 31; btc dword ptr [rsp], ecx", "btr dword ptr [rsp+16], 7",
	"bsf eax, ecx", "bsr rax, rdx", "bsf cx, dx", "bsr eax, dword ptr [rsp]",
	"tzcnt eax, ecx", "tzcnt rax, rdx", "tzcnt ax, cx", "lzcnt eax, ecx", "lzcnt rax, rdx", "lzcnt dx, si",
	"popcnt eax, ecx", "popcnt rax, rdx", "popcnt ax, cx", "popcnt rdi, qword ptr [rsp]",
	// strings
	"and ecx, 15; rep movsb", "and ecx, 7; rep movsq", "and ecx, 15; rep stosb", "and ecx, 7; rep stosd",
	"and ecx, 7; rep stosq", "and ecx, 7; rep movsd", "movsb", "stosq", "movsw", "stosw",
	"std; and ecx, 7; rep movsq; cld",
	// flags and no-ops
	"clc", "stc", "cmc", "cld", "std", "nop", "nop dword ptr [rax+rax]", "xchg ax, ax", "endbr64", "pause",
	// SSE moves
	"movss xmm0, xmm1", "movss xmm0, dword ptr [rsp]", "movss dword ptr [rsp], xmm1",
	"movsd xmm0, xmm1", "movsd xmm2, qword ptr [rsp+8]", "movsd qword ptr [rsp], xmm3",
	"movd eax, xmm0", "movd xmm0, eax", "movd xmm1, dword ptr [rsp]", "movd dword ptr [rsp], xmm2",
	"movq rax, xmm1", "movq xmm1, rax", "movq xmm0, xmm1", "movq xmm3, qword ptr [rsp]", "movq qword ptr [rsp], xmm4",
	"movaps xmm0, xmm1", "movaps xmm0, xmmword ptr [rsp]", "movaps xmmword ptr [rsp+16], xmm5",
	"movups xmm2, xmmword ptr [rsp+4]", "movups xmmword ptr [rsp+3], xmm2", "movdqa xmmword ptr [rsp], xmm3",
	"movdqa xmm8, xmm9", "movdqu xmm1, xmmword ptr [rsp+1]", "movdqu xmmword ptr [rsp+7], xmm15",
	"movapd xmm3, xmm4", "movupd xmm5, xmmword ptr [rsp+8]", "movaps xmm0, xmmword ptr [rsp+8]",
	// SSE scalar arithmetic
	"addss xmm0, xmm1", "subss xmm0, xmm1", "mulss xmm0, xmm1", "divss xmm0, xmm1", "sqrtss xmm0, xmm1",
	"minss xmm0, xmm1", "maxss xmm0, xmm1", "addss xmm2, dword ptr [rsp]",
	"addsd xmm0, xmm1", "subsd xmm0, xmm1", "mulsd xmm0, xmm1", "divsd xmm0, xmm1", "sqrtsd xmm0, xmm1",
	"minsd xmm0, xmm1", "maxsd xmm0, xmm1", "mulsd xmm3, qword ptr [rsp+8]", "sqrtsd xmm4, qword ptr [rsp]",
	// conversions
	"cvtsi2ss xmm0, eax", "cvtsi2ss xmm0, rax", "cvtsi2sd xmm0, eax", "cvtsi2sd xmm0, rax",
	"cvtsi2sd xmm1, dword ptr [rsp]", "cvtsi2ss xmm1, qword ptr [rsp]",
	"cvtss2sd xmm0, xmm1", "cvtsd2ss xmm0, xmm1", "cvtss2sd xmm0, dword ptr [rsp]",
	"cvttss2si eax, xmm0", "cvttss2si rax, xmm0", "cvttsd2si eax, xmm1", "cvttsd2si rax, xmm1",
	"cvtss2si eax, xmm0", "cvtsd2si rax, xmm1", "cvttsd2si ecx, qword ptr [rsp]",
	// compares
	"ucomiss xmm0, xmm1", "ucomisd xmm0, xmm1", "comiss xmm0, xmm1", "comisd xmm0, xmm1",
	"ucomisd xmm0, qword ptr [rsp]", "ucomiss xmm0, xmm1; seta al; setp cl",
	// packed logic
	"andps xmm0, xmm1", "andnps xmm0, xmm1", "orps xmm0, xmm1", "xorps xmm0, xmm1", "xorps xmm0, xmm0",
	"andpd xmm0, xmm1", "andnpd xmm0, xmm1", "orpd xmm0, xmm1", "xorpd xmm0, xmm1",
	"pand xmm0, xmm1", "pandn xmm0, xmm1", "por xmm0, xmm1", "pxor xmm0, xmm1", "pxor xmm2, xmmword ptr [rsp]",
	// packed integer
	"paddb xmm0, xmm1", "paddw xmm0, xmm1", "paddd xmm0, xmm1", "paddq xmm0, xmm1",
	"psubb xmm0, xmm1", "psubw xmm0, xmm1", "psubd xmm0, xmm1", "psubq xmm0, xmm1",
	"pmullw xmm0, xmm1", "pmulld xmm0, xmm1", "pmuludq xmm0, xmm1", "paddd xmm3, xmmword ptr [rsp]",
	"pcmpeqb xmm0, xmm1", "pcmpeqw xmm0, xmm1", "pcmpeqd xmm0, xmm1", "pcmpeqq xmm0, xmm1", "pcmpeqd xmm2, xmm2",
	"pcmpgtb xmm0, xmm1", "pcmpgtw xmm0, xmm1", "pcmpgtd xmm0, xmm1",
	"psllw xmm0, 3", "pslld xmm0, 17", "psllq xmm0, 63", "psrlw xmm0, 15", "psrld xmm0, 1", "psrlq xmm0, 32",
	"psraw xmm0, 4", "psrad xmm0, 31", "psrad xmm0, 40", "psllw xmm0, xmm1", "psrlq xmm0, xmm1", "psrad xmm0, xmm1",
	"pslldq xmm0, 3", "psrldq xmm0, 8", "psrldq xmm0, 16",
	"pshufd xmm0, xmm1, 0x1b", "pshufd xmm0, xmm0, 0", "pshufd xmm2, xmmword ptr [rsp], 0xe4",
	"shufps xmm0, xmm1, 0x4e", "shufps xmm0, xmm0, 0x93",
	"punpcklbw xmm0, xmm1", "punpcklwd xmm0, xmm1", "punpckldq xmm0, xmm1", "punpcklqdq xmm0, xmm1",
	"punpckhbw xmm0, xmm1", "punpckhwd xmm0, xmm1", "punpckhdq xmm0, xmm1", "punpckhqdq xmm0, xmm1",
	"unpcklps xmm0, xmm1", "unpckhps xmm0, xmm1", "unpcklpd xmm0, xmm1", "unpckhpd xmm0, xmm1",
	"pmovmskb eax, xmm0", "movmskps eax, xmm1", "movmskpd ecx, xmm2", "pmovmskb r9d, xmm10",
	// packed float
	"addps xmm0, xmm1", "subps xmm0, xmm1", "mulps xmm0, xmm1", "divps xmm0, xmm1",
	"addpd xmm0, xmm1", "subpd xmm0, xmm1", "mulpd xmm0, xmm1", "divpd xmm0, xmm1",
	"sqrtps xmm0, xmm1", "sqrtpd xmm0, xmm1", "cvtdq2ps xmm0, xmm1", "cvttps2dq xmm0, xmm1", "cvtps2dq xmm0, xmm1",
	"addps xmm0, xmmword ptr [rsp]",
	"movhps xmm0, qword ptr [rsp]", "movhps qword ptr [rsp], xmm1", "movlps xmm2, qword ptr [rsp+8]",
	"movlpd qword ptr [rsp], xmm3", "movhpd xmm4, qword ptr [rsp]", "movhlps xmm0, xmm1", "movlhps xmm0, xmm1",
	"shufpd xmm0, xmm1, 1", "shufpd xmm0, xmm1, 2",
	// atomics (single-threaded semantics) and traps
	"xadd rax, rbx", "xadd dword ptr [rsp], ecx", "lock xadd qword ptr [rsp+8], rdx", "xadd al, bl",
	"cmpxchg rcx, rdx", "cmpxchg ecx, edx", "cmpxchg r8d, r9d", "cmpxchg dword ptr [rsp], edx", "lock cmpxchg qword ptr [rsp], rsi",
	"cmpxchg bl, cl", "mov eax, dword ptr [rsp]; cmpxchg dword ptr [rsp], edx", "mov rax, rcx; cmpxchg rcx, rdx",
	"ud2", "int3",
	"pminub xmm0, xmm1", "pmaxub xmm0, xmm1", "pminsw xmm0, xmm1", "pmaxsw xmm0, xmmword ptr [rsp]",
	"pavgb xmm0, xmm1", "pavgw xmm0, xmm1", "pshuflw xmm0, xmm1, 0x1b", "pshufhw xmm0, xmm1, 0x39",
	"pextrw eax, xmm1, 5", "pextrw ecx, xmm2, 0", "pinsrw xmm0, eax, 3", "pinsrw xmm1, word ptr [rsp], 7",
	"cmpss xmm0, xmm1, 0", "cmpss xmm0, xmm1, 1", "cmpss xmm0, xmm1, 2", "cmpss xmm0, xmm1, 3",
	"cmpsd xmm0, xmm1, 4", "cmpsd xmm0, xmm1, 5", "cmpsd xmm0, xmm1, 6", "cmpsd xmm0, xmm1, 7",
	"cmpps xmm0, xmm1, 1", "cmpps xmm0, xmm1, 7", "cmppd xmm0, xmm1, 2", "cmppd xmm0, xmm1, 4", "cmpsd xmm2, qword ptr [rsp], 0",
}

// handPicked32 are the i386 sequences: the same semantics at 32-bit
// addresses and stack slots, and the forms that differ in mode 32 (no
// zero extension into a wider register, 4-byte pushes, 64-bit dividends in
// edx:eax).
var handPicked32 = []string{
	"mov eax, ebx", "mov al, bl", "mov ah, bl", "mov ax, bx", "mov dword ptr [esp+8], eax", "mov eax, dword ptr [esp+4]",
	"mov eax, dword ptr [ebx+ecx*4+8]", "movzx eax, bl", "movsx eax, cx", "movzx edx, ah", "lea eax, [ebx+ecx*2-1]",
	"push eax; pop ecx", "push dword ptr [esp+8]", "push 0x12", "push -5", "push esp", "pop esp", "push ax; pop cx",
	"xchg eax, ebx", "xchg al, ah", "xchg dword ptr [esp], edx",
	"add eax, ebx", "add al, ah", "add ax, 0x1234", "add dword ptr [esp+8], ecx", "sub ecx, edx", "sub bh, cl",
	"adc eax, ebx", "stc; adc al, bl", "stc; sbb cx, dx", "sbb ecx, edx", "sbb eax, eax", "cmp eax, ebx", "cmp byte ptr [esp], 0x80",
	"inc eax", "inc dx", "dec ecx", "dec al", "neg eax", "neg dl", "not ecx",
	"and eax, ebx", "and ah, al", "or edx, -16", "xor eax, eax", "test edi, edi", "test cx, dx",
	"shl eax, 3", "shl eax, cl", "shr edx, 1", "sar eax, cl", "shl al, cl", "shr bx, cl", "sar cx, 5",
	"and ecx, 15; shl dx, cl", "rol eax, 13", "ror eax, cl", "rol bl, cl", "ror dx, 1",
	"imul eax, ebx", "imul ecx, edx, 12345", "imul ecx", "imul bl", "imul dx", "mul ebx", "mul bl", "mul cx",
	"xor edx, edx; div ecx", "cdq; idiv ecx", "cwd; idiv cx", "movzx eax, ax; div bl", "cbw; idiv bl", "div ecx",
	"cdq", "cwde", "cbw", "cwd",
	"cmp eax, ebx; setl cl", "cmp eax, ebx; seta cl", "cmp al, bl; setp dh", "cmp edx, esi; setge byte ptr [esp]",
	"cmp eax, ebx; cmovl edx, esi", "cmp eax, ebx; cmovbe edx, dword ptr [esp]", "cmp eax, ebx; cmovne dx, si",
	"call 1f; 1:", "call 1f; 1: pop eax", "call 1f; 1: add dword ptr [esp], 5; ret", "push eax; call 1f; 1: add dword ptr [esp], 7; ret 4",
	"lea ebp, [esp+16]; leave",
	"bswap eax", "bt eax, ebx", "bts ecx, edx", "btr eax, 31", "and ecx, 127; bts dword ptr [esp], ecx",
	"bsf eax, ecx", "bsr eax, edx", "tzcnt eax, ecx", "lzcnt eax, ecx", "popcnt eax, ecx", "popcnt ax, cx",
	"and ecx, 15; rep movsb", "and ecx, 7; rep movsd", "and ecx, 15; rep stosb", "and ecx, 7; rep stosd", "movsb", "stosd",
	"clc", "stc", "cmc", "std", "nop", "endbr32",
	"xadd eax, ebx", "cmpxchg ecx, edx", "cmpxchg dword ptr [esp], edx",
	"movss xmm0, xmm1", "movss xmm0, dword ptr [esp]", "movsd xmm2, qword ptr [esp+8]", "movd eax, xmm0", "movd xmm0, eax",
	"movq xmm0, xmm1", "movq xmm3, qword ptr [esp]", "movaps xmm0, xmmword ptr [esp]", "movups xmm2, xmmword ptr [esp+4]",
	"addss xmm0, xmm1", "mulsd xmm0, xmm1", "divsd xmm0, qword ptr [esp]", "sqrtsd xmm0, xmm1", "minss xmm0, xmm1", "maxsd xmm0, xmm1",
	"cvtsi2sd xmm0, eax", "cvtsi2ss xmm1, dword ptr [esp]", "cvttsd2si eax, xmm1", "cvtss2sd xmm0, xmm1", "cvtsd2ss xmm0, xmm1",
	"ucomisd xmm0, xmm1", "comiss xmm0, xmm1", "xorps xmm0, xmm1", "pand xmm0, xmm1", "paddd xmm0, xmm1", "psubq xmm0, xmm1",
	"pmuludq xmm0, xmm1", "pcmpeqb xmm0, xmm1", "psrad xmm0, 31", "pshufd xmm0, xmm1, 0x1b", "punpcklbw xmm0, xmm1",
	"pmovmskb eax, xmm0", "addps xmm0, xmm1", "movhlps xmm0, xmm1", "shufps xmm0, xmm1, 0x4e", "cvtdq2ps xmm0, xmm1",
}

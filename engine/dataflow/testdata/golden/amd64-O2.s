	.file	"golden-src.c"
	.text
	.p2align 4
	.globl	sum_loop
	.type	sum_loop, @function
sum_loop:
	testq	%rdi, %rdi
	jle	.L4
	leaq	(%rdi,%rdi,2), %rcx
	xorl	%eax, %eax
	xorl	%edx, %edx
	.p2align 4,,10
	.p2align 3
.L3:
	addq	%rax, %rdx
	addq	$3, %rax
	cmpq	%rcx, %rax
	jne	.L3
	movq	%rdx, %rax
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	xorl	%edx, %edx
	movq	%rdx, %rax
	ret
	.size	sum_loop, .-sum_loop
	.p2align 4
	.globl	classify
	.type	classify, @function
classify:
	movl	$1, %eax
	cmpl	$-10, %edi
	jl	.L7
	testl	%edi, %edi
	js	.L10
	movl	$3, %eax
	je	.L7
	xorl	%eax, %eax
	cmpl	$100, %edi
	setg	%al
	addl	$4, %eax
	ret
	.p2align 4,,10
	.p2align 3
.L10:
	movl	$2, %eax
.L7:
	ret
	.size	classify, .-classify
	.p2align 4
	.globl	scalars
	.type	scalars, @function
scalars:
	movl	%edi, %eax
	leal	(%rdi,%rsi), %edx
	subl	%esi, %eax
	imull	%edx, %eax
	movl	%eax, %ecx
	subl	%edx, %ecx
	cmpl	$10, %eax
	cmovg	%ecx, %eax
	ret
	.size	scalars, .-scalars
	.p2align 4
	.globl	caller
	.type	caller, @function
caller:
	pushq	%rbx
	leal	(%rdi,%rdi,2), %ebx
	movl	$4, %ecx
	movl	$3, %edx
	pushq	%rbx
	movl	$6, %r9d
	movl	$5, %r8d
	movl	$2, %esi
	pushq	$7
	movl	$1, %edi
	call	consume
	popq	%rdx
	popq	%rcx
	addl	%ebx, %eax
	popq	%rbx
	ret
	.size	caller, .-caller
	.section	.note.GNU-stack,"",@progbits

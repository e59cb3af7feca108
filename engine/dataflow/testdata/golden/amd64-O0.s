	.file	"golden-src.c"
	.text
	.globl	sum_loop
	.type	sum_loop, @function
sum_loop:
	pushq	%rbp
	movq	%rsp, %rbp
	movq	%rdi, -24(%rbp)
	movq	$0, -8(%rbp)
	movq	$0, -16(%rbp)
	jmp	.L2
.L3:
	movq	-16(%rbp), %rdx
	movq	%rdx, %rax
	addq	%rax, %rax
	addq	%rdx, %rax
	addq	%rax, -8(%rbp)
	addq	$1, -16(%rbp)
.L2:
	movq	-16(%rbp), %rax
	cmpq	-24(%rbp), %rax
	jl	.L3
	movq	-8(%rbp), %rax
	popq	%rbp
	ret
	.size	sum_loop, .-sum_loop
	.globl	classify
	.type	classify, @function
classify:
	pushq	%rbp
	movq	%rsp, %rbp
	movl	%edi, -4(%rbp)
	cmpl	$-10, -4(%rbp)
	jge	.L6
	movl	$1, %eax
	jmp	.L7
.L6:
	cmpl	$0, -4(%rbp)
	jns	.L8
	movl	$2, %eax
	jmp	.L7
.L8:
	cmpl	$0, -4(%rbp)
	jne	.L9
	movl	$3, %eax
	jmp	.L7
.L9:
	cmpl	$100, -4(%rbp)
	jg	.L10
	movl	$4, %eax
	jmp	.L7
.L10:
	movl	$5, %eax
.L7:
	popq	%rbp
	ret
	.size	classify, .-classify
	.globl	scalars
	.type	scalars, @function
scalars:
	pushq	%rbp
	movq	%rsp, %rbp
	movl	%edi, -20(%rbp)
	movl	%esi, -24(%rbp)
	movl	-20(%rbp), %edx
	movl	-24(%rbp), %eax
	addl	%edx, %eax
	movl	%eax, -8(%rbp)
	movl	-20(%rbp), %eax
	subl	-24(%rbp), %eax
	movl	%eax, -12(%rbp)
	movl	-8(%rbp), %eax
	imull	-12(%rbp), %eax
	movl	%eax, -4(%rbp)
	cmpl	$10, -4(%rbp)
	jle	.L12
	movl	-8(%rbp), %eax
	subl	%eax, -4(%rbp)
.L12:
	movl	-4(%rbp), %eax
	popq	%rbp
	ret
	.size	scalars, .-scalars
	.globl	caller
	.type	caller, @function
caller:
	pushq	%rbp
	movq	%rsp, %rbp
	subq	$32, %rsp
	movl	%edi, -20(%rbp)
	movl	-20(%rbp), %edx
	movl	%edx, %eax
	addl	%eax, %eax
	addl	%edx, %eax
	movl	%eax, -4(%rbp)
	movl	-4(%rbp), %eax
	pushq	%rax
	pushq	$7
	movl	$6, %r9d
	movl	$5, %r8d
	movl	$4, %ecx
	movl	$3, %edx
	movl	$2, %esi
	movl	$1, %edi
	call	consume
	addq	$16, %rsp
	movl	%eax, -8(%rbp)
	movl	-8(%rbp), %edx
	movl	-4(%rbp), %eax
	addl	%edx, %eax
	leave
	ret
	.size	caller, .-caller
	.section	.note.GNU-stack,"",@progbits

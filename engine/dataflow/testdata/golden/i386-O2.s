	.file	"golden-src.c"
	.text
	.p2align 4
	.globl	sum_loop
	.type	sum_loop, @function
sum_loop:
	movl	4(%esp), %eax
	testl	%eax, %eax
	jle	.L4
	leal	(%eax,%eax,2), %ecx
	xorl	%edx, %edx
	xorl	%eax, %eax
	.p2align 4,,10
	.p2align 3
.L3:
	addl	%eax, %edx
	addl	$3, %eax
	cmpl	%ecx, %eax
	jne	.L3
	movl	%edx, %eax
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	xorl	%edx, %edx
	movl	%edx, %eax
	ret
	.size	sum_loop, .-sum_loop
	.p2align 4
	.globl	classify
	.type	classify, @function
classify:
	movl	4(%esp), %edx
	movl	$1, %eax
	cmpl	$-10, %edx
	jl	.L7
	testl	%edx, %edx
	js	.L10
	movl	$3, %eax
	je	.L7
	xorl	%eax, %eax
	cmpl	$100, %edx
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
	movl	8(%esp), %ecx
	movl	4(%esp), %eax
	leal	(%eax,%ecx), %edx
	subl	%ecx, %eax
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
	pushl	%ebx
	subl	$8, %esp
	movl	16(%esp), %eax
	leal	(%eax,%eax,2), %ebx
	pushl	%ebx
	pushl	$7
	pushl	$6
	pushl	$5
	pushl	$4
	pushl	$3
	pushl	$2
	pushl	$1
	call	consume
	addl	$40, %esp
	addl	%ebx, %eax
	popl	%ebx
	ret
	.size	caller, .-caller
	.section	.note.GNU-stack,"",@progbits

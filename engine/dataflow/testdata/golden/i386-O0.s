	.file	"golden-src.c"
	.text
	.globl	sum_loop
	.type	sum_loop, @function
sum_loop:
	pushl	%ebp
	movl	%esp, %ebp
	subl	$16, %esp
	movl	$0, -4(%ebp)
	movl	$0, -8(%ebp)
	jmp	.L2
.L3:
	movl	-8(%ebp), %edx
	movl	%edx, %eax
	addl	%eax, %eax
	addl	%edx, %eax
	addl	%eax, -4(%ebp)
	addl	$1, -8(%ebp)
.L2:
	movl	-8(%ebp), %eax
	cmpl	8(%ebp), %eax
	jl	.L3
	movl	-4(%ebp), %eax
	leave
	ret
	.size	sum_loop, .-sum_loop
	.globl	classify
	.type	classify, @function
classify:
	pushl	%ebp
	movl	%esp, %ebp
	cmpl	$-10, 8(%ebp)
	jge	.L6
	movl	$1, %eax
	jmp	.L7
.L6:
	cmpl	$0, 8(%ebp)
	jns	.L8
	movl	$2, %eax
	jmp	.L7
.L8:
	cmpl	$0, 8(%ebp)
	jne	.L9
	movl	$3, %eax
	jmp	.L7
.L9:
	cmpl	$100, 8(%ebp)
	jg	.L10
	movl	$4, %eax
	jmp	.L7
.L10:
	movl	$5, %eax
.L7:
	popl	%ebp
	ret
	.size	classify, .-classify
	.globl	scalars
	.type	scalars, @function
scalars:
	pushl	%ebp
	movl	%esp, %ebp
	subl	$16, %esp
	movl	8(%ebp), %edx
	movl	12(%ebp), %eax
	addl	%edx, %eax
	movl	%eax, -8(%ebp)
	movl	8(%ebp), %eax
	subl	12(%ebp), %eax
	movl	%eax, -12(%ebp)
	movl	-8(%ebp), %eax
	imull	-12(%ebp), %eax
	movl	%eax, -4(%ebp)
	cmpl	$10, -4(%ebp)
	jle	.L12
	movl	-8(%ebp), %eax
	subl	%eax, -4(%ebp)
.L12:
	movl	-4(%ebp), %eax
	leave
	ret
	.size	scalars, .-scalars
	.globl	caller
	.type	caller, @function
caller:
	pushl	%ebp
	movl	%esp, %ebp
	subl	$24, %esp
	movl	8(%ebp), %edx
	movl	%edx, %eax
	addl	%eax, %eax
	addl	%edx, %eax
	movl	%eax, -12(%ebp)
	pushl	-12(%ebp)
	pushl	$7
	pushl	$6
	pushl	$5
	pushl	$4
	pushl	$3
	pushl	$2
	pushl	$1
	call	consume
	addl	$32, %esp
	movl	%eax, -16(%ebp)
	movl	-16(%ebp), %edx
	movl	-12(%ebp), %eax
	addl	%edx, %eax
	leave
	ret
	.size	caller, .-caller
	.section	.note.GNU-stack,"",@progbits

/* SPDX-License-Identifier: MIT */
/*
 * host_regs_run: hold known values in the FP/vector registers across raw
 * syscalls, then store what the registers hold. Nothing but the steps below
 * runs between the load and the store: compiled code and glibc may clobber
 * vector registers (VZEROUPPER, memcpy), so none is called.
 *
 * struct host_run (cli/host/host_cpu.h): regset 0, fill 8, dump 16, steps 24,
 * sys_ret 32, xgetbv1 40. struct host_regs: st 0 (16 bytes each), zmm 128
 * (64 bytes each), k 2176, xinuse 2240. struct host_step (56 bytes): kind 0,
 * nr 8, arg 16/24/32/40, expect 48.
 */
#define REGSET_X87 1
#define REGSET_SSE 2
#define REGSET_AVX 3
#define REGSET_AVX512 4
#define SYS_FUTEX 202
#define EINTR 4

	.text
	.globl host_regs_run
	.type host_regs_run, @function
host_regs_run:
	push %rbx
	push %rbp
	push %r12
	push %r13
	push %r14
	push %r15
	mov %rdi, %r12
	mov 0(%r12), %rbx
	mov 8(%r12), %rsi
	test %rbx, %rbx
	jz host_regs_window_start

	fninit				/* an empty x87 stack: eight loads do not overflow */
	.irp i, 7, 6, 5, 4, 3, 2, 1, 0	/* ST(0) = st[0] */
	fldt \i*16(%rsi)
	.endr
	cmp $REGSET_SSE, %rbx
	jb host_regs_window_start
	cmp $REGSET_AVX, %rbx
	jae 1f
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	movdqu 128+\i*64(%rsi), %xmm\i
	.endr
	jmp host_regs_window_start
1:	cmp $REGSET_AVX512, %rbx
	jae 2f
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	vmovdqu 128+\i*64(%rsi), %ymm\i
	.endr
	jmp host_regs_window_start
2:	.irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	vmovdqu64 128+\i*64(%rsi), %zmm\i
	.endr
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	kmovq 2176+\i*8(%rsi), %k\i
	.endr

	/* Every register of the set is loaded from here to host_regs_window_end. */
	.globl host_regs_window_start
host_regs_window_start:
	mov 24(%r12), %r13		/* the step */
	xor %r14, %r14			/* its index */
.Lstep:
	mov 0(%r13), %rax
	cmp $0, %rax
	je .Ldone
	cmp $1, %rax
	je .Lsyscall
	cmp $2, %rax
	je .Lstore32
	cmp $3, %rax
	je .Lfutex_wait
	/* 4: spin */
	mov 16(%r13), %rcx
	test %rcx, %rcx
	jz .Lnext
3:	pause
	dec %rcx
	jnz 3b
	jmp .Lnext
.Lsyscall:
	mov 8(%r13), %rax
	mov 16(%r13), %rdi
	mov 24(%r13), %rsi
	mov 32(%r13), %rdx
	mov 40(%r13), %r10
	syscall
	cmp $-EINTR, %rax
	je .Lsyscall
	mov 48(%r13), %rcx
	cmp %rcx, %rax
	je .Lnext
	cmp $-4096, %rcx		/* expect below -4095: any non-negative result */
	jge .Lfail
	test %rax, %rax
	js .Lfail
	jmp .Lnext
.Lstore32:
	mov 16(%r13), %rdi
	mov 24(%r13), %eax
	mov %eax, (%rdi)
	jmp .Lnext
.Lfutex_wait:
	mov 16(%r13), %rdi
	mov (%rdi), %eax
	cmp 24(%r13), %eax
	jne .Lnext
	mov $SYS_FUTEX, %eax
	mov 32(%r13), %rsi
	mov 24(%r13), %rdx
	xor %r10, %r10
	syscall				/* 0, -EAGAIN or -EINTR: look at the word again */
	jmp .Lfutex_wait
.Lnext:
	add $56, %r13
	inc %r14
	jmp .Lstep
.Lfail:
	mov %rax, 32(%r12)
	lea 1(%r14), %r15
	jmp host_regs_window_end
.Ldone:
	xor %r15, %r15

	.globl host_regs_window_end
host_regs_window_end:
	mov 16(%r12), %rdi
	xor %eax, %eax
	xor %edx, %edx
	cmpq $0, 40(%r12)
	je 4f
	mov $1, %ecx
	xgetbv				/* XINUSE, before the stores below change anything */
4:	shl $32, %rdx
	or %rdx, %rax
	mov %rax, 2240(%rdi)
	test %rbx, %rbx
	jz .Lret
	cmp $REGSET_SSE, %rbx
	jb .Lst_x87
	cmp $REGSET_AVX, %rbx
	jae 5f
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	movdqu %xmm\i, 128+\i*64(%rdi)
	.endr
	jmp .Lst_x87
5:	cmp $REGSET_AVX512, %rbx
	jae 6f
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	vmovdqu %ymm\i, 128+\i*64(%rdi)
	.endr
	vzeroupper
	jmp .Lst_x87
6:	.irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	vmovdqu64 %zmm\i, 128+\i*64(%rdi)
	.endr
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	kmovq %k\i, 2176+\i*8(%rdi)
	.endr
	vzeroupper
.Lst_x87:
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7	/* pops: the x87 stack is empty again */
	fstpt \i*16(%rdi)
	.endr
.Lret:
	mov %r15, %rax
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbp
	pop %rbx
	ret
	.size host_regs_run, . - host_regs_run

	.section .note.GNU-stack, "", @progbits

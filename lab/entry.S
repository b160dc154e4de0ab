/* SPDX-License-Identifier: MIT */
/*
 * Kernel entries: interrupt/exception stubs, SYSCALL, the one return path
 * to any ring (trap_return), and the kernel-stack switch.
 *
 * Every entry builds a struct trap_frame (trap.h) on the kernel stack.
 * GS: the kernel's GS base points at its struct cpu; on entry from ring 3
 * SWAPGS exchanges it with the user's (zero) base, and again on the way out.
 */
#include "layout.h"

.macro PUSH_REGS
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
.endm

.macro POP_REGS
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
.endm

/* 256 stubs, 16 bytes apart: isr_stubs + 16 * vector. */
	.text
	.p2align 4
	.globl isr_stubs
isr_stubs:
vector = 0
.rept 256
	.p2align 4
	/* The CPU pushes an error code for #DF, #TS, #NP, #SS, #GP, #PF, #AC, #CP, #VC, #SX. */
	.if vector == 8 || (vector >= 10 && vector <= 14) || vector == 17 || vector == 21 || vector == 29 || vector == 30
	.else
	pushq $0
	.endif
	pushq $vector
	jmp isr_common
vector = vector + 1
.endr

isr_common:
	cld
	testb $3, 24(%rsp)		/* CS of the interrupted context */
	jz 1f
	swapgs
1:	PUSH_REGS
	movq %rsp, %rdi
	call trap_dispatch

	.globl trap_return
trap_return:
	POP_REGS
	testb $3, 24(%rsp)
	jz 2f
	swapgs
2:	addq $16, %rsp			/* vector, error code */
	iretq

/*
 * SYSCALL: RCX = user RIP, R11 = user RFLAGS, interrupts masked by FMASK.
 * Build the same frame an interrupt from ring 3 would, and leave by IRETQ.
 */
	.globl syscall_entry
syscall_entry:
	swapgs
	movq %rsp, %gs:CPU_OFF_USER_RSP
	movq %gs:CPU_OFF_KSTACK, %rsp
	pushq $USER_DS
	pushq %gs:CPU_OFF_USER_RSP
	pushq %r11
	pushq $USER_CS
	pushq %rcx
	pushq $0
	pushq $-1			/* vector: not an interrupt */
	PUSH_REGS
	movq %rsp, %rdi
	call syscall_dispatch
	jmp trap_return

/*
 * struct task *switch_stacks(struct task *prev, struct task *next)
 * Saves callee-saved registers on prev's kernel stack, stores RSP in
 * prev->ksp (offset 0), and resumes next. Returns prev, on next's stack.
 */
	.globl switch_stacks
switch_stacks:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq (%rsi), %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	movq %rdi, %rax
	ret

/* First run of a new task: switch_stacks "returns" here with RAX = prev. */
	.globl user_task_start, kthread_start
user_task_start:
	movq %rax, %rdi
	call task_first_run
	jmp trap_return

kthread_start:
	movq %rax, %rdi
	call task_first_run
	call kthread_body		/* does not return */
	ud2

	.section .note.GNU-stack, "", @progbits

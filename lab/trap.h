/* SPDX-License-Identifier: MIT */
#ifndef LAB_TRAP_H
#define LAB_TRAP_H

#include <stdint.h>

/* What entry.S pushes, lowest address first. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

static inline int from_user(const struct trap_frame *f)
{
	return (f->cs & 3) == 3;
}

void trap_dispatch(struct trap_frame *f);
void syscall_dispatch(struct trap_frame *f);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * kernel-checksum, ring 3 (seed 002: "the AVX based checksumming function
 * inside the kernel"). The task has the kernel checksum one buffer again and
 * again, and compares every result with the integer reference computed
 * here once: a mismatch is an integrity error. An FP user (fp) keeps an XMM
 * pattern across each call and checks it after, so kernel_fpu_begin() must
 * save its live state and the policy must give it back.
 */
#include "../csum.h"
#include "../exp.h"
#include "ulib.h"

void kcsum_main(void *p)
{
	const struct kcsum_args *a = p;
	uint64_t want = csum64_ref(a->buf, a->bytes), total = a->warmup + a->calls, seq = 0;

	if (a->fp)
		regs_write(REGSET_SSE, a->task, seq);
	for (uint64_t i = 0; i < total; i++) {
		if (i == a->warmup)
			sys_mark(MARK_START);
		uint64_t got = sys_kernel_csum_impl(a->buf, a->bytes, a->impl);
		if (got != want) {
			struct integrity_report r = { .count = 1,
						      .task = a->task,
						      .regset = REPORT_CSUM,
						      .expected = want,
						      .got = got };
			sys_integrity(&r);
		}
		if (a->fp) {
			regs_check(REGSET_SSE, a->task, seq);
			regs_write(REGSET_SSE, a->task, ++seq);
		}
	}
	sys_mark(MARK_END);
}

/* SPDX-License-Identifier: MIT */
/* Where a replay run first found a task's registers wrong, said on stderr (docs/model.md). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "replay.h"

/* The names of the components in @bits (XCR0 bits), joined with ", ". */
static void component_names(uint32_t bits, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (uint32_t b = 1; b && n < len; b <<= 1)
		if (bits & b)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      replay_component_name(b));
}

/*
 * Under AddressSanitizer the replay's own memory copies between hooks go
 * through its interceptors to libc's EVEX string routines on an AVX-512 CPU,
 * which leave k1 a tail mask (0x00ffffffffffffff) and use XMM16-31: the
 * registers a task left are then wrong whatever the policy (seen on the
 * Intel machine, every policy, 2026-12-06).
 */
#if defined(__SANITIZE_ADDRESS__)
#define REPLAY_SANITIZER_NOTE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REPLAY_SANITIZER_NOTE 1
#endif
#endif

static void say_sanitizer(void)
{
#ifdef REPLAY_SANITIZER_NOTE
	static bool said;
	if (said)
		return;
	said = true;
	fprintf(stderr,
		"fpulab replay: this fpulab is built with AddressSanitizer, whose runtime "
		"uses vector and opmask registers between the replay's hooks: its integrity "
		"errors need not be libfpu's (SANITIZE=undefined does not touch them)\n");
#endif
}

int replay_say_integrity(const struct trace_replay *tr, const char *policy, const char *what,
			 unsigned long k, const struct replay_result *r)
{
	const struct replay_integrity *f = &r->first;
	bool lower = tr->t.lx && tr->t.lx->fp_use == FPULAB_FP_USE_EVIDENCE;
	char wrong[256];

	if (!r->n.integrity_errors)
		return 0;
	say_sanitizer();
	fprintf(stderr,
		"fpulab replay: %s%s: %s, %s %lu: %" PRIu64
		" integrity errors; the first at event %" PRIu64 " (seq %" PRIu32
		"), a use by task %" PRIu32 " on cpu %" PRIu32 ": ",
		tr->path, lower ? " (evidence bound)" : "", policy, what, k + 1,
		r->n.integrity_errors, f->event, f->seq, f->task, f->cpu);
	if (!f->components) {
		fprintf(stderr, "%s\n", replay_component_name(0));
		return 1;
	}
	component_names(f->components, wrong, sizeof(wrong));
	fprintf(stderr, "%s holds 0x%016" PRIx64 ", the task wrote 0x%016" PRIx64 " (wrong: %s)\n",
		replay_component_name(f->component), f->got, f->want, wrong);
	return 1;
}

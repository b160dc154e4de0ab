/* SPDX-License-Identifier: MIT */
/*
 * Replay the committed import corpus through the fuzz target, as TAP: each
 * file through every kernel buffer and both paths (import, signal frame),
 * which must not fault; and through the host's own buffer, where a file's
 * name gives its expected verdict: ok-* accepted, bad-<class>-*
 * rejected with that class; any other name only must not crash. A component
 * this host lacks turns an expected accept (or a later-checked class) into
 * an XSTATE_BV rejection, as xstate_import_std() checks XSTATE_BV first; an
 * image shorter than this host's standard format for its XSTATE_BV, into a
 * short one: the offsets are the CPU's (CPUID 0xD), and an AMD image of
 * AVX-512 (2432 bytes) ends before Intel's ZMM registers do (2688).
 */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fpu/xstate.h>

#include "fuzz_import.h"

#ifndef CORPUS_DIR
#define CORPUS_DIR "tests/fuzz/corpus/import"
#endif

#define ANY 1 /* no expectation beyond "does not crash" */

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

__attribute__((noinline)) static int expected(const char *name, const unsigned char *d, size_t len)
{
	static const struct {
		const char *prefix;
		int err;
	} classes[] = {
		{ "ok-", XSTATE_OK },
		{ "bad-short-", XSTATE_E_SHORT },
		{ "bad-xstate_bv-", XSTATE_E_XSTATE_BV },
		{ "bad-xcomp_bv-", XSTATE_E_XCOMP_BV },
		{ "bad-reserved-", XSTATE_E_RESERVED },
		{ "bad-mxcsr-", XSTATE_E_MXCSR },
		{ "bad-component-", XSTATE_E_COMPONENT },
	};
	int err = ANY;

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!strncmp(name, classes[i].prefix, strlen(classes[i].prefix)))
			err = classes[i].err;
	if (err != ANY && len >= XSTATE_EXT_OFFSET) {
		uint64_t bv;
		memcpy(&bv, d + XSTATE_HEADER_OFFSET, 8);
		if (bv & ~xstate_cfg.xcr0)
			err = XSTATE_E_XSTATE_BV;
		else if (err != XSTATE_E_SHORT && len < xstate_size_standard(bv))
			err = XSTATE_E_SHORT;
	}
	return err;
}

static int regular(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : CORPUS_DIR;
	struct dirent **list;
	int n = scandir(dir, &list, regular, alphasort), failed = 0;
	struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_NODEFER };
	static unsigned char buf[1 << 20];

	if (n <= 0) {
		printf("1..1\nnot ok 1 - corpus %s is empty or unreadable\n", dir);
		return 1;
	}
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGTRAP, &sa, NULL);
	fuzz_import_one((const uint8_t *)"", 0); /* initialise libfpu before expectations */
	printf("1..%d\n", n);
	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		char path[4096];
		FILE *f;
		size_t len;
		int sig, want;
		volatile int err;

		snprintf(path, sizeof(path), "%s/%s", dir, name);
		f = fopen(path, "rb");
		if (!f) {
			printf("not ok %d - %s (unreadable)\n", i + 1, name);
			failed++;
			continue;
		}
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		want = expected(name, buf, len);
		sig = sigsetjmp(fault_jmp, 1);
		if (sig) {
			printf("not ok %d - %s (signal %d: %s)\n", i + 1, name, sig,
			       strsignal(sig));
			failed++;
			continue;
		}
		/* Every kernel buffer and both paths: no fault, accepted images restore. */
		for (unsigned int sel = 0; sel < 0x20; sel++)
			if ((sel & 0xf) < 4)
				fuzz_one(sel, buf, len);
		err = fuzz_import_one(buf, len);
		if (want != ANY && err != want) {
			printf("not ok %d - %s (got \"%s\", want \"%s\")\n", i + 1, name,
			       xstate_strerror(err), xstate_strerror(want));
			failed++;
			continue;
		}
		printf("ok %d - %s%s%s\n", i + 1, name, err ? " # rejected: " : "",
		       err ? xstate_strerror(err) : "");
	}
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return failed ? 1 : 0;
}

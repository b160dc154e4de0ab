/* SPDX-License-Identifier: MIT */
/*
 * Replay the importer's fuzz corpus through its target, as TAP: every file
 * of tests/fuzz/corpus/perf_import (a selector byte, then perf script
 * text; ok-* must import, bad-* must be refused) and every excerpt of
 * tests/cli/fixtures/linux (text alone, under each selector: it must not
 * fault and must keep the target's invariants).
 */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_perf_import.h"

#ifndef CORPUS_DIR
#define CORPUS_DIR "tests/fuzz/corpus/perf_import"
#endif
#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/cli/fixtures/linux"
#endif

static sigjmp_buf fault_jmp;
static int n, failed;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

static int regular(const struct dirent *e)
{
	return e->d_name[0] != '.' && strcmp(e->d_name, "README");
}

/* One file: @sel the selector to put first, or -1 (the file has its own). */
static void one(const char *dir, const char *name, int sel)
{
	static unsigned char buf[1 << 20];
	char path[4096], err[1024];
	static size_t len;
	volatile int rc;
	int sig;
	FILE *f;

	len = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (sel >= 0)
		buf[len++] = (unsigned char)sel;
	if (f) {
		len += fread(buf + len, 1, sizeof(buf) - len, f);
		fclose(f);
	}
	n++;
	sig = sigsetjmp(fault_jmp, 1);
	if (!f || sig) {
		printf("not ok %d - %s (%s)\n", n, name, f ? strsignal(sig) : "unreadable");
		failed++;
		return;
	}
	rc = fuzz_perf_import_one(buf, len, err, sizeof(err));
	if ((!strncmp(name, "ok-", 3) && rc) || (!strncmp(name, "bad-", 4) && !rc)) {
		printf("not ok %d - %s (%s)\n", n, name, rc ? err : "imported, should be refused");
		failed++;
		return;
	}
	printf("ok %d - %s", n, name);
	if (sel >= 0)
		printf(" (selector %d)", sel);
	printf("%s%s\n", rc ? " # refused: " : "", rc ? err : "");
}

static void each(const char *dir, int selectors)
{
	struct dirent **list;
	int k = scandir(dir, &list, regular, alphasort);

	if (k <= 0) {
		printf("not ok %d - %s is empty or unreadable\n", ++n, dir);
		failed++;
		return;
	}
	for (int i = 0; i < k; i++) {
		for (int sel = 0; sel < (selectors ? 4 : 1); sel++)
			one(dir, list[i]->d_name, selectors ? sel : -1);
		free(list[i]);
	}
	free(list);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_NODEFER };

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	each(argc > 1 ? argv[1] : CORPUS_DIR, 0);
	each(argc > 2 ? argv[2] : FIXTURES_DIR, 1);
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}

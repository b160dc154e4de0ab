/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the Linux importer (cli/trace/perf_*.c), and the
 * engine of its corpus replay (replay_perf_import.c). An input is one
 * selector byte (bit 0: --fp-use evidence, bit 1: --strict) and perf
 * script text. Whatever the text, the importer must not fault, must not
 * leak, and must either write a trace that trace_read() accepts (it checks
 * every event again) or refuse with a message and leave no file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/perf_import.h"
#include "trace/trace_io.h"

#include "fuzz_perf_import.h"

int fuzz_perf_import_one(const uint8_t *data, size_t len, char *err, size_t errlen)
{
	struct perf_import_opts o = { .fp_use = FPULAB_FP_USE_EVERY_RETURN };
	struct perf_import_result *r = malloc(sizeof(*r));
	char path[64];
	struct trace t;
	FILE *in;
	int rc;

	err[0] = '\0';
	if (len && (data[0] & 1))
		o.fp_use = FPULAB_FP_USE_EVIDENCE;
	o.strict = len && (data[0] & 2);
	in = fmemopen(len > 1 ? (void *)(data + 1) : (void *)"", len > 1 ? len - 1 : 0, "r");
	if (!in || !r)
		abort();
	snprintf(path, sizeof(path), "/tmp/fuzz-perf-import-%d.trace", (int)getpid());
	rc = perf_import_stream(in, path, &o, r, err, errlen);
	fclose(in);
	if (rc) {
		if (!err[0] || !access(path, F_OK))
			abort(); /* a refusal says why and leaves nothing */
	} else {
		char msg[512];
		if (trace_read(path, &t, msg, sizeof(msg)))
			abort(); /* the importer wrote what the reader refuses */
		if (t.hdr.nevents != r->hdr.nevents || !t.lx ||
		    t.lx->activations != r->lx.activations)
			abort();
		trace_free(&t);
		unlink(path);
	}
	free(r);
	return rc;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024];

	fuzz_perf_import_one(data, size, err, sizeof(err));
	return 0;
}
#endif

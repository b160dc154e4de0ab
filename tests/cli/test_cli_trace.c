/* SPDX-License-Identifier: MIT */
/* Unit tests of the trace format: synthesis, write/read round trip, the checker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace/trace_io.h"

static char path[64];

static void tmp_path(void)
{
	snprintf(path, sizeof(path), "/tmp/fpulab-test-trace-%d", (int)getpid());
}

/* Every workload: synthesised, checked, written, read back byte for byte. */
static void test_round_trip(void **state)
{
	char err[256];

	tmp_path();
	for (int i = 0; trace_workloads()[i]; i++) {
		struct trace a, b;
		assert_int_equal(
			trace_synth(trace_workloads()[i], 500, 7, 0xe7, &a, err, sizeof(err)), 0);
		assert_int_equal(trace_check(&a, err, sizeof(err)), 0);
		assert_true(a.hdr.nevents >= 500); /* at least one event per switch */
		assert_int_equal(trace_write(path, &a, err, sizeof(err)), 0);
		assert_int_equal(trace_read(path, &b, err, sizeof(err)), 0);
		assert_memory_equal(&a.hdr, &b.hdr, sizeof(a.hdr));
		assert_memory_equal(a.ev, b.ev, a.hdr.nevents * sizeof(*a.ev));
		assert_string_equal(b.hdr.workload, trace_workloads()[i]);
		trace_free(&a);
		trace_free(&b);
	}
	unlink(path);
}

static uint64_t count(const struct trace *t, unsigned int type)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < t->hdr.nevents; i++)
		n += t->ev[i].type == type;
	return n;
}

/* Same seed, same trace; another seed, another trace; the workloads' shapes. */
static void test_synth_shapes(void **state)
{
	struct trace a, b;
	char err[256];

	assert_int_equal(trace_synth("build", 2000, 3, 0x7, &a, err, sizeof(err)), 0);
	assert_int_equal(trace_synth("build", 2000, 3, 0x7, &b, err, sizeof(err)), 0);
	assert_int_equal(a.hdr.nevents, b.hdr.nevents);
	assert_memory_equal(a.ev, b.ev, a.hdr.nevents * sizeof(*a.ev));
	trace_free(&b);
	assert_int_equal(trace_synth("build", 2000, 4, 0x7, &b, err, sizeof(err)), 0);
	assert_true(a.hdr.nevents != b.hdr.nevents ||
		    memcmp(a.ev, b.ev, a.hdr.nevents * sizeof(*a.ev)));
	assert_int_equal(count(&a, FPULAB_EV_SWITCH), 2000);
	assert_true(count(&a, FPULAB_EV_MIGRATE) > 0);
	trace_free(&a);
	trace_free(&b);

	/* pingpong-both: strictly alternating, one use per switch, every mask bit of xcr0 & 0xe7 */
	assert_int_equal(trace_synth("pingpong-both", 10, 1, 0x7, &a, err, sizeof(err)), 0);
	assert_int_equal(a.hdr.nevents, 20);
	assert_int_equal(a.hdr.ncpus, 1);
	assert_int_equal(a.ev[0].type, FPULAB_EV_SWITCH);
	assert_int_equal(a.ev[0].task, 0);
	assert_int_equal(a.ev[1].type, FPULAB_EV_USE);
	assert_int_equal(a.ev[1].task, a.ev[0].arg);
	assert_int_equal(a.ev[1].mask, 0x7);
	assert_int_equal(a.ev[2].task, a.ev[0].arg);
	assert_int_equal(a.ev[2].arg, 3 - a.ev[0].arg);
	trace_free(&a);

	/* pingpong-one: exactly one use per round trip */
	assert_int_equal(trace_synth("pingpong-one", 100, 1, 0xe7, &a, err, sizeof(err)), 0);
	assert_int_equal(count(&a, FPULAB_EV_USE), 50);
	trace_free(&a);

	/* migrating: 4 switches and 2 migrations per round trip (after the first) */
	assert_int_equal(trace_synth("migrating", 40, 1, 0x7, &a, err, sizeof(err)), 0);
	assert_int_equal(count(&a, FPULAB_EV_SWITCH), 40);
	assert_int_equal(count(&a, FPULAB_EV_MIGRATE), 18);
	assert_int_equal(count(&a, FPULAB_EV_USE), 10);
	trace_free(&a);

	assert_int_equal(trace_synth("nonesuch", 10, 1, 0x7, &a, err, sizeof(err)), -1);
	assert_string_equal(err, "no workload 'nonesuch'");
}

static struct fpulab_trace_event ev(uint32_t seq, unsigned int type, unsigned int cpu,
				    unsigned int task, unsigned int arg)
{
	return (struct fpulab_trace_event){ .seq = seq,
					    .type = (uint8_t)type,
					    .cpu = (uint8_t)cpu,
					    .task = (uint16_t)task,
					    .arg = (uint16_t)arg,
					    .mask = type == FPULAB_EV_USE ? 3 : 0 };
}

static void header(struct trace *t, unsigned int version, uint64_t nevents)
{
	memcpy(t->hdr.magic, FPULAB_TRACE_MAGIC, 8);
	t->hdr.version = (uint16_t)version;
	t->hdr.header_size = 64;
	t->hdr.event_size = 16;
	t->hdr.ncpus = 2;
	t->hdr.ntasks = 2;
	t->hdr.nevents = nevents;
	t->hdr.xcr0 = 7;
}

static int check_two(struct fpulab_trace_event e0, struct fpulab_trace_event e1, char *err)
{
	struct fpulab_trace_event e[2] = { e0, e1 };
	struct trace t = { .ev = e };

	memcpy(t.hdr.magic, FPULAB_TRACE_MAGIC, 8);
	t.hdr.version = FPULAB_TRACE_VERSION;
	t.hdr.header_size = 64;
	t.hdr.event_size = 16;
	t.hdr.ncpus = 2;
	t.hdr.ntasks = 2;
	t.hdr.nevents = 2;
	t.hdr.xcr0 = 7;
	return trace_check(&t, err, 256);
}

static void test_check_rejects(void **state)
{
	char err[256];

	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), ev(2, 2, 0, 1, 0), err), 0);
	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), ev(1, 2, 0, 1, 0), err), -1);
	assert_string_equal(err, "event 1: seq 1 not above 1");
	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), ev(2, 2, 1, 1, 0), err), -1);
	assert_string_equal(err, "event 1 (seq 2, use): use by task 1, but cpu 1 runs task 0");
	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), ev(2, 1, 1, 0, 1), err), -1);
	assert_string_equal(err, "event 1 (seq 2, switch): task 1 already runs on cpu 0");
	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), ev(2, 1, 0, 2, 0), err), -1);
	assert_string_equal(err,
			    "event 1 (seq 2, switch): switch from task 2, but cpu 0 runs task 1");
	assert_int_equal(check_two(ev(1, 1, 2, 0, 1), ev(2, 1, 0, 0, 0), err), -1);
	assert_string_equal(err, "event 0 (seq 1, switch): cpu 2, the trace has 2");
	assert_int_equal(check_two(ev(1, 11, 0, 0, 1), ev(2, 1, 0, 0, 0), err), -1);
	assert_string_equal(err, "event 0 (seq 1, ?): unknown type 11");
	assert_int_equal(check_two(ev(1, 4, 0, 0, 0), ev(2, 1, 0, 0, 0), err), -1);
	assert_string_equal(err, "event 0 (seq 1, kfpu-end): kfpu-end without kfpu-begin");
	struct fpulab_trace_event u = ev(2, 2, 0, 1, 0);
	u.mask = 0x8;
	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), u, err), -1);
	assert_string_equal(err, "event 1 (seq 2, use): mask 0x8 outside xcr0 0x7");
	/* an exited task's id may be reused by a new task, only through a switch */
	assert_int_equal(check_two(ev(1, 6, 0, 0, 0), ev(2, 1, 0, 0, 1), err), -1);
	assert_string_equal(err, "event 0 (seq 1, exit): exit of task 0, but cpu 0 runs task 0");
}

/* Version 2's import and reset: accepted where export is, refused where it is not. */
static void test_check_import_reset(void **state)
{
	struct fpulab_trace_event imp = ev(2, FPULAB_EV_IMPORT, 0, 1, 0);
	struct fpulab_trace_event rst = ev(2, FPULAB_EV_RESET, 0, 1, 0);
	char err[256];

	imp.mask = 0x7;
	imp.flags = FPULAB_EVF_SIGFRAME;
	/* the running task on its own CPU (sigreturn), or a task that is not running (ptrace) */
	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), imp, err), 0);
	assert_int_equal(check_two(ev(1, 1, 0, 0, 2), imp, err), 0);
	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), rst, err), 0);
	/* a task running on another CPU: refused, like export */
	imp.cpu = 1;
	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), imp, err), -1);
	assert_string_equal(
		err, "event 1 (seq 2, import): import of task 1 on cpu 1 while it runs on 0");
	rst.cpu = 1;
	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), rst, err), -1);
	assert_string_equal(err,
			    "event 1 (seq 2, reset): reset of task 1 on cpu 1 while it runs on 0");
	imp.cpu = rst.cpu = 0;
	/* task 0, a mask outside xcr0, a reset that installs something, inside kernel FPU */
	imp.task = 0;
	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), imp, err), -1);
	assert_string_equal(err, "event 1 (seq 2, import): import of task 0");
	imp.task = 1;
	imp.mask = 0x20;
	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), imp, err), -1);
	assert_string_equal(err, "event 1 (seq 2, import): mask 0x20 outside xcr0 0x7");
	rst.mask = 0x2;
	assert_int_equal(check_two(ev(1, 1, 0, 0, 1), rst, err), -1);
	assert_string_equal(err,
			    "event 1 (seq 2, reset): reset with mask 0x2: a reset installs init");
	rst.mask = 0;
	imp.mask = 0x3;
	imp.seq = rst.seq = 3;
	struct fpulab_trace_event e[3] = { ev(1, 1, 0, 0, 1), ev(2, FPULAB_EV_KFPU_BEGIN, 0, 1, 0),
					   imp };
	struct trace t = { .ev = e };
	header(&t, FPULAB_TRACE_VERSION, 3);
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "event 2 (seq 3, import): import inside a kernel-FPU section");
	e[2] = rst;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "event 2 (seq 3, reset): reset inside a kernel-FPU section");
	/* after the task's exit: refused as any event but a switch */
	e[1] = ev(2, FPULAB_EV_EXIT, 0, 1, 0);
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "event 2 (seq 3, reset): task 1 after its exit");
}

/* The returned flag (a return to ring 3 before the event): only with the header's
 * returns flag, only while a user task runs there, never on a flush IPI. */
static void test_check_returned(void **state)
{
	struct fpulab_trace_event e[2] = { ev(1, 1, 0, 0, 1), ev(2, FPULAB_EV_USE, 0, 1, 0) };
	struct trace t = { .ev = e };
	char err[256];

	header(&t, FPULAB_TRACE_VERSION, 2);
	t.hdr.flags = FPULAB_TRACE_F_RETURNS;
	e[1].flags = FPULAB_EVF_RETURNED;
	assert_int_equal(trace_check(&t, err, sizeof(err)), 0);
	t.hdr.flags = 0;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "event 1 (seq 2, use): flag returned in a trace without the "
				 "returns flag");
	t.hdr.flags = FPULAB_TRACE_F_RETURNS;
	e[1] = ev(2, FPULAB_EV_FLUSH_IPI, 0, 0, 0);
	e[1].flags = FPULAB_EVF_RETURNED;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "event 1 (seq 2, flush-ipi): a flush-ipi with the returned flag");
	e[1] = ev(2, FPULAB_EV_SWITCH, 1, 0, 2);
	e[1].flags = FPULAB_EVF_RETURNED;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "event 1 (seq 2, switch): returned to ring 3, but cpu 1 runs no "
				 "user task");
	header(&t, 1, 2);
	t.hdr.flags = FPULAB_TRACE_F_RETURNS;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "flag returns in a version-1 trace: it came in version 2");
}

/* A version-1 file still reads (it has no import or reset), but not with a version-2 type. */
static void test_version_1(void **state)
{
	struct fpulab_trace_event e[3] = { ev(1, 1, 0, 0, 1), ev(2, FPULAB_EV_USE, 0, 1, 0),
					   ev(3, FPULAB_EV_EXPORT, 0, 1, 0) };
	struct trace t = { .ev = e }, b;
	char err[256];
	FILE *f;

	tmp_path();
	header(&t, 1, 3);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(&t.hdr, sizeof(t.hdr), 1, f), 1);
	assert_int_equal(fwrite(e, sizeof(e[0]), 3, f), 3);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(trace_read(path, &b, err, sizeof(err)), 0);
	assert_int_equal(b.hdr.version, 1);
	assert_int_equal(b.hdr.nevents, 3);
	assert_memory_equal(b.ev, e, sizeof(e));
	/* written back, it is version 2 with the same events */
	assert_int_equal(trace_write(path, &b, err, sizeof(err)), 0);
	trace_free(&b);
	assert_int_equal(trace_read(path, &b, err, sizeof(err)), 0);
	assert_int_equal(b.hdr.version, 2);
	assert_memory_equal(b.ev, e, sizeof(e));
	trace_free(&b);

	e[2] = ev(3, FPULAB_EV_IMPORT, 0, 1, 0);
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(
		err, "event 2 (seq 3, import): type 9 (import) in a version-1 trace: it came "
		     "in version 2");
	header(&t, 4, 3);
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "trace version 4, this fpulab reads versions 1 to 3");
	header(&t, 0, 3);
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "trace version 0, this fpulab reads versions 1 to 3");
	unlink(path);
}

/* Import and reset survive the round trip through a file, flags and mask included. */
static void test_round_trip_v2(void **state)
{
	struct fpulab_trace_event e[5] = { ev(1, 1, 0, 0, 1), ev(2, FPULAB_EV_RESET, 0, 1, 0),
					   ev(3, FPULAB_EV_IMPORT, 0, 1, 0),
					   ev(4, FPULAB_EV_IMPORT, 1, 2, 0),
					   ev(5, FPULAB_EV_USE, 0, 1, 0) };
	struct trace t = { .ev = e }, b;
	char err[256];

	e[2].mask = 0x7;
	e[2].flags = FPULAB_EVF_SIGFRAME;
	e[3].mask = 0x3;
	tmp_path();
	header(&t, FPULAB_TRACE_VERSION, 5);
	assert_int_equal(trace_write(path, &t, err, sizeof(err)), 0);
	assert_int_equal(trace_read(path, &b, err, sizeof(err)), 0);
	assert_memory_equal(&t.hdr, &b.hdr, sizeof(t.hdr));
	assert_memory_equal(b.ev, e, sizeof(e));
	assert_string_equal(trace_type_name(FPULAB_EV_IMPORT), "import");
	assert_string_equal(trace_type_name(FPULAB_EV_RESET), "reset");
	trace_free(&b);
	unlink(path);
}

/* A Linux block whose sums add up: activations 10 = 6 + 1 + 1 + 1 + 1, deactivations 9. */
static struct fpulab_trace_linux linux_block(void)
{
	return (struct fpulab_trace_linux){ .duration_ns = 1000000,
					    .busy_ns = { 600000, 250000 },
					    .activations = 10,
					    .act_restore = 6,
					    .act_fork = 1,
					    .act_signal = 1,
					    .act_sigframe = 1,
					    .act_sigreturn = 1,
					    .deactivations = 9,
					    .switch_saves = 7,
					    .exit_saves = 1,
					    .drops = 2,
					    .fp_use = FPULAB_FP_USE_EVERY_RETURN,
					    .flags = FPULAB_LINUX_F_NS };
}

/* Version 3: the Linux block and the new flags survive a file; the header grows to 832 bytes. */
static void test_round_trip_v3(void **state)
{
	struct fpulab_trace_event e[6] = {
		ev(1, 1, 0, 0, 1),
		ev(2, FPULAB_EV_USE, 0, 1, 0),
		ev(3, FPULAB_EV_KFPU_BEGIN, 0, 1, 0),
		ev(4, FPULAB_EV_KFPU_END, 0, 1, 0),
		ev(5, 1, 1, 0, 2),
		ev(6, 1, 0, 1, 0),
	};
	struct fpulab_trace_linux lx = linux_block();
	struct trace t = { .ev = e, .lx = &lx }, b;
	char err[256];
	FILE *f;

	e[1].flags = FPULAB_EVF_EVIDENCE | FPULAB_EVF_RETURNED;
	e[2].flags = e[3].flags = FPULAB_EVF_INFERRED;
	e[4].flags = FPULAB_EVF_WINDOW;
	tmp_path();
	header(&t, FPULAB_TRACE_VERSION_LINUX, 6);
	t.hdr.header_size = 64 + 768;
	t.hdr.flags = FPULAB_TRACE_F_LINUX | FPULAB_TRACE_F_RETURNS;
	assert_int_equal(trace_check(&t, err, sizeof(err)), 0);
	assert_int_equal(trace_write(path, &t, err, sizeof(err)), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	assert_int_equal(ftell(f), 832 + 6 * 16);
	fclose(f);
	assert_int_equal(trace_read(path, &b, err, sizeof(err)), 0);
	assert_memory_equal(&t.hdr, &b.hdr, sizeof(t.hdr));
	assert_non_null(b.lx);
	assert_memory_equal(&lx, b.lx, sizeof(lx));
	assert_memory_equal(b.ev, e, sizeof(e));
	trace_free(&b);
	assert_int_equal(truncate(path, 100), 0);
	assert_int_equal(trace_read(path, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "shorter than a version-3 header (832 bytes)"));
	assert_null(b.lx);
	/* without the block, the writer writes version 2; v3's flags are refused there */
	t.lx = NULL;
	header(&t, FPULAB_TRACE_VERSION, 6);
	t.hdr.flags = FPULAB_TRACE_F_RETURNS;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "event 1 (seq 2, use): flags 0x1 in a version-2 trace: they came "
				 "in version 3");
	unlink(path);
}

/* A Linux block is refused when it contradicts itself or its header. */
static void test_linux_block_rejects(void **state)
{
	struct fpulab_trace_event e[1] = { ev(1, 1, 0, 0, 1) };
	struct fpulab_trace_linux lx = linux_block();
	struct trace t = { .ev = e, .lx = &lx };
	char err[256];

	header(&t, FPULAB_TRACE_VERSION_LINUX, 1);
	t.hdr.header_size = 832;
	t.hdr.flags = FPULAB_TRACE_F_LINUX;
	assert_int_equal(trace_check(&t, err, sizeof(err)), 0);
	lx.act_restore = 7;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "linux: the activations by kind do not add up to 10");
	lx = linux_block();
	lx.exit_saves = 8;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "linux: the deactivations by kind do not add up to 9");
	lx = linux_block();
	lx.busy_ns[2] = 5;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "linux: cpu 2 busy 5 ns in a trace of 2 CPUs and 1000000 ns");
	lx = linux_block();
	lx.busy_ns[1] = 2000000;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	lx = linux_block();
	lx.fp_use = 3;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "linux: fp_use 3 is not 1 (every-return) or 2 (evidence)");
	lx = linux_block();
	lx.reserved[2] = 1;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "linux: reserved word 2 is not 0");
	lx = linux_block();
	lx.end_loads = 2; /* an import before they were counted has neither them nor the flag */
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "linux: loads at the recording's end counted without the ends "
				 "flag or at the every-return bound, which drops no use");
	lx.flags |= FPULAB_LINUX_F_ENDS;
	lx.fp_use = FPULAB_FP_USE_EVERY_RETURN;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	lx.fp_use = FPULAB_FP_USE_EVIDENCE;
	assert_int_equal(trace_check(&t, err, sizeof(err)), 0);
	lx = linux_block();
	lx.forks = 3; /* an import before forks were counted has neither them nor the flag */
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "linux: forks or execs counted without the procs flag");
	lx.flags |= FPULAB_LINUX_F_PROCS;
	assert_int_equal(trace_check(&t, err, sizeof(err)), 0);
	lx = linux_block();
	lx.resyncs = 1;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "linux: events lost or resynchronised, but no lossy flag");
	t.hdr.flags |= FPULAB_TRACE_F_LOSSY;
	assert_int_equal(trace_check(&t, err, sizeof(err)), 0);
	t.hdr.flags = 0;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "a version-3 trace without the linux flag");
	t.lx = NULL;
	t.hdr.flags = FPULAB_TRACE_F_LINUX;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "a version-3 trace without its Linux block");
	header(&t, FPULAB_TRACE_VERSION, 1);
	t.hdr.flags = FPULAB_TRACE_F_LOSSY;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err,
			    "flag linux or lossy in a version-2 trace: they came in version 3");
	t.hdr.flags = 0;
	t.lx = &lx;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "a Linux block in a version-2 trace");
	header(&t, FPULAB_TRACE_VERSION_LINUX, 1); /* a v3 header of v2's size */
	t.hdr.flags = FPULAB_TRACE_F_LINUX;
	assert_int_equal(trace_check(&t, err, sizeof(err)), -1);
	assert_string_equal(err, "header size 64 / event size 16, expected 832 / 16");
}

/* Files: wrong magic, a truncated file, a missing file: clear errors, nothing loaded. */
static void test_read_rejects(void **state)
{
	struct trace a, b;
	char err[256];
	FILE *f;

	tmp_path();
	assert_int_equal(trace_synth("boot", 50, 1, 0x3, &a, err, sizeof(err)), 0);
	assert_int_equal(trace_write(path, &a, err, sizeof(err)), 0);
	assert_int_equal(truncate(path, 64 + 16 * (off_t)a.hdr.nevents - 1), 0);
	assert_int_equal(trace_read(path, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "but the header says"));
	assert_null(b.ev);
	f = fopen(path, "wb");
	assert_non_null(f);
	fputs("NOTATRACE and some more bytes to fill a header of 64 bytes ........", f);
	fclose(f);
	assert_int_equal(trace_read(path, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an fpulab trace"));
	unlink(path);
	assert_int_equal(trace_read(path, &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
	trace_free(&a);
}

/* @n events of a pass over @t, concatenated into @out; the chunks' sizes into @sizes. */
static uint64_t pass(const struct trace *t, struct fpulab_trace_event *out, size_t *sizes,
		     int *nchunks)
{
	struct fpulab_trace_event buf[TRACE_CHUNK];
	const struct fpulab_trace_event *ev;
	struct trace_iter it;
	uint64_t total = 0;
	size_t n;

	*nchunks = 0;
	assert_int_equal(trace_iter_begin(&it, t, buf), 0);
	while ((n = trace_iter_next(&it, &ev)) > 0) {
		memcpy(out + total, ev, n * sizeof(*ev));
		total += n;
		sizes[(*nchunks)++] = n;
	}
	assert_int_equal(it.err, 0);
	return total;
}

/*
 * trace_open: the same header and checks as trace_read, the events left in
 * the file and read back a chunk at a time, identical; a file changed in
 * place is refused at the next pass, and within a pass where an event falls
 * outside the header's CPUs and tasks.
 */
static void test_open_streams(void **state)
{
	struct trace a, b;
	char err[256];
	size_t sizes[8];
	int nchunks;

	tmp_path();
	assert_int_equal(trace_synth("build", 3000, 3, 0x7, &a, err, sizeof(err)), 0);
	assert_true(a.hdr.nevents > TRACE_CHUNK && a.hdr.nevents < 2 * TRACE_CHUNK);
	assert_int_equal(trace_write(path, &a, err, sizeof(err)), 0);
	assert_int_equal(trace_open(path, &b, err, sizeof(err)), 0);
	assert_null(b.ev);
	assert_non_null(b.file);
	assert_memory_equal(&a.hdr, &b.hdr, sizeof(a.hdr));
	struct fpulab_trace_event *got = calloc(a.hdr.nevents, sizeof(*got));
	assert_non_null(got);
	assert_int_equal(pass(&b, got, sizes, &nchunks), a.hdr.nevents);
	assert_int_equal(nchunks, 2);
	assert_int_equal(sizes[0], TRACE_CHUNK);
	assert_memory_equal(got, a.ev, a.hdr.nevents * sizeof(*got));
	assert_int_equal(trace_check(&b, err, sizeof(err)), 0);
	/* in memory, one chunk of every event */
	assert_int_equal(pass(&a, got, sizes, &nchunks), a.hdr.nevents);
	assert_int_equal(nchunks, 1);

	/* an event in the second chunk out of range, written during a pass */
	struct fpulab_trace_event buf[TRACE_CHUNK], bad = a.ev[TRACE_CHUNK + 1];
	const struct fpulab_trace_event *ev;
	struct trace_iter it;
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(trace_iter_begin(&it, &b, buf), 0);
	assert_int_equal(trace_iter_next(&it, &ev), TRACE_CHUNK);
	bad.cpu = 9;
	assert_int_equal(fseek(f, 64 + 16 * (long)(TRACE_CHUNK + 1), SEEK_SET), 0);
	assert_int_equal(fwrite(&bad, sizeof(bad), 1, f), 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(trace_iter_next(&it, &ev), 0);
	assert_int_equal(it.err, TRACE_ITER_CHANGED);
	trace_iter_strerror(&it, err, sizeof(err));
	assert_string_equal(
		err, "changed since it was checked (its events are read again on every pass)");
	/* and the next pass refuses it at its start (its times changed) */
	assert_int_equal(trace_iter_begin(&it, &b, buf), -1);
	assert_int_equal(it.err, TRACE_ITER_CHANGED);
	trace_free(&b);
	assert_null(b.file);

	/* a bad event past the first chunk: the same message as trace_read's */
	char err2[256];
	assert_int_equal(trace_read(path, &b, err, sizeof(err)), -1);
	assert_int_equal(trace_open(path, &b, err2, sizeof(err2)), -1);
	assert_string_equal(err, err2);
	assert_non_null(strstr(err, "cpu 9, the trace has 2"));
	assert_null(b.file);
	free(got);
	trace_free(&a);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_synth_shapes),
		cmocka_unit_test(test_check_rejects), cmocka_unit_test(test_check_import_reset),
		cmocka_unit_test(test_version_1),     cmocka_unit_test(test_check_returned),
		cmocka_unit_test(test_round_trip_v2), cmocka_unit_test(test_read_rejects),
		cmocka_unit_test(test_round_trip_v3), cmocka_unit_test(test_linux_block_rejects),
		cmocka_unit_test(test_open_streams),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

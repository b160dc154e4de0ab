/* SPDX-License-Identifier: MIT */
/* fpulab trace synth|dump|info: make and read traces (docs/trace.md). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <fpu/xstate.h>

#include "cli.h"
#include "trace_cmd.h"
#include "trace_io.h"
#include "common/util.h"

#define SWITCHES_DEFAULT 20000
#define SWITCHES_MAX 10000000ull

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fpulab trace synth WORKLOAD|all -o FILE|DIR [--switches N] [--seed S]\n"
		"                           [--xcr0 MASK]\n"
		"       fpulab trace dump FILE [--limit N]\n"
		"       fpulab trace info FILE\n"
		"       fpulab trace import INPUT [-o FILE] [--fp-use every-return|evidence]\n"
		"                           [--strict] [--name NAME]\n"
		"       fpulab trace record -o FILE [--seconds N] [--fp-use M] [--strict]\n"
		"                           [--name NAME] [--perf-data FILE] [-- CMD ARGS...]\n"
		"       fpulab trace record --check\n"
		"synth makes a synthetic trace of about N context switches (default %d,\n"
		"1..%llu) from seed S (default 1); with 'all', one FILE per workload in DIR\n"
		"(DIR/WORKLOAD.trace; DIR is created if missing, one level, like mkdir). Use\n"
		"masks are drawn from MASK (default: this host's XCR0). dump prints one event per\n"
		"line (--limit N: the first N; 0: the header alone); info counts them. import\n"
		"converts a Linux recording (the text of perf script, - for standard input, or a\n"
		"perf.data; without -o into ./BASENAME.trace, its .xz, .txt, .perf-script, .data\n"
		"or .perf dropped); record makes one with perf (as root) while CMD runs or for N\n"
		"seconds (default 5), and imports it (docs/linux-traces.md); record --check only\n"
		"says whether recording works here (exit 0) or why not (exit 1). Exit status\n"
		"otherwise: 0 ok; 1 an input unreadable or refused (nothing is written); 2 usage\n"
		"error (also an -o that cannot be made, or one that names an input); 130 record\n"
		"interrupted by SIGINT (what perf recorded is imported; 143 SIGTERM, 129 SIGHUP).\n"
		"Workloads:\n",
		SWITCHES_DEFAULT, SWITCHES_MAX);
	const char *const *names = trace_workloads();
	for (int i = 0; names[i]; i++)
		help_item(f, 14, names[i], trace_workload_about(names[i]));
}

static uint64_t host_xcr0(void)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };
	return xstate_init(&o) ? 0x3 : xstate_cfg.xcr0;
}

static int synth_one(const char *name, const char *path, uint64_t switches, uint64_t seed,
		     uint64_t xcr0)
{
	struct trace t;
	char err[PATH_MAX + 256];

	if (trace_synth(name, switches, seed, xcr0, &t, err, sizeof(err)) ||
	    trace_check(&t, err, sizeof(err)) || trace_write(path, &t, err, sizeof(err))) {
		fprintf(stderr, "fpulab trace synth: %s: %s\n", name, err);
		trace_free(&t);
		return 1;
	}
	printf("%s: %s, %" PRIu64 " events, %u CPU%s, %u task%s, %" PRIu64 " bytes\n", path, name,
	       t.hdr.nevents, t.hdr.ncpus, plural(t.hdr.ncpus), t.hdr.ntasks, plural(t.hdr.ntasks),
	       (uint64_t)sizeof(t.hdr) + t.hdr.nevents * sizeof(*t.ev));
	trace_free(&t);
	return 0;
}

static int cmd_synth(int argc, char **argv)
{
	const char *name = NULL, *out = NULL;
	uint64_t switches = SWITCHES_DEFAULT, seed = 1, xcr0 = 0;

	bool operands = false; /* after "--" */

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		char opt[32];
		bool inline_value = !operands && long_opt_value(a, opt, sizeof(opt), &v);
		if (inline_value)
			a = opt;
		if (!operands && !strcmp(a, "--")) {
			operands = true;
		} else if (!operands && (!strcmp(a, "-o") || !strcmp(a, "--switches") ||
					 !strcmp(a, "--seed") || !strcmp(a, "--xcr0"))) {
			if (!v)
				return usage_error("trace synth", "%s needs a value", a);
			i += !inline_value;
			if (!strcmp(a, "-o"))
				out = v;
			else if (!strcmp(a, "--switches")) {
				if (parse_u64_arg("trace synth", "switches", v, 1, SWITCHES_MAX,
						  &switches))
					return 2;
			} else if (!strcmp(a, "--seed")) {
				if (parse_u64_arg("trace synth", "seed", v, 0, UINT64_MAX, &seed))
					return 2;
			} else {
				char *end;
				xcr0 = strtoull(v, &end, 0);
				if (!*v || *end || !(xcr0 & 1) ||
				    (xcr0 & ~(uint64_t)TRACE_XCR0_KNOWN))
					return usage_error(
						"trace synth",
						"--xcr0: '%s' is not a mask with bit 0 (x87) "
						"within the XCR0 bits x86 defines (0x%llx)",
						v, TRACE_XCR0_KNOWN);
			}
		} else if (!operands && a[0] == '-') {
			return usage_error("trace synth", "unknown option '%s'", a);
		} else if (!name) {
			name = a;
		} else {
			return usage_error("trace synth", "takes one WORKLOAD, got '%s' too", a);
		}
	}
	if (!name || !out)
		return usage_error("trace synth", "needs a WORKLOAD and -o FILE|DIR");
	if (strcmp(name, "all") && !trace_workload_about(name)) {
		char *all = list_join(trace_workloads(), ", ");
		usage_error("trace synth", "no workload '%s' (one of: %s, all)", name, all);
		free(all);
		return 2;
	}
	if (!xcr0)
		xcr0 = host_xcr0();
	if (strcmp(name, "all")) {
		char err[PATH_MAX + 256];
		if (trace_out_check(out, err, sizeof(err))) { /* before anything is made */
			fprintf(stderr, "fpulab trace synth: -o %s\n", err);
			return 2;
		}
		return synth_one(name, out, switches, seed, xcr0);
	}
	struct stat st;
	const char *const *names = trace_workloads();
	int dirlen = (int)strlen(out);

	while (dirlen > 0 && out[dirlen - 1] == '/') /* DIR/ names DIR: no DIR//WORKLOAD */
		dirlen--;
	for (int i = 0; names[i] && !stat(out, &st) && S_ISDIR(st.st_mode); i++) {
		char *path = xasprintf("%.*s/%s.trace", dirlen, out, names[i]), err[512];
		int bad = trace_out_check(path, err, sizeof(err)); /* before any is made */
		if (bad)
			fprintf(stderr, "fpulab trace synth: all: %s\n", err);
		free(path);
		if (bad)
			return 2;
	}
	if (stat(out, &st) && errno == ENOENT && mkdir(out, 0777) && errno != EEXIST) {
		fprintf(stderr, "fpulab trace synth: all: cannot create -o %s: %s\n", out,
			strerror(errno));
		return 2;
	}
	if (stat(out, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "fpulab trace synth: all: -o %s is not a directory\n", out);
		return 2;
	}
	for (int i = 0; names[i]; i++) {
		char *path = xasprintf("%.*s/%s.trace", dirlen, out, names[i]);
		int rc = synth_one(names[i], path, switches, seed, xcr0);
		free(path);
		if (rc)
			return rc;
	}
	return 0;
}

/* Open and check @path for @cmd ("trace dump"), its events left in the file (read with trace_iter). */
static int load(const char *cmd, const char *path, struct trace *t)
{
	char err[512];

	if (trace_open(path, t, err, sizeof(err))) {
		fprintf(stderr, "fpulab %s: %s\n", cmd, err);
		return 1;
	}
	return 0;
}

/* Start a pass over @t into @it with room for a chunk at *@buf (freed by pass_end). */
static int pass_begin(const char *cmd, struct trace_iter *it, const struct trace *t,
		      struct fpulab_trace_event **buf)
{
	*buf = malloc(TRACE_CHUNK * sizeof(**buf));
	if (!*buf) {
		fprintf(stderr, "fpulab %s: out of memory\n", cmd);
		return 1;
	}
	if (trace_iter_begin(it, t, *buf)) {
		char err[200];
		trace_iter_strerror(it, err, sizeof(err));
		fprintf(stderr, "fpulab %s: %s: %s\n", cmd, t->file->path, err);
		free(*buf);
		return 1;
	}
	return 0;
}

/* The end of @it's pass: 0, or 1 after saying why the file could not be read. */
static int pass_end(const char *cmd, struct trace_iter *it, struct fpulab_trace_event *buf)
{
	free(buf);
	if (!it->err)
		return 0;
	char err[200];
	trace_iter_strerror(it, err, sizeof(err));
	fprintf(stderr, "fpulab %s: %s: %s\n", cmd, it->t->file->path, err);
	return 1;
}

/* One event as dump prints it. */
static void dump_event(const struct fpulab_trace_event *e, bool from_linux)
{
	printf("%u %u %s", e->seq, e->cpu, trace_type_name(e->type));
	switch (e->type) {
	case FPULAB_EV_SWITCH:
		printf(" %u -> %u%s%s%s", e->task, e->arg,
		       e->flags & FPULAB_EVF_NO_USER ? " no-user" : "",
		       from_linux && (e->flags & FPULAB_EVF_WINDOW) ? " window" : "",
		       from_linux && (e->flags & FPULAB_EVF_RESYNC) ? " resync" : "");
		break;
	case FPULAB_EV_USE:
		printf(" task %u mask 0x%x%s", e->task, e->mask,
		       from_linux && (e->flags & FPULAB_EVF_EVIDENCE) ? " evidence" : "");
		break;
	case FPULAB_EV_KFPU_BEGIN:
	case FPULAB_EV_KFPU_END:
		printf(" task %u%s", e->task,
		       from_linux && (e->flags & FPULAB_EVF_INFERRED) ? " inferred" : "");
		break;
	case FPULAB_EV_MIGRATE:
		printf(" task %u to cpu %u", e->task, e->arg);
		break;
	case FPULAB_EV_IMPORT:
		printf(" task %u mask 0x%x%s", e->task, e->mask,
		       e->flags & FPULAB_EVF_SIGFRAME ? " sigframe" : "");
		break;
	default:
		printf(" task %u", e->task);
	}
	printf("%s\n", e->flags & FPULAB_EVF_RETURNED ? " returned" : "");
}

/* The first @limit events of @t, one a line. */
static int dump_events(const struct trace *t, uint64_t limit)
{
	struct fpulab_trace_event *buf;
	const struct fpulab_trace_event *ev;
	struct trace_iter it;
	uint64_t i = 0;

	if (pass_begin("trace dump", &it, t, &buf))
		return 1;
	for (size_t n; i < limit && (n = trace_iter_next(&it, &ev)) > 0;)
		for (size_t j = 0; j < n && i < limit; j++, i++)
			dump_event(&ev[j], t->lx != NULL);
	return pass_end("trace dump", &it, buf);
}

static int cmd_dump(int argc, char **argv)
{
	uint64_t limit = UINT64_MAX;
	const char *path = NULL;
	struct trace t;
	char tasks[96];

	bool operands = false; /* after "--" */

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		char opt[32];
		bool inline_value = !operands && long_opt_value(argv[i], opt, sizeof(opt), &v);
		const char *a = inline_value ? opt : argv[i];
		if (!operands && !strcmp(a, "--")) {
			operands = true;
		} else if (!operands && !strcmp(a, "--limit")) {
			if (!v)
				return usage_error("trace dump", "--limit needs a value");
			i += !inline_value;
			if (parse_u64_arg("trace dump", "limit", v, 0, UINT64_MAX, &limit))
				return 2;
		} else if (!operands && argv[i][0] == '-' && argv[i][1]) {
			return usage_error("trace dump", "unknown option '%s'", argv[i]);
		} else if (path) {
			return usage_error("trace dump", "takes one FILE");
		} else {
			path = argv[i];
		}
	}
	if (!path)
		return usage_error("trace dump", "needs a FILE");
	if (load("trace dump", path, &t))
		return 1;
	printf("# %s: workload %.24s, version %u, %u CPU%s, %s, %" PRIu64 " events, xcr0 0x%" PRIx64
	       "%s\n",
	       path, t.hdr.workload, t.hdr.version, t.hdr.ncpus, plural(t.hdr.ncpus),
	       trace_tasks_text(tasks, sizeof(tasks), &t.hdr, t.lx), t.hdr.nevents, t.hdr.xcr0,
	       t.hdr.flags & FPULAB_TRACE_F_SYNTHETIC ? ", synthetic" : "");
	if (t.hdr.flags & FPULAB_TRACE_F_RECORDED)
		printf("# recorded by the lab%s\n", t.hdr.flags & FPULAB_TRACE_F_TRUNCATED
							    ? "; TRUNCATED: its buffer filled up"
							    : "");
	if (t.lx)
		printf("# imported from Linux%s, fp use %s\n",
		       t.hdr.flags & FPULAB_TRACE_F_LOSSY ? "; LOSSY" : "",
		       trace_fp_use_name(t.lx->fp_use));
	printf("# seq cpu event args\n");
	int rc = dump_events(&t, limit);
	trace_free(&t);
	return rc;
}

/* @t's events by type, and its switches to idle and to a task that stays in the kernel. */
static int count_events(const char *cmd, const struct trace *t, uint64_t *n, uint64_t *nouser,
			uint64_t *idle)
{
	struct fpulab_trace_event *buf;
	const struct fpulab_trace_event *ev;
	struct trace_iter it;
	size_t got;

	if (pass_begin(cmd, &it, t, &buf))
		return 1;
	while ((got = trace_iter_next(&it, &ev)) > 0)
		for (size_t j = 0; j < got; j++) {
			const struct fpulab_trace_event *e = &ev[j];
			n[e->type]++;
			if (e->type == FPULAB_EV_SWITCH) {
				*nouser += !!(e->flags & FPULAB_EVF_NO_USER);
				*idle += !e->arg;
			}
		}
	return pass_end(cmd, &it, buf);
}

static int cmd_info(int argc, char **argv)
{
	uint64_t n[FPULAB_EV_NR] = { 0 }, nouser = 0, idle = 0;
	struct trace t;
	char tasks[96];

	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1])
			return usage_error("trace info", "takes no option, got '%s'", argv[i]);
	if (argc != 2)
		return usage_error("trace info", "takes one FILE");
	if (load("trace info", argv[1], &t))
		return 1;
	if (count_events("trace info", &t, n, &nouser, &idle)) {
		trace_free(&t);
		return 1;
	}
	printf("trace %s\n", argv[1]);
	printf("  workload   %.24s%s%s%s\n", t.hdr.workload,
	       t.hdr.flags & FPULAB_TRACE_F_SYNTHETIC ? " (synthetic)" : "",
	       t.hdr.flags & FPULAB_TRACE_F_RECORDED ? " (recorded by the lab)" : "",
	       t.hdr.flags & FPULAB_TRACE_F_TRUNCATED
		       ? " (TRUNCATED: the lab's buffer filled up, the run went on)"
		       : "");
	printf("  version    %u\n  cpus       %u\n  tasks      %s\n  xcr0       0x%" PRIx64 "\n",
	       t.hdr.version, t.hdr.ncpus, trace_tasks_text(tasks, sizeof(tasks), &t.hdr, t.lx),
	       t.hdr.xcr0);
	if (t.lx)
		trace_linux_summary(stdout, &t.hdr, t.lx);
	printf("  events     %" PRIu64 " (%" PRIu64 " bytes; the file %" PRIu64
	       " with its %u-byte header)\n",
	       t.hdr.nevents, t.hdr.nevents * sizeof(*t.ev),
	       (uint64_t)trace_header_size(t.hdr.version) + t.hdr.nevents * sizeof(*t.ev),
	       (unsigned int)trace_header_size(t.hdr.version));
	for (unsigned int k = 1; k < FPULAB_EV_NR; k++)
		printf("  %-10s %" PRIu64 "\n", trace_type_name(k), n[k]);
	printf("  switches to idle/kernel threads %" PRIu64
	       ", to a task that stays in the kernel %" PRIu64 "\n",
	       idle, nouser);
	if (n[FPULAB_EV_SWITCH])
		printf("  FPU uses per switch %.3f\n",
		       (double)n[FPULAB_EV_USE] / (double)n[FPULAB_EV_SWITCH]);
	trace_free(&t);
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (!sub)
		return usage_error("trace",
				   "needs a subcommand: synth, dump, info, import or record");
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		usage(stdout);
		return 0;
	}
	static const char *const subs[] = { "synth", "dump", "info", "import", "record", NULL };
	bool known = false;
	for (const char *const *k = subs; *k; k++)
		known |= !strcmp(sub, *k);
	if (!known) /* before --help: `fpulab help trace bogus` is no help */
		return usage_error("trace", "unknown subcommand '%s'", sub);
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
	if (!strcmp(sub, "synth"))
		return cmd_synth(argc - 1, argv + 1);
	if (!strcmp(sub, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(sub, "info"))
		return cmd_info(argc - 1, argv + 1);
	if (!strcmp(sub, "import"))
		return cmd_trace_import(argc - 1, argv + 1);
	if (!strcmp(sub, "record"))
		return cmd_trace_record(argc - 1, argv + 1);
	return 2; /* (not reached: checked above) */
}

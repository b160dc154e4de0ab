/* SPDX-License-Identifier: MIT */
/*
 * fpulab trace record -o FILE [--seconds N] [-- CMD ARGS...]: record this
 * Linux with perf (system-wide tracepoints, as root) while CMD runs or for
 * N seconds, then import the recording (docs/linux-traces.md). What it
 * needs is checked first, each missing piece said with its fix; --check
 * does only that (exit 0: recording works here, 1: why not, said).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/stop_signals.h"
#include "common/util.h"
#include "perf_tool.h"
#include "trace_cmd.h"
#include "trace_io.h"

#define SECONDS_DEFAULT 5
#define SECONDS_MAX 3600
/* perf's buffer per CPU, in 4 KiB pages: 8 MiB, 16 times its default, so that a busy
 * host loses fewer events (root may lock that much; others have perf_event_mlock_kb) */
#define MMAP_PAGES "2048"

/* The events, as the issue and docs/linux-traces.md list them. */
static const char *const events[] = {
	"sched:sched_switch",
	"sched:sched_migrate_task",
	"sched:sched_process_fork",
	"sched:sched_process_exec",
	"sched:sched_process_exit",
	"signal:signal_deliver",
	"syscalls:sys_enter_rt_sigreturn",
	"x86_fpu:*",
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))
#define SIGRETURN_EVENT 6

struct record_opts {
	struct perf_import_opts imp;
	const char *out, *perf_data;
	uint64_t seconds; /* 0: while CMD runs */
	char **cmd;
	bool check; /* --check: say whether recording works here, record nothing */
};

/* tracefs's directory: $FPULAB_TRACEFS, /sys/kernel/tracing or the debugfs one; NULL. */
static const char *tracefs(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	const char *env = getenv("FPULAB_TRACEFS");
	struct stat st;

	for (size_t i = 0; i < 2; i++) {
		const char *d = env && *env ? env : dirs[i];
		char *ev = xasprintf("%s/events", d);
		bool ok = !stat(ev, &st) && S_ISDIR(st.st_mode);
		free(ev);
		if (ok)
			return d;
	}
	return NULL;
}

static bool exists(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	bool ok = access(p, F_OK) == 0;

	free(p);
	return ok;
}

/*
 * Not mounted, as root: mount tracefs where Linux puts it, as perf itself
 * does when it needs it (tools/lib/api/fs). Not with $FPULAB_TRACEFS set:
 * a test names its own.
 */
static const char *mount_tracefs(void)
{
	const char *d = "/sys/kernel/tracing", *env = getenv("FPULAB_TRACEFS");

	if (geteuid() != 0 || (env && *env))
		return NULL;
	if (mount("nodev", d, "tracefs", 0, NULL)) {
		fprintf(stderr, "fpulab trace record: mounting tracefs on %s: %s\n", d,
			strerror(errno));
		return NULL;
	}
	fprintf(stderr, "fpulab trace record: tracefs was not mounted: mounted it on %s\n", d);
	return tracefs();
}

/* What recording needs, before perf runs. *@sigreturn: whether that event exists. */
static int preflight(bool *sigreturn)
{
	const char *perf = perf_binary(), *tfs;
	FILE *f;
	int paranoid = 2;

	if (!program_runnable(perf)) {
		fprintf(stderr,
			"fpulab trace record: perf is not installed (no '%s' %s): install it "
			"(Debian: apt-get install linux-perf; Ubuntu: apt-get install "
			"linux-tools-$(uname -r)), or name it with FPULAB_PERF=PATH\n",
			perf, strchr(perf, '/') ? "executable there" : "in PATH");
		return -1;
	}
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f && fscanf(f, "%d", &paranoid) != 1)
		paranoid = 2;
	if (f)
		fclose(f);
	if (geteuid() != 0 && paranoid > -1) {
		fprintf(stderr,
			"fpulab trace record: recording tracepoints system-wide needs root, or "
			"kernel.perf_event_paranoid at -1 (it is %d): run it as root (sudo fpulab "
			"trace record ...), or sysctl -w kernel.perf_event_paranoid=-1 (and make "
			"tracefs readable)\n",
			paranoid);
		return -1;
	}
	tfs = tracefs();
	if (!tfs)
		tfs = mount_tracefs();
	if (!tfs) {
		fprintf(stderr, "fpulab trace record: tracefs is not mounted (no "
				"/sys/kernel/tracing/events): mount it with mount -t tracefs nodev "
				"/sys/kernel/tracing\n");
		return -1;
	}
	if (!exists(tfs, "events/x86_fpu/x86_fpu_regs_activated") ||
	    !exists(tfs, "events/x86_fpu/x86_fpu_regs_deactivated")) {
		fprintf(stderr,
			"fpulab trace record: this kernel has no x86_fpu tracepoints (no "
			"%s/events/x86_fpu/x86_fpu_regs_activated): they are x86 Linux's, from 4.7 "
			"on, with CONFIG_TRACEPOINTS; on another architecture or a kernel built "
			"without tracepoints there is nothing to record\n",
			tfs);
		return -1;
	}
	*sigreturn = exists(tfs, "events/syscalls/sys_enter_rt_sigreturn");
	if (!*sigreturn)
		fprintf(stderr, "fpulab trace record: no syscalls:sys_enter_rt_sigreturn in this "
				"kernel (CONFIG_FTRACE_SYSCALLS): recorded without it, sigreturns "
				"inferred\n");
	return 0;
}

#define FD_(n) #n
#define FD(n) FD_(n)

/*
 * perf record's argument vector (malloc'ed; the strings are not). With CMD
 * and --seconds, CMD runs under timeout(1), which stops it (SIGINT, as ^C)
 * N s after it starts: perf starts CMD only once it records, a second or
 * more after perf itself starts, so a clock started with perf recorded that
 * much less than N s. CMD runs under sh, which gives it our standard output
 * and error back: perf's own go to a file, read for its messages.
 */
static char **record_argv(const struct record_opts *o, const char *data, bool sigreturn, char *secs)
{
	size_t n = 0, ncmd = 0;
	char **v;

	while (o->cmd && o->cmd[ncmd])
		ncmd++;
	v = calloc(8 + 2 * NEVENTS + 4 + 4 + ncmd + 1, sizeof(*v));
	if (!v)
		return NULL;
	v[n++] = (char *)perf_binary();
	v[n++] = "record";
	v[n++] = "-a";
	v[n++] = "-m";
	v[n++] = MMAP_PAGES;
	for (size_t i = 0; i < NEVENTS; i++) {
		if (i == SIGRETURN_EVENT && !sigreturn)
			continue;
		v[n++] = "-e";
		v[n++] = (char *)events[i];
	}
	v[n++] = "-o";
	v[n++] = (char *)data;
	v[n++] = "--";
	if (ncmd && o->seconds) {
		v[n++] = "timeout";
		v[n++] = "-s";
		v[n++] = "INT";
		v[n++] = secs;
	}
	if (ncmd) {
		v[n++] = "sh"; /* CMD gets our standard output and error back (TOOL_KEEP_STDIO) */
		v[n++] = "-c";
		v[n++] = "exec 1>&" FD(TOOL_STDOUT_FD) " 2>&" FD(TOOL_STDERR_FD) " " FD(
			TOOL_STDOUT_FD) ">&- " FD(TOOL_STDERR_FD) ">&-; exec \"$@\"";
		v[n++] = "sh";
		memcpy(v + n, o->cmd, ncmd * sizeof(*v));
	} else {
		v[n++] = "sleep";
		v[n++] = secs;
	}
	return v;
}

/* The signal (SIGINT, SIGTERM, SIGHUP) that asked trace record to stop; 0: none. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/*
 * Wait for perf record. A stop signal to us is passed on as SIGINT, as ^C
 * would: perf stops its workload, writes what it recorded and exits, and
 * the recording so far is still imported (nothing is lost, none of them
 * outlives us).
 */
static int wait_record(struct tool *t)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	bool passed_on = false;
	int status;

	for (;;) {
		pid_t p = waitpid(t->pid, &status, WNOHANG);
		if (p == t->pid)
			break;
		if (p < 0 && errno != EINTR)
			return -1;
		if (stop_signal && !passed_on) {
			kill(t->pid, SIGINT);
			passed_on = true;
		}
		nanosleep(&tick, NULL);
	}
	t->pid = -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* perf record failed: say why, with the fix where its message says which. */
static void record_failed(int st, const char *msg)
{
	const char *why = "";

	if (strstr(msg, "ermission") || strstr(msg, "perf_event_paranoid") ||
	    strstr(msg, "No permissions"))
		why = " (no privilege: run it as root, or sysctl -w kernel.perf_event_paranoid=-1)";
	else if (strstr(msg, "unknown tracepoint") || strstr(msg, "event syntax error"))
		why = " (this kernel lacks one of the events: perf list 'sched:*' 'x86_fpu:*' "
		      "shows which it has)";
	fprintf(stderr, "fpulab trace record: perf record failed (exit status %d)%s%s%s\n", st, why,
		msg[0] ? ":\n" : "", msg);
}

/* Why perf's run ended, on stderr, when it was not CMD's (or sleep's) plain exit 0. */
static void say_how_it_ended(const struct record_opts *o, int st, const char *msg)
{
	const char *what = o->cmd ? o->cmd[0] : "sleep";

	if (stop_signal)
		fprintf(stderr,
			"fpulab trace record: interrupted (SIG%s): perf stopped %s; the recording "
			"so far is imported\n",
			sigabbrev_np(stop_signal), what);
	else if (o->cmd && o->seconds && st == 124)
		fprintf(stderr,
			"fpulab trace record: %s stopped after %llu s (--seconds); the recording "
			"is imported\n",
			what, (unsigned long long)o->seconds);
	else if (st != 0)
		fprintf(stderr,
			"fpulab trace record: note: %s exited with status %d; the recording "
			"is imported\n",
			what, st);
	if (strstr(msg, "lost"))
		fprintf(stderr, "fpulab trace record: perf says it lost events; the trace is "
				"marked lossy\n");
}

/* Record into @data. Return: 0, or 1 after saying why not. */
static int record(const struct record_opts *o, const char *data, bool sigreturn)
{
	char secs[32], msg[2048];
	struct tool t;
	char err[512];
	int st;

	snprintf(secs, sizeof(secs), "%llu",
		 (unsigned long long)(o->seconds ? o->seconds : SECONDS_DEFAULT));
	char **argv = record_argv(o, data, sigreturn, secs);
	struct sigaction old[STOP_SIGNALS_N];
	catch_stop_signals(on_stop_signal, old);
	if (!argv || tool_start(&t, argv, TOOL_KEEP_STDIO, err, sizeof(err))) {
		restore_stop_signals(old);
		fprintf(stderr, "fpulab trace record: %s\n", argv ? err : "out of memory");
		free(argv);
		return 1;
	}
	free(argv);
	st = wait_record(&t);
	restore_stop_signals(old);
	tool_stderr(&t, msg, sizeof(msg));
	tool_free(&t);
	if (st != 0 && (!strstr(msg, "Captured and wrote") || access(data, R_OK))) {
		record_failed(st, msg);
		return 1;
	}
	say_how_it_ended(o, st, msg);
	return 0;
}

/*
 * --perf-data FILE, said before CMD runs: a file perf can write (it renames
 * an existing one to FILE.old, a directory too), not the trace's own -o.
 */
static int record_perf_data_check(const struct record_opts *o)
{
	struct stat a, b;
	char err[512];

	if (output_path_check(o->perf_data, err, sizeof(err))) {
		fprintf(stderr, "fpulab trace record: --perf-data %s\n", err);
		return -1;
	}
	if (o->out && (!strcmp(o->out, o->perf_data) ||
		       (stat(o->out, &a) == 0 && stat(o->perf_data, &b) == 0 &&
			a.st_dev == b.st_dev && a.st_ino == b.st_ino))) {
		fprintf(stderr, "fpulab trace record: --perf-data %s is the -o trace too\n",
			o->perf_data);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int n = trace_import_option("trace record", argc, argv, i, &o->imp);
		if (n < 0)
			return 2;
		if (n) {
			i += n - 1;
			continue;
		}
		if (!strcmp(a, "--")) {
			o->cmd = i + 1 < argc ? &argv[i + 1] : NULL;
			if (!o->cmd)
				return usage_error("trace record", "nothing after --");
			break;
		}
		if (!strcmp(a, "--check")) {
			o->check = true;
			continue;
		}
		if (strcmp(a, "-o") && strcmp(a, "--seconds") && strcmp(a, "--perf-data"))
			return usage_error("trace record", "unknown option '%s'", a);
		if (i + 1 >= argc)
			return usage_error("trace record", "%s needs a value", a);
		if (!strcmp(a, "-o"))
			o->out = argv[++i];
		else if (!strcmp(a, "--perf-data"))
			o->perf_data = argv[++i];
		else if (parse_u64_arg("trace record", "seconds", argv[++i], 1, SECONDS_MAX,
				       &o->seconds))
			return 2;
	}
	if (o->check && (o->out || o->cmd || o->seconds || o->perf_data))
		return usage_error("trace record", "--check records nothing: it takes no -o, "
						   "--seconds, --perf-data or CMD");
	if (!o->out && !o->check)
		return usage_error("trace record", "needs -o FILE");
	return 0;
}

int cmd_trace_record(int argc, char **argv)
{
	struct record_opts o = { .imp = { .fp_use = FPULAB_FP_USE_EVERY_RETURN } };
	struct perf_import_result r;
	char dir[] = "/tmp/fpulab-record-XXXXXX", err[1024], *data;
	bool sigreturn;
	int rc;

	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc;
	if (o.out && trace_out_check(o.out, err, sizeof(err))) { /* before CMD runs */
		fprintf(stderr, "fpulab trace record: -o %s\n", err);
		return 2;
	}
	if (o.perf_data && record_perf_data_check(&o))
		return 2;
	if (o.cmd && !program_runnable(o.cmd[0])) { /* perf would say it in five lines */
		fprintf(stderr, "fpulab trace record: %s: %s\n", o.cmd[0],
			strchr(o.cmd[0], '/') ? "not an executable file"
					      : "command not found in PATH");
		return 2;
	}
	if (preflight(&sigreturn))
		return 1;
	if (o.check) {
		printf("fpulab trace record: recording works here: %s runnable, the privilege (root, or "
		       "kernel.perf_event_paranoid -1), tracefs "
		       "and the x86_fpu tracepoints present%s\n",
		       perf_binary(), sigreturn ? "" : " (sys_enter_rt_sigreturn missing)");
		return 0;
	}
	if (!o.perf_data && !mkdtemp(dir)) {
		fprintf(stderr, "fpulab trace record: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	data = o.perf_data ? xstrdup(o.perf_data) : xasprintf("%s/perf.data", dir);
	if (!o.imp.workload)
		o.imp.workload = o.cmd ? o.cmd[0] : "linux-idle";
	rc = record(&o, data, sigreturn);
	if (!rc && perf_import_file(data, o.out, &o.imp, &r, err, sizeof(err))) {
		fprintf(stderr, "fpulab trace record: importing %s: %s\n", data, err);
		rc = 1;
	}
	if (!rc)
		trace_print_import(o.out, &r);
	if (!o.perf_data) {
		unlink(data);
		rmdir(dir);
	}
	free(data);
	return rc ? rc : stop_signal ? 128 + stop_signal : 0;
}

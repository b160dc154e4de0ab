/* SPDX-License-Identifier: MIT */
/*
 * fpulab host unlink: seed 001's microbenchmark on this Linux. T tasks
 * (threads, or processes with --mode processes) repeat open(O_CREAT),
 * close() and unlink() of a file in one directory; each task has its own
 * file, so they contend on the directory's inode lock. A fixed total of
 * operations is split across the tasks; a run's runtime is the wall time
 * from the start signal until the last task is done.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"
#include "host_cpu.h"
#include "common/stats.h"
#include "common/result_file.h"
#include "common/stop_signals.h"
#include "common/util.h"

#define CMD "host unlink"
#define MAX_TASKS 4096
#define MAX_ROWS 64

/* Shared with the tasks (MAP_SHARED: also across fork). */
struct ul_shared {
	volatile int go, failed;
	char why[256];
};

static volatile sig_atomic_t interrupted;
static const char *ul_dir;
static struct ul_shared *sh;

static void on_signal(int sig)
{
	interrupted = sig;
}

static void file_name(char *buf, size_t len, unsigned int task)
{
	snprintf(buf, len, "%s/fpulab-unlink.%u", ul_dir, task);
}

/* One task: @ops rounds of open(O_CREAT), close, unlink of its own file. */
static void ul_task(unsigned int task, uint64_t ops)
{
	char path[4096];

	file_name(path, sizeof(path), task);
	while (!sh->go && !interrupted)
		;
	for (uint64_t i = 0; i < ops && !sh->failed && !interrupted; i++) {
		int fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
		const char *call = "open(O_CREAT)";
		if (fd >= 0) {
			call = "close";
			if (close(fd) == 0) {
				call = "unlink";
				if (unlink(path) == 0)
					continue;
			}
		}
		if (!__atomic_exchange_n(&sh->failed, 1, __ATOMIC_SEQ_CST))
			snprintf(sh->why, sizeof(sh->why), "task %u: %s %.160s: %s", task, call,
				 path, strerror(errno));
		return;
	}
}

struct ul_arg {
	unsigned int task;
	uint64_t ops;
};

static void *ul_thread(void *p)
{
	const struct ul_arg *a = p;
	ul_task(a->task, a->ops);
	return NULL;
}

/* One run: @tasks tasks, @total ops split among them. Returns ns, or 0 on failure. */
static uint64_t ul_run(unsigned int tasks, uint64_t total, bool processes)
{
	pthread_t *t = calloc(tasks, sizeof(*t));
	struct ul_arg *a = calloc(tasks, sizeof(*a));
	pid_t *pid = calloc(tasks, sizeof(*pid));
	uint64_t t0, t1;
	unsigned int started = 0;

	if (!t || !a || !pid) {
		snprintf(sh->why, sizeof(sh->why), "out of memory");
		sh->failed = 1;
	}
	sh->go = 0;
	for (unsigned int i = 0; i < tasks && !sh->failed; i++, started++) {
		a[i] = (struct ul_arg){ i, total / tasks + (i < total % tasks) };
		if (processes) {
			pid[i] = fork();
			if (pid[i] == 0) {
				ul_task(i, a[i].ops);
				_exit(0);
			}
			if (pid[i] < 0) {
				snprintf(sh->why, sizeof(sh->why), "fork: %s", strerror(errno));
				sh->failed = 1;
			}
		} else if (pthread_create(&t[i], NULL, ul_thread, &a[i])) {
			snprintf(sh->why, sizeof(sh->why), "cannot create thread %u", i);
			sh->failed = 1;
		}
	}
	t0 = host_now_ns();
	sh->go = 1;
	for (unsigned int i = 0; i < started; i++) {
		if (processes) {
			if (pid[i] > 0)
				while (waitpid(pid[i], NULL, 0) < 0 && errno == EINTR)
					;
		} else {
			pthread_join(t[i], NULL);
		}
	}
	t1 = host_now_ns();
	free(t);
	free(a);
	free(pid);
	return sh->failed || interrupted ? 0 : t1 - t0;
}

/* Remove what the tasks may have left (a run stopped between open and unlink). */
static void ul_cleanup(unsigned int max_tasks, bool made_dir)
{
	char path[4096];

	for (unsigned int i = 0; i < max_tasks; i++) {
		file_name(path, sizeof(path), i);
		unlink(path);
	}
	if (made_dir)
		rmdir(ul_dir);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fpulab host unlink [--tasks LIST] [--mode threads|processes] [--ops N]\n"
		"         [--dir DIR] [--repeat K] [--format table|json|csv] [--output FILE]\n"
		"Seed 001's unlink microbenchmark on this Linux: each task repeats open(O_CREAT),\n"
		"close and unlink of its own file in one directory (they contend on the\n"
		"directory's inode lock). --ops N operations in all (default 200000) are split\n"
		"across the tasks; per row: average runtime in ms (as the seed reports) and\n"
		"runtime and ops per s, median/min/max over K runs (default 5), task counts\n"
		"interleaved.\n"
		"  --tasks LIST  comma-separated task counts, default 1,2,4 x CPUs (max %d)\n"
		"  --dir DIR     default a fresh directory under $TMPDIR or /tmp, removed at the\n"
		"                end, also on Ctrl-C; in DIR only fpulab-unlink.N files are made\n"
		"Any failed call stops the run with its message (exit 1); 2 on bad usage.\n",
		MAX_TASKS);
}

/* What unlink's options chose; the common ones are in @h. */
struct ul_opts {
	struct host_common h;
	const char *tasklist; /* --tasks; NULL: 1, 2 and 4 x CPUs */
	bool processes;
	uint64_t ops;
};

/* One of unlink's own options (host_opt_fn); --dir into ul_dir. */
static int ul_opt(void *ctx, int c, const char *arg)
{
	static const char *const modes[] = { "threads", "processes", NULL };
	struct ul_opts *o = ctx;
	int i;

	switch (c) {
	case 't':
		o->tasklist = arg;
		return 0;
	case 'm':
		i = parse_choice(CMD, "mode", arg, modes);
		if (i < 0)
			return 2;
		o->processes = i == 1;
		return 0;
	case 'n':
		return parse_u64_arg(CMD, "ops", arg, 1, 1000000000, &o->ops);
	case 'd':
		ul_dir = arg;
		return 0;
	default:
		return usage_error(CMD, "unknown option");
	}
}

/* Parse @argv into @o (and ul_dir). Returns -1 to go on, or the exit status. */
static int ul_parse(int argc, char **argv, struct ul_opts *o)
{
	static const struct option longopts[] = {
		{ "tasks", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'm' },
		{ "ops", required_argument, NULL, 'n' },
		{ "dir", required_argument, NULL, 'd' },
		HOST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};

	ul_dir = NULL;
	return host_parse(&o->h, argc, argv, longopts, ul_opt, o, usage);
}

/* The rows' task counts: --tasks @list, or 1, 2 and 4 x @ncpus. 0, or 2 after a usage error. */
static int ul_task_counts(const char *list, unsigned int ncpus, unsigned int *tasks,
			  unsigned int *n)
{
	char *copy, *save = NULL;
	uint64_t v;

	*n = 0;
	if (!list) {
		for (unsigned int k = 1; k <= 4; k *= 2)
			tasks[(*n)++] = k * ncpus;
		return 0;
	}
	copy = xstrdup(list);
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_ROWS) {
			free(copy);
			return usage_error(CMD, "--tasks: at most %d counts", MAX_ROWS);
		}
		if (parse_u64_arg(CMD, "tasks", w, 1, MAX_TASKS, &v)) {
			free(copy);
			return 2;
		}
		tasks[(*n)++] = (unsigned int)v;
	}
	free(copy);
	return *n ? 0 : usage_error(CMD, "--tasks: empty list");
}

/* Every count at most --ops; *@max the largest. 0, or 2 after a usage error. */
static int ul_check_counts(const unsigned int *tasks, unsigned int n, uint64_t ops,
			   unsigned int *max)
{
	*max = 0;
	for (unsigned int i = 0; i < n; i++) {
		if (tasks[i] > ops)
			return usage_error(CMD, "--tasks %u is more than --ops %" PRIu64, tasks[i],
					   ops);
		if (tasks[i] > *max)
			*max = tasks[i];
	}
	return 0;
}

/* --dir must be a directory. 0, or 1 after a message. */
static int ul_check_dir(void)
{
	struct stat st;

	if (!ul_dir || (!stat(ul_dir, &st) && S_ISDIR(st.st_mode)))
		return 0;
	fprintf(stderr, "fpulab " CMD ": --dir %s: %s\n", ul_dir,
		errno && !S_ISDIR(st.st_mode) ? strerror(errno) : "not a directory");
	return 1;
}

/* Without --dir, a fresh directory under $TMPDIR or /tmp (@buf) is ul_dir. 0, or 1 after a message. */
static int ul_make_dir(char *buf, size_t len, bool *made)
{
	const char *tmp = getenv("TMPDIR");

	*made = false;
	if (ul_dir)
		return 0;
	snprintf(buf, len, "%s/fpulab-unlink-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(buf)) {
		fprintf(stderr, "fpulab " CMD ": cannot make a directory %s: %s\n", buf,
			strerror(errno));
		return 1;
	}
	ul_dir = buf;
	*made = true;
	return 0;
}

/* Ctrl-C, SIGTERM and SIGHUP stop the runs, so that the directory is cleaned up. */
static void ul_catch_signals(void)
{
	catch_stop_signals(on_signal, NULL);
}

/* The row of @tasks tasks from its runs' runtimes @ms[r][@col] (ms). */
static json_t *ul_row(const struct ul_opts *o, unsigned int tasks, double (*ms)[MAX_ROWS],
		      unsigned int col, int ncpus)
{
	double t[FPULAB_MAX_REPEAT], rate[FPULAB_MAX_REPEAT], sum = 0;
	struct stats_summary st, sr;
	json_t *row = json_object();

	for (unsigned int r = 0; r < o->h.repeat; r++) {
		t[r] = ms[r][col];
		rate[r] = o->ops / (t[r] / 1e3);
		sum += t[r];
	}
	st = stats_summarise(t, o->h.repeat);
	sr = stats_summarise(rate, o->h.repeat);
	json_object_set_new(row, "tasks", json_integer(tasks));
	json_object_set_new(row, "mode", json_string(o->processes ? "processes" : "threads"));
	json_object_set_new(row, "ops", json_integer((json_int_t)o->ops));
	json_object_set_new(row, RESULT_RUNS, json_integer(o->h.repeat));
	json_object_set_new(row, "avg_runtime_ms", json_real(sum / o->h.repeat));
	json_object_set_new(row, "runtime_ms_median", json_real(st.median));
	json_object_set_new(row, "runtime_ms_min", json_real(st.min));
	json_object_set_new(row, "runtime_ms_max", json_real(st.max));
	json_object_set_new(row, "ops_per_s_median", json_real(sr.median));
	json_object_set_new(row, "ops_per_s_min", json_real(sr.min));
	json_object_set_new(row, "ops_per_s_max", json_real(sr.max));
	json_object_set_new(row, "cpus", json_integer(ncpus));
	return row;
}

static const struct output_column ul_columns[] = {
	{ "tasks", NULL, 5, 0 },
	{ "mode", NULL, -9, 0 },
	{ "ops", NULL, 8, 0 },
	{ RESULT_RUNS, "runs", 4, 0 },
	{ "avg_runtime_ms", "avg ms", 8, 1 },
	{ "runtime_ms_median", "ms med", 8, 1 },
	{ "runtime_ms_min", "min", 8, 1 },
	{ "runtime_ms_max", "max", 8, 1 },
	{ "ops_per_s_median", "ops/s med", 10, 0 },
	{ "ops_per_s_min", "min", 9, 0 },
	{ "ops_per_s_max", "max", 9, 0 },
};

/* --repeat rounds of every task count, interleaved, into @ms. 0, or 1 when a run failed. */
static int ul_runs(const struct ul_opts *o, const unsigned int *tasks, unsigned int n,
		   double (*ms)[MAX_ROWS])
{
	for (unsigned int r = 0; r < o->h.repeat; r++)
		for (unsigned int i = 0; i < n; i++) {
			uint64_t ns = ul_run(tasks[i], o->ops, o->processes);
			if (!ns)
				return 1;
			ms[r][i] = ns / 1e6;
		}
	return 0;
}

/* The runs, the cleanup, then the rows, or why there are none. Returns the exit status. */
static int ul_measure(const struct ul_opts *o, const unsigned int *tasks, unsigned int ntasks,
		      unsigned int maxt, int ncpus, struct output *out)
{
	char dirbuf[4096];
	bool made_dir;
	double(*ms)[MAX_ROWS] = calloc(o->h.repeat, sizeof(*ms));
	int rc = 1;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || !ms) {
		fprintf(stderr, "fpulab " CMD ": out of memory\n");
		goto out;
	}
	if (ul_make_dir(dirbuf, sizeof(dirbuf), &made_dir))
		goto out;
	ul_catch_signals();
	rc = ul_runs(o, tasks, ntasks, ms);
	ul_cleanup(maxt, made_dir);
	if (interrupted) {
		fprintf(stderr, "fpulab " CMD ": interrupted; %s cleaned up\n", ul_dir);
		rc = 128 + interrupted;
		goto out;
	}
	if (rc) {
		fprintf(stderr, "fpulab " CMD ": %s\n", sh->why);
		goto out;
	}
	host_comment_machine(out);
	output_comment(out,
		       "directory %s; %" PRIu64 " operations (open+close+unlink) per run split "
		       "across the tasks; %u runs per row, interleaved",
		       made_dir ? "a fresh temporary one" : ul_dir, o->ops, o->h.repeat);
	for (unsigned int i = 0; i < ntasks; i++)
		output_row(out, ul_row(o, tasks[i], ms, i, ncpus));
out:
	free(ms);
	return rc;
}

int host_unlink(int argc, char **argv)
{
	struct ul_opts o = { .h = { .sub = "unlink",
				    .repeat = 5,
				    .seconds = 1,
				    .no_seconds = "unlink runs a fixed --ops" },
			     .ops = 200000 };
	unsigned int tasks[MAX_ROWS], ntasks, maxt;
	int cpus[HOST_MAX_CPUS], ncpus = host_allowed_cpus(cpus, HOST_MAX_CPUS), rc;
	struct output out;

	if ((rc = ul_parse(argc, argv, &o)) >= 0)
		return rc;
	if (ncpus < 1)
		ncpus = 1;
	if ((rc = ul_task_counts(o.tasklist, (unsigned int)ncpus, tasks, &ntasks)) ||
	    (rc = ul_check_counts(tasks, ntasks, o.ops, &maxt)) || (rc = ul_check_dir()))
		return rc;
	if (host_output_open(&out, &o.h, CMD, argc + 2, argv - 2))
		return 2; /* an --output or --plot that cannot be made */
	output_columns(&out, ul_columns, sizeof(ul_columns) / sizeof(ul_columns[0]));
	rc = ul_measure(&o, tasks, ntasks, maxt, ncpus, &out);
	if (rc) {
		output_close(&out);
		return rc;
	}
	return output_close(&out) ? 1 : 0;
}

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

int host_unlink(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tasks", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'm' },
		{ "ops", required_argument, NULL, 'n' },
		{ "dir", required_argument, NULL, 'd' },
		HOST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	static const char *const modes[] = { "threads", "processes", NULL };
	static const struct output_column cols[] = {
		{ "tasks", NULL, 5, 0 },
		{ "mode", NULL, -9, 0 },
		{ "ops", NULL, 8, 0 },
		{ "runs", NULL, 4, 0 },
		{ "avg_runtime_ms", "avg ms", 8, 1 },
		{ "runtime_ms_median", "ms med", 8, 1 },
		{ "runtime_ms_min", "min", 8, 1 },
		{ "runtime_ms_max", "max", 8, 1 },
		{ "ops_per_s_median", "ops/s med", 10, 0 },
		{ "ops_per_s_min", "min", 9, 0 },
		{ "ops_per_s_max", "max", 9, 0 },
	};
	struct host_common h = { .sub = "unlink", .repeat = 5, .seconds = 1 };
	unsigned int tasks[MAX_ROWS], ntasks = 0, maxt = 0;
	const char *tasklist = NULL;
	char dirbuf[4096];
	bool processes = false, made_dir = false;
	uint64_t ops = 200000, v;
	int cpus[HOST_MAX_CPUS], ncpus = host_allowed_cpus(cpus, HOST_MAX_CPUS), c, rc = 0;
	double(*ms)[MAX_ROWS] = NULL;
	struct output out;
	struct sigaction sa = { .sa_handler = on_signal };

	optind = 1;
	opterr = 0;
	ul_dir = NULL;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		int r = host_common_opt(&h, c, optarg);
		if (r >= 0) {
			if (r)
				return r;
			if (c == HOST_OPT_SECONDS)
				return usage_error(CMD, "--seconds: unlink runs a fixed --ops");
			continue;
		}
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 't':
			tasklist = optarg;
			break;
		case 'm': {
			int i = parse_choice(CMD, "mode", optarg, modes);
			if (i < 0)
				return 2;
			processes = i == 1;
			break;
		}
		case 'n':
			if (parse_u64_arg(CMD, "ops", optarg, 1, 1000000000, &ops))
				return 2;
			break;
		case 'd':
			ul_dir = optarg;
			break;
		default:
			return host_bad_opt(&h, argv);
		}
	}
	if (optind < argc)
		return usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	if (ncpus < 1)
		ncpus = 1;
	if (tasklist) {
		char *copy = xstrdup(tasklist), *save = NULL;
		for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			if (ntasks == MAX_ROWS) {
				free(copy);
				return usage_error(CMD, "--tasks: at most %d counts", MAX_ROWS);
			}
			if (parse_u64_arg(CMD, "tasks", w, 1, MAX_TASKS, &v)) {
				free(copy);
				return 2;
			}
			tasks[ntasks++] = (unsigned int)v;
		}
		free(copy);
		if (!ntasks)
			return usage_error(CMD, "--tasks: empty list");
	} else {
		tasks[ntasks++] = (unsigned int)ncpus;
		tasks[ntasks++] = 2 * (unsigned int)ncpus;
		tasks[ntasks++] = 4 * (unsigned int)ncpus;
	}
	for (unsigned int i = 0; i < ntasks; i++) {
		if (tasks[i] > ops)
			return usage_error(CMD, "--tasks %u is more than --ops %" PRIu64, tasks[i],
					   ops);
		if (tasks[i] > maxt)
			maxt = tasks[i];
	}
	if (ul_dir) {
		struct stat st;
		if (stat(ul_dir, &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "fpulab " CMD ": --dir %s: %s\n", ul_dir,
				errno && !S_ISDIR(st.st_mode) ? strerror(errno)
							      : "not a directory");
			return 1;
		}
	}
	if (host_output_open(&out, &h, CMD, argc + 2, argv - 2))
		return 1;
	output_columns(&out, cols, sizeof(cols) / sizeof(cols[0]));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ms = calloc(h.repeat, sizeof(*ms));
	if (sh == MAP_FAILED || !ms) {
		fprintf(stderr, "fpulab " CMD ": out of memory\n");
		output_close(&out);
		return 1;
	}
	if (!ul_dir) {
		const char *tmp = getenv("TMPDIR");
		snprintf(dirbuf, sizeof(dirbuf), "%s/fpulab-unlink-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dirbuf)) {
			fprintf(stderr, "fpulab " CMD ": cannot make a directory %s: %s\n", dirbuf,
				strerror(errno));
			output_close(&out);
			return 1;
		}
		ul_dir = dirbuf;
		made_dir = true;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	for (unsigned int r = 0; r < h.repeat && !rc; r++)
		for (unsigned int i = 0; i < ntasks && !rc; i++) {
			uint64_t ns = ul_run(tasks[i], ops, processes);
			if (!ns)
				rc = 1;
			ms[r][i] = ns / 1e6;
		}
	ul_cleanup(maxt, made_dir);
	if (interrupted) {
		fprintf(stderr, "fpulab " CMD ": interrupted; %s cleaned up\n", ul_dir);
		output_close(&out);
		return 128 + interrupted;
	}
	if (rc) {
		fprintf(stderr, "fpulab " CMD ": %s\n", sh->why);
		output_close(&out);
		return 1;
	}
	host_comment_machine(&out);
	output_comment(&out,
		       "directory %s; %" PRIu64 " operations (open+close+unlink) per run split "
		       "across the tasks; %u runs per row, interleaved",
		       made_dir ? "a fresh temporary one" : ul_dir, ops, h.repeat);
	for (unsigned int i = 0; i < ntasks; i++) {
		double t[FPULAB_MAX_REPEAT], rate[FPULAB_MAX_REPEAT], sum = 0;
		struct stats_summary st, sr;
		json_t *row = json_object();
		for (unsigned int r = 0; r < h.repeat; r++) {
			t[r] = ms[r][i];
			rate[r] = ops / (t[r] / 1e3);
			sum += t[r];
		}
		st = stats_summarise(t, h.repeat);
		sr = stats_summarise(rate, h.repeat);
		json_object_set_new(row, "tasks", json_integer(tasks[i]));
		json_object_set_new(row, "mode", json_string(processes ? "processes" : "threads"));
		json_object_set_new(row, "ops", json_integer((json_int_t)ops));
		json_object_set_new(row, "runs", json_integer(h.repeat));
		json_object_set_new(row, "avg_runtime_ms", json_real(sum / h.repeat));
		json_object_set_new(row, "runtime_ms_median", json_real(st.median));
		json_object_set_new(row, "runtime_ms_min", json_real(st.min));
		json_object_set_new(row, "runtime_ms_max", json_real(st.max));
		json_object_set_new(row, "ops_per_s_median", json_real(sr.median));
		json_object_set_new(row, "ops_per_s_min", json_real(sr.min));
		json_object_set_new(row, "ops_per_s_max", json_real(sr.max));
		json_object_set_new(row, "cpus", json_integer(ncpus));
		output_row(&out, row);
	}
	free(ms);
	return output_close(&out) ? 1 : 0;
}

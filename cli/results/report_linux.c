/* SPDX-License-Identifier: MIT */
/*
 * fpulab report's recorded Linux workload (docs/report.md): the trace of
 * --linux-trace, or a compile of a scratch clone of this source tree
 * recorded now with `fpulab trace record` (docs/linux-traces.md), replayed
 * under every policy by `fpulab replay --format json` in a child process,
 * whose rows the Linux claims read (report_linux_claims.c). Where recording
 * does not work here, the rows say why and the report goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/result_file.h"
#include "common/util.h"
#include "report.h"
#include "trace/trace_io.h"

int report_linux_check(const char *path)
{
	struct trace t;
	char err[512];
	bool is_linux;

	if (trace_read(path, &t, err, sizeof(err))) {
		fprintf(stderr, "fpulab report: --linux-trace: %s\n", err);
		return 2;
	}
	is_linux = t.lx != NULL;
	trace_free(&t);
	if (!is_linux)
		fprintf(stderr,
			"fpulab report: --linux-trace %s: not a trace imported from Linux (fpulab "
			"trace import or fpulab trace record make one)\n",
			path);
	return is_linux ? 0 : 2;
}

/* Run @argv (PATH searched), stdin /dev/null, stdout and stderr appended to @log.
 * Returns its exit status; 127 when it could not run; 128 + N killed by signal N. */
static int run_logged(const char *const *argv, const char *log)
{
	int status;

	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY),
		    out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The first line of @log that starts with @prefix, the prefix left out (malloc'd); or NULL.
 * @echo: copy every line of @log that starts with "fpulab " to stderr. */
static char *said(const char *log, const char *prefix, bool echo)
{
	FILE *f = fopen(log, "r");
	char line[2048], *got = NULL;

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (echo && !strncmp(line, "fpulab ", 7))
			fprintf(stderr, "%s\n", line);
		if (!got && !strncmp(line, prefix, strlen(prefix)))
			got = xstrdup(line + strlen(prefix));
	}
	if (f)
		fclose(f);
	return got;
}

/*
 * The replay rows of every Linux trace already in @rows (from --from): the
 * workload replayed now, @trace, takes their place, said on stderr.
 */
static void drop_linux_replays(json_t *rows, const char *trace)
{
	json_t *linux_traces = json_object(), *row;
	size_t i, dropped = 0;

	json_array_foreach(rows, i, row)
	{
		const char *t = result_str(row, "trace", NULL);
		if (t && !strcmp(result_str(row, "policy", ""), RESULT_LINUX_ROW))
			json_object_set_new(linux_traces, t, json_true());
	}
	for (i = json_array_size(rows); i-- > 0;) {
		const char *t = result_str(json_array_get(rows, i), "trace", NULL);
		if (t && json_object_get(linux_traces, t) &&
		    !strcmp(result_str(json_array_get(rows, i), "experiment", ""), "replay")) {
			json_array_remove(rows, i);
			dropped++;
		}
	}
	if (dropped)
		fprintf(stderr,
			"fpulab report: %s replaces the Linux workload given with --from (%zu "
			"replay row%s of %zu trace%s left out)\n",
			trace, dropped, dropped == 1 ? "" : "s", json_object_size(linux_traces),
			json_object_size(linux_traces) == 1 ? "" : "s");
	json_decref(linux_traces);
}

/* `fpulab replay @trace` under every policy, its JSON rows into @rows. 0, or -1 with *@why. */
static int replay_rows(const char *trace, const char *dir, json_t *rows, char **why)
{
	char *out = xasprintf("%s/replay.json", dir), *log = xasprintf("%s/replay.log", dir);
	char repeat[16], err[512];
	const char *argv[] = { "/proc/self/exe", "replay", trace,      "--repeat", repeat,
			       "--format",       "json",   "--output", out,        NULL };

	snprintf(repeat, sizeof(repeat), "%d", REPORT_LINUX_REPEAT);
	fprintf(stderr,
		"fpulab report: replaying %s under every policy (fpulab replay --repeat %d)\n",
		trace, REPORT_LINUX_REPEAT);
	int st = run_logged(argv, log);
	json_t *got = st == 0 ? result_file_load(out, err, sizeof(err)) : NULL;
	if (got) {
		drop_linux_replays(rows, trace);
		json_array_extend(rows, got);
		json_decref(got);
	} else {
		char *msg = said(log, "fpulab replay: ", false);
		*why = xasprintf("`fpulab replay %s` failed (exit status %d)%s%s", trace, st,
				 msg ? ": " : "", msg ? msg : "");
		free(msg);
	}
	unlink(out);
	unlink(log);
	free(out);
	free(log);
	return got ? 0 : -1;
}

/* This binary's source tree (build/fpulab's parent), if it is one git can clone; else NULL. */
static char *source_tree(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return NULL;
	exe[n] = '\0';
	char *root = xstrdup(dirname(dirname(exe)));
	char *mk = xasprintf("%s/Makefile", root), *git = xasprintf("%s/.git", root);
	bool ok = !access(mk, R_OK) && !access(git, F_OK);
	free(mk);
	free(git);
	if (!ok) {
		free(root);
		return NULL;
	}
	return root;
}

/* Record a compile of a scratch clone of @root in @dir for @seconds into @trace. 0, or -1. */
static int record_compile(const char *root, const char *dir, long seconds, const char *trace,
			  char **why)
{
	char *src = xasprintf("%s/src", dir), *log = xasprintf("%s/record.log", dir), secs[24],
	     jobs[24];
	const char *clone[] = { "git", "clone", "-q", root, src, NULL };
	int st = -1;

	snprintf(secs, sizeof(secs), "%ld", seconds);
	snprintf(jobs, sizeof(jobs), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	if (run_logged(clone, log)) {
		*why = xasprintf("`git clone -q %s` failed: no scratch clone to compile", root);
	} else {
		fprintf(stderr,
			"fpulab report: recording `make -s -j%s all` of a scratch clone of %s for "
			"%s s (fpulab trace record, system-wide)\n",
			jobs, root, secs);
		/* clang-format off */
		const char *rec[] = { "/proc/self/exe", "trace", "record", "-o", trace,
				      "--name", "make-fpulab", "--seconds", secs,
				      "--", "make", "-s", "-j", jobs, "-C", src, "all", NULL };
		/* clang-format on */
		st = run_logged(rec, log);
		char *msg = said(log, "fpulab trace record: ", true);
		if (st)
			*why = xasprintf("`fpulab trace record` failed (exit status %d)%s%s", st,
					 msg ? ": " : "", msg ? msg : "");
		free(msg);
	}
	free(src);
	free(log);
	return st ? -1 : 0;
}

/* Whether recording works here (`fpulab trace record --check`); else *@why. */
static bool can_record(const char *dir, char **why)
{
	char *log = xasprintf("%s/check.log", dir);
	const char *argv[] = { "/proc/self/exe", "trace", "record", "--check", NULL };
	int st = run_logged(argv, log);

	if (st) {
		char *msg = said(log, "fpulab trace record: ", false);
		*why = xasprintf("no Linux recording: %s", msg ? msg
							       : "fpulab trace record --check "
								 "failed");
		free(msg);
	}
	unlink(log);
	free(log);
	return st == 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) < 0 ? -1 : 0;
}

static bool has_linux_rows(json_t *rows)
{
	return report_find(rows, "replay", RESULT_LINUX_ROW, NULL, NULL, NULL, NULL, NULL, NULL) !=
	       NULL;
}

void report_linux_rows(struct report_linux *l, bool from, json_t *rows)
{
	char dir[] = "/tmp/fpulab-report-linux-XXXXXX";
	bool record = l->seconds > 0 || (l->seconds < 0 && !from);

	if (!l->trace && has_linux_rows(rows))
		return;
	if (!l->trace && !record) {
		l->why = xasprintf(
			"no recorded Linux workload: give --linux-trace FILE (fpulab trace import "
			"or record make one), or --linux-seconds N to record a compile now");
		return;
	}
	if (!mkdtemp(dir)) {
		l->why = xasprintf("cannot make %s: %s", dir, strerror(errno));
		return;
	}
	if (l->trace) {
		replay_rows(l->trace, dir, rows, &l->why);
	} else if (can_record(dir, &l->why)) {
		char *root = source_tree(), *trace = xasprintf("%s/compile.trace", dir);
		long secs = l->seconds > 0 ? l->seconds : REPORT_LINUX_SECONDS;
		if (!root)
			l->why = xasprintf("no fpulab source tree beside this binary to compile "
					   "(its parent has no Makefile and .git): give "
					   "--linux-trace FILE");
		else if (!record_compile(root, dir, secs, trace, &l->why))
			replay_rows(trace, dir, rows, &l->why);
		free(root);
		free(trace);
	}
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

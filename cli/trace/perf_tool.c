/* SPDX-License-Identifier: MIT */
/* Running perf (and xz) for the Linux importer and `trace record` (perf_tool.h). */
#include "perf_tool.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *perf_binary(void)
{
	const char *p = getenv("FPULAB_PERF");

	return p && *p ? p : "perf";
}

/* In the child: our standard output and error onto TOOL_STDOUT_FD and TOOL_STDERR_FD,
 * the error file @e moved out of their way first. Return: where @e is now. */
static int keep_stdio(int e)
{
	if (e == TOOL_STDOUT_FD || e == TOOL_STDERR_FD)
		e = fcntl(e, F_DUPFD, TOOL_STDERR_FD + 1);
	dup2(1, TOOL_STDOUT_FD);
	dup2(2, TOOL_STDERR_FD);
	return e;
}

int tool_start(struct tool *t, char *const argv[], unsigned int flags, char *err, size_t errlen)
{
	bool pipe_out = flags & TOOL_PIPE_OUT;
	int fd[2] = { -1, -1 };

	memset(t, 0, sizeof(*t));
	t->pid = -1;
	t->errf = tmpfile();
	if (!t->errf || (pipe_out && pipe(fd))) {
		snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(errno));
		tool_free(t);
		return -1;
	}
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(errno));
		tool_free(t);
		return -1;
	}
	if (!t->pid) {
		int e = fileno(t->errf);
		if (flags & TOOL_KEEP_STDIO)
			e = keep_stdio(e);
		dup2(pipe_out ? fd[1] : e, 1);
		dup2(e, 2);
		if (pipe_out) {
			close(fd[0]);
			close(fd[1]);
		}
		/* perf record is stopped with SIGINT, as ^C would (trace record): not left
		 * ignored when fpulab started with it ignored (a script's background job) */
		signal(SIGINT, SIG_DFL);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pipe_out) {
		close(fd[1]);
		t->out = fdopen(fd[0], "r");
	}
	return 0;
}

int tool_wait(struct tool *t, int kill_it)
{
	int status;

	if (t->pid > 0 && kill_it)
		kill(t->pid, SIGTERM);
	if (t->out) {
		fclose(t->out);
		t->out = NULL;
	}
	if (t->pid <= 0)
		return -1;
	while (waitpid(t->pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	t->pid = -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void tool_stderr(struct tool *t, char *buf, size_t max)
{
	long size;
	size_t n = 0;

	buf[0] = '\0';
	if (!t->errf || max < 2 || fseek(t->errf, 0, SEEK_END) || (size = ftell(t->errf)) < 0)
		return;
	if ((size_t)size > max - 1)
		fseek(t->errf, size - (long)(max - 1), SEEK_SET);
	else
		rewind(t->errf);
	n = fread(buf, 1, max - 1, t->errf);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
}

void tool_free(struct tool *t)
{
	if (t->out)
		fclose(t->out);
	if (t->errf)
		fclose(t->errf);
	t->out = t->errf = NULL;
}

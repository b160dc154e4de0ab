/* SPDX-License-Identifier: MIT */
/* Line-by-line reading of QEMU's two outputs, the watchdog, and signals. */
#include "guest_session.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/stop_signals.h"

#define LINE_MAX_BYTES 4096
#define DRAIN_AFTER_KILL_MS 1000

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

void session_catch_signals(void)
{
	catch_stop_signals(on_signal, NULL); /* no SA_RESTART: poll returns */
	signal(SIGPIPE, SIG_IGN);
}

bool session_signal_pending(void)
{
	return got_signal != 0;
}

int session_signal(void)
{
	return got_signal;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct line_reader {
	int fd;
	enum line_source from;
	char buf[LINE_MAX_BYTES + 1];
	size_t len;
};

/* Hand every complete line in r->buf to on_line; at EOF also the rest. */
static enum line_verdict split_lines(struct line_reader *r, bool eof, line_fn on_line, void *ctx)
{
	enum line_verdict worst = LINE_CONSOLE, v;
	size_t start = 0;

	for (size_t i = 0; i < r->len; i++) {
		if (r->buf[i] != '\n')
			continue;
		r->buf[i] = '\0';
		if (i > start && r->buf[i - 1] == '\r')
			r->buf[i - 1] = '\0';
		v = on_line(ctx, r->from, r->buf + start);
		worst = v > worst ? v : worst;
		start = i + 1;
	}
	memmove(r->buf, r->buf + start, r->len - start);
	r->len -= start;
	if (r->len == LINE_MAX_BYTES || (eof && r->len)) { /* overlong or unterminated */
		r->buf[r->len] = '\0';
		v = on_line(ctx, r->from, r->buf);
		worst = v > worst ? v : worst;
		r->len = 0;
	}
	return worst;
}

/* Kill QEMU (its whole process group), then read what it had already
 * written for at most DRAIN_AFTER_KILL_MS. */
static void kill_and_drain(const struct qemu_process *p, bool *killed, long long *deadline)
{
	kill(-p->pid, SIGKILL);
	*killed = true;
	*deadline = now_ms() + DRAIN_AFTER_KILL_MS;
}

void session_run(struct qemu_process *p, unsigned timeout_s, line_fn on_line, void *ctx,
		 struct session_end *end)
{
	struct line_reader readers[2] = {
		{ .fd = p->console_fd, .from = FROM_CONSOLE },
		{ .fd = p->stderr_fd, .from = FROM_QEMU_STDERR },
	};
	long long deadline = now_ms() + (long long)timeout_s * 1000;
	long long last_console = -1; /* when the guest's console last printed */
	bool killed = false;
	int open_fds = 2, wstatus;

	memset(end, 0, sizeof(*end));
	session_catch_signals();
	while (open_fds > 0) {
		struct pollfd pfd[2];
		int n = 0;
		for (int i = 0; i < 2; i++)
			if (readers[i].fd >= 0)
				pfd[n++] = (struct pollfd){ .fd = readers[i].fd, .events = POLLIN };
		long long left = deadline - now_ms();
		int rc = poll(pfd, (nfds_t)n, left > 0 ? (int)left : 0);

		if (got_signal && !killed) {
			end->interrupted = true;
			kill_and_drain(p, &killed, &deadline);
		}
		if (rc < 0 && errno != EINTR)
			break;
		if (rc <= 0 && now_ms() >= deadline) {
			if (killed) /* something still holds the pipes open: give up on them */
				break;
			end->hung = true;
			end->console_quiet_ms = last_console < 0 ? -1 : now_ms() - last_console;
			kill_and_drain(p, &killed, &deadline);
			continue;
		}
		for (int i = 0; i < 2; i++) {
			struct line_reader *r = &readers[i];
			if (r->fd < 0)
				continue;
			bool ready = false;
			for (int j = 0; j < n; j++)
				if (pfd[j].fd == r->fd && pfd[j].revents)
					ready = true;
			if (!ready)
				continue;
			ssize_t got = read(r->fd, r->buf + r->len, LINE_MAX_BYTES - r->len);
			if (got < 0 && errno == EINTR)
				continue;
			bool eof = got <= 0;
			if (!eof)
				r->len += (size_t)got;
			if (!eof && r->from == FROM_CONSOLE)
				last_console = now_ms();
			enum line_verdict v = split_lines(r, eof, on_line, ctx);
			if (eof) {
				close(r->fd);
				r->fd = -1;
				open_fds--;
			}
			if (v == LINE_RECORD && !killed)
				deadline = now_ms() + (long long)timeout_s * 1000;
			if (v == LINE_STOP && !killed) {
				end->stopped = true;
				kill_and_drain(p, &killed, &deadline);
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (readers[i].fd >= 0)
			close(readers[i].fd);
	if (got_signal && !killed) {
		end->interrupted = true;
		kill(-p->pid, SIGKILL);
	}
	while (waitpid(p->pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(wstatus)) {
		end->exited = true;
		end->status = WEXITSTATUS(wstatus);
	} else if (WIFSIGNALED(wstatus)) {
		end->signal = WTERMSIG(wstatus);
	}
}

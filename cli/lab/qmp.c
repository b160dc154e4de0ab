/* SPDX-License-Identifier: MIT */
/* A minimal QMP client over a unix socket (see qmp.h). */
#include "qmp.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest_session.h"

#define CONNECT_RETRY_MS 20

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether QEMU has exited (without reaping it: session_run does that). */
static bool qemu_exited(pid_t pid)
{
	siginfo_t si = { 0 };

	if (pid <= 0)
		return false;
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return si.si_pid != 0;
}

static int try_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	close(fd);
	return -1;
}

/* The next line (without its \r\n) into *line, waiting until deadline. */
static int read_line(struct qmp *q, long long deadline, char **line, char *err, size_t len)
{
	memmove(q->buf, q->buf + q->used, q->len - q->used);
	q->len -= q->used;
	q->used = 0;
	for (;;) {
		char *nl = memchr(q->buf, '\n', q->len);
		if (nl) {
			*nl = '\0';
			if (nl > q->buf && nl[-1] == '\r')
				nl[-1] = '\0';
			q->used = (size_t)(nl - q->buf) + 1;
			*line = q->buf;
			return QMP_OK;
		}
		if (q->len == QMP_LINE_MAX) {
			snprintf(err, len, "QMP: a reply line longer than %d bytes", QMP_LINE_MAX);
			return QMP_FAILED;
		}
		long long left = deadline - now_ms();
		struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
		int rc = left > 0 ? poll(&pfd, 1, (int)left) : 0;
		if (session_signal_pending())
			return QMP_INTERRUPTED;
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0) {
			snprintf(err, len, "QMP: no reply from QEMU within %u s",
				 q->reply_timeout_s ? q->reply_timeout_s : QMP_TIMEOUT_S);
			return QMP_FAILED;
		}
		ssize_t got = read(q->fd, q->buf + q->len, QMP_LINE_MAX - q->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			snprintf(err, len, "QMP: QEMU closed the connection%s",
				 qemu_exited(q->qemu) ? " and exited" : "");
			return qemu_exited(q->qemu) ? QMP_QEMU_EXITED : QMP_FAILED;
		}
		q->len += (size_t)got;
	}
}

int qmp_connect(struct qmp *q, const char *path, pid_t qemu, char *err, size_t len)
{
	long long deadline = now_ms() + QMP_TIMEOUT_S * 1000LL;
	char *greeting;
	int rc;

	q->fd = -1;
	q->qemu = qemu;
	q->reply_timeout_s = QMP_TIMEOUT_S;
	q->len = q->used = 0;
	while ((q->fd = try_connect(path)) < 0) {
		int why = errno;
		if (qemu_exited(qemu)) {
			snprintf(err, len, "QEMU exited before its QMP socket answered");
			return QMP_QEMU_EXITED;
		}
		if (now_ms() >= deadline) {
			snprintf(err, len, "QMP: cannot connect to %s within %d s: %s", path,
				 QMP_TIMEOUT_S, strerror(why));
			return QMP_FAILED;
		}
		usleep(CONNECT_RETRY_MS * 1000);
		if (session_signal_pending())
			return QMP_INTERRUPTED;
	}
	rc = read_line(q, deadline, &greeting, err, len);
	if (rc == QMP_OK && (*greeting != '{' || !qmp_json_member(greeting, "QMP"))) {
		snprintf(err, len, "QMP: unexpected greeting: %.80s", greeting);
		rc = QMP_FAILED;
	}
	if (rc != QMP_OK)
		qmp_close(q);
	return rc;
}

static int send_all(int fd, const char *text, char *err, size_t len)
{
	size_t n = strlen(text);

	while (n > 0) {
		ssize_t w = send(fd, text, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			snprintf(err, len, "QMP: cannot send: %s", strerror(errno));
			return QMP_FAILED;
		}
		text += w;
		n -= (size_t)w;
	}
	return QMP_OK;
}

int qmp_execute(struct qmp *q, const char *command, const char **reply, char *err, size_t len)
{
	return qmp_execute_args(q, command, NULL, reply, err, len);
}

int qmp_execute_args(struct qmp *q, const char *command, const char *args, const char **reply,
		     char *err, size_t len)
{
	long long deadline = now_ms() +
			     (q->reply_timeout_s ? q->reply_timeout_s : QMP_TIMEOUT_S) * 1000LL;
	char msg[512], *line;
	int rc;

	if (args)
		snprintf(msg, sizeof(msg), "{\"execute\":\"%s\",\"arguments\":%s}\n", command,
			 args);
	else
		snprintf(msg, sizeof(msg), "{\"execute\":\"%s\"}\n", command);
	if ((rc = send_all(q->fd, msg, err, len)) != QMP_OK)
		return rc;
	for (;;) {
		if ((rc = read_line(q, deadline, &line, err, len)) != QMP_OK)
			return rc;
		if (*line != '{' || qmp_json_member(line, "event"))
			continue; /* an asynchronous event (or noise): not our reply */
		if (qmp_json_member(line, "return")) {
			*reply = line;
			return QMP_OK;
		}
		const char *error = qmp_json_member(line, "error");
		if (error) {
			char desc[160] = "no description";
			const char *d = *error == '{' ? qmp_json_member(error, "desc") : NULL;
			if (d)
				qmp_json_string(d, desc, sizeof(desc));
			snprintf(err, len, "QMP %s: %s", command, desc);
			return QMP_FAILED;
		}
	}
}

void qmp_close(struct qmp *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
}

/* ---- scanning ---- */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/* p at '"': just past the closing quote (or at the end of the text). */
static const char *string_end(const char *p)
{
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p ? p + 1 : p;
}

const char *qmp_json_value_end(const char *v)
{
	int depth = 0;

	if (*v == '"')
		return string_end(v);
	if (*v != '{' && *v != '[') { /* number, true, false, null */
		while (*v && !strchr(",}] \t\r\n", *v))
			v++;
		return v;
	}
	while (*v) {
		if (*v == '"') {
			v = string_end(v);
			continue;
		}
		if (*v == '{' || *v == '[')
			depth++;
		else if ((*v == '}' || *v == ']') && --depth == 0)
			return v + 1;
		v++;
	}
	return v;
}

const char *qmp_json_member(const char *obj, const char *key)
{
	size_t klen = strlen(key);

	if (*obj != '{')
		return NULL;
	for (const char *p = skip_ws(obj + 1); *p == '"';) {
		const char *kend = string_end(p);
		bool match = (size_t)(kend - p) == klen + 2 && !strncmp(p + 1, key, klen);
		p = skip_ws(kend);
		if (*p != ':')
			return NULL;
		p = skip_ws(p + 1);
		if (match)
			return p;
		p = skip_ws(qmp_json_value_end(p));
		if (*p != ',')
			return NULL;
		p = skip_ws(p + 1);
	}
	return NULL;
}

bool qmp_json_u64(const char *v, uint64_t *out)
{
	char *end;

	if (!(*v >= '0' && *v <= '9'))
		return false;
	errno = 0;
	*out = strtoull(v, &end, 10);
	return errno == 0 && end != v && (*end == '\0' || strchr(",}] \t\r\n", *end));
}

bool qmp_json_string(const char *v, char *buf, size_t len)
{
	const char *end;
	size_t n;

	if (*v != '"' || len == 0)
		return false;
	end = string_end(v);
	n = (size_t)(end - v) >= 2 ? (size_t)(end - v) - 2 : 0;
	if (n >= len)
		n = len - 1;
	memcpy(buf, v + 1, n);
	buf[n] = '\0';
	return true;
}

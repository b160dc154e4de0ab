/* SPDX-License-Identifier: MIT */
/* A minimal QMP client: connect to QEMU's -qmp unix socket, send a command,
 * read its reply line. Replies are scanned for the few members we need; this
 * is not a JSON parser. */
#ifndef FPULAB_CLI_LAB_QMP_H
#define FPULAB_CLI_LAB_QMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define QMP_TIMEOUT_S 5    /* connecting, and each command's reply */
#define QMP_LINE_MAX 65536 /* query-cpus-fast for 64 vCPUs: about 13 KB */

enum qmp_status {
	QMP_OK = 0,
	QMP_FAILED = -1,      /* err says why */
	QMP_QEMU_EXITED = -2, /* QEMU exited before it answered */
	QMP_INTERRUPTED = -3, /* SIGINT/SIGTERM/SIGHUP reached fpulab */
};

struct qmp {
	int fd;
	pid_t qemu;               /* watched while connecting; 0: none */
	size_t len;               /* bytes in buf */
	size_t used;              /* of them, the line last returned (dropped at the next read) */
	unsigned reply_timeout_s; /* each command's reply; 0: QMP_TIMEOUT_S */
	char buf[QMP_LINE_MAX + 1];
};

/* Connect to path (retrying until QEMU has created it) and read the greeting. */
int qmp_connect(struct qmp *q, const char *path, pid_t qemu, char *err, size_t len);
/* Send {"execute":"COMMAND"}; *reply is the reply line (valid until the next
 * call), the one with a top-level "return". Event lines are skipped; an
 * "error" reply is QMP_FAILED with QEMU's description in err. */
int qmp_execute(struct qmp *q, const char *command, const char **reply, char *err, size_t len);
/* The same with "arguments": @args, a JSON object (at most 400 bytes). */
int qmp_execute_args(struct qmp *q, const char *command, const char *args, const char **reply,
		     char *err, size_t len);
void qmp_close(struct qmp *q);

/* ---- scanning one JSON line ---- */
/* obj points at '{'. The value of member key at the object's own level (not
 * inside a nested object), or NULL. */
const char *qmp_json_member(const char *obj, const char *key);
/* Just past the value starting at v (string, object, array, number, literal). */
const char *qmp_json_value_end(const char *v);
/* The unsigned integer at v. */
bool qmp_json_u64(const char *v, uint64_t *out);
/* The string at v, without unescaping, truncated to len. */
bool qmp_json_string(const char *v, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/* Unit tests of the QMP client and vCPU pinning (cli/lab/qmp.c, cli/lab/vcpu_pin.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab/qmp.h"
#include "lab/vcpu_pin.h"

/* What QEMU 7.2 answers to query-cpus-fast for -smp 2 (microvm, TCG). */
static const char cpus_reply[] =
	"{\"return\": [{\"thread-id\": 11373, \"props\": {\"core-id\": 0, \"thread-id\": 0, "
	"\"socket-id\": 0}, \"qom-path\": \"/machine/unattached/device[0]\", \"cpu-index\": 0, "
	"\"target\": \"x86_64\"}, {\"thread-id\": 11374, \"props\": {\"core-id\": 1, "
	"\"thread-id\": 0, \"socket-id\": 0}, \"qom-path\": \"/machine/unattached/device[2]\", "
	"\"cpu-index\": 1, \"target\": \"x86_64\"}]}";

static void test_json_member_stays_at_its_level(void **state)
{
	const char *obj = "{\"a\": {\"b\": 1}, \"s\": \"b\", \"b\": 2}";
	uint64_t v;

	assert_true(qmp_json_u64(qmp_json_member(obj, "b"), &v));
	assert_int_equal(v, 2); /* not the nested b, not the string value "b" */
	assert_null(qmp_json_member(obj, "c"));
	assert_null(qmp_json_member("[1]", "a"));
	assert_null(qmp_json_member("{\"a\" 1}", "a"));
	assert_false(qmp_json_u64("\"12\"", &v));
	assert_false(qmp_json_u64("-1", &v));
}

static void test_json_value_end_skips_strings(void **state)
{
	const char *v = "{\"k\": \"a } ] \\\" {\"}, next";

	assert_string_equal(qmp_json_value_end(v), ", next");
	assert_string_equal(qmp_json_value_end("123}"), "}");
	assert_string_equal(qmp_json_value_end("\"x\\\"y\" z"), " z");
}

static void test_vcpu_threads_from_a_real_reply(void **state)
{
	struct vcpu_thread t[4];

	assert_int_equal(vcpu_threads_parse(cpus_reply, t, 4), 2);
	assert_int_equal(t[0].cpu_index, 0);
	assert_int_equal(t[0].tid, 11373); /* not props' thread-id 0 */
	assert_int_equal(t[1].cpu_index, 1);
	assert_int_equal(t[1].tid, 11374);
	assert_int_equal(vcpu_threads_parse(cpus_reply, t, 1), 1);
	assert_int_equal(vcpu_threads_parse("{\"return\": {}}", t, 4), -1);
	assert_int_equal(vcpu_threads_parse("{\"return\": []}", t, 4), 0);
	assert_int_equal(vcpu_threads_parse("{\"return\": [{\"cpu-index\": 3}]}", t, 4), 1);
	assert_int_equal(t[0].cpu_index, 3);
	assert_int_equal(t[0].tid, -1); /* no thread-id */
}

/* A QMP peer whose lines are already waiting on the other end of a socketpair. */
static int fake_peer(struct qmp *q, const char *lines)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[1], lines, strlen(lines)), (ssize_t)strlen(lines));
	q->fd = sv[0];
	q->qemu = 0;
	q->len = q->used = 0;
	return sv[1];
}

static void test_qmp_execute_skips_events(void **state)
{
	struct qmp *q = malloc(sizeof(*q));
	const char *reply;
	char err[256], sent[256] = "";
	int peer = fake_peer(q, "{\"timestamp\": {\"seconds\": 1}, \"event\": \"RESUME\"}\r\n"
				"{\"return\": {}}\r\n"
				"{\"return\": [{\"thread-id\": 7, \"cpu-index\": 0}]}\n");

	assert_int_equal(qmp_execute(q, "cont", &reply, err, sizeof(err)), QMP_OK);
	assert_string_equal(reply, "{\"return\": {}}");
	assert_int_equal(qmp_execute(q, "query-cpus-fast", &reply, err, sizeof(err)), QMP_OK);
	assert_string_equal(reply, "{\"return\": [{\"thread-id\": 7, \"cpu-index\": 0}]}");
	assert_true(read(peer, sent, sizeof(sent) - 1) > 0);
	assert_string_equal(sent, "{\"execute\":\"cont\"}\n{\"execute\":\"query-cpus-fast\"}\n");
	qmp_close(q);
	close(peer);
	free(q);
}

static void test_qmp_error_reply_and_closed_socket(void **state)
{
	struct qmp *q = malloc(sizeof(*q));
	const char *reply;
	char err[256];
	int peer = fake_peer(q,
			     "{\"error\": {\"class\": \"GenericError\", \"desc\": \"no way\"}}\n");

	assert_int_equal(qmp_execute(q, "cont", &reply, err, sizeof(err)), QMP_FAILED);
	assert_string_equal(err, "QMP cont: no way");
	shutdown(peer, SHUT_WR); /* QEMU goes away after reading our command */
	assert_int_equal(qmp_execute(q, "cont", &reply, err, sizeof(err)), QMP_FAILED);
	assert_string_equal(err, "QMP: QEMU closed the connection");
	close(peer);
	assert_int_equal(qmp_execute(q, "cont", &reply, err, sizeof(err)), QMP_FAILED);
	assert_string_equal(err, "QMP: cannot send: Broken pipe");
	qmp_close(q);
	free(q);
}

static void test_pin_threads(void **state)
{
	struct vcpu_thread t[3] = { { 0, (long)gettid() }, { 1, -1 }, { 2, 0x7ffffff0 } };
	struct vcpu_pins pins;
	cpu_set_t saved, now;
	int allowed[2];

	assert_int_equal(sched_getaffinity(0, sizeof(saved), &saved), 0);
	for (int c = 0, n = 0; n < 1; c++)
		if (CPU_ISSET(c, &saved))
			allowed[n++] = c;
	allowed[1] = allowed[0];
	/* vCPU 0 is this thread; vCPU 1 has no thread-id; vCPU 2's thread does not
	 * exist: both are warnings, and only vCPU 0 is pinned. */
	vcpu_pin_threads(t, 3, allowed, 2, &pins);
	assert_int_equal(pins.n, 1);
	char want[32];
	snprintf(want, sizeof(want), "0:%d", allowed[0]);
	assert_string_equal(pins.value, want);
	snprintf(want, sizeof(want), "0->cpu%d", allowed[0]);
	assert_string_equal(pins.header, want);
	assert_int_equal(sched_getaffinity(0, sizeof(now), &now), 0);
	assert_int_equal(CPU_COUNT(&now), 1);
	assert_true(CPU_ISSET(allowed[0], &now));
	sched_setaffinity(0, sizeof(saved), &saved);

	vcpu_pin_threads(t + 1, 1, allowed, 2, &pins);
	assert_int_equal(pins.n, 0);
	assert_string_equal(pins.value, "no");
}

static void test_pin_map_wraps_around_the_host_cpus(void **state)
{
	struct vcpu_thread t[3];
	struct vcpu_pins pins;
	cpu_set_t saved;
	int allowed[2] = { 0, 0 }, n = 0;

	assert_int_equal(sched_getaffinity(0, sizeof(saved), &saved), 0);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &saved))
			allowed[n++] = c;
	if (n < 2)
		skip();
	for (int i = 0; i < 3; i++)
		t[i] = (struct vcpu_thread){ (unsigned)i, (long)gettid() };
	vcpu_pin_threads(t, 3, allowed, 2, &pins);
	sched_setaffinity(0, sizeof(saved), &saved);
	char want[64];
	snprintf(want, sizeof(want), "0:%d,1:%d,2:%d", allowed[0], allowed[1], allowed[0]);
	assert_string_equal(pins.value, want);
}

static void test_qmp_socket_dir_is_private_and_removed(void **state)
{
	struct qmp_socket s;
	char err[256];

	assert_int_equal(qmp_socket_make(&s, err, sizeof(err)), 0);
	assert_int_equal(access(s.dir, F_OK), 0);
	assert_non_null(strstr(s.path, "/fpulab-qmp."));
	assert_int_equal(strncmp(s.path, s.dir, strlen(s.dir)), 0);
	qmp_socket_remove(&s);
	assert_int_equal(access(s.dir, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_member_stays_at_its_level),
		cmocka_unit_test(test_json_value_end_skips_strings),
		cmocka_unit_test(test_vcpu_threads_from_a_real_reply),
		cmocka_unit_test(test_qmp_execute_skips_events),
		cmocka_unit_test(test_qmp_error_reply_and_closed_socket),
		cmocka_unit_test(test_pin_threads),
		cmocka_unit_test(test_pin_map_wraps_around_the_host_cpus),
		cmocka_unit_test(test_qmp_socket_dir_is_private_and_removed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

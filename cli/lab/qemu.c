/* SPDX-License-Identifier: MIT */
/* The one place that knows how QEMU is started. */
#include "qemu.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpulab/abi.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const char *qemu_binary(void)
{
	const char *env = getenv("FPULAB_QEMU");
	return env && *env ? env : QEMU_DEFAULT_BINARY;
}

const char *qemu_cpu_model(const struct qemu_setup *s)
{
	return s->cpu_model ? s->cpu_model : s->kvm ? "host" : "max";
}

bool qemu_vcpu_threads(const struct qemu_setup *s)
{
	return s->kvm || !strcmp(s->tcg_threads, "multi");
}

void qemu_build_command(const struct qemu_setup *s, struct qemu_command *cmd)
{
	int n = 0;
	char **a = cmd->argv;

	snprintf(cmd->machine, sizeof(cmd->machine), "%s", s->machine);
	if (s->kvm)
		snprintf(cmd->accel, sizeof(cmd->accel), "kvm");
	else
		snprintf(cmd->accel, sizeof(cmd->accel), "tcg,thread=%s", s->tcg_threads);
	snprintf(cmd->smp, sizeof(cmd->smp), "%u", s->cpus);

	a[n++] = (char *)qemu_binary();
	a[n++] = "-M";
	a[n++] = cmd->machine;
	a[n++] = "-accel";
	a[n++] = cmd->accel;
	if (s->icount && !s->kvm) {
		a[n++] = "-icount";
		a[n++] = "shift=0,sleep=off"; /* clock = instructions; idle skips ahead */
	}
	a[n++] = "-cpu";
	a[n++] = (char *)qemu_cpu_model(s);
	a[n++] = "-smp";
	a[n++] = cmd->smp;
	a[n++] = "-m";
	a[n++] = s->trace ? QEMU_MEMORY_TRACE : QEMU_MEMORY;
	cmd->console_input = s->trace;
	a[n++] = "-nodefaults";
	a[n++] = "-no-user-config";
	a[n++] = "-nographic";
	a[n++] = "-serial";
	a[n++] = "stdio";
	a[n++] = "-device";
	a[n++] = "isa-debug-exit,iobase=" STR(FPULAB_DEBUG_EXIT_PORT) ",iosize=0x04";
	a[n++] = "-no-reboot";
	if (s->qmp_socket) { /* paused until fpulab has pinned the vCPUs and sends cont */
		snprintf(cmd->qmp, sizeof(cmd->qmp), "unix:%s,server=on,wait=off", s->qmp_socket);
		a[n++] = "-S";
		a[n++] = "-qmp";
		a[n++] = cmd->qmp;
	}
	a[n++] = "-kernel";
	a[n++] = (char *)s->kernel;
	a[n++] = "-append";
	a[n++] = (char *)s->append;
	a[n] = NULL;
}

static bool cpuinfo_has_virt_flag(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		for (char *tok = strtok(strchr(line, ':') ? strchr(line, ':') + 1 : line, " \t\n");
		     tok; tok = strtok(NULL, " \t\n"))
			if (!strcmp(tok, "vmx") || !strcmp(tok, "svm"))
				found = true;
	}
	free(line);
	fclose(f);
	return found;
}

bool kvm_usable(char *why, size_t len)
{
	const char *cpuinfo = getenv("FPULAB_CPUINFO"), *dev = getenv("FPULAB_KVM_DEV");
	int fd;

	cpuinfo = cpuinfo && *cpuinfo ? cpuinfo : "/proc/cpuinfo";
	dev = dev && *dev ? dev : "/dev/kvm";
	if (!cpuinfo_has_virt_flag(cpuinfo)) {
		/* PVM runs guests without VT-x/SVM, deprivileged; under it the
		 * lab stops at its first XRSTOR with "KVM internal error",
		 * an emulation failure (tried with --accel kvm on such a host). */
		bool pvm = access("/sys/module/kvm_pvm", F_OK) == 0;
		snprintf(why, len, "%s shows neither vmx nor svm: no hardware virtualization%s",
			 cpuinfo,
			 pvm ? " (this /dev/kvm is PVM, the kvm_pvm module: it cannot run the "
			       "lab's FPU code)"
			     : "");
		return false;
	}
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "cannot open %s read-write: %s", dev, strerror(errno));
		return false;
	}
	close(fd);
	return true;
}

int qemu_start(const struct qemu_command *cmd, struct qemu_process *p, char *err, size_t len)
{
	int out[2] = { -1, -1 }, errp[2] = { -1, -1 }, in[2] = { -1, -1 }, rc;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	extern char **environ;

	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
	    (cmd->console_input && pipe2(in, O_CLOEXEC) < 0)) {
		snprintf(err, len, "pipe: %s", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	if (cmd->console_input)
		posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	/* Its own process group, so the watchdog can kill QEMU and anything it
	 * started (a test's fake QEMU script, say) in one go. */
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	rc = posix_spawnp(&p->pid, cmd->argv[0], &fa, &attr, cmd->argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(errp[1]);
	if (in[0] >= 0)
		close(in[0]);
	if (rc != 0) {
		close(out[0]);
		close(errp[0]);
		if (in[1] >= 0)
			close(in[1]);
		if (rc == ENOENT)
			snprintf(err, len, "QEMU not found: '%s'. Install it with: %s",
				 cmd->argv[0], QEMU_INSTALL_HINT);
		else
			snprintf(err, len, "cannot start QEMU '%s': %s", cmd->argv[0],
				 strerror(rc));
		return -1;
	}
	p->console_fd = out[0];
	p->stderr_fd = errp[0];
	p->console_in_fd = in[1];
	return 0;
}

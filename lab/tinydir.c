/* SPDX-License-Identifier: MIT */
/* The sleeping-lock experiment's directory (tinydir.h). */
#include "tinydir.h"
#include "boot_info.h"
#include "syscall.h"

struct dentry {
	char name[TINYDIR_NAME];
	bool linked;        /* the name is in the directory */
	volatile int opens; /* open descriptors (the file outlives its name) */
};

static struct {
	struct sleeplock lock;
	struct dentry e[TINYDIR_MAX];
	struct tinydir_stats stats;
} dir;

extern char __kernel_start[];

void tinydir_reset(enum state_api api)
{
	memset(&dir, 0, sizeof(dir));
	sleeplock_init(&dir.lock, api);
}

struct sleeplock *tinydir_lock(void)
{
	return &dir.lock;
}

const struct tinydir_stats *tinydir_stats(void)
{
	return &dir.stats;
}

unsigned int tinydir_names(void)
{
	unsigned int n = 0;
	for (unsigned int i = 0; i < TINYDIR_MAX; i++)
		n += dir.e[i].linked;
	return n;
}

unsigned int tinydir_open_files(void)
{
	unsigned int n = 0;
	for (unsigned int i = 0; i < TINYDIR_MAX; i++)
		n += dir.e[i].opens != 0;
	return n;
}

static long fail(long err)
{
	__atomic_add_fetch(&dir.stats.failures, 1, __ATOMIC_RELAXED);
	return err;
}

/* Copy a name from ring 3: in RAM, NUL-terminated, not empty. */
static bool get_name(uint64_t uname, char *name)
{
	if (uname < (uint64_t)(uintptr_t)__kernel_start || uname > boot_info.ram_end - TINYDIR_NAME)
		return false;
	const char *u = (const char *)(uintptr_t)uname;
	for (unsigned int i = 0; i < TINYDIR_NAME; i++) {
		name[i] = u[i];
		if (!name[i])
			return i > 0;
	}
	return false;
}

/* Under dir.lock. */
static int lookup(const char *name)
{
	for (int i = 0; i < TINYDIR_MAX; i++)
		if (dir.e[i].linked && !strcmp(dir.e[i].name, name))
			return i;
	return -1;
}

static long open_locked(const char *name, uint64_t flags)
{
	int i = lookup(name);
	if (i >= 0) {
		if ((flags & (TD_O_CREAT | TD_O_EXCL)) == (TD_O_CREAT | TD_O_EXCL))
			return fail(-17);
	} else {
		if (!(flags & TD_O_CREAT))
			return fail(-2);
		for (i = 0; i < TINYDIR_MAX && (dir.e[i].linked || dir.e[i].opens); i++)
			;
		if (i == TINYDIR_MAX)
			return fail(-28);
		memcpy(dir.e[i].name, name, TINYDIR_NAME);
		dir.e[i].linked = true;
		dir.stats.creates++;
		/*
		 * A real create may sleep holding the directory lock (inode
		 * allocation, journal, I/O): the lab yields the CPU here, so
		 * tasks sharing a CPU contend even though the lab kernel is
		 * not preemptible.
		 */
		yield();
	}
	__atomic_add_fetch(&dir.e[i].opens, 1, __ATOMIC_RELAXED);
	dir.stats.opens++;
	return i;
}

long tinydir_open(uint64_t uname, uint64_t flags)
{
	char name[TINYDIR_NAME];
	if (!get_name(uname, name) || (flags & ~(uint64_t)(TD_O_CREAT | TD_O_EXCL)))
		return fail(-1);
	sleeplock_lock(&dir.lock);
	long ret = open_locked(name, flags);
	sleeplock_unlock(&dir.lock);
	return ret;
}

long tinydir_close(uint64_t fd)
{
	if (fd >= TINYDIR_MAX)
		return fail(-9);
	volatile int *opens = &dir.e[fd].opens;
	int n = *opens;
	do {
		if (n <= 0)
			return fail(-9);
	} while (!__atomic_compare_exchange_n(opens, &n, n - 1, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	__atomic_add_fetch(&dir.stats.closes, 1, __ATOMIC_RELAXED);
	return 0;
}

long tinydir_unlink(uint64_t uname)
{
	char name[TINYDIR_NAME];
	if (!get_name(uname, name))
		return fail(-1);
	sleeplock_lock(&dir.lock);
	int i = lookup(name);
	if (i >= 0) {
		dir.e[i].linked = false;
		dir.stats.unlinks++;
	}
	sleeplock_unlock(&dir.lock);
	return i >= 0 ? 0 : fail(-2);
}

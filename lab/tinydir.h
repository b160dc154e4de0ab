/* SPDX-License-Identifier: MIT */
/*
 * A tiny in-kernel directory for the sleeping-lock experiment: names that
 * ring-3 tasks create (open with O_CREAT), open, close and unlink, every
 * lookup and change under one sleeping lock, as Linux takes the directory
 * inode's lock for open(O_CREAT) and unlink (close does not take it).
 * A create yields the CPU while it holds the lock, as a real one may sleep
 * there: the lock is then contended by tasks on the same CPU too.
 */
#ifndef LAB_TINYDIR_H
#define LAB_TINYDIR_H

#include "sleeplock.h"

#define TINYDIR_MAX 64  /* entries */
#define TINYDIR_NAME 16 /* bytes, with the NUL */

/* Exact counts since tinydir_reset(). */
struct tinydir_stats {
	uint64_t creates, opens, closes, unlinks;
	uint64_t failures; /* calls that returned an error */
};

/* Empty the directory; its lock's wait loop writes the state with @api. */
void tinydir_reset(enum state_api api);
struct sleeplock *tinydir_lock(void);
const struct tinydir_stats *tinydir_stats(void);
/* Names in the directory, and files still open (both 0 after a clean run). */
unsigned int tinydir_names(void);
unsigned int tinydir_open_files(void);

/*
 * System calls; @uname is a ring-3 pointer to a NUL-terminated name of 1 to
 * TINYDIR_NAME - 1 bytes. Return a file descriptor (open) or 0, or a negative
 * error: -1 bad argument, -2 no such name, -17 exists (O_EXCL), -28 full,
 * -9 bad descriptor.
 */
long tinydir_open(uint64_t uname, uint64_t flags);
long tinydir_close(uint64_t fd);
long tinydir_unlink(uint64_t uname);

#endif

/* SPDX-License-Identifier: MIT */
/* Common declarations of the lab kernel. */
#ifndef LAB_KERNEL_H
#define LAB_KERNEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + (a)-1) & ~((uint64_t)(a)-1))
#define noreturn __attribute__((noreturn))
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define barrier() __asm__ volatile("" ::: "memory")
/* Zeroed at boot, kept across the watchdog's restart (restart.c, lab.ld). */
#define __persist __attribute__((section(".persist")))

/* string.c */
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
uint64_t parse_u64(const char *s, const char **end);

/* console.c */
void console_init(void);
bool console_serial(void); /* COM1 answered console_init() */
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vkprintf(const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vksnprintf(char *buf, size_t size, const char *fmt, va_list ap);
noreturn void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void qemu_exit(unsigned int value);
void console_break_lock(void); /* the watchdog: a hung CPU may hold the console lock */

/* mem.c: boot-time allocation, never freed. */
void mem_init(uint64_t start, uint64_t end);
void *kalloc(size_t size, size_t align);
void *kalloc_raw(size_t size, size_t align); /* not zeroed */
uint64_t kalloc_avail(size_t align);         /* bytes left at that alignment */

/* spinlock */
struct spinlock {
	volatile int locked;
};
static inline void spin_lock(struct spinlock *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (READ_ONCE(l->locked))
			__asm__ volatile("pause");
}
static inline void spin_unlock(struct spinlock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#endif

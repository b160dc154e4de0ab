/* SPDX-License-Identifier: MIT */
/* The few libc string functions the kernel and libfpu need. */
#include "kernel.h"

void *memcpy(void *d, const void *s, size_t n)
{
	void *ret = d;
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	return ret;
}

void *memset(void *d, int c, size_t n)
{
	void *ret = d;
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return ret;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (; *s; s++)
		if (*s == (char)c)
			return (char *)s;
	return c ? NULL : (char *)s;
}

/* Decimal, or hex with 0x. Stops at the first other character. */
uint64_t parse_u64(const char *s, const char **end)
{
	uint64_t v = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (s += 2;; s++) {
			int d = *s >= '0' && *s <= '9'   ? *s - '0'
				: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
				: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
							 : -1;
			if (d < 0)
				break;
			v = v * 16 + (uint64_t)d;
		}
	} else {
		for (; *s >= '0' && *s <= '9'; s++)
			v = v * 10 + (uint64_t)(*s - '0');
	}
	if (end)
		*end = s;
	return v;
}

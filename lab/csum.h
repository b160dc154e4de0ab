/* SPDX-License-Identifier: MIT */
/*
 * The checksum of SYS_KERNEL_CSUM, shared by the kernel and ring 3: the sum,
 * mod 2^64, of the buffer's 64-bit little-endian words, the last one padded
 * with zero bytes. Integer code only; the kernel's SIMD version must agree.
 */
#ifndef LAB_CSUM_H
#define LAB_CSUM_H

#include <stdint.h>

#define CSUM_MAX_BYTES (1u << 20) /* longer requests are refused */

static inline uint64_t csum64_ref(const void *buf, uint64_t bytes)
{
	const unsigned char *p = buf;
	uint64_t sum = 0, i = 0, w;

	for (; i + 8 <= bytes; i += 8) {
		__builtin_memcpy(&w, p + i, 8);
		sum += w;
	}
	for (w = 0; i < bytes; i++)
		w |= (uint64_t)p[i] << (8 * (i & 7));
	return sum + w;
}

#endif

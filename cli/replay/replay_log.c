/* SPDX-License-Identifier: MIT */
/*
 * The floor log as a byte stream (replay_log.h). Per call, its effects,
 * then an END byte. Each byte that starts an effect holds its kind in the
 * low nibble; the high nibble is
 *   a save or restore: the mask's index in the log's masks (LOG_MASK_LIT:
 *     its 8 bytes follow), then the area: a LEB128 varint of its index + 1
 *     in the replay's areas (0: its 8-byte address follows);
 *   OP_GOTO_CPU: 0, the CPU in the next byte;
 *   OP_END: LOG_END_TIMED, LOG_END_SKIP.
 * An eager switch (a save and a restore of small task ids) is 5 bytes, a
 * call with no effect 1. Built with -mgeneral-regs-only (the Makefile).
 */
#include "replay_log.h"

#include <stdlib.h>

#define LOG_MASK_LIT 15u
#define LOG_END_TIMED 0x10u
#define LOG_END_SKIP 0x20u
/* The most bytes one effect takes (kind, mask, varint 0, address), and an END. */
#define LOG_OP_MAX_BYTES (1 + 8 + 1 + 8)

static inline uint32_t hash_ptr(const void *p, uint32_t hmask)
{
	return (uint32_t)(((uintptr_t)p >> 6) * 0x9e3779b97f4a7c15ull >> 32) & hmask;
}

int log_areas_init(struct log_areas *a, struct xregs_state *const *area, uint32_t n)
{
	uint32_t size = 16;

	while (size < 2 * n)
		size *= 2;
	*a = (struct log_areas){ .area = area, .n = n, .hmask = size - 1 };
	a->slot = calloc(size, sizeof(*a->slot));
	if (!a->slot)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t h = hash_ptr(area[i], a->hmask);
		while (a->slot[h])
			h = (h + 1) & a->hmask;
		a->slot[h] = i + 1;
	}
	return 0;
}

void log_areas_free(struct log_areas *a)
{
	free(a->slot);
	a->slot = NULL;
}

/* @p's index + 1 in @a, or 0. */
static uint32_t area_index(const struct log_areas *a, const struct xregs_state *p)
{
	for (uint32_t h = hash_ptr(p, a->hmask);; h = (h + 1) & a->hmask) {
		uint32_t s = a->slot[h];
		if (!s || a->area[s - 1] == p)
			return s;
	}
}

void log_reset(struct replay_log *l)
{
	l->len = 0;
	l->last_end = SIZE_MAX;
	l->call_ops = 0;
	l->overflow = l->too_long = false;
	l->saves = l->restores = l->ncall = 0;
	l->nmask = 0;
}

static inline void put_u64(uint8_t *b, size_t *len, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[(*len)++] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t get_u64(const uint8_t *b)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

/* @mask's index in @l's masks (added if there is room), or LOG_MASK_LIT. */
static uint32_t mask_index(struct replay_log *l, uint64_t mask)
{
	for (unsigned i = 0; i < l->nmask; i++)
		if (l->mask[i] == mask)
			return i;
	if (l->nmask == LOG_NMASKS)
		return LOG_MASK_LIT;
	l->mask[l->nmask] = mask;
	return l->nmask++;
}

void log_op(struct replay_log *l, const struct log_areas *a, uint32_t kind,
	    const struct xregs_state *area, uint64_t mask, uint32_t cpu)
{
	uint8_t *b = l->buf;
	size_t n = l->len;

	if (++l->call_ops > LOG_CALL_MAX_OPS)
		l->too_long = true;
	if (l->overflow || l->too_long || n + LOG_OP_MAX_BYTES + 1 > l->cap) {
		l->overflow = !l->too_long;
		return;
	}
	l->saves += log_op_saves(kind);
	l->restores += log_op_restores(kind);
	if (kind == OP_GOTO_CPU) {
		b[n++] = (uint8_t)kind;
		b[n++] = (uint8_t)cpu;
	} else if (log_op_saves(kind) || log_op_restores(kind)) {
		uint32_t m = mask_index(l, mask), index = area_index(a, area), v = index;
		b[n++] = (uint8_t)(kind | m << 4);
		if (m == LOG_MASK_LIT)
			put_u64(b, &n, mask);
		do {
			b[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
			v >>= 7;
		} while (v);
		if (!index)
			put_u64(b, &n, (uintptr_t)area);
	} else {
		b[n++] = (uint8_t)kind;
	}
	l->len = n;
}

void log_end(struct replay_log *l, bool timed)
{
	l->call_ops = 0;
	if (l->overflow || l->too_long || l->len + 1 > l->cap) {
		l->overflow = !l->too_long;
		return;
	}
	l->last_end = l->len;
	l->buf[l->len++] = (uint8_t)(OP_END | (timed ? LOG_END_TIMED : 0));
	l->ncall++;
}

void log_mark_skip(struct replay_log *l)
{
	if (!l->overflow && l->last_end != SIZE_MAX)
		l->buf[l->last_end] |= LOG_END_SKIP;
}

/* One save or restore at @b (its first byte's kind @kind): into @op; the bytes it took, 0 if cut off. */
static size_t read_xop(const struct replay_log *l, const uint8_t *b, const uint8_t *end,
		       const struct log_areas *a, struct log_op *op)
{
	const uint8_t *p = b + 1;
	uint32_t m = b[0] >> 4, v = 0;

	op->kind = b[0] & 0xf;
	if (m == LOG_MASK_LIT) {
		if (end - p < 8)
			return 0;
		op->mask = get_u64(p);
		p += 8;
	} else {
		if (m >= l->nmask)
			return 0;
		op->mask = l->mask[m];
	}
	for (int shift = 0;; shift += 7) {
		if (p == end || shift > 28)
			return 0;
		v |= (uint32_t)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80))
			break;
	}
	if (v) {
		if (v > a->n)
			return 0;
		op->area = a->area[v - 1];
	} else {
		if (end - p < 8)
			return 0;
		op->area = (const struct xregs_state *)(uintptr_t)get_u64(p);
		p += 8;
	}
	return (size_t)(p - b);
}

bool log_next(const struct replay_log *l, size_t pos, const struct log_areas *a, struct log_op *ops,
	      struct log_call *c)
{
	const uint8_t *b = l->buf + pos, *end = l->buf + l->len;

	c->nops = 0;
	while (b < end) {
		uint32_t kind = *b & 0xf;
		struct log_op *op = &ops[c->nops];
		if (kind == OP_END) {
			c->timed = *b & LOG_END_TIMED;
			c->skip = *b & LOG_END_SKIP;
			c->next = (size_t)(b + 1 - l->buf);
			return true;
		}
		if (c->nops == LOG_CALL_MAX_OPS || kind > OP_END)
			return false;
		*op = (struct log_op){ .kind = kind };
		if (log_op_saves(kind) || log_op_restores(kind)) {
			size_t n = read_xop(l, b, end, a, op);
			if (!n)
				return false;
			b += n;
		} else if (kind == OP_GOTO_CPU) {
			if (end - b < 2)
				return false;
			op->cpu = b[1];
			b += 2;
		} else {
			b++;
		}
		c->nops++;
	}
	return false;
}

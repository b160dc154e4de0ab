/* SPDX-License-Identifier: MIT */
/*
 * libfpu: PKRU, the protection-key rights of user pages (Intel SDM Vol. 3A
 * §4.6.2, "Protection Keys"; RDPKRU/WRPKRU in Vol. 2).
 *
 * PKRU is enforced, and RDPKRU/WRPKRU run, whatever CR0.TS says: a lazy
 * policy cannot leave it to the #NM trap. So PKRU is switched at every
 * fpu_switch() under every policy, as Linux's x86_pkru_load(): the outgoing
 * task's value is read into its struct fpu, the incoming one's written when
 * it differs. While a task runs, the register is its PKRU; otherwise
 * fpu->pkru is (Linux's thread.pkru).
 *
 * The XSAVE copy of PKRU in a kernel buffer is never loaded (restores leave
 * PKRU out of RFBM: a late XRSTOR would undo a WRPKRU the task ran since its
 * switch); every save, import and export rewrites it from fpu->pkru with
 * XSTATE_BV[9] set, so no task's value lands in another's area and no XRSTOR
 * of an exported image silently puts PKRU in its init state (0) (Linux
 * forces the bit likewise; rr issue 2643).
 */
#include "internal.h"

uint32_t fpu_pkru_read(struct fpu_cpu *c)
{
	uint32_t v;

	if (fpu_ops->read_pkru) {
		v = fpu_ops->read_pkru();
	} else {
		uint32_t edx;
		__asm__ volatile("rdpkru" : "=a"(v), "=d"(edx) : "c"(0));
	}
	c->pkru = v;
	return v;
}

void fpu_pkru_write(struct fpu_cpu *c, uint32_t v)
{
	if (fpu_ops->write_pkru)
		fpu_ops->write_pkru(v);
	else
		__asm__ volatile("wrpkru" : : "a"(v), "c"(0), "d"(0) : "memory");
	c->pkru = v;
}

void fpu_pkru_stamp(struct xregs_state *buf, uint32_t pkru)
{
	if (!xstate_cfg.pkru_offset)
		return;
	__builtin_memcpy((uint8_t *)buf + xstate_cfg.pkru_offset, &pkru, sizeof(pkru));
	buf->header.xstate_bv |= XFEATURE_MASK_PKRU;
}

/* PKRU in a standard-format image: where it is, if the image has it. */
static uint32_t std_offset(void)
{
	return (xstate_cfg.xcr0 & XFEATURE_MASK_PKRU) ? xstate_cfg.comp[XFEATURE_PKRU].std_offset
						      : 0;
}

void fpu_pkru_export(void *img, uint32_t pkru)
{
	uint32_t off = std_offset();
	uint8_t *bvp = (uint8_t *)img + XSTATE_HEADER_OFFSET;
	uint64_t bv;

	if (!off)
		return;
	/* @img is an export's destination: any alignment, so byte copies only. */
	__builtin_memcpy((uint8_t *)img + off, &pkru, sizeof(pkru));
	__builtin_memcpy(&bv, bvp, sizeof(bv));
	bv |= XFEATURE_MASK_PKRU;
	__builtin_memcpy(bvp, &bv, sizeof(bv));
}

uint32_t fpu_pkru_import(const void *img, uint64_t rfbm, uint32_t old)
{
	uint32_t off = std_offset(), v;
	uint64_t bv;

	if (!off)
		return old; /* the image cannot carry PKRU: it keeps its value */
	__builtin_memcpy(&bv, (const uint8_t *)img + XSTATE_HEADER_OFFSET, sizeof(bv));
	if (!(bv & rfbm & XFEATURE_MASK_PKRU))
		return 0; /* init, as XRSTOR would load */
	__builtin_memcpy(&v, (const uint8_t *)img + off, sizeof(v));
	return v;
}

uint32_t fpu_get_pkru(struct fpu *fpu)
{
	unsigned int cpu = fpu_ops->cpu_id();
	struct fpu_cpu *c = &fpu_cpus[cpu];

	if (xstate_cfg.pkru && c->cur == fpu)
		fpu->pkru = fpu_pkru_read(c);
	return fpu->pkru;
}

void fpu_set_pkru(struct fpu *fpu, uint32_t pkru)
{
	unsigned int cpu = fpu_ops->cpu_id();
	struct fpu_cpu *c = &fpu_cpus[cpu];

	fpu->pkru = pkru;
	if (xstate_cfg.pkru && c->cur == fpu)
		fpu_pkru_write(c, pkru);
}

/* SPDX-License-Identifier: MIT */
/*
 * fpulab xstate check|dump FILE: validate or print a raw standard-format XSAVE
 * image (a signal frame's or ptrace's view of a task's registers) against this
 * host's enabled components, with libfpu's import rules.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <fpu/xstate.h>

#include "cli.h"
#include "common/util.h"

#define XSTATE_FILE_MAX (1u << 20) /* larger files are not xstate images */

/* Exit status: 0 accepted (dump: printed), 1 rejected, 2 usage error or a
 * file that cannot be read. */
enum { XS_ACCEPT = 0, XS_REJECT = 1, XS_ERROR = 2 };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fpulab xstate check FILE   validate a standard-format XSAVE image;\n"
		"                                  prints 'accept' (exit 0) or 'reject: REASON'\n"
		"                                  (exit 1)\n"
		"       fpulab xstate dump FILE    print its header and components readably\n"
		"The enabled components are this host's (XGETBV(0) within x87|SSE|AVX|AVX-512).\n"
		"Exit status: 0 accepted, 1 rejected, 2 usage error or FILE missing, unreadable\n"
		"or a directory.\n");
}

/* Read the whole file; NULL and a message on error. */
static uint8_t *read_file(const char *path, size_t *len)
{
	struct stat st;
	FILE *f;
	uint8_t *buf;
	size_t n;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "fpulab xstate: %s: is a directory, not an xstate image\n", path);
		return NULL;
	}
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "fpulab xstate: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	buf = malloc(XSTATE_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		fprintf(stderr, "fpulab xstate: out of memory\n");
		return NULL;
	}
	n = fread(buf, 1, XSTATE_FILE_MAX + 1, f);
	if (ferror(f) || n > XSTATE_FILE_MAX) {
		fprintf(stderr, "fpulab xstate: %s: %s\n", path,
			ferror(f) ? strerror(errno) : "larger than 1 MiB, not an xstate image");
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

static int host_init(void)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };
	int err = xstate_init(&o);

	if (err) {
		fprintf(stderr, "fpulab xstate: cannot enumerate this CPU: %s\n",
			xstate_strerror(err));
		return XS_ERROR;
	}
	return 0;
}

/* Import into a scratch kernel buffer: the same validation a kernel would apply. */
static int validate(const uint8_t *img, size_t len)
{
	struct xregs_state *k = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	int err;

	if (!k)
		return XSTATE_E_INVAL;
	xstate_init_buffer(k);
	err = xstate_import_std(k, img, len);
	free(k);
	return err;
}

static int do_check(const char *path)
{
	size_t len;
	uint8_t *img = read_file(path, &len);
	int err;

	if (!img)
		return XS_ERROR;
	err = validate(img, len);
	free(img);
	if (err) {
		printf("reject: %s\n", xstate_strerror(err));
		return XS_REJECT;
	}
	printf("accept\n");
	return XS_ACCEPT;
}

/* Print @n little-endian bytes as one hex number, most significant first. */
static void print_hex(const uint8_t *p, unsigned int n)
{
	printf("0x");
	while (n--)
		printf("%02x", p[n]);
	printf("\n");
}

static void print_mask(const char *label, uint64_t m)
{
	printf("%-10s 0x%016" PRIx64, label, m);
	for (unsigned int i = 0; i < 64; i++)
		if (m & (1ull << i))
			printf(" %s", i == 63 ? "compacted" : xstate_name(i));
	printf("\n");
}

static void dump_legacy(const uint8_t *img, uint64_t bv)
{
	struct fxregs_state fx;

	memcpy(&fx, img, sizeof(fx));
	printf("x87%s\n",
	       bv & XFEATURE_MASK(XFEATURE_X87) ? "" : " (init: XRSTOR ignores these bytes)");
	printf("  fcw   0x%04x\n  fsw   0x%04x (top %u)\n  ftw   0x%02x (abridged, 1 = valid)\n",
	       fx.fcw, fx.fsw, (unsigned int)((fx.fsw >> 11) & 7), fx.ftw);
	printf("  fop   0x%04x\n  fip   0x%016" PRIx64 "\n  fdp   0x%016" PRIx64 "\n", fx.fop,
	       fx.fip, fx.fdp);
	for (unsigned int i = 0; i < 8; i++) {
		const uint8_t *r = fx.st_space + 16 * i;
		long double v;
		uint64_t mant;
		uint16_t se;

		memcpy(&mant, r, 8);
		memcpy(&se, r + 8, 2);
		memcpy(&v, r, 10);
		printf("  st%u   sign %u exp 0x%04x mant 0x%016" PRIx64 "  (%.*Lg)\n", i, se >> 15,
		       se & 0x7fff, mant, 21, v);
	}
	printf("sse%s\n", bv & XFEATURE_MASK(XFEATURE_SSE) ? "" : " (init: XRSTOR zeroes XMM)");
	printf("  mxcsr      0x%08x\n  mxcsr_mask 0x%08x (not loaded by XRSTOR)\n", fx.mxcsr,
	       fx.mxcsr_mask);
	for (unsigned int i = 0; i < 16; i++) {
		printf("  xmm%-2u ", i);
		print_hex(fx.xmm_space + 16 * i, 16);
	}
}

static void dump_component(unsigned int i, const uint8_t *p, uint32_t size)
{
	switch (i) {
	case XFEATURE_YMM:
		for (unsigned int r = 0; r < 16 && 16 * (r + 1) <= size; r++) {
			printf("  ymm%-2u[255:128] ", r);
			print_hex(p + 16 * r, 16);
		}
		return;
	case XFEATURE_OPMASK:
		for (unsigned int r = 0; r < 8 && 8 * (r + 1) <= size; r++) {
			printf("  k%u ", r);
			print_hex(p + 8 * r, 8);
		}
		return;
	case XFEATURE_ZMM_HI256:
		for (unsigned int r = 0; r < 16 && 32 * (r + 1) <= size; r++) {
			printf("  zmm%-2u[511:256] ", r);
			print_hex(p + 32 * r, 32);
		}
		return;
	case XFEATURE_HI16_ZMM:
		for (unsigned int r = 0; r < 16 && 64 * (r + 1) <= size; r++) {
			printf("  zmm%-2u ", r + 16);
			print_hex(p + 64 * r, 64);
		}
		return;
	case XFEATURE_PKRU:
		printf("  pkru ");
		print_hex(p, 4);
		return;
	default:
		for (uint32_t o = 0; o < size; o += 16) {
			printf("  +%04x ", o);
			for (uint32_t b = o; b < o + 16 && b < size; b++)
				printf(" %02x", p[b]);
			printf("\n");
		}
	}
}

static int do_dump(const char *path)
{
	size_t len;
	uint8_t *img = read_file(path, &len);
	struct xstate_header h = { 0 };
	int err;

	if (!img)
		return XS_ERROR;
	printf("file       %s (%zu bytes)\n", path, len);
	if (len < XSTATE_LEGACY_SIZE) {
		printf("too short for the 512-byte legacy region\n");
		free(img);
		return XS_REJECT;
	}
	err = validate(img, len);
	printf("verdict    %s%s\n", err ? "reject: " : "accept", err ? xstate_strerror(err) : "");
	print_mask("host xcr0", xstate_cfg.xcr0);
	if (len >= XSTATE_EXT_OFFSET) {
		memcpy(&h, img + XSTATE_HEADER_OFFSET, sizeof(h));
		print_mask("xstate_bv", h.xstate_bv);
		print_mask("xcomp_bv", h.xcomp_bv);
		for (unsigned int i = 0; i < 6; i++)
			if (h.reserved[i])
				printf("reserved[%u] 0x%016" PRIx64 " (must be 0)\n", i,
				       h.reserved[i]);
	} else {
		printf("no XSAVE header (FXSAVE image only)\n");
		h.xstate_bv = XFEATURE_MASK_FPSSE;
	}
	dump_legacy(img, h.xstate_bv);
	for (unsigned int i = 2; i < 63; i++) {
		const struct xstate_component *c = &xstate_cfg.comp[i];

		if (!(h.xstate_bv & (1ull << i)))
			continue;
		printf("%s (component %u", xstate_name(i), i);
		if (!c->size || c->supervisor) {
			printf("): layout not known on this CPU\n");
			continue;
		}
		printf(", %u bytes at %u)\n", c->size, c->std_offset);
		if (c->std_offset + c->size > len) {
			printf("  beyond the end of the file\n");
			continue;
		}
		dump_component(i, img + c->std_offset, c->size);
	}
	for (unsigned int i = 2; i < 63; i++)
		if ((xstate_cfg.xcr0 & (1ull << i)) && !(h.xstate_bv & (1ull << i)))
			printf("%s: init (all zero)\n", xstate_name(i));
	free(img);
	return 0;
}

static bool is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h") || !strcmp(a, "help");
}

int cmd_xstate(int argc, char **argv)
{
	/* fpulab xstate --help, fpulab xstate check --help, ... */
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i]) && (i == 1 || strncmp(argv[i], "-", 1) == 0)) {
			usage(stdout);
			return 0;
		}
	}
	if (argc < 2) {
		usage(stderr);
		return XS_ERROR;
	}
	if (strcmp(argv[1], "check") && strcmp(argv[1], "dump"))
		return usage_error("xstate", "unknown subcommand '%s' (check or dump)", argv[1]);
	if (argc == 2)
		return usage_error("xstate", "%s needs a FILE", argv[1]);
	if (argc > 3) {
		fprintf(stderr,
			"fpulab xstate: %s takes one FILE, got %d arguments\n"
			"try 'fpulab xstate --help'\n",
			argv[1], argc - 2);
		return XS_ERROR;
	}
	if (argv[2][0] == '-' && argv[2][1])
		return usage_error("xstate", "unknown option '%s'", argv[2]);
	if (host_init())
		return XS_ERROR;
	if (!strcmp(argv[1], "check"))
		return do_check(argv[2]);
	return do_dump(argv[2]);
}

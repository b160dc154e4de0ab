/* SPDX-License-Identifier: MIT */
/*
 * The screen's font: GRUB's own (a PF2 file, GRUB's font format), which the
 * image's menu passes as a Multiboot2 module (tools/mkimage: ascii.pf2, GNU
 * Unifont). Only printable ASCII is kept, copied out at boot.
 */
#ifndef LAB_FONT_H
#define LAB_FONT_H

#include "kernel.h"

#define FONT_MAX_W 16
#define FONT_MAX_H 32

struct font {
	unsigned int w, h;              /* the cell, pixels; 0: no font */
	uint16_t glyph[95][FONT_MAX_H]; /* ' '..'~': a row each, bit 15 the leftmost pixel */
};

extern struct font font;

/* font_load_pf2 - the PF2 file at @data (@size bytes) into font. Returns
 * false (font unchanged) when it is not one or has no ASCII glyphs. */
bool font_load_pf2(const uint8_t *data, uint64_t size);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * PF2, GRUB's font format (grub-core/font/font.c): sections of a 4-byte
 * name and a big-endian 32-bit length; CHIX lists the characters (code,
 * flags, offset of the glyph, 9 bytes each); a glyph is width, height,
 * x offset, y offset, advance (16-bit big-endian each), then its pixels row
 * after row, a bit each, most significant first, not padded per row.
 */
#include "font.h"

struct font font __persist;

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int be16(const uint8_t *p)
{
	return (int16_t)(p[0] << 8 | p[1]);
}

/* The glyph at @off into cell row bitmaps, baseline at @ascent. */
static void put_glyph(const uint8_t *data, uint64_t size, uint32_t off, int ascent, uint16_t *rows)
{
	if (off + 10 > size)
		return;
	const uint8_t *g = data + off;
	int w = be16(g), h = be16(g + 2), x0 = be16(g + 4), y0 = be16(g + 6);
	const uint8_t *bits = g + 10;
	if (w <= 0 || h <= 0 || off + 10 + ((uint64_t)w * h + 7) / 8 > size)
		return;
	int top = ascent - y0 - h;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int bit = y * w + x, cy = top + y, cx = x0 + x;
			if (!(bits[bit / 8] & (0x80 >> (bit % 8))) || cy < 0 || cy >= (int)font.h ||
			    cx < 0 || cx >= (int)font.w)
				continue;
			rows[cy] |= (uint16_t)(0x8000 >> cx);
		}
}

bool font_load_pf2(const uint8_t *data, uint64_t size)
{
	const uint8_t *chix = NULL;
	uint32_t nchix = 0;
	int ascent = 0, descent = 0;

	if (size < 12 || memcmp(data, "FILE", 4) || memcmp(data + 8, "PFF2", 4))
		return false;
	for (uint64_t at = 0; at + 8 <= size;) {
		const uint8_t *s = data + at;
		uint32_t len = be32(s + 4);
		if (!memcmp(s, "DATA", 4))
			break;
		if (at + 8 + len > size)
			return false;
		if (!memcmp(s, "ASCE", 4))
			ascent = be16(s + 8);
		else if (!memcmp(s, "DESC", 4))
			descent = be16(s + 8);
		else if (!memcmp(s, "CHIX", 4))
			chix = s + 8, nchix = len / 9;
		at += 8 + len;
	}
	if (!chix || ascent <= 0 || descent < 0 || ascent + descent > FONT_MAX_H)
		return false;
	memset(&font, 0, sizeof(font));
	font.h = (unsigned int)(ascent + descent);
	font.w = 1;
	for (int pass = 0; pass < 2; pass++) /* the widest advance, then the glyphs */
		for (uint32_t i = 0; i < nchix; i++) {
			uint32_t code = be32(chix + 9 * i), off = be32(chix + 9 * i + 5);
			if (code < 0x20 || code >= 0x7f || off + 10 > size)
				continue;
			int adv = be16(data + off + 8);
			if (pass == 0 && adv > (int)font.w && adv <= FONT_MAX_W)
				font.w = (unsigned int)adv;
			if (pass == 1)
				put_glyph(data, size, off, ascent, font.glyph[code - 0x20]);
		}
	return font.w > 1;
}

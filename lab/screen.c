/* SPDX-License-Identifier: MIT */
/* The screen: see screen.h. */
#include "screen.h"
#include "boot_info.h"
#include "font.h"
#include "paging.h"

struct screen_shadow screen_shadow __persist;

static enum { SCREEN_NONE, SCREEN_VGA, SCREEN_FB } kind;
static char drawn[SCREEN_MAX_ROWS][SCREEN_MAX_COLS]; /* what the hardware shows: 0 unknown */
static char line[SCREEN_MAX_COLS * 2];
static size_t line_len;
static uint32_t fg; /* white in the framebuffer's format */
static char name[64];

static uint32_t channel(uint8_t pos, uint8_t size)
{
	return size ? ((1u << size) - 1) << pos : 0;
}

static void put_pixel(uint8_t *p, bool on)
{
	uint32_t v = on ? fg : 0;
	switch (boot_info.fb.bpp) {
	case 32:
		*(volatile uint32_t *)p = v;
		break;
	case 24:
		p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16);
		break;
	case 16:
	case 15:
		*(volatile uint16_t *)p = (uint16_t)v;
		break;
	}
}

static void draw_cell(uint32_t r, uint32_t c, char ch)
{
	const struct boot_fb *fb = &boot_info.fb;
	if (kind == SCREEN_VGA) {
		volatile uint16_t *cell = (volatile uint16_t *)fb->addr + r * (fb->pitch / 2) + c;
		*cell = (uint16_t)(0x0700 | (uint8_t)ch);
		return;
	}
	const uint16_t *g = font.glyph[(ch >= 0x20 && ch < 0x7f ? ch : '?') - 0x20];
	uint32_t bytes = (fb->bpp + 7) / 8;
	for (uint32_t y = 0; y < font.h; y++) {
		uint8_t *p = (uint8_t *)fb->addr + (uint64_t)(r * font.h + y) * fb->pitch +
			     (uint64_t)c * font.w * bytes;
		for (uint32_t x = 0; x < font.w; x++, p += bytes)
			put_pixel(p, g[y] & (0x8000 >> x));
	}
}

/* Draw every cell that differs from what is shown. */
static void render(void)
{
	struct screen_shadow *s = &screen_shadow;
	for (uint32_t r = 0; r < s->rows; r++)
		for (uint32_t c = 0; c < s->cols; c++)
			if (drawn[r][c] != s->text[r][c]) {
				draw_cell(r, c, s->text[r][c]);
				drawn[r][c] = s->text[r][c];
			}
}

static void newline(void)
{
	struct screen_shadow *s = &screen_shadow;
	s->col = 0;
	if (++s->row < s->rows)
		return;
	s->row = s->rows - 1;
	memcpy(s->text[0], s->text[1], sizeof(s->text[0]) * (s->rows - 1));
	memset(s->text[s->rows - 1], ' ', SCREEN_MAX_COLS);
}

/* A console line: drawn unless it is a record (COM1's alone). */
static void put_line(void)
{
	struct screen_shadow *s = &screen_shadow;
	size_t prefix = strlen(FPULAB_RECORD_PREFIX);
	if (line_len >= prefix && !memcmp(line, FPULAB_RECORD_PREFIX, prefix))
		return;
	for (size_t i = 0; i < line_len; i++) {
		if (s->col == s->cols)
			newline();
		s->text[s->row][s->col++] = line[i] == '\t' ? ' ' : line[i];
	}
	newline();
	render();
}

void screen_putc(char c)
{
	if (kind == SCREEN_NONE || c == '\r')
		return;
	if (c != '\n' && line_len < sizeof(line))
		line[line_len++] = c;
	if (c == '\n') {
		put_line();
		line_len = 0;
	}
}

static bool screen_size(uint32_t *rows, uint32_t *cols)
{
	const struct boot_fb *fb = &boot_info.fb;
	if (fb->type == FB_EGA_TEXT) {
		kind = SCREEN_VGA;
		*rows = fb->height, *cols = fb->width;
		ksnprintf(name, sizeof(name), "VGA text %ux%u", fb->width, fb->height);
	} else if (fb->type == FB_RGB && font.w > 1 && fb->bpp >= 15 && fb->bpp <= 32) {
		kind = SCREEN_FB;
		*rows = fb->height / font.h, *cols = fb->width / font.w;
		fg = channel(fb->red_pos, fb->red_size) | channel(fb->green_pos, fb->green_size) |
		     channel(fb->blue_pos, fb->blue_size);
		map_identity(fb->addr, (uint64_t)fb->pitch * fb->height);
		ksnprintf(name, sizeof(name), "framebuffer %ux%u, %ux%u characters", fb->width,
			  fb->height, *cols < SCREEN_MAX_COLS ? *cols : SCREEN_MAX_COLS,
			  *rows < SCREEN_MAX_ROWS ? *rows : SCREEN_MAX_ROWS);
	} else {
		return false;
	}
	if (*rows > SCREEN_MAX_ROWS)
		*rows = SCREEN_MAX_ROWS;
	if (*cols > SCREEN_MAX_COLS)
		*cols = SCREEN_MAX_COLS;
	return *rows && *cols;
}

void screen_init(void)
{
	struct screen_shadow *s = &screen_shadow;
	uint32_t rows, cols;

	ksnprintf(name, sizeof(name), "none");
	if (!screen_size(&rows, &cols)) {
		kind = SCREEN_NONE;
		return;
	}
	if (memcmp(s->magic, SCREEN_MAGIC, 8)) { /* the first boot: a clear screen */
		memset(s->text, ' ', sizeof(s->text));
		s->rows = rows, s->cols = cols, s->row = s->col = 0;
		memcpy(s->magic, SCREEN_MAGIC, 8);
	}
	/* Every cell drawn once: unknown (0) differs from any character. */
	render();
}

const char *screen_name(void)
{
	return name;
}

/* SPDX-License-Identifier: MIT */
/*
 * The screen (the bootable image): the console's lines but the records
 * (those go to COM1 only), on the Multiboot2 framebuffer drawn with GRUB's
 * font (UEFI has no VGA text), or in VGA text where GRUB gave it (BIOS).
 *
 * Whatever is drawn is first written to screen_shadow, a text copy of the
 * screen at a fixed address (its symbol in lab.elf), which the tests read
 * out of guest memory (tests/image/screen.sh): every cell of the screen is
 * drawn from it, so it says what the screen shows.
 */
#ifndef LAB_SCREEN_H
#define LAB_SCREEN_H

#include "kernel.h"

#define SCREEN_MAX_COLS 160
#define SCREEN_MAX_ROWS 64
#define SCREEN_MAGIC "FPUSCRN" /* 8 bytes with its NUL */

struct screen_shadow {
	char magic[8];                               /* SCREEN_MAGIC once the screen is up */
	uint32_t rows, cols;                         /* in use; 0: no screen */
	uint32_t row, col;                           /* the cursor */
	char text[SCREEN_MAX_ROWS][SCREEN_MAX_COLS]; /* spaces where nothing is written */
};

extern struct screen_shadow screen_shadow;

/* After boot_info_parse(): the framebuffer or VGA text the loader gave, if
 * any; kept (not cleared) across the watchdog's restart. */
void screen_init(void);
/* One character of the console (console.c, under its lock). */
void screen_putc(char c);
/* "framebuffer 1024x768, 128x48 characters", "VGA text 80x25" or "none". */
const char *screen_name(void);

#endif

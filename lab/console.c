/* SPDX-License-Identifier: MIT */
/* Console on COM1 (0x3f8), kprintf, panic, and exit through isa-debug-exit. */
#include "kernel.h"
#include "io.h"
#include "cpu.h"
#include <fpulab/abi.h>

static struct spinlock console_lock;
static volatile int panicking;

void console_init(void)
{
	outb(COM1 + 1, 0x00); /* no interrupts */
	outb(COM1 + 3, 0x80); /* DLAB */
	outb(COM1 + 0, 0x01); /* 115200 baud */
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03); /* 8N1 */
	outb(COM1 + 2, 0xc7); /* FIFO on */
}

static void serial_putc(char c)
{
	for (int spins = 0; !(inb(COM1 + 5) & 0x20) && spins < 100000; spins++)
		cpu_relax();
	outb(COM1, (uint8_t)c);
}

struct out {
	char *buf; /* NULL: console */
	size_t size, len;
};

static void out_c(struct out *o, char c)
{
	if (!o->buf) {
		if (c == '\n')
			serial_putc('\r');
		serial_putc(c);
	} else if (o->len + 1 < o->size) {
		o->buf[o->len] = c;
	}
	o->len++;
}

static void out_num(struct out *o, uint64_t v, unsigned base, bool neg, int width, char pad)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg)
		tmp[n++] = '-';
	for (int i = n; i < width; i++)
		out_c(o, pad);
	while (n)
		out_c(o, tmp[--n]);
}

/* %[-][0][width][l|ll|z](d|i|u|x|s|c|p|%) */
static void format(struct out *o, const char *fmt, va_list ap)
{
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			out_c(o, *fmt);
			continue;
		}
		fmt++;
		bool left = false;
		char pad = ' ';
		int width = 0, lng = 0;
		if (*fmt == '-')
			left = true, fmt++;
		if (*fmt == '0')
			pad = '0', fmt++;
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l' || *fmt == 'z')
			lng++, fmt++;
		switch (*fmt) {
		case 'd':
		case 'i': {
			int64_t v = lng ? va_arg(ap, int64_t) : va_arg(ap, int);
			out_num(o, v < 0 ? -(uint64_t)v : (uint64_t)v, 10, v < 0, width, pad);
			break;
		}
		case 'u':
			out_num(o, lng ? va_arg(ap, uint64_t) : va_arg(ap, unsigned), 10, false,
				width, pad);
			break;
		case 'x':
			out_num(o, lng ? va_arg(ap, uint64_t) : va_arg(ap, unsigned), 16, false,
				width, pad);
			break;
		case 'p':
			out_c(o, '0'), out_c(o, 'x');
			out_num(o, (uint64_t)va_arg(ap, void *), 16, false, 0, ' ');
			break;
		case 'c':
			out_c(o, (char)va_arg(ap, int));
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			int len = (int)strlen(s);
			for (int i = len; !left && i < width; i++)
				out_c(o, ' ');
			while (*s)
				out_c(o, *s++);
			for (int i = len; left && i < width; i++)
				out_c(o, ' ');
			break;
		}
		case '%':
			out_c(o, '%');
			break;
		default:
			out_c(o, '?');
			break;
		}
	}
}

void vkprintf(const char *fmt, va_list ap)
{
	struct out o = { 0 };
	uint64_t flags = read_flags();
	cli();
	if (!panicking)
		spin_lock(&console_lock);
	format(&o, fmt, ap);
	if (!panicking)
		spin_unlock(&console_lock);
	if (flags & (1 << 9))
		sti();
}

void kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vkprintf(fmt, ap);
	va_end(ap);
}

int vksnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };
	format(&o, fmt, ap);
	if (size)
		buf[o.len < size ? o.len : size - 1] = 0;
	return (int)o.len;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vksnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

noreturn void qemu_exit(unsigned int value)
{
	outl(FPULAB_DEBUG_EXIT_PORT, value);
	for (;;)
		__asm__ volatile("cli; hlt");
}

noreturn void panic(const char *fmt, ...)
{
	cli();
	/* The first CPU to panic reports; others stop here. */
	if (__atomic_exchange_n(&panicking, 1, __ATOMIC_ACQ_REL))
		for (;;)
			__asm__ volatile("hlt");
	struct cpu *c = cpu_maybe();
	kprintf("\nPANIC on cpu %d, task %s: ", c ? (int)c->id : -1,
		c && c->current ? c->current->name : "-");
	va_list ap;
	va_start(ap, fmt);
	vkprintf(fmt, ap);
	va_end(ap);
	kprintf("\n");
	qemu_exit(FPULAB_EXIT_PANIC);
}

/* SPDX-License-Identifier: MIT */
#include "kernel_elf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"

#define XEN_ELFNOTE_PHYS32_ENTRY 18
#define PHDRS_MAX 64
#define NOTE_BYTES_MAX 4096

static bool read_at(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

static int check_ident(const Elf64_Ehdr *eh, size_t got, char *why, size_t len)
{
	const unsigned char *b = eh->e_ident;

	if (got < SELFMAG || memcmp(b, ELFMAG, SELFMAG)) {
		if (got == 0)
			return fail_why(why, len, "an empty file, not an ELF kernel");
		return fail_why(why, len, "not an ELF file (it starts with %02x %02x %02x %02x)",
				b[0], b[1], b[2], b[3]); /* eh was zeroed: past the end reads 00 */
	}
	if (got < sizeof(*eh) || b[EI_CLASS] != ELFCLASS64)
		return fail_why(why, len, "a 32-bit or truncated ELF file, not an ELF64 kernel");
	if (b[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_X86_64)
		return fail_why(why, len, "an ELF file for another machine, not x86-64");
	if (eh->e_type != ET_EXEC)
		return fail_why(
			why, len,
			"a relocatable or position-independent ELF, not a kernel linked at fixed addresses");
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 || eh->e_phnum > PHDRS_MAX)
		return fail_why(why, len, "an ELF executable without usable program headers");
	return 0;
}

/* Whether the notes in @buf (@size bytes) have Xen's PHYS32_ENTRY. */
static bool has_pvh_note(const unsigned char *buf, size_t size)
{
	size_t off = 0;

	while (off + sizeof(Elf64_Nhdr) <= size) {
		Elf64_Nhdr nh;
		memcpy(&nh, buf + off, sizeof(nh));
		size_t name_at = off + sizeof(nh);
		size_t desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
		size_t next = desc_at + ((nh.n_descsz + 3) & ~3u);
		if (next > size || next <= off)
			return false;
		if (nh.n_type == XEN_ELFNOTE_PHYS32_ENTRY && nh.n_namesz == 4 &&
		    !memcmp(buf + name_at, "Xen", 4) && nh.n_descsz >= 4)
			return true;
		off = next;
	}
	return false;
}

int kernel_elf_check(const char *path, char *why, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph[PHDRS_MAX];
	unsigned char notes[NOTE_BYTES_MAX];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;
	int rc = -1;

	if (fd < 0)
		return fail_why(why, len, "cannot open it: %s", strerror(errno));
	memset(&eh, 0, sizeof(eh));
	got = pread(fd, &eh, sizeof(eh), 0);
	if (got < 0) {
		fail_why(why, len, "cannot read it: %s", strerror(errno));
		goto out;
	}
	if (check_ident(&eh, (size_t)got, why, len) < 0)
		goto out;
	if (!read_at(fd, ph, eh.e_phnum * sizeof(ph[0]), eh.e_phoff)) {
		fail_why(why, len, "a truncated ELF file (its program headers are missing)");
		goto out;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		size_t size = ph[i].p_filesz < sizeof(notes) ? ph[i].p_filesz : sizeof(notes);
		if (ph[i].p_type != PT_NOTE || !read_at(fd, notes, size, ph[i].p_offset))
			continue;
		if (has_pvh_note(notes, size)) {
			rc = 0;
			goto out;
		}
	}
	fail_why(why, len,
		 "an x86-64 ELF without the PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY) that QEMU "
		 "boots");
out:
	close(fd);
	return rc;
}

/*
 * elf.c - reads a program's ELF file through its section headers: named
 * sections (.nv_fatbin) and the libraries its dynamic section needs.
 *
 * The file is the user's and may be anything: each header is copied out
 * with memcpy (no alignment assumed) and each offset is checked against the
 * file's size before use.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/elf.h"

static int elf_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int elf_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int check_header(const struct elf_file *f, const char *path, char *err, size_t errlen)
{
	Elf64_Ehdr eh;

	if (f->size < SELFMAG || memcmp(f->map, ELFMAG, SELFMAG))
		return elf_error(err, errlen, "%s is not an ELF executable", path);
	if (f->size < sizeof(eh) || f->map[EI_CLASS] != ELFCLASS64 || f->map[EI_DATA] != ELFDATA2LSB)
		return elf_error(err, errlen, "%s is not a 64-bit little-endian ELF file", path);
	memcpy(&eh, f->map, sizeof(eh));
	if (eh.e_shnum && (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > f->size ||
			   (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > f->size - eh.e_shoff ||
			   eh.e_shstrndx >= eh.e_shnum))
		return elf_error(err, errlen, "%s has malformed section headers", path);
	return 0;
}

int elf_from_memory(struct elf_file *f, const void *p, size_t size, const char *name,
		    char *err, size_t errlen)
{
	f->map = p;
	f->size = size;
	f->mapped = 0;
	return check_header(f, name, err, errlen);
}

int elf_open(struct elf_file *f, const char *path, char *err, size_t errlen)
{
	struct stat st;
	void *map;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return elf_error(err, errlen, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return elf_error(err, errlen, "%s is not a regular, non-empty file", path);
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return elf_error(err, errlen, "cannot map %s: %s", path, strerror(errno));
	if (elf_from_memory(f, map, st.st_size, path, err, errlen) < 0) {
		munmap(map, st.st_size);
		return -1;
	}
	f->mapped = 1;
	return 0;
}

void elf_close(struct elf_file *f)
{
	if (f->mapped)
		munmap((void *)f->map, f->size);
	f->map = NULL;
	f->mapped = 0;
}

/* Section header i; 0 when i is out of range (checked by check_header). */
static int shdr(const struct elf_file *f, unsigned i, Elf64_Shdr *sh)
{
	Elf64_Ehdr eh;

	memcpy(&eh, f->map, sizeof(eh));
	if (i >= eh.e_shnum)
		return 0;
	memcpy(sh, f->map + eh.e_shoff + (uint64_t)i * sizeof(*sh), sizeof(*sh));
	return 1;
}

/* The bytes of section sh, NULL when they lie outside the file. */
static const uint8_t *contents(const struct elf_file *f, const Elf64_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_offset > f->size || sh->sh_size > f->size - sh->sh_offset)
		return NULL;
	return f->map + sh->sh_offset;
}

/* The NUL-terminated string at off in string table section tab, or NULL. */
static const char *string_at(const struct elf_file *f, unsigned tab, uint64_t off)
{
	const uint8_t *p;
	Elf64_Shdr sh;

	if (!shdr(f, tab, &sh) || !(p = contents(f, &sh)) || off >= sh.sh_size ||
	    !memchr(p + off, 0, sh.sh_size - off))
		return NULL;
	return (const char *)p + off;
}

const uint8_t *elf_section(const struct elf_file *f, const char *name, uint64_t *size)
{
	const char *s;
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	unsigned i;

	memcpy(&eh, f->map, sizeof(eh));
	for (i = 0; shdr(f, i, &sh); i++) {
		s = string_at(f, eh.e_shstrndx, sh.sh_name);
		if (s && !strcmp(s, name) && contents(f, &sh)) {
			*size = sh.sh_size;
			return contents(f, &sh);
		}
	}
	return NULL;
}

/* Whether the dynamic section sh names a library starting with prefix. */
static int needs_in(const struct elf_file *f, const Elf64_Shdr *sh, const char *prefix,
		    char *err, size_t errlen)
{
	const uint8_t *dyn = contents(f, sh);
	const char *lib;
	Elf64_Dyn d;
	uint64_t k;

	if (!dyn)
		return elf_error(err, errlen, "the dynamic section lies outside the file");
	for (k = 0; k + sizeof(d) <= sh->sh_size; k += sizeof(d)) {
		memcpy(&d, dyn + k, sizeof(d));
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag != DT_NEEDED)
			continue;
		lib = string_at(f, sh->sh_link, d.d_un.d_val);
		if (!lib)
			return elf_error(err, errlen, "a needed library's name lies outside the string table");
		if (!strncmp(lib, prefix, strlen(prefix)))
			return 1;
	}
	return 0;
}

int elf_needs(const struct elf_file *f, const char *prefix, char *err, size_t errlen)
{
	Elf64_Shdr sh;
	unsigned i;

	for (i = 0; shdr(f, i, &sh); i++)
		if (sh.sh_type == SHT_DYNAMIC)
			return needs_in(f, &sh, prefix, err, errlen);
	return 0;	/* static: no dynamic section */
}

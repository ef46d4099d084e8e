/*
 * elf.h - just enough of a program's ELF file for anygpu's commands: which
 * shared libraries it needs and the bytes of a named section.
 */
#ifndef AG_CLI_ELF_H
#define AG_CLI_ELF_H

#include <stddef.h>
#include <stdint.h>

struct elf_file {
	const uint8_t *map;     /* the whole file */
	size_t size;
	int mapped;             /* map is ours to munmap */
};

/* Maps path and checks that it is a 64-bit little-endian ELF file.
 * Returns 0, or -1 with err set (not found, not ELF, ...). */
int elf_open(struct elf_file *f, const char *path, char *err, size_t errlen);

/* The same checks on size bytes at p, which the caller keeps; name is for
 * the messages. */
int elf_from_memory(struct elf_file *f, const void *p, size_t size, const char *name,
		    char *err, size_t errlen);

void elf_close(struct elf_file *f);

/* The bytes of section name, or NULL when the file has none. */
const uint8_t *elf_section(const struct elf_file *f, const char *name, uint64_t *size);

/* 1 when a DT_NEEDED entry starts with prefix ("libcudart.so"), 0 when
 * none does (also for a static executable), -1 with err set when the
 * dynamic section is malformed. */
int elf_needs(const struct elf_file *f, const char *prefix, char *err, size_t errlen);

#endif

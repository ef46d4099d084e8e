/*
 * fuzz_elf.c - libFuzzer target for the ELF reader that `anygpu run` and
 * `anygpu inspect` apply to users' files: any bytes must be read or refused
 * with a message, never crash or read past the end.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "cli/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_file f;
	const uint8_t *sec;
	volatile uint8_t sink = 0;
	uint64_t len = 0, i;
	char err[256] = "";

	if (elf_from_memory(&f, data, size, "input", err, sizeof(err)) < 0) {
		if (!err[0])
			abort();
		return 0;
	}
	sec = elf_section(&f, ".nv_fatbin", &len);
	if (sec && (sec < data || len > size || (uint64_t)(sec - data) > size - len))
		abort();
	for (i = 0; sec && i < len; i++)
		sink ^= sec[i];
	if (elf_needs(&f, "libcudart.so", err, sizeof(err)) < 0 && !err[0])
		abort();
	elf_close(&f);
	return 0;
}

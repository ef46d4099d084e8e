/*
 * fuzz_fatbin.c - libFuzzer target for the fatbin reader: any bytes, read
 * as an image of known size, must be walked, sized and decompressed or
 * refused with a message, never crash, leak or read past the end.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fatbin/fatbin.h"

static int inflate(const struct fatbin_entry *e, void *ctx)
{
	char err[256];
	uint8_t *data;
	uint64_t len;

	if (fatbin_entry_data(e, &data, &len, err, sizeof(err)) == 0) {
		if (data[len] != 0)
			abort();
		free(data);
	} else if (!err[0]) {
		abort();	/* a refusal must say why */
	}
	return 0;
}

static void best(const uint8_t *data, uint64_t size, uint32_t max_arch)
{
	char err[256] = "", *ptx = NULL;
	uint64_t len;
	uint32_t arch;
	int ret;

	ret = fatbin_best_ptx(data, size, max_arch, &ptx, &len, &arch, err, sizeof(err));
	if (ret == 0)
		free(ptx);
	else if (ptx || !err[0])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256] = "";
	uint64_t image;

	/* As a section: containers back to back. */
	fatbin_walk(data, size, inflate, NULL, err, sizeof(err));
	best(data, size, 0);
	/* As a registered image: its own size, from its first header. */
	image = fatbin_image_size(data, size, err, sizeof(err));
	if (image > size)
		abort();
	if (image)
		best(data, image, 80);
	return 0;
}

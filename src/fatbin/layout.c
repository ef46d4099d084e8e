/*
 * layout.c - the fatbin's structure: registration wrappers, containers and
 * entry headers.
 *
 * Everything here reads untrusted bytes (a registered wrapper, a file, a
 * fuzzer's input) whose size may only be bounded by the caller: each field is
 * read with memcpy (no alignment assumed) and each length is checked against
 * the bytes known to be there before anything past it is touched.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fatbin/fatbin.h"
#include "fatbin/internal.h"

#define CONTAINER_HEADER 16u
#define ENTRY_HEADER_MIN 64u

int fatbin_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Checks the container header at p (avail bytes readable) and returns its
 * header size and the size of its entries. */
static int container_at(const uint8_t *p, uint64_t avail, uint32_t *hdr, uint64_t *body,
			char *err, size_t errlen)
{
	uint32_t magic;
	uint16_t version;

	*hdr = 0;       /* defined on errors too */
	*body = 0;
	if (avail < CONTAINER_HEADER)
		return fatbin_error(err, errlen, "fatbin truncated: %llu bytes, a container header needs %u",
				    (unsigned long long)avail, CONTAINER_HEADER);
	magic = rd32(p);
	if (magic == FATBIN_WRAPPER_MAGIC)
		return fatbin_error(err, errlen, "this is a fatbin wrapper (magic 0x%08x), not an image", magic);
	if (magic != FATBIN_MAGIC)
		return fatbin_error(err, errlen, "not a fatbin: magic 0x%08x, expected 0x%08x",
				    magic, FATBIN_MAGIC);
	version = rd16(p + 4);
	if (version != 1)
		return fatbin_error(err, errlen, "fatbin container version %u is not supported", version);
	*hdr = rd16(p + 6);
	*body = rd64(p + 8);
	if (*hdr < CONTAINER_HEADER)
		return fatbin_error(err, errlen, "fatbin container header size %u is below %u",
				    *hdr, CONTAINER_HEADER);
	if (*body > FATBIN_MAX_SIZE)
		return fatbin_error(err, errlen, "fatbin container claims %llu bytes, more than the %llu accepted",
				    (unsigned long long)*body, (unsigned long long)FATBIN_MAX_SIZE);
	if (*hdr > avail || *body > avail - *hdr)
		return fatbin_error(err, errlen, "fatbin container claims %llu bytes, only %llu present",
				    (unsigned long long)(*hdr + *body), (unsigned long long)avail);
	return 0;
}

uint64_t fatbin_image_size(const void *p, uint64_t max, char *err, size_t errlen)
{
	uint32_t hdr;
	uint64_t body;

	if (!p) {
		fatbin_error(err, errlen, "no fatbin image (NULL pointer)");
		return 0;
	}
	if (container_at(p, max, &hdr, &body, err, errlen) < 0)
		return 0;
	return hdr + body;
}

/* Fills e from the entry header at p (avail bytes readable) and gives the
 * entry's total size (header and stored payload). */
static int entry_at(const uint8_t *p, uint64_t avail, struct fatbin_entry *e, uint64_t *total,
		    char *err, size_t errlen)
{
	uint32_t hdr, name_off, csize;
	uint64_t stored;

	if (avail < ENTRY_HEADER_MIN)
		return fatbin_error(err, errlen, "fatbin entry truncated: %llu bytes, a header needs %u",
				    (unsigned long long)avail, ENTRY_HEADER_MIN);
	hdr = rd32(p + 4);
	stored = rd64(p + 8);
	if (hdr < ENTRY_HEADER_MIN || hdr > avail)
		return fatbin_error(err, errlen, "fatbin entry header size %u is outside %u..%llu",
				    hdr, ENTRY_HEADER_MIN, (unsigned long long)avail);
	if (stored > avail - hdr)
		return fatbin_error(err, errlen, "fatbin entry payload of %llu bytes runs past the end (%llu left)",
				    (unsigned long long)stored, (unsigned long long)(avail - hdr));
	memset(e, 0, sizeof(*e));
	e->kind = (enum fatbin_kind)rd16(p);
	e->ptx_minor = rd16(p + 24);
	e->ptx_major = rd16(p + 26);
	e->sm_arch = rd32(p + 28);
	e->flags = rd64(p + 40);
	e->uncompressed_size = rd64(p + 56);
	e->payload = p + hdr;
	e->payload_size = stored;
	if (e->flags & (FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD)) {
		csize = rd32(p + 16);
		if (csize > stored)
			return fatbin_error(err, errlen, "fatbin entry: compressed size %u exceeds the %llu bytes stored",
					    csize, (unsigned long long)stored);
		e->payload_size = csize;
	}
	name_off = rd32(p + 32);
	e->name_len = rd32(p + 36);
	if (e->name_len) {
		if (name_off > hdr + stored || e->name_len > hdr + stored - name_off)
			return fatbin_error(err, errlen, "fatbin entry name (%u bytes at %u) lies outside the entry",
					    e->name_len, name_off);
		e->name = (const char *)p + name_off;
	}
	*total = hdr + stored;
	return 0;
}

/* Calls fn for each entry of the container's body (size bytes at p). */
static int walk_entries(const uint8_t *p, uint64_t size,
			int (*fn)(const struct fatbin_entry *e, void *ctx), void *ctx,
			char *err, size_t errlen)
{
	struct fatbin_entry e;
	uint64_t off = 0, total = 0;
	int ret;

	while (off < size) {
		if (entry_at(p + off, size - off, &e, &total, err, errlen) < 0)
			return -1;
		off += total;
		if (e.kind != FATBIN_PTX && e.kind != FATBIN_ELF)
			continue;	/* kinds nvcc may add later carry nothing we run */
		ret = fn(&e, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

int fatbin_walk(const void *image, uint64_t size,
		int (*fn)(const struct fatbin_entry *e, void *ctx), void *ctx,
		char *err, size_t errlen)
{
	const uint8_t *p = image;
	uint64_t off = 0, body;
	uint32_t hdr;
	int ret;

	if (!p)
		return fatbin_error(err, errlen, "no fatbin image (NULL pointer)");
	if (size == 0)
		return fatbin_error(err, errlen, "empty fatbin image");
	/* Containers follow each other 8-byte aligned (a .nv_fatbin section). */
	while (off < size) {
		if (container_at(p + off, size - off, &hdr, &body, err, errlen) < 0)
			return -1;
		ret = walk_entries(p + off + hdr, body, fn, ctx, err, errlen);
		if (ret)
			return ret;
		off += hdr + body;
		off += (8 - off % 8) % 8;
	}
	return 0;
}

int fatbin_wrapper_images(const struct fatbin_wrapper *w, const void **images,
			  uint64_t *sizes, int max, char *err, size_t errlen)
{
	const void *const *list;
	const void *img;
	int n = 0;

	if (!w)
		return fatbin_error(err, errlen, "no fatbin wrapper (NULL pointer)");
	if ((uint32_t)w->magic != FATBIN_WRAPPER_MAGIC)
		return fatbin_error(err, errlen, "not a fatbin wrapper: magic 0x%08x, expected 0x%08x",
				    (uint32_t)w->magic, FATBIN_WRAPPER_MAGIC);
	if (w->version != 1 && w->version != 2)
		return fatbin_error(err, errlen, "fatbin wrapper version %d is not supported", w->version);
	list = w->version == 2 ? w->filename_or_fatbins : NULL;
	for (img = w->data; img; img = list ? *list++ : NULL) {
		if (n == max)
			return fatbin_error(err, errlen, "fatbin wrapper holds more than %d images", max);
		sizes[n] = fatbin_image_size(img, UINT64_MAX, err, errlen);
		if (!sizes[n])
			return -1;
		images[n++] = img;
	}
	if (!n)
		return fatbin_error(err, errlen, "fatbin wrapper has no image (data is NULL)");
	return n;
}

/*
 * payload.c - an entry's payload as usable bytes: copied when stored plain,
 * inflated with liblz4 (flag 0x2000, one raw block) or libzstd (flag 0x8000,
 * one frame) when compressed.
 *
 * The sizes come from the entry header, which may lie: nothing larger than
 * FATBIN_MAX_SIZE is allocated, and a decompressor must produce exactly the
 * announced number of bytes.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>

#include "fatbin/fatbin.h"
#include "fatbin/internal.h"
#include "util/strbuf.h"

static int inflate_lz4(const struct fatbin_entry *e, uint8_t *dst, char *err, size_t errlen)
{
	int n;

	if (e->payload_size > INT_MAX)
		return fatbin_error(err, errlen, "LZ4 payload of %llu bytes is too large",
				    (unsigned long long)e->payload_size);
	n = LZ4_decompress_safe((const char *)e->payload, (char *)dst, (int)e->payload_size,
				(int)e->uncompressed_size);
	if (n < 0 || (uint64_t)n != e->uncompressed_size)
		return fatbin_error(err, errlen, "corrupt LZ4 payload in fatbin entry (sm_%u): got %d of %llu bytes",
				    e->sm_arch, n, (unsigned long long)e->uncompressed_size);
	return 0;
}

static int inflate_zstd(const struct fatbin_entry *e, uint8_t *dst, char *err, size_t errlen)
{
	size_t n;

	n = ZSTD_decompress(dst, e->uncompressed_size, e->payload, e->payload_size);
	if (ZSTD_isError(n))
		return fatbin_error(err, errlen, "corrupt Zstandard payload in fatbin entry (sm_%u): %s",
				    e->sm_arch, ZSTD_getErrorName(n));
	if (n != e->uncompressed_size)
		return fatbin_error(err, errlen, "Zstandard payload in fatbin entry (sm_%u) gave %zu of %llu bytes",
				    e->sm_arch, n, (unsigned long long)e->uncompressed_size);
	return 0;
}

/* Whether the compressed bytes can become usize bytes at all: a Zstandard
 * frame usually states its size, and an LZ4 block grows at most 255-fold.
 * Checked before allocating, so that a lying header costs nothing. */
static int plausible(const struct fatbin_entry *e, char *err, size_t errlen)
{
	unsigned long long framed;

	if (e->flags & FATBIN_FLAG_LZ4) {
		if (e->uncompressed_size / 255 > e->payload_size)
			return fatbin_error(err, errlen, "LZ4 payload of %llu bytes cannot hold the %llu bytes "
					    "its fatbin entry (sm_%u) claims", (unsigned long long)e->payload_size,
					    (unsigned long long)e->uncompressed_size, e->sm_arch);
		return 0;
	}
	framed = ZSTD_getFrameContentSize(e->payload, e->payload_size);
	if (framed == ZSTD_CONTENTSIZE_ERROR)
		return fatbin_error(err, errlen, "corrupt Zstandard payload in fatbin entry (sm_%u): no frame header",
				    e->sm_arch);
	if (framed != ZSTD_CONTENTSIZE_UNKNOWN && framed != e->uncompressed_size)
		return fatbin_error(err, errlen, "Zstandard payload in fatbin entry (sm_%u) holds %llu bytes, "
				    "not the %llu its header claims", e->sm_arch, framed,
				    (unsigned long long)e->uncompressed_size);
	return 0;
}

/* How many bytes the payload becomes, checked against the cap. */
static int data_size(const struct fatbin_entry *e, uint64_t *size, char *err, size_t errlen)
{
	uint64_t codecs = e->flags & (FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD);

	if (codecs == (FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD))
		return fatbin_error(err, errlen, "fatbin entry flags 0x%llx claim both LZ4 and Zstandard",
				    (unsigned long long)e->flags);
	*size = codecs ? e->uncompressed_size : e->payload_size;
	if (*size > FATBIN_MAX_SIZE)
		return fatbin_error(err, errlen, "fatbin entry (sm_%u) claims %llu bytes, more than the %llu accepted",
				    e->sm_arch, (unsigned long long)*size,
				    (unsigned long long)FATBIN_MAX_SIZE);
	return codecs ? plausible(e, err, errlen) : 0;
}

int fatbin_entry_data(const struct fatbin_entry *e, uint8_t **out, uint64_t *outlen,
		      char *err, size_t errlen)
{
	uint64_t size = 0;
	uint8_t *buf;
	int ret = 0;

	if (data_size(e, &size, err, errlen) < 0)
		return -1;
	buf = xmalloc(size + 1);
	if (e->flags & FATBIN_FLAG_LZ4)
		ret = inflate_lz4(e, buf, err, errlen);
	else if (e->flags & FATBIN_FLAG_ZSTD)
		ret = inflate_zstd(e, buf, err, errlen);
	else
		memcpy(buf, e->payload, size);
	if (ret < 0) {
		free(buf);
		return -1;
	}
	buf[size] = 0;
	/* PTX text is NUL-terminated, then zero-padded. */
	*outlen = e->kind == FATBIN_PTX ? strlen((char *)buf) : size;
	*out = buf;
	return 0;
}

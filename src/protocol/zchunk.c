/*
 * zchunk.c - Zstandard compression of bulk copy chunks (zchunk.h): the
 * one place that calls libzstd for the protocol, for both ends.
 */
#include "protocol/zchunk.h"

#include <stdlib.h>
#include <zstd.h>

size_t ag_zchunk_bound(size_t n)
{
	return ZSTD_compressBound(n);
}

size_t ag_zchunk_compress(ZSTD_CCtx *cx, int level, void *dst, size_t cap,
			  const void *src, size_t n)
{
	size_t zn;

	if (n < AG_ZSTD_MIN_CHUNK)
		return 0;
	zn = ZSTD_compressCCtx(cx, dst, cap, src, n, level);
	return ZSTD_isError(zn) || zn >= n ? 0 : zn;
}

int ag_zchunk_decompress(ZSTD_DCtx *dx, void *dst, size_t n, const void *src, size_t zn)
{
	size_t got = ZSTD_decompressDCtx(dx, dst, n, src, zn);

	return !ZSTD_isError(got) && got == n ? 0 : -1;
}

int ag_zchunk_level_env(void)
{
	const char *v = getenv("ANYGPU_COMPRESS");
	char *end;
	long level;

	if (!v || !*v)
		return 0;
	level = strtol(v, &end, 10);
	return *end || level < 0 || level > AG_ZSTD_MAX_LEVEL ? -1 : (int)level;
}

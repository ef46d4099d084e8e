/*
 * zchunk.h - Zstandard compression of bulk copy chunks, for sessions that
 * negotiated it at HELLO (docs/protocol.md, "Compression").  A chunk
 * travels compressed only when that makes it smaller; each compressed
 * chunk is one whole Zstandard frame, decompressed on its own.
 */
#ifndef AG_ZCHUNK_H
#define AG_ZCHUNK_H

#include <stddef.h>

typedef struct ZSTD_CCtx_s ZSTD_CCtx;
typedef struct ZSTD_DCtx_s ZSTD_DCtx;

#define AG_ZSTD_MAX_LEVEL 19        /* the highest level a session may use */
#define AG_ZSTD_MIN_CHUNK 4096u     /* smaller chunks travel as they are */

/* Room a compressed chunk of n bytes may need. */
size_t ag_zchunk_bound(size_t n);

/* Compresses src[0, n) into dst (cap bytes, at least ag_zchunk_bound(n)) at
 * level: the compressed size, or 0 when the chunk should travel as it is
 * (small, does not shrink, or the compressor failed). */
size_t ag_zchunk_compress(ZSTD_CCtx *cx, int level, void *dst, size_t cap,
			  const void *src, size_t n);

/* Decompresses src[0, zn) into dst: 0 when it is one Zstandard frame of
 * exactly n bytes, else -1 (dst may then hold anything). */
int ag_zchunk_decompress(ZSTD_DCtx *dx, void *dst, size_t n, const void *src, size_t zn);

/* The level ANYGPU_COMPRESS asks for: 0 when unset or 0, 1 to
 * AG_ZSTD_MAX_LEVEL; -1 when it is something else. */
int ag_zchunk_level_env(void);

#endif

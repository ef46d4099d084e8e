/*
 * fatbin.h - what nvcc embeds in a binary: wrappers, containers, entries.
 *
 * Reads the structures nvcc 13 writes (wrapper magic 0x466243B1, container
 * magic 0xBA55ED50, PTX and ELF entries, plain, LZ4 and Zstandard payloads)
 * from memory whose size is not known in advance (a registered wrapper gives
 * only a pointer), checking every length before use.
 *
 * Facts checked against nvcc 13.0 output (docs/fatbin.md; the fixtures in
 * tests/unit/fatbin.cmake rebuild each case):
 *  - a registered image is exactly ONE container: the containers of the
 *    program's other objects follow it in .nv_fatbin, so walking on from a
 *    wrapper's pointer would mix objects.  A dump of the whole .nv_fatbin
 *    section is several containers back to back, 8-byte aligned.
 *  - v1 wrapper: data is the object's image.  v2 wrapper (device link,
 *    crt/link.stub): data is the linked image (machine code only) and
 *    filename_or_fatbins is a NULL-terminated array of the prelinked
 *    objects' images, which hold the PTX.
 *  - nvcc 13 embeds PTX by default (-arch=sm_75 is implied); only
 *    -gencode ...,code=sm_XX without compute_XX leaves it out.
 */
#ifndef AG_FATBIN_H
#define AG_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#define FATBIN_WRAPPER_MAGIC 0x466243B1u
#define FATBIN_MAGIC 0xBA55ED50u

/* Entry flags that matter here. */
#define FATBIN_FLAG_LZ4 0x2000u
#define FATBIN_FLAG_ZSTD 0x8000u

/* No image or payload is accepted beyond this: a corrupt header must not
 * make us read or allocate terabytes. */
#define FATBIN_MAX_SIZE (1ull << 30)

enum fatbin_kind { FATBIN_PTX = 1, FATBIN_ELF = 2 };

struct fatbin_entry {
	enum fatbin_kind kind;
	uint32_t sm_arch;          /* 75 for sm_75 / compute_75 */
	uint32_t ptx_major, ptx_minor;
	uint64_t flags;
	const uint8_t *payload;    /* as stored (maybe compressed) */
	uint64_t payload_size;     /* compressed: exact compressed bytes; plain: bytes stored (zero-padded) */
	uint64_t uncompressed_size;
	const char *name;          /* entry name if any, else NULL (not NUL-terminated safe: see name_len) */
	uint32_t name_len;
};

/* Size in bytes of the fatbin image at p: the one container that starts at
 * p (what a wrapper registers).  max bounds the read (use UINT64_MAX when
 * unknown).  0 with err set when p is not a fatbin. */
uint64_t fatbin_image_size(const void *p, uint64_t max, char *err, size_t errlen);

/* Calls fn for each entry of the image (size bytes: one container, or
 * several back to back as in a .nv_fatbin section).  Returns 0, or -1 with
 * err set on a malformed image; a non-zero return from fn stops the walk and
 * is returned. */
int fatbin_walk(const void *image, uint64_t size,
		int (*fn)(const struct fatbin_entry *e, void *ctx), void *ctx,
		char *err, size_t errlen);

/* Decompresses (or copies) an entry's payload into a new NUL-terminated
 * buffer (*out, *outlen without the NUL; PTX stops at its first NUL).
 * Returns 0, or -1 with err set. */
int fatbin_entry_data(const struct fatbin_entry *e, uint8_t **out, uint64_t *outlen,
		      char *err, size_t errlen);

/* The PTX the cpu backend should use: the entry of the highest sm_arch not
 * above max_arch (0 = any), decompressed.  Returns 0 with *ptx (malloc'd,
 * NUL-terminated), 1 when the image has no usable PTX (err says so and
 * lists the machine code found, e.g. "sm_75, sm_80"), -1 on a malformed
 * image. */
int fatbin_best_ptx(const void *image, uint64_t size, uint32_t max_arch,
		    char **ptx, uint64_t *ptxlen, uint32_t *arch, char *err, size_t errlen);

/* The registration wrapper (__cudaRegisterFatBinary's argument). */
struct fatbin_wrapper {
	int32_t magic;
	int32_t version;
	const void *data;          /* v1 and v2: one image (v2: the device-linked one) */
	void *filename_or_fatbins; /* v1: unused; v2: NULL-terminated array of prelinked images */
};

/* The images a wrapper points to: up to max of them into images[] (with
 * sizes); v2 gives data first, then the prelinked images.  Returns the
 * count, or -1 with err set (also when there are more than max). */
int fatbin_wrapper_images(const struct fatbin_wrapper *w, const void **images,
			  uint64_t *sizes, int max, char *err, size_t errlen);

#endif

/*
 * test_fatbin.c - the fatbin reader on real nvcc 13 output and on damaged
 * copies of it.
 *
 * The fixtures (FIXTURES/<name>.fatbin) are .nv_fatbin sections of
 * tests/unit/fatbin/kernels.cu built by nvcc in each way fatbin.cmake lists.
 * whole.cu and rdc.cu are linked into this program as nvcc compiled them:
 * their constructors call __cudaRegisterFatBinary, defined below, which
 * keeps the wrappers for the tests, as libcudart would receive them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fatbin/fatbin.h"

/* ---- the registration entry points nvcc's objects call ---- */

static const struct fatbin_wrapper *registered[8];
static int nregistered;
static void *handle_slot;

void **__cudaRegisterFatBinary(void *wrapper)
{
	if (nregistered < 8)
		registered[nregistered++] = wrapper;
	return &handle_slot;
}

/* Called by the objects' constructors and atexit handlers; nothing to do. */
void __cudaRegisterFatBinaryEnd(void **handle) { }
void __cudaUnregisterFatBinary(void **handle) { }
void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
			    const char *device_name, int thread_limit, void *tid,
			    void *bid, void *bdim, void *gdim, int *wsize) { }

/* Referenced by the kernels' launch stubs, which the tests never call. */
int __cudaPopCallConfiguration(void *grid, void *block, size_t *shmem, void *stream) { abort(); }
int __cudaGetKernel(void **kernel, const void *host_fun) { abort(); }
int __cudaLaunchKernel(void *kernel, ...) { abort(); }
void __cudaInitModule(void **handle) { abort(); }

/* ---- helpers ---- */

static uint8_t *load(const char *name, uint64_t *size)
{
	char path[512];
	uint8_t *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s.fatbin", FIXTURES, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc(n);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*size = n;
	return buf;
}

/* The container of kernels.cu in a section dump: the last one (nvcc puts the
 * device link's container first), copied to a buffer of its exact size so
 * that ASan sees any read past it. */
static uint8_t *object_image(const char *name, uint64_t *size)
{
	uint64_t total, off = 0, len = 0;
	char err[256];
	uint8_t *sec, *img;

	sec = load(name, &total);
	for (;;) {
		len = fatbin_image_size(sec + off, total - off, err, sizeof(err));
		assert_true(len > 0);
		if (off + len == total)
			break;
		off = (off + len + 7) & ~7ull;
	}
	img = malloc(len);
	memcpy(img, sec + off, len);
	free(sec);
	*size = len;
	return img;
}

static char *best_ptx(const void *img, uint64_t size, uint32_t max_arch, uint32_t *arch)
{
	char err[256] = "", *ptx = NULL;
	uint64_t len = 0;
	int ret;

	ret = fatbin_best_ptx(img, size, max_arch, &ptx, &len, arch, err, sizeof(err));
	if (ret)
		fail_msg("fatbin_best_ptx: %d %s", ret, err);
	assert_int_equal(strlen(ptx), len);
	return ptx;
}

static void assert_kernels(const char *ptx)
{
	assert_non_null(strstr(ptx, ".entry fixture_add_one("));
	assert_non_null(strstr(ptx, ".entry fixture_scale("));
	assert_non_null(strstr(ptx, ".target sm_75"));
}

struct census {
	int ptx, elf;
	uint64_t ptx_flags, elf_flags;
};

static int count(const struct fatbin_entry *e, void *ctx)
{
	struct census *c = ctx;

	if (e->kind == FATBIN_PTX) {
		c->ptx++;
		c->ptx_flags |= e->flags;
	} else {
		c->elf++;
		c->elf_flags |= e->flags;
	}
	return 0;
}

static struct census census_of(const char *name)
{
	struct census c = { 0 };
	uint64_t size;
	uint8_t *sec = load(name, &size);
	char err[256];

	if (fatbin_walk(sec, size, count, &c, err, sizeof(err)))
		fail_msg("fatbin_walk %s: %s", name, err);
	free(sec);
	return c;
}

/* ---- real images ---- */

/* Each compression mode gives the same PTX back. */
static void test_compression_modes(void **state)
{
	static const char *const names[] = { "zstd", "lz4", "plain", "all_zstd", "all_lz4" };
	char *ref = NULL, *ptx;
	uint64_t size;
	uint32_t arch;
	uint8_t *img;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		img = object_image(names[i], &size);
		ptx = best_ptx(img, size, 0, &arch);
		assert_int_equal(arch, 75);
		assert_kernels(ptx);
		if (ref)
			assert_string_equal(ptx, ref);
		else
			ref = ptx;
		if (ptx != ref)
			free(ptx);
		free(img);
	}
	free(ref);
}

/* The fixtures really are stored the way their names say. */
static void test_payload_flags(void **state)
{
	struct census c;

	c = census_of("zstd");
	assert_true(c.ptx_flags & FATBIN_FLAG_ZSTD);
	assert_false(c.elf_flags & (FATBIN_FLAG_ZSTD | FATBIN_FLAG_LZ4));
	c = census_of("lz4");
	assert_true(c.ptx_flags & FATBIN_FLAG_LZ4);
	c = census_of("plain");
	assert_false((c.ptx_flags | c.elf_flags) & (FATBIN_FLAG_ZSTD | FATBIN_FLAG_LZ4));
	c = census_of("all_zstd");
	assert_true(c.elf_flags & FATBIN_FLAG_ZSTD);
	c = census_of("all_lz4");
	assert_true(c.elf_flags & FATBIN_FLAG_LZ4);
}

/* Compressed machine code inflates to an ELF file. */
static int check_elf(const struct fatbin_entry *e, void *ctx)
{
	char err[256];
	uint8_t *data;
	uint64_t len;

	if (e->kind != FATBIN_ELF)
		return 0;
	if (fatbin_entry_data(e, &data, &len, err, sizeof(err)))
		fail_msg("fatbin_entry_data: %s", err);
	assert_true(len > 64);
	assert_memory_equal(data, "\177ELF", 4);
	free(data);
	++*(int *)ctx;
	return 0;
}

static void test_elf_payloads(void **state)
{
	static const char *const names[] = { "zstd", "lz4", "all_zstd", "all_lz4" };
	uint64_t size;
	uint8_t *sec;
	size_t i;
	int n;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = 0;
		sec = load(names[i], &size);
		assert_int_equal(fatbin_walk(sec, size, check_elf, &n, NULL, 0), 0);
		assert_int_equal(n, 2);	/* the device link's and kernels.cu's */
		free(sec);
	}
}

/* A section dump holds several containers; an image is one of them. */
static void test_section_containers(void **state)
{
	uint64_t size, first;
	struct census c;
	uint8_t *sec;
	char err[256];

	sec = load("zstd", &size);
	first = fatbin_image_size(sec, size, err, sizeof(err));
	assert_true(first > 0 && first < size);
	free(sec);
	c = census_of("zstd");
	assert_int_equal(c.elf, 2);
	assert_int_equal(c.ptx, 1);
}

/* best_ptx on fixture name finds no PTX; err names the machine code. */
static void assert_no_ptx(const char *name)
{
	char err[256] = "", *ptx = NULL;
	uint64_t size, len;
	uint32_t arch;
	uint8_t *sec;

	sec = load(name, &size);
	assert_int_equal(fatbin_best_ptx(sec, size, 0, &ptx, &len, &arch, err, sizeof(err)), 1);
	assert_null(ptx);
	assert_non_null(strstr(err, "no PTX, only machine code for sm_75;"));
	assert_non_null(strstr(err, "rebuild with -arch=sm_75"));
	free(sec);
}

static void test_no_ptx(void **state)
{
	assert_no_ptx("noptx");
}

/* -rdc: the linked image carries machine code only. */
static void test_rdc_section(void **state)
{
	assert_no_ptx("rdc");
}

static void test_multi_arch(void **state)
{
	char err[256] = "", *ptx;
	uint64_t size, len;
	uint32_t arch;
	uint8_t *img;
	struct census c;

	c = census_of("multi");
	assert_int_equal(c.ptx, 2);
	img = object_image("multi", &size);
	ptx = best_ptx(img, size, 0, &arch);
	assert_int_equal(arch, 86);
	assert_non_null(strstr(ptx, ".target sm_86"));
	assert_non_null(strstr(ptx, ".entry fixture_add_one("));
	free(ptx);
	ptx = best_ptx(img, size, 80, &arch);
	assert_int_equal(arch, 75);
	assert_kernels(ptx);
	free(ptx);
	assert_int_equal(fatbin_best_ptx(img, size, 70, &ptx, &len, &arch, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "compute_75, compute_86"));
	free(img);
}

/* ---- wrappers registered by the linked objects ---- */

static const struct fatbin_wrapper *wrapper_of_version(int version)
{
	int i;

	for (i = 0; i < nregistered; i++)
		if (registered[i]->version == version)
			return registered[i];
	fail_msg("no version %d wrapper was registered", version);
	return NULL;
}

static void test_wrapper_v1(void **state)
{
	const struct fatbin_wrapper *w = wrapper_of_version(1);
	const void *images[4];
	uint64_t sizes[4];
	char err[256];
	uint32_t arch;
	char *ptx;

	assert_int_equal(fatbin_wrapper_images(w, images, sizes, 4, err, sizeof(err)), 1);
	assert_ptr_equal(images[0], w->data);
	ptx = best_ptx(images[0], sizes[0], 0, &arch);
	assert_non_null(strstr(ptx, ".entry fixture_whole("));
	assert_null(strstr(ptx, "fixture_rdc"));
	free(ptx);
}

static void test_wrapper_v2(void **state)
{
	const struct fatbin_wrapper *w = wrapper_of_version(2);
	const void *images[4];
	uint64_t sizes[4];
	char err[256], *ptx = NULL;
	uint64_t len;
	uint32_t arch;

	assert_int_equal(fatbin_wrapper_images(w, images, sizes, 4, err, sizeof(err)), 2);
	assert_ptr_equal(images[0], w->data);
	assert_int_equal(fatbin_best_ptx(images[0], sizes[0], 0, &ptx, &len, &arch, err, sizeof(err)), 1);
	ptx = best_ptx(images[1], sizes[1], 0, &arch);
	assert_non_null(strstr(ptx, ".entry fixture_rdc("));
	assert_non_null(strstr(ptx, "fixture_rdc_helper"));
	free(ptx);
	assert_int_equal(fatbin_wrapper_images(w, images, sizes, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 1"));
}

static void test_wrapper_bad(void **state)
{
	struct fatbin_wrapper w = *wrapper_of_version(1);
	const void *images[2];
	uint64_t sizes[2];
	char err[256];

	w.magic = 0x12345678;
	assert_int_equal(fatbin_wrapper_images(&w, images, sizes, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "magic"));
	w.magic = (int32_t)FATBIN_WRAPPER_MAGIC;
	w.version = 3;
	assert_int_equal(fatbin_wrapper_images(&w, images, sizes, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "version 3"));
	w.version = 1;
	w.data = NULL;
	assert_int_equal(fatbin_wrapper_images(&w, images, sizes, 2, err, sizeof(err)), -1);
	w.data = &w;	/* a wrapper where an image should be */
	assert_int_equal(fatbin_wrapper_images(&w, images, sizes, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "wrapper"));
	assert_int_equal(fatbin_wrapper_images(NULL, images, sizes, 2, err, sizeof(err)), -1);
}

/* ---- damaged images ---- */

/* Every call must fail cleanly on the first len bytes of img. */
static void assert_rejected(const uint8_t *img, uint64_t len)
{
	char err[256], *ptx = NULL;
	uint8_t *copy = malloc(len ? len : 1);
	uint64_t plen;
	uint32_t arch;
	struct census c = { 0 };

	memcpy(copy, img, len);
	err[0] = 0;
	assert_int_equal(fatbin_walk(copy, len, count, &c, err, sizeof(err)), -1);
	assert_true(err[0]);
	assert_int_equal(fatbin_best_ptx(copy, len, 0, &ptx, &plen, &arch, err, sizeof(err)), -1);
	assert_null(ptx);
	free(copy);
}

static void test_truncations(void **state)
{
	static const char *const names[] = { "zstd", "lz4", "plain" };
	uint64_t size, len;
	uint8_t *img;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		img = object_image(names[i], &size);
		for (len = 0; len < size; len++) {
			assert_rejected(img, len);
			assert_int_equal(fatbin_image_size(img, len, NULL, 0), 0);
		}
		free(img);
	}
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Offsets into object_image(): the container, then its first entry. */
#define ENTRY 16

static void test_bad_headers(void **state)
{
	uint64_t size;
	uint8_t *img = object_image("plain", &size);
	uint8_t *bad = malloc(size);
	char err[256];

#define DAMAGE(stmt) do { memcpy(bad, img, size); stmt; assert_rejected(bad, size); } while (0)
	DAMAGE(put32(bad, 0xdeadbeef));                         /* container magic */
	DAMAGE(put32(bad, FATBIN_WRAPPER_MAGIC));
	DAMAGE(bad[4] = 2);                                     /* container version */
	DAMAGE(bad[6] = 8);                                     /* header size < 16 */
	DAMAGE(put64(bad + 8, size));                           /* body past the end */
	DAMAGE(put64(bad + 8, UINT64_MAX));
	DAMAGE(put32(bad + ENTRY + 4, 0));                      /* entry header size */
	DAMAGE(put32(bad + ENTRY + 4, 63));
	DAMAGE(put32(bad + ENTRY + 4, 0xffffffff));
	DAMAGE(put64(bad + ENTRY + 8, size));                   /* payload past the end */
	DAMAGE(put64(bad + ENTRY + 8, UINT64_MAX));
	DAMAGE(put32(bad + ENTRY + 36, 100); put32(bad + ENTRY + 32, 0xfffffff0)); /* name */
#undef DAMAGE
	memcpy(bad, img, size);
	put64(bad + 8, FATBIN_MAX_SIZE + 1);
	assert_int_equal(fatbin_image_size(bad, UINT64_MAX, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "more than"));
	free(bad);
	free(img);
}

/* A container with one PTX entry, payload as given. */
static uint64_t synth(uint8_t *buf, uint64_t flags, const void *payload, uint32_t plen,
		      uint32_t csize, uint64_t usize)
{
	uint64_t stored = (plen + 7) & ~7u;

	memset(buf, 0, 16 + 64 + stored);
	put32(buf, FATBIN_MAGIC);
	buf[4] = 1;
	buf[6] = 16;
	put64(buf + 8, 64 + stored);
	buf[ENTRY] = FATBIN_PTX;
	put32(buf + ENTRY + 4, 64);
	put64(buf + ENTRY + 8, stored);
	put32(buf + ENTRY + 16, csize);
	put32(buf + ENTRY + 28, 75);
	put64(buf + ENTRY + 40, flags | 0x11);
	put64(buf + ENTRY + 56, usize);
	memcpy(buf + 16 + 64, payload, plen);
	return 16 + 64 + stored;
}

/* Compressed payloads that lie: best_ptx fails with err mentioning what. */
static void assert_payload_rejected(uint64_t flags, const void *payload, uint32_t plen,
				    uint32_t csize, uint64_t usize, const char *what)
{
	uint8_t buf[512];
	uint64_t size = synth(buf, flags, payload, plen, csize, usize), len;
	char err[256] = "", *ptx = NULL;
	uint32_t arch;

	assert_int_equal(fatbin_best_ptx(buf, size, 0, &ptx, &len, &arch, err, sizeof(err)), -1);
	assert_null(ptx);
	if (!strstr(err, what))
		fail_msg("expected \"%s\" in: %s", what, err);
}

static void test_bad_payloads(void **state)
{
	static const uint8_t junk[64] = { 0xff, 0xff, 0xff, 0xff, 0x28, 0xb5, 0x2f, 0xfd };
	static const uint8_t zstd_hdr[8] = { 0x28, 0xb5, 0x2f, 0xfd, 0x60, 0x27, 0x03, 0xd5 };

	assert_payload_rejected(FATBIN_FLAG_LZ4, junk, 64, 64, 100, "LZ4");
	assert_payload_rejected(FATBIN_FLAG_ZSTD, junk, 64, 64, 100, "Zstandard");
	assert_payload_rejected(FATBIN_FLAG_ZSTD, zstd_hdr, 8, 8, 1063, "Zstandard");
	assert_payload_rejected(FATBIN_FLAG_ZSTD, zstd_hdr, 8, 8, 1000, "not the 1000");
	assert_payload_rejected(FATBIN_FLAG_LZ4, junk, 64, 64, 100000, "cannot hold");
	assert_payload_rejected(FATBIN_FLAG_ZSTD, junk, 64, 65, 100, "compressed size");
	assert_payload_rejected(FATBIN_FLAG_ZSTD, junk, 64, 64, 1ull << 40, "more than");
	assert_payload_rejected(FATBIN_FLAG_LZ4, junk, 64, 64, FATBIN_MAX_SIZE + 1, "more than");
	assert_payload_rejected(FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD, junk, 64, 64, 100, "both");
}

/* Real compressed PTX whose announced size is wrong. */
static void test_wrong_uncompressed_size(void **state)
{
	static const char *const names[] = { "zstd", "lz4" };
	char err[256], *ptx = NULL;
	uint64_t size, len;
	uint32_t arch, hdr;
	uint8_t *img;
	size_t i;

	for (i = 0; i < 2; i++) {
		img = object_image(names[i], &size);
		/* the PTX entry follows the ELF entry */
		memcpy(&hdr, img + ENTRY + 4, 4);
		memcpy(&len, img + ENTRY + 8, 8);
		img[ENTRY + hdr + len + 56] ^= 0x40;
		assert_int_equal(fatbin_best_ptx(img, size, 0, &ptx, &len, &arch, err, sizeof(err)), -1);
		assert_null(ptx);
		free(img);
	}
}

static void test_empty_entry(void **state)
{
	uint8_t buf[128];
	uint64_t size = synth(buf, 0, "", 0, 0, 0), len = 1;
	char err[256], *ptx = NULL;
	uint32_t arch;

	assert_int_equal(fatbin_best_ptx(buf, size, 0, &ptx, &len, &arch, err, sizeof(err)), 0);
	assert_int_equal(len, 0);
	assert_string_equal(ptx, "");
	free(ptx);
	assert_int_equal(fatbin_walk(buf, 0, count, NULL, err, sizeof(err)), -1);
	assert_int_equal(fatbin_walk(NULL, 10, count, NULL, err, sizeof(err)), -1);
	assert_int_equal(fatbin_image_size(NULL, 10, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compression_modes),
		cmocka_unit_test(test_payload_flags),
		cmocka_unit_test(test_elf_payloads),
		cmocka_unit_test(test_section_containers),
		cmocka_unit_test(test_no_ptx),
		cmocka_unit_test(test_rdc_section),
		cmocka_unit_test(test_multi_arch),
		cmocka_unit_test(test_wrapper_v1),
		cmocka_unit_test(test_wrapper_v2),
		cmocka_unit_test(test_wrapper_bad),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_bad_payloads),
		cmocka_unit_test(test_wrong_uncompressed_size),
		cmocka_unit_test(test_empty_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

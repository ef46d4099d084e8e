/*
 * test_texdesc.c - ag_tex_desc_check (src/util/texdesc.c): valid
 * descriptors of every resource kind and their spans, and one broken
 * field at a time (formats, shapes, enum ranges, the combinations CUDA
 * refuses, layouts that overflow), each refused with the field named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>
#include <texture_types.h>

#include "util/texdesc.h"

/* A 2D float array of 10 x 3 texels, point sampled. */
static struct ag_tex_desc base_desc(void)
{
	struct ag_tex_desc d;

	memset(&d, 0, sizeof(d));
	d.kind = AG_TEX_TEXTURE;
	d.res = AG_RES_ARRAY;
	d.base = 0x10000;
	d.width = 10;
	d.height = 3;
	d.pitch = 40;
	d.dims = 2;
	d.channels = 1;
	d.bits = 32;
	d.format = cudaChannelFormatKindFloat;
	d.address[0] = d.address[1] = d.address[2] = cudaAddressModeClamp;
	return d;
}

static void assert_span(const struct ag_tex_desc *d, uint64_t want)
{
	const char *why = "unset";
	uint64_t span = 0;

	assert_int_equal(ag_tex_desc_check(d, &span, &why), 0);
	assert_null(why);
	assert_int_equal(span, want);
}

static void assert_bad(const struct ag_tex_desc *d, const char *want)
{
	const char *why = NULL;
	uint64_t span = 1;

	assert_int_equal(ag_tex_desc_check(d, &span, &why), -1);
	assert_non_null(why);
	assert_string_equal(why, want);
	assert_int_equal(span, 0);
}

static void test_valid(void **state)
{
	struct ag_tex_desc d = base_desc();

	(void)state;
	assert_span(&d, 120);
	d.dims = 3;                        /* 4 x 2 x 3 float4 */
	d.width = 4;
	d.height = 2;
	d.depth = 3;
	d.channels = 4;
	d.pitch = 64;
	assert_span(&d, 3 * 2 * 64);
	d = base_desc();                   /* pitched: last row is not padded */
	d.res = AG_RES_PITCH2D;
	d.height = 4;
	d.pitch = 64;
	assert_span(&d, 3 * 64 + 40);
	d = base_desc();                   /* linear, 16 bytes of uchar */
	d.res = AG_RES_LINEAR;
	d.dims = 1;
	d.width = 16;
	d.height = 0;
	d.pitch = 16;
	d.bits = 8;
	d.format = cudaChannelFormatKindUnsigned;
	d.read_mode = cudaReadModeNormalizedFloat;
	d.filter = cudaFilterModeLinear;
	assert_span(&d, 16);
	d = base_desc();                   /* 3 layers of 10 x 3, a surface */
	d.kind = AG_TEX_SURFACE;
	d.depth = d.layers = 3;
	assert_span(&d, 360);
	d.dims = 1;                        /* 3 layers of 10 */
	d.height = 0;
	assert_span(&d, 120);
}

static void test_formats(void **state)
{
	struct ag_tex_desc d = base_desc();

	(void)state;
	d.channels = 3;
	assert_bad(&d, "channel format");
	d = base_desc();
	d.bits = 12;
	assert_bad(&d, "channel format");
	d.bits = 8;                        /* no 8-bit floats */
	assert_bad(&d, "channel format");
	d = base_desc();
	d.format = 3;
	assert_bad(&d, "channel format");
}

static void test_shapes(void **state)
{
	struct ag_tex_desc d = base_desc();

	(void)state;
	d.dims = 0;
	assert_bad(&d, "shape");
	d.dims = 4;
	assert_bad(&d, "shape");
	d = base_desc();
	d.height = 0;                      /* 2D without a height */
	assert_bad(&d, "shape");
	d = base_desc();
	d.depth = 2;                       /* a depth it does not use */
	assert_bad(&d, "shape");
	d = base_desc();
	d.kind = 2;
	assert_bad(&d, "shape");
	d = base_desc();
	d.res = 3;
	assert_bad(&d, "shape");
	d.res = AG_RES_LINEAR;             /* linear memory is 1D */
	assert_bad(&d, "shape");
	d = base_desc();
	d.res = AG_RES_PITCH2D;            /* no surfaces over memory */
	d.kind = AG_TEX_SURFACE;
	assert_bad(&d, "shape");
	d = base_desc();
	d.layers = 3;                      /* layers must be the depth */
	assert_bad(&d, "shape");
	d.depth = 3;
	d.res = AG_RES_PITCH2D;
	assert_bad(&d, "shape");
	d = base_desc();
	d.width = ((uint64_t)1 << 40) + 1;
	assert_bad(&d, "shape");
}

static void test_samplers(void **state)
{
	struct ag_tex_desc d = base_desc();

	(void)state;
	d.address[2] = 4;
	assert_bad(&d, "sampler settings");
	d = base_desc();
	d.filter = 2;
	assert_bad(&d, "sampler settings");
	d = base_desc();
	d.normalized = 2;
	assert_bad(&d, "sampler settings");
	d = base_desc();
	d.read_mode = cudaReadModeNormalizedFloat;   /* floats read as elements */
	assert_bad(&d, "sampler settings");
	d = base_desc();
	d.format = cudaChannelFormatKindSigned;      /* no filtering of integers */
	d.filter = cudaFilterModeLinear;
	assert_bad(&d, "sampler settings");
	d.read_mode = cudaReadModeNormalizedFloat;   /* nor normalized 32-bit ones */
	assert_bad(&d, "sampler settings");
	d.bits = 16;
	d.pitch = 20;
	assert_span(&d, 60);
}

static void test_layouts(void **state)
{
	struct ag_tex_desc d = base_desc();

	(void)state;
	d.pitch = 39;                      /* shorter than a row */
	assert_bad(&d, "layout (pitch or size)");
	d = base_desc();
	d.pitch = (uint64_t)1 << 62;       /* pitch x height overflows */
	d.height = 8;
	assert_bad(&d, "layout (pitch or size)");
	d = base_desc();
	d.pitch = (uint64_t)1 << 40;       /* fits 64 bits, not the limit */
	d.height = (uint64_t)1 << 30;
	assert_bad(&d, "layout (pitch or size)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_samplers),
		cmocka_unit_test(test_layouts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * texdesc.c - the rules a texture or surface descriptor must follow
 * (texdesc.h): formats of 1, 2 or 4 channels of 8, 16 or 32 bits, shapes
 * per resource kind (layered arrays included), enum ranges, the read-mode and filter combinations
 * CUDA refuses, and a layout whose offsets fit comfortably in 64 bits.
 */
#include "util/texdesc.h"

#include <texture_types.h>

/* Sizes beyond 2^40 elements per dimension, 2^60 bytes in all, are
 * refused: samplers compute offsets in signed 64-bit arithmetic. */
#define TEX_MAX ((uint64_t)1 << 40)
#define TEX_MAX_LAYERS 65536u

static int format_ok(const struct ag_tex_desc *d)
{
	if (d->channels != 1 && d->channels != 2 && d->channels != 4)
		return 0;
	if (d->bits != 8 && d->bits != 16 && d->bits != 32)
		return 0;
	if (d->format == cudaChannelFormatKindFloat)
		return d->bits != 8;
	return d->format == cudaChannelFormatKindSigned ||
	       d->format == cudaChannelFormatKindUnsigned;
}

/* Arrays of 1 to 3 dimensions (an absent dimension is 0, and so are those
 * after it), layered arrays of 1D or 2D layers (depth is the layer count),
 * linear memory 1D, pitched memory 2D; surfaces on arrays. */
static int shape_ok(const struct ag_tex_desc *d)
{
	uint64_t ext[3] = { d->width, d->height, d->layers ? 0 : d->depth };

	if (d->dims < 1 || d->dims > 3 || d->kind > AG_TEX_SURFACE)
		return 0;
	if (d->layers && (d->res != AG_RES_ARRAY || d->dims > 2 || d->depth != d->layers ||
			  d->layers > TEX_MAX_LAYERS))
		return 0;
	for (unsigned i = 0; i < 3; i++)
		if ((i < d->dims) != (ext[i] != 0) || ext[i] > TEX_MAX)
			return 0;
	if (d->res == AG_RES_LINEAR)
		return d->dims == 1 && d->kind == AG_TEX_TEXTURE;
	if (d->res == AG_RES_PITCH2D)
		return d->dims == 2 && d->kind == AG_TEX_TEXTURE;
	return d->res == AG_RES_ARRAY;
}

/* Enum ranges, and what CUDA refuses: linear filtering of integers read
 * as integers, normalized reads of floats or 32-bit integers. */
static int sampler_ok(const struct ag_tex_desc *d)
{
	int int_raw = d->format != cudaChannelFormatKindFloat &&
		      d->read_mode == cudaReadModeElementType;

	for (unsigned i = 0; i < 3; i++)
		if (d->address[i] > cudaAddressModeBorder)
			return 0;
	if (d->filter > cudaFilterModeLinear || d->read_mode > cudaReadModeNormalizedFloat ||
	    d->normalized > 1)
		return 0;
	if (d->read_mode == cudaReadModeNormalizedFloat &&
	    (d->format == cudaChannelFormatKindFloat || d->bits == 32))
		return 0;
	return !(int_raw && d->filter == cudaFilterModeLinear);
}

/* Bytes from the first element to the end of the last, or 0 when the
 * layout does not fit. */
static uint64_t span_of(const struct ag_tex_desc *d)
{
	uint64_t row, slice, n, elem = d->channels * d->bits / 8;
	uint64_t h = d->height ? d->height : 1, z = d->depth ? d->depth : 1;

	if (__builtin_mul_overflow(d->width, elem, &row) || d->pitch < row ||
	    __builtin_mul_overflow(d->pitch, h, &slice) ||
	    __builtin_mul_overflow(slice, z - 1, &n) ||
	    __builtin_add_overflow(n, slice - d->pitch + row, &n) || n > TEX_MAX << 20)
		return 0;
	return n;
}

int ag_tex_desc_check(const struct ag_tex_desc *d, uint64_t *span, const char **why)
{
	*why = !format_ok(d) ? "channel format" : !shape_ok(d) ? "shape" :
	       !sampler_ok(d) ? "sampler settings" : NULL;
	*span = *why ? 0 : span_of(d);
	if (!*why && !*span)
		*why = "layout (pitch or size)";
	return *why ? -1 : 0;
}

/*
 * texture.c - the cpu backend's texture and surface objects: tex_create
 * checks a descriptor (every field, since over the wire it may come from
 * anyone) and the memory it names, and keeps a struct ag_texobj whose
 * address is the handle kernels sample through (translate_tex.h);
 * tex_destroy and closing the backend free them.
 */
#include <driver_types.h>
#include <stdlib.h>
#include <string.h>
#include <texture_types.h>

#include "cpu/cpu.h"
#include "cpu/tex_abi.h"
#include "util/strbuf.h"

_Static_assert(AG_TEX_WRAP == cudaAddressModeWrap && AG_TEX_CLAMP == cudaAddressModeClamp &&
	       AG_TEX_MIRROR == cudaAddressModeMirror && AG_TEX_BORDER == cudaAddressModeBorder,
	       "address modes");
_Static_assert(AG_TEX_SIGNED == cudaChannelFormatKindSigned &&
	       AG_TEX_UNSIGNED == cudaChannelFormatKindUnsigned &&
	       AG_TEX_FLOAT == cudaChannelFormatKindFloat, "channel kinds");

/* Sizes beyond 2^40 elements per dimension, 2^60 bytes in all, are
 * refused: the sampler computes offsets in long long. */
#define TEX_MAX ((uint64_t)1 << 40)

struct ag_cpu_tex {
	struct ag_texobj obj;           /* first: its address is the handle */
	struct ag_cpu_tex *next;
};

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

/* The shape each resource kind allows: arrays of 1 to 3 dimensions (an
 * absent dimension is 0 and so are those after it), linear memory 1D,
 * pitched memory 2D. */
static int shape_ok(const struct ag_tex_desc *d)
{
	uint64_t ext[3] = { d->width, d->height, d->depth };

	if (d->dims < 1 || d->dims > 3)
		return 0;
	for (unsigned i = 0; i < 3; i++)
		if ((i < d->dims) != (ext[i] != 0) || ext[i] > TEX_MAX)
			return 0;
	if (d->res == AG_RES_LINEAR)
		return d->dims == 1 && d->kind == AG_TEX_TEXTURE;
	if (d->res == AG_RES_PITCH2D)
		return d->dims == 2 && d->kind == AG_TEX_TEXTURE;
	return d->res == AG_RES_ARRAY && d->kind <= AG_TEX_SURFACE;
}

/* Sampler settings: enum ranges, and the combinations CUDA refuses. */
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
 * layout does not fit (offsets must stay far inside a long long). */
static uint64_t span_of(const struct ag_tex_desc *d, uint64_t elem)
{
	uint64_t row, slice, n;
	uint64_t h = d->height ? d->height : 1, z = d->depth ? d->depth : 1;

	if (__builtin_mul_overflow(d->width, elem, &row) || d->pitch < row ||
	    __builtin_mul_overflow(d->pitch, h, &slice) ||
	    __builtin_mul_overflow(slice, z - 1, &n) ||
	    __builtin_add_overflow(n, slice - d->pitch + row, &n) || n > TEX_MAX << 20)
		return 0;
	return n;
}

static void fill_obj(struct ag_texobj *o, const struct ag_tex_desc *d)
{
	uint64_t ext[3] = { d->width, d->height, d->depth };

	o->magic = AG_TEX_MAGIC;
	o->surface = d->kind == AG_TEX_SURFACE;
	o->base = (unsigned char *)(uintptr_t)d->base;
	for (unsigned i = 0; i < 3; i++) {
		o->size[i] = ext[i] ? (long long)ext[i] : 1;
		/* CUDA: wrap and mirror need normalized coordinates, else clamp */
		o->address[i] = !d->normalized && (d->address[i] == cudaAddressModeWrap ||
						   d->address[i] == cudaAddressModeMirror) ?
			AG_TEX_CLAMP : d->address[i];
	}
	o->pitch = (long long)d->pitch;
	o->slice = (long long)(d->pitch * (uint64_t)o->size[1]);
	o->dims = d->dims;
	o->linear_mem = d->res == AG_RES_LINEAR;
	o->channels = d->channels;
	o->bits = d->bits;
	o->format = d->format;
	o->elem = d->channels * d->bits / 8;
	o->filter_linear = d->filter == cudaFilterModeLinear;
	o->read_float = d->read_mode == cudaReadModeNormalizedFloat;
	o->norm_coords = d->normalized;
	memcpy(o->border, d->border, sizeof(o->border));
}

cudaError_t ag_cpu_tex_create(struct ag_backend *b, const struct ag_tex_desc *d,
			      uint64_t *handle)
{
	struct ag_cpu_tex *t;
	uint64_t span;

	if (!format_ok(d) || !shape_ok(d) || !sampler_ok(d)) {
		ag_cpu_set_msg(b, "texture or surface descriptor: unsupported format, shape "
			       "or sampler combination");
		return cudaErrorInvalidValue;
	}
	span = span_of(d, d->channels * d->bits / 8);
	pthread_mutex_lock(&b->lock);
	if (!span || !ag_mem_contains(&b->mem, d->base, span)) {
		pthread_mutex_unlock(&b->lock);
		ag_cpu_set_msg(b, "texture or surface over 0x%llx: %llu bytes not inside one "
			       "allocation", (unsigned long long)d->base, (unsigned long long)span);
		return cudaErrorInvalidValue;
	}
	t = xcalloc(1, sizeof(*t));
	fill_obj(&t->obj, d);
	t->next = b->textures;
	b->textures = t;
	pthread_mutex_unlock(&b->lock);
	*handle = (uint64_t)(uintptr_t)&t->obj;
	return cudaSuccess;
}

cudaError_t ag_cpu_tex_destroy(struct ag_backend *b, uint64_t handle)
{
	struct ag_cpu_tex **pp, *t;

	pthread_mutex_lock(&b->lock);
	ag_cpu_wait_idle(b);    /* kernels still sampling it finish first */
	for (pp = &b->textures; *pp; pp = &(*pp)->next)
		if ((uint64_t)(uintptr_t)&(*pp)->obj == handle)
			break;
	t = *pp;
	if (t)
		*pp = t->next;
	pthread_mutex_unlock(&b->lock);
	if (!t) {
		ag_cpu_set_msg(b, "0x%llx is not a texture or surface object",
			       (unsigned long long)handle);
		return cudaErrorInvalidValue;
	}
	t->obj.magic = 0;
	free(t);
	return cudaSuccess;
}

void ag_cpu_tex_release(struct ag_backend *b)
{
	while (b->textures) {
		struct ag_cpu_tex *t = b->textures;

		b->textures = t->next;
		free(t);
	}
}

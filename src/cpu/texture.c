/*
 * texture.c - the cpu backend's texture and surface objects: tex_create
 * checks a descriptor (util/texdesc.h) and that the memory it names is one
 * allocation of this backend, and keeps a struct ag_texobj whose
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
#include "util/texdesc.h"

_Static_assert(AG_TEX_WRAP == cudaAddressModeWrap && AG_TEX_CLAMP == cudaAddressModeClamp &&
	       AG_TEX_MIRROR == cudaAddressModeMirror && AG_TEX_BORDER == cudaAddressModeBorder,
	       "address modes");
_Static_assert(AG_TEX_SIGNED == cudaChannelFormatKindSigned &&
	       AG_TEX_UNSIGNED == cudaChannelFormatKindUnsigned &&
	       AG_TEX_FLOAT == cudaChannelFormatKindFloat, "channel kinds");

struct ag_cpu_tex {
	struct ag_texobj obj;           /* first: its address is the handle */
	struct ag_cpu_tex *next;
};

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
	o->layers = d->layers;
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
	const char *why;
	uint64_t span;

	if (ag_tex_desc_check(d, &span, &why)) {
		ag_cpu_set_msg(b, "texture or surface descriptor: bad %s", why);
		return cudaErrorInvalidValue;
	}
	pthread_mutex_lock(&b->lock);
	if (!ag_mem_contains(&b->mem, d->base, span)) {
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

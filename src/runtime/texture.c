/*
 * texture.c - texture and surface objects: cudaCreateTextureObject,
 * cudaCreateSurfaceObject, their Destroy and Get*Desc calls.
 *
 * The runtime checks what CUDA checks (descriptors, formats, the memory a
 * resource names), turns the resource into a struct ag_tex_desc and lets
 * the backend make the object: the handle the backend returns is what the
 * program gets and passes to kernels.  Each live object is remembered
 * with its descriptors (for the Get*Desc calls) and its device (for
 * Destroy and cudaDeviceReset).  What anygpu does not implement (mipmaps,
 * cubemap arrays, sRGB, anisotropy, resource views, exotic
 * channel formats) is cudaErrorNotSupported with a message naming it.
 */
#include "rt.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

struct rt_texobj {
	uint64_t handle;
	int dev;
	int surface;
	struct cudaResourceDesc res;
	struct cudaTextureDesc tex;     /* textures only */
	struct rt_texobj *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_texobj *live;

/* Each unimplemented feature says so once per process. */
enum missing {
	MISSING_MIPMAP, MISSING_CUBEMAP, MISSING_SRGB, MISSING_ANISOTROPY,
	MISSING_VIEW, MISSING_FORMAT, MISSING_BACKEND, MISSING_COUNT,
};

static cudaError_t not_supported(enum missing m, const char *what)
{
	static int said[MISSING_COUNT];

	rt_warn_once(&said[m], "texture and surface objects: %s not supported yet", what);
	return rt_error(cudaErrorNotSupported);
}

/* Channels, bits and kind of a format a texture can read; 0 on success,
 * else the error for it. */
static cudaError_t format_of(const struct cudaChannelFormatDesc *f, struct ag_tex_desc *d)
{
	int bits[4] = { f->x, f->y, f->z, f->w };
	uint32_t n = 0;

	if (f->f != cudaChannelFormatKindSigned && f->f != cudaChannelFormatKindUnsigned &&
	    f->f != cudaChannelFormatKindFloat)
		return not_supported(MISSING_FORMAT, "channel formats other than signed, "
				     "unsigned and float are");
	while (n < 4 && bits[n])
		n++;
	for (uint32_t i = n; i < 4; i++)
		if (bits[i])
			return rt_error(cudaErrorInvalidChannelDescriptor);
	for (uint32_t i = 1; i < n; i++)
		if (bits[i] != bits[0])
			return rt_error(cudaErrorInvalidChannelDescriptor);
	if ((n != 1 && n != 2 && n != 4) ||
	    (bits[0] != 8 && bits[0] != 16 && bits[0] != 32) ||
	    (f->f == cudaChannelFormatKindFloat && bits[0] == 8))
		return rt_error(cudaErrorInvalidChannelDescriptor);
	d->channels = n;
	d->bits = (uint32_t)bits[0];
	d->format = (uint32_t)f->f;
	return cudaSuccess;
}

/* Device memory of the current device holding n bytes at p. */
static int device_memory(const void *p, uint64_t n, int dev)
{
	struct rt_range r;

	return p && rt_mem_find(p, &r) && rt_mem_is_device(r.kind) && r.dev == dev &&
	       (uintptr_t)p - r.base <= r.size && n <= r.size - ((uintptr_t)p - r.base);
}

static cudaError_t from_array(const struct cudaResourceDesc *r, int surface, int dev,
			      struct ag_tex_desc *d)
{
	struct rt_array_info a;
	cudaError_t e;

	if (rt_array_info(r->res.array.array, &a) || a.dev != dev)
		return rt_error(cudaErrorInvalidValue);
	if (a.flags & cudaArrayCubemap)
		return not_supported(MISSING_CUBEMAP, "cubemap arrays are");
	if (surface && !(a.flags & cudaArraySurfaceLoadStore))
		return rt_error(cudaErrorInvalidValue);
	e = format_of(&a.desc, d);
	if (e != cudaSuccess)
		return e;
	d->res = AG_RES_ARRAY;
	d->base = a.base;
	d->width = a.extent.width;
	d->height = a.extent.height;
	d->depth = a.extent.depth;
	d->pitch = a.pitch;
	/* layered: 1D or 2D layers, depth of them */
	d->layers = a.flags & cudaArrayLayered ? (uint32_t)a.extent.depth : 0;
	d->dims = a.extent.depth && !d->layers ? 3 : a.extent.height ? 2 : 1;
	return cudaSuccess;
}

static cudaError_t from_linear(const struct cudaResourceDesc *r, int dev, struct ag_tex_desc *d)
{
	cudaError_t e = format_of(&r->res.linear.desc, d);
	uint64_t elem;

	if (e != cudaSuccess)
		return e;
	elem = d->channels * d->bits / 8;
	if (r->res.linear.sizeInBytes < elem ||
	    !device_memory(r->res.linear.devPtr, r->res.linear.sizeInBytes, dev))
		return rt_error(cudaErrorInvalidValue);
	d->res = AG_RES_LINEAR;
	d->base = (ag_dptr)(uintptr_t)r->res.linear.devPtr;
	d->width = r->res.linear.sizeInBytes / elem;
	d->pitch = d->width * elem;
	d->dims = 1;
	return cudaSuccess;
}

static cudaError_t from_pitch2d(const struct cudaResourceDesc *r, int dev, struct ag_tex_desc *d)
{
	const __typeof__(r->res.pitch2D) *p = &r->res.pitch2D;
	cudaError_t e = format_of(&p->desc, d);
	uint64_t row, n;

	if (e != cudaSuccess)
		return e;
	if (!p->width || !p->height || __builtin_mul_overflow((uint64_t)p->width,
							      d->channels * d->bits / 8, &row) ||
	    p->pitchInBytes < row || p->pitchInBytes % 32 /* texturePitchAlignment */ ||
	    __builtin_mul_overflow((uint64_t)p->pitchInBytes, p->height - 1, &n) ||
	    !device_memory(p->devPtr, n + row, dev))
		return rt_error(cudaErrorInvalidValue);
	d->res = AG_RES_PITCH2D;
	d->base = (ag_dptr)(uintptr_t)p->devPtr;
	d->width = p->width;
	d->height = p->height;
	d->pitch = p->pitchInBytes;
	d->dims = 2;
	return cudaSuccess;
}

/* The resource part of the backend's descriptor. */
static cudaError_t resource_of(const struct cudaResourceDesc *r, int surface,
			       const struct rt_device *dv, struct ag_tex_desc *d)
{
	if (r->flags)
		return rt_error(cudaErrorInvalidValue);
	switch (r->resType) {
	case cudaResourceTypeArray:
		return from_array(r, surface, dv->ordinal, d);
	case cudaResourceTypeMipmappedArray:
		return surface ? rt_error(cudaErrorInvalidValue) :
			not_supported(MISSING_MIPMAP, "mipmapped arrays are");
	case cudaResourceTypeLinear:
		return surface ? rt_error(cudaErrorInvalidValue) : from_linear(r, dv->ordinal, d);
	case cudaResourceTypePitch2D:
		return surface ? rt_error(cudaErrorInvalidValue) :
			from_pitch2d(r, dv->ordinal, d);
	default:
		return rt_error(cudaErrorInvalidValue);
	}
}

/* The sampler part: enum ranges, the combinations CUDA refuses, and
 * what is not implemented. */
static cudaError_t sampler_of(const struct cudaTextureDesc *t, struct ag_tex_desc *d)
{
	int int_raw;

	for (int i = 0; i < 3; i++)
		if ((unsigned)t->addressMode[i] > cudaAddressModeBorder)
			return rt_error(cudaErrorInvalidValue);
	if ((unsigned)t->filterMode > cudaFilterModeLinear ||
	    (unsigned)t->readMode > cudaReadModeNormalizedFloat)
		return rt_error(cudaErrorInvalidValue);
	if (t->sRGB)
		return not_supported(MISSING_SRGB, "sRGB conversions are");
	if (t->maxAnisotropy > 1)
		return not_supported(MISSING_ANISOTROPY,
				     "anisotropic filtering (maxAnisotropy > 1) is");
	/* float formats read the same in both modes */
	d->read_mode = d->format == cudaChannelFormatKindFloat ? cudaReadModeElementType :
		(uint32_t)t->readMode;
	int_raw = d->format != cudaChannelFormatKindFloat && d->read_mode == cudaReadModeElementType;
	if ((int_raw && t->filterMode == cudaFilterModeLinear) ||
	    (d->read_mode == cudaReadModeNormalizedFloat && d->bits == 32))
		return rt_error(cudaErrorInvalidValue);
	for (int i = 0; i < 3; i++)
		d->address[i] = (uint32_t)t->addressMode[i];
	d->filter = (uint32_t)t->filterMode;
	d->normalized = t->normalizedCoords != 0;
	memcpy(d->border, t->borderColor, sizeof(d->border));
	return cudaSuccess;
}

static cudaError_t create(uint64_t *out, const struct cudaResourceDesc *r,
			  const struct cudaTextureDesc *t, int surface)
{
	struct ag_tex_desc d = { .kind = surface ? AG_TEX_SURFACE : AG_TEX_TEXTURE };
	struct rt_device *dv;
	struct rt_texobj *o;
	uint64_t h;
	cudaError_t e;

	e = rt_current(&dv);
	if (e != cudaSuccess)
		return rt_result(dv, e);
	e = resource_of(r, surface, dv, &d);
	if (e == cudaSuccess && t)
		e = sampler_of(t, &d);
	if (e != cudaSuccess)
		return e;
	if (!rt_ops()->tex_create)
		return not_supported(MISSING_BACKEND, "creating them on this backend is");
	e = rt_ops()->tex_create(dv->b, &d, &h);
	if (e != cudaSuccess)
		return rt_result(dv, e);
	o = xcalloc(1, sizeof(*o));
	o->handle = h;
	o->dev = dv->ordinal;
	o->surface = surface;
	o->res = *r;
	if (t)
		o->tex = *t;
	pthread_mutex_lock(&lock);
	o->next = live;
	live = o;
	pthread_mutex_unlock(&lock);
	*out = h;
	return cudaSuccess;
}

/* The live object h of that kind, unlinked when take is set. */
static struct rt_texobj *find(uint64_t h, int surface, int take, struct rt_texobj *copy)
{
	struct rt_texobj **pp, *o;

	pthread_mutex_lock(&lock);
	for (pp = &live; *pp; pp = &(*pp)->next)
		if ((*pp)->handle == h && (*pp)->surface == surface)
			break;
	o = *pp;
	if (o && take)
		*pp = o->next;
	if (o && copy)
		*copy = *o;
	pthread_mutex_unlock(&lock);
	return o;
}

static cudaError_t destroy(uint64_t h, int surface)
{
	struct rt_texobj *o = find(h, surface, 1, NULL);
	struct rt_device *dv;
	cudaError_t e;

	if (!o)
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(o->dev, &dv);
	if (e == cudaSuccess)
		e = rt_ops()->tex_destroy(dv->b, h);
	free(o);
	return rt_result(dv, e);
}

void rt_textures_forget_device(int dev)
{
	struct rt_texobj **pp = &live, *o;

	pthread_mutex_lock(&lock);
	while ((o = *pp)) {
		if (o->dev == dev) {
			*pp = o->next;
			free(o);
		} else {
			pp = &o->next;
		}
	}
	pthread_mutex_unlock(&lock);
}

RT_API cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
					   const struct cudaResourceDesc *pResDesc,
					   const struct cudaTextureDesc *pTexDesc,
					   const struct cudaResourceViewDesc *pResViewDesc)
{
	if (!pTexObject || !pResDesc || !pTexDesc)
		return rt_error(cudaErrorInvalidValue);
	if (pResViewDesc)
		return not_supported(MISSING_VIEW, "resource views are");
	return create((uint64_t *)pTexObject, pResDesc, pTexDesc, 0);
}

RT_API cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
					   const struct cudaResourceDesc *pResDesc)
{
	if (!pSurfObject || !pResDesc)
		return rt_error(cudaErrorInvalidValue);
	return create((uint64_t *)pSurfObject, pResDesc, NULL, 1);
}

RT_API cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
	return destroy(texObject, 0);
}

RT_API cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
	return destroy(surfObject, 1);
}

/* The resource a texture or surface object was created on. */
static cudaError_t resource_desc(struct cudaResourceDesc *out, uint64_t h, int surface)
{
	struct rt_texobj o;

	if (!out || !find(h, surface, 0, &o))
		return rt_error(cudaErrorInvalidValue);
	*out = o.res;
	return cudaSuccess;
}

RT_API cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
						    cudaTextureObject_t texObject)
{
	return resource_desc(pResDesc, texObject, 0);
}

RT_API cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
						   cudaTextureObject_t texObject)
{
	struct rt_texobj o;

	if (!pTexDesc || !find(texObject, 0, 0, &o))
		return rt_error(cudaErrorInvalidValue);
	*pTexDesc = o.tex;
	return cudaSuccess;
}

RT_API cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
						    cudaSurfaceObject_t surfObject)
{
	return resource_desc(pResDesc, surfObject, 1);
}

/*
 * array.c - CUDA arrays as storage: cudaMallocArray, cudaMalloc3DArray,
 * cudaFreeArray, cudaArrayGetInfo, cudaGetChannelDesc,
 * cudaCreateChannelDesc, and the copies into, out of and between arrays.
 *
 * An array is one device allocation holding its elements row after row
 * and slice after slice with no padding (anygpu has no texture units that
 * would want a tiled layout), so every array copy is an ordinary pitched
 * copy of that storage: the 2D and 1D calls build a cudaMemcpy3DParms
 * without arrays and cudaMemcpy3D (memory.c) turns arrays into their
 * storage with rt_array_flatten.  The storage is in the allocation table as
 * RT_MEM_ARRAY, device memory that cudaFree refuses.
 */
#include "rt.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

struct rt_array {
	struct rt_handle h;            /* first: see handles.c */
	struct cudaChannelFormatDesc desc;
	struct cudaExtent extent;      /* in elements, as allocated (0: dimension absent) */
	unsigned flags;
	size_t elem;                   /* bytes per element */
	size_t pitch;                  /* bytes per row */
	ag_dptr base;
};

static struct rt_handles live = RT_HANDLES_INIT;

#define ARRAY_FLAGS (cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap | \
		     cudaArrayTextureGather)

void rt_arrays_forget_device(int dev)
{
	rt_handles_forget_device(&live, dev);
}

static int channel_bits_ok(int bits)
{
	return bits == 0 || bits == 8 || bits == 16 || bits == 32;
}

/* Bytes per element of a plain (signed, unsigned or float) format whose
 * channels are filled from x on; 0 for anything else. */
static size_t element_size(const struct cudaChannelFormatDesc *d)
{
	int bits[4] = { d->x, d->y, d->z, d->w };
	int total = 0;

	for (int i = 0; i < 4; i++) {
		if (!channel_bits_ok(bits[i]) || (i && bits[i] && !bits[i - 1]))
			return 0;
		if (bits[i] && d->f == cudaChannelFormatKindFloat && bits[i] == 8)
			return 0;
		total += bits[i];
	}
	if (d->f != cudaChannelFormatKindSigned && d->f != cudaChannelFormatKindUnsigned &&
	    d->f != cudaChannelFormatKindFloat)
		return 0;
	return (size_t)total / 8;
}

static size_t at_least_1(size_t n)
{
	return n ? n : 1;
}

/* The shapes cudaMalloc3DArray documents: width always; depth only with
 * a height, except for layered 1D arrays; cubemaps square with 6 faces. */
static int shape_ok(struct cudaExtent x, unsigned flags)
{
	if (!x.width || (x.depth && !x.height && !(flags & cudaArrayLayered)))
		return 0;
	if (flags & cudaArrayCubemap)
		return x.width == x.height &&
		       ((flags & cudaArrayLayered) ? x.depth % 6 == 0 : x.depth == 6);
	if (flags & cudaArrayLayered)
		return x.depth > 0;
	return 1;
}

static cudaError_t array_alloc(cudaArray_t *out, const struct cudaChannelFormatDesc *desc,
			       struct cudaExtent extent, unsigned flags)
{
	struct rt_device *d;
	struct rt_array *a;
	struct rt_range r = { .kind = RT_MEM_ARRAY };
	size_t elem = desc ? element_size(desc) : 0;
	uint64_t size;
	ag_dptr p;
	cudaError_t e;

	/* cudaDevAttrSparseCudaArraySupported and
	 * cudaDevAttrDeferredMappingCudaArraySupported read 0. */
	if (flags & (cudaArraySparse | cudaArrayDeferredMapping))
		return rt_error(cudaErrorNotSupported);
	if (!out || !elem || (flags & ~(unsigned)ARRAY_FLAGS) || !shape_ok(extent, flags))
		return rt_error(cudaErrorInvalidValue);
	e = rt_current(&d);
	if (e != cudaSuccess)
		return rt_result(d, e);
	if (__builtin_mul_overflow((uint64_t)extent.width, elem, &size) ||
	    __builtin_mul_overflow(size, at_least_1(extent.height), &size) ||
	    __builtin_mul_overflow(size, at_least_1(extent.depth), &size))
		return rt_error(cudaErrorMemoryAllocation);
	e = rt_ops()->mem_alloc(d->b, size, AG_MEM_DEVICE, &p);
	if (e != cudaSuccess)
		return rt_result(d, e);
	a = xcalloc(1, sizeof(*a));
	a->h.dev = d->ordinal;
	a->h.generation = d->generation;
	a->desc = *desc;
	a->extent = extent;
	a->flags = flags;
	a->elem = elem;
	a->pitch = extent.width * elem;
	a->base = p;
	r.base = (uintptr_t)p;
	r.size = size;
	r.dev = d->ordinal;
	rt_mem_add(&r);
	rt_handle_add(&live, &a->h);
	*out = (cudaArray_t)a;
	return cudaSuccess;
}

RT_API cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
				   size_t width, size_t height, unsigned int flags)
{
	struct cudaExtent x = { width, height, 0 };

	if (flags & (cudaArrayLayered | cudaArrayCubemap))
		return rt_error(cudaErrorInvalidValue);
	return array_alloc(array, desc, x, flags);
}

RT_API cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
				     struct cudaExtent extent, unsigned int flags)
{
	return array_alloc(array, desc, extent, flags);
}

static struct rt_array *array_find(cudaArray_const_t h)
{
	return h ? rt_handle_find(&live, h) : NULL;
}

int rt_array_info(cudaArray_const_t h, struct rt_array_info *out)
{
	struct rt_array *a = array_find(h);

	if (!a)
		return -1;
	out->desc = a->desc;
	out->extent = a->extent;
	out->flags = a->flags;
	out->pitch = a->pitch;
	out->base = a->base;
	out->dev = a->h.dev;
	return 0;
}

RT_API cudaError_t cudaFreeArray(cudaArray_t array)
{
	struct rt_array *a = array_find(array);
	struct rt_device *d;
	struct rt_range r;
	cudaError_t e;

	if (!array)
		return cudaSuccess;
	if (!a)
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(a->h.dev, &d);
	if (e == cudaSuccess)   /* work still using it finishes first */
		e = rt_ops()->synchronize(d->b);
	if (e != cudaSuccess)
		return rt_result(d, e);
	rt_handle_remove(&live, &a->h);
	rt_mem_remove((void *)(uintptr_t)a->base, &r);
	e = rt_ops()->mem_free(d->b, a->base);
	free(a);
	return rt_result(d, e);
}

RT_API cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
				    unsigned int *flags, cudaArray_t array)
{
	struct rt_array *a = array_find(array);

	if (!a)
		return rt_error(cudaErrorInvalidValue);
	if (desc)
		*desc = a->desc;
	if (extent)
		*extent = a->extent;
	if (flags)
		*flags = a->flags;
	return cudaSuccess;
}

RT_API cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
	struct rt_array *a = array_find(array);

	if (!a || !desc)
		return rt_error(cudaErrorInvalidValue);
	*desc = a->desc;
	return cudaSuccess;
}

RT_API struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
							   enum cudaChannelFormatKind f)
{
	struct cudaChannelFormatDesc d = { x, y, z, w, f };

	return d;
}

static struct cudaPitchedPtr storage(const struct rt_array *a)
{
	struct cudaPitchedPtr p = { (void *)(uintptr_t)a->base, a->pitch, a->pitch,
				    at_least_1(a->extent.height) };

	return p;
}

static int span_fits(size_t pos, size_t len, size_t total)
{
	return len <= total && pos <= total - len;
}

/* Whether a box at pos (x in bytes) of size (width in bytes) lies in a. */
static int box_fits(const struct rt_array *a, struct cudaPos pos, struct cudaExtent size)
{
	return span_fits(pos.x, size.width, a->pitch) &&
	       span_fits(pos.y, size.height, at_least_1(a->extent.height)) &&
	       span_fits(pos.z, size.depth, at_least_1(a->extent.depth));
}

/* One side of a 3D copy: an array becomes its storage, its position and
 * (through *elem) the extent turn from elements into bytes. */
static cudaError_t flatten_side(cudaArray_const_t h, struct cudaPitchedPtr *ptr,
				struct cudaPos *pos, size_t *elem)
{
	struct rt_array *a;

	if (!h)
		return cudaSuccess;
	a = array_find(h);
	if (!a || ptr->ptr || (*elem && *elem != a->elem))
		return cudaErrorInvalidValue;
	*elem = a->elem;
	*ptr = storage(a);
	pos->x *= a->elem;
	return cudaSuccess;
}

cudaError_t rt_array_flatten(const struct cudaMemcpy3DParms *p, struct cudaMemcpy3DParms *out)
{
	size_t elem = 0;
	cudaError_t e;

	*out = *p;
	out->srcArray = NULL;
	out->dstArray = NULL;
	e = flatten_side(p->srcArray, &out->srcPtr, &out->srcPos, &elem);
	if (e == cudaSuccess)
		e = flatten_side(p->dstArray, &out->dstPtr, &out->dstPos, &elem);
	if (e != cudaSuccess)
		return e;
	if (elem)
		out->extent.width *= elem;
	if ((p->srcArray && !box_fits(array_find(p->srcArray), out->srcPos, out->extent)) ||
	    (p->dstArray && !box_fits(array_find(p->dstArray), out->dstPos, out->extent)))
		return cudaErrorInvalidValue;
	return cudaSuccess;
}

/* A 2D copy with an array on one side or both, in bytes. */
struct side2d {
	cudaArray_const_t array;
	const void *ptr;
	size_t pitch;
	size_t x, y;
};

static cudaError_t copy_2d(struct side2d dst, struct side2d src, size_t width, size_t height,
			   enum cudaMemcpyKind kind, cudaStream_t stream, int async,
			   int per_thread_default)
{
	struct cudaMemcpy3DParms p = { 0 };
	const struct side2d *sides[2] = { &dst, &src };
	struct cudaPitchedPtr *ptrs[2] = { &p.dstPtr, &p.srcPtr };
	struct cudaPos *pos[2] = { &p.dstPos, &p.srcPos };

	p.extent.width = width;
	p.extent.height = height;
	p.extent.depth = 1;
	p.kind = kind;
	for (int i = 0; i < 2; i++) {
		const struct side2d *s = sides[i];
		struct rt_array *a;

		if (!s->array) {
			*ptrs[i] = (struct cudaPitchedPtr){ (void *)s->ptr, s->pitch, width, height };
			continue;
		}
		a = array_find(s->array);
		if (!a)
			return rt_error(cudaErrorInvalidValue);
		*ptrs[i] = storage(a);
		pos[i]->x = s->x;
		pos[i]->y = s->y;
		if (!box_fits(a, *pos[i], p.extent))
			return rt_error(cudaErrorInvalidValue);
	}
	return rt_copy_3d(&p, stream, async, per_thread_default);
}

/* The deprecated 1D forms: count bytes from row y, byte x on, running over
 * rows as the array's rows follow each other without padding. */
static cudaError_t copy_linear(struct side2d dst, struct side2d src, size_t count,
			       enum cudaMemcpyKind kind, cudaStream_t stream, int async,
			       int per_thread_default)
{
	struct side2d *sides[2] = { &dst, &src };

	for (int i = 0; i < 2; i++) {
		struct side2d *s = sides[i];
		struct rt_array *a;
		size_t off;

		if (!s->array)
			continue;
		a = array_find(s->array);
		if (!a)
			return rt_error(cudaErrorInvalidValue);
		if (__builtin_mul_overflow(s->y, a->pitch, &off) ||
		    __builtin_add_overflow(off, s->x, &off) ||
		    !span_fits(off, count, a->pitch * at_least_1(a->extent.height) *
					   at_least_1(a->extent.depth)))
			return rt_error(cudaErrorInvalidValue);
		*s = (struct side2d){ .ptr = (const char *)(uintptr_t)a->base + off, .pitch = count };
	}
	return copy_2d(dst, src, count, 1, kind, stream, async, per_thread_default);
}

static struct side2d in_array(cudaArray_const_t a, size_t x, size_t y)
{
	return (struct side2d){ .array = a, .x = x, .y = y };
}

static struct side2d in_memory(const void *p, size_t pitch)
{
	return (struct side2d){ .ptr = p, .pitch = pitch };
}

RT_API cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
				       const void *src, size_t spitch, size_t width, size_t height,
				       enum cudaMemcpyKind kind)
{
	return copy_2d(in_array(dst, wOffset, hOffset), in_memory(src, spitch), width, height,
		       kind, NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset,
					    const void *src, size_t spitch, size_t width,
					    size_t height, enum cudaMemcpyKind kind)
{
	return copy_2d(in_array(dst, wOffset, hOffset), in_memory(src, spitch), width, height,
		       kind, NULL, 0, 1);
}

RT_API cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
					    const void *src, size_t spitch, size_t width,
					    size_t height, enum cudaMemcpyKind kind,
					    cudaStream_t stream)
{
	return copy_2d(in_array(dst, wOffset, hOffset), in_memory(src, spitch), width, height,
		       kind, stream, 1, 0);
}

RT_API cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset,
						 size_t hOffset, const void *src, size_t spitch,
						 size_t width, size_t height,
						 enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return copy_2d(in_array(dst, wOffset, hOffset), in_memory(src, spitch), width, height,
		       kind, stream, 1, 1);
}

RT_API cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
					 size_t wOffset, size_t hOffset, size_t width,
					 size_t height, enum cudaMemcpyKind kind)
{
	return copy_2d(in_memory(dst, dpitch), in_array(src, wOffset, hOffset), width, height,
		       kind, NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpy2DFromArray_ptds(void *dst, size_t dpitch, cudaArray_const_t src,
					      size_t wOffset, size_t hOffset, size_t width,
					      size_t height, enum cudaMemcpyKind kind)
{
	return copy_2d(in_memory(dst, dpitch), in_array(src, wOffset, hOffset), width, height,
		       kind, NULL, 0, 1);
}

RT_API cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
					      size_t wOffset, size_t hOffset, size_t width,
					      size_t height, enum cudaMemcpyKind kind,
					      cudaStream_t stream)
{
	return copy_2d(in_memory(dst, dpitch), in_array(src, wOffset, hOffset), width, height,
		       kind, stream, 1, 0);
}

RT_API cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void *dst, size_t dpitch,
						   cudaArray_const_t src, size_t wOffset,
						   size_t hOffset, size_t width, size_t height,
						   enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return copy_2d(in_memory(dst, dpitch), in_array(src, wOffset, hOffset), width, height,
		       kind, stream, 1, 1);
}

RT_API cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst,
					    size_t hOffsetDst, cudaArray_const_t src,
					    size_t wOffsetSrc, size_t hOffsetSrc, size_t width,
					    size_t height, enum cudaMemcpyKind kind)
{
	return copy_2d(in_array(dst, wOffsetDst, hOffsetDst), in_array(src, wOffsetSrc, hOffsetSrc),
		       width, height, kind, NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpy2DArrayToArray_ptds(cudaArray_t dst, size_t wOffsetDst,
						 size_t hOffsetDst, cudaArray_const_t src,
						 size_t wOffsetSrc, size_t hOffsetSrc, size_t width,
						 size_t height, enum cudaMemcpyKind kind)
{
	return copy_2d(in_array(dst, wOffsetDst, hOffsetDst), in_array(src, wOffsetSrc, hOffsetSrc),
		       width, height, kind, NULL, 0, 1);
}

RT_API cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
				     const void *src, size_t count, enum cudaMemcpyKind kind)
{
	return copy_linear(in_array(dst, wOffset, hOffset), in_memory(src, count), count, kind,
			   NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpyToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset,
					  const void *src, size_t count, enum cudaMemcpyKind kind)
{
	return copy_linear(in_array(dst, wOffset, hOffset), in_memory(src, count), count, kind,
			   NULL, 0, 1);
}

RT_API cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
					  const void *src, size_t count, enum cudaMemcpyKind kind,
					  cudaStream_t stream)
{
	return copy_linear(in_array(dst, wOffset, hOffset), in_memory(src, count), count, kind,
			   stream, 1, 0);
}

RT_API cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
					       const void *src, size_t count,
					       enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return copy_linear(in_array(dst, wOffset, hOffset), in_memory(src, count), count, kind,
			   stream, 1, 1);
}

RT_API cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
				       size_t hOffset, size_t count, enum cudaMemcpyKind kind)
{
	return copy_linear(in_memory(dst, count), in_array(src, wOffset, hOffset), count, kind,
			   NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpyFromArray_ptds(void *dst, cudaArray_const_t src, size_t wOffset,
					    size_t hOffset, size_t count, enum cudaMemcpyKind kind)
{
	return copy_linear(in_memory(dst, count), in_array(src, wOffset, hOffset), count, kind,
			   NULL, 0, 1);
}

RT_API cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
					    size_t hOffset, size_t count, enum cudaMemcpyKind kind,
					    cudaStream_t stream)
{
	return copy_linear(in_memory(dst, count), in_array(src, wOffset, hOffset), count, kind,
			   stream, 1, 0);
}

RT_API cudaError_t cudaMemcpyFromArrayAsync_ptsz(void *dst, cudaArray_const_t src,
						 size_t wOffset, size_t hOffset, size_t count,
						 enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return copy_linear(in_memory(dst, count), in_array(src, wOffset, hOffset), count, kind,
			   stream, 1, 1);
}

RT_API cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
					  cudaArray_const_t src, size_t wOffsetSrc,
					  size_t hOffsetSrc, size_t count, enum cudaMemcpyKind kind)
{
	return copy_linear(in_array(dst, wOffsetDst, hOffsetDst),
			   in_array(src, wOffsetSrc, hOffsetSrc), count, kind, NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpyArrayToArray_ptds(cudaArray_t dst, size_t wOffsetDst,
					       size_t hOffsetDst, cudaArray_const_t src,
					       size_t wOffsetSrc, size_t hOffsetSrc, size_t count,
					       enum cudaMemcpyKind kind)
{
	return copy_linear(in_array(dst, wOffsetDst, hOffsetDst),
			   in_array(src, wOffsetSrc, hOffsetSrc), count, kind, NULL, 0, 1);
}

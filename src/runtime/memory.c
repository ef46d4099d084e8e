/*
 * memory.c - copies and fills: cudaMemcpy*, cudaMemset* and their
 * asynchronous, 2D, peer and per-thread-stream forms.
 *
 * Every copy goes through copy_rows(): each side of a copy is looked up in
 * the allocation table, which says whether it is device memory (and whose),
 * pinned host memory or pageable host memory; cudaMemcpyDefault trusts the
 * table, an explicit kind demands that the table agree where it names
 * device memory.  A device pointer the table does not know, or a range that
 * runs past its allocation, is cudaErrorInvalidValue, never a stray access.
 * On a capturing stream an asynchronous copy or fill becomes a graph node;
 * a synchronous one is refused while a capture forbids it.
 */
#include "graph.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

enum want { WANT_HOST, WANT_DEVICE, WANT_ANY };

/* One side of a copy. */
struct side {
	int device;                    /* 1: device memory of d */
	struct rt_device *d;
	ag_dptr p;
	void *host;
	enum ag_host_kind hk;
};

static cudaError_t device_side(const struct rt_range *r, const void *ptr, size_t n,
			       struct side *out)
{
	cudaError_t e;

	if ((uintptr_t)ptr - r->base + n > r->size)
		return cudaErrorInvalidValue;
	e = rt_device_get(r->dev, &out->d);
	if (e != cudaSuccess)
		return e;
	/* Pinned host memory is device memory only where the device can
	 * address the host (the cpu backend). */
	if (!rt_mem_is_device(r->kind) && !out->d->info.integrated)
		return cudaErrorInvalidValue;
	out->device = 1;
	out->p = (ag_dptr)(uintptr_t)ptr;
	return cudaSuccess;
}

static cudaError_t resolve(const void *ptr, size_t n, enum want want, struct side *out)
{
	struct rt_range r;
	int known = rt_mem_find(ptr, &r);

	memset(out, 0, sizeof(*out));
	if (!ptr)
		return cudaErrorInvalidValue;
	if (want == WANT_DEVICE || (want == WANT_ANY && known && rt_mem_is_device(r.kind))) {
		if (!known)
			return cudaErrorInvalidValue;
		return device_side(&r, ptr, n, out);
	}
	out->host = (void *)ptr;
	out->hk = known && !rt_mem_is_device(r.kind) ? AG_HOST_PINNED : AG_HOST_PAGEABLE;
	return cudaSuccess;
}

static void kind_wants(enum cudaMemcpyKind kind, enum want *dst, enum want *src)
{
	*dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ? WANT_DEVICE
	       : kind == cudaMemcpyDefault ? WANT_ANY : WANT_HOST;
	*src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ? WANT_DEVICE
	       : kind == cudaMemcpyDefault ? WANT_ANY : WANT_HOST;
}

/* Copies between two devices go through the host: there is no peer path. */
static cudaError_t copy_peer(struct side *dst, struct side *src, size_t n)
{
	const struct ag_backend_ops *ops = rt_ops();
	void *buf = xmalloc(n);
	cudaError_t e;

	e = ops->copy_dtoh(src->d->b, NULL, buf, src->p, n, AG_HOST_PAGEABLE, 0);
	if (e == cudaSuccess)
		e = ops->copy_htod(dst->d->b, NULL, dst->p, buf, n, AG_HOST_PAGEABLE, 0);
	free(buf);
	return e;
}

/* One contiguous copy on stream s of device sd, or (when the memory is on
 * another device) synchronously on that device.  *used is the device whose
 * errors this reports. */
static cudaError_t copy_one(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
			    struct rt_device *sd, struct ag_stream *s, int async,
			    struct rt_device **used)
{
	const struct ag_backend_ops *ops = rt_ops();
	struct side ds, ss;
	enum want wd, ws;
	struct rt_device *d;
	cudaError_t e;

	*used = sd;
	kind_wants(kind, &wd, &ws);
	e = resolve(dst, n, wd, &ds);
	if (e == cudaSuccess)
		e = resolve(src, n, ws, &ss);
	if (e != cudaSuccess)
		return e;
	d = ds.device ? ds.d : ss.device ? ss.d : sd;
	if (d != sd || (ds.device && ss.device && ds.d != ss.d)) {
		/* Not the stream's device: order after the stream, then copy
		 * synchronously where the memory is. */
		e = ops->stream_sync(sd->b, s);
		s = NULL;
		async = 0;
		if (e != cudaSuccess)
			return e;
	}
	*used = d;
	if (ds.device && ss.device)
		return ds.d == ss.d ? ops->copy_dtod(d->b, s, ds.p, ss.p, n, async)
				    : copy_peer(&ds, &ss, n);
	if (ds.device)
		return ops->copy_htod(d->b, s, ds.p, ss.host, n, ss.hk, async);
	if (ss.device)
		return ops->copy_dtoh(d->b, s, ds.host, ss.p, n, ds.hk, async);
	/* Host to host: ordered after the stream's work, done here. */
	e = ops->stream_sync(d->b, s);
	if (e == cudaSuccess)
		memmove(dst, src, n);
	return e;
}

static int valid_kind(enum cudaMemcpyKind kind)
{
	return (unsigned)kind <= cudaMemcpyDefault;
}

/* Asks capture about an operation on stream s: p is the node an
 * asynchronous one would become; a synchronous one cannot be captured. */
static cudaError_t capture(struct rt_device *d, struct ag_stream *s, int async,
			   const struct rt_node_params *p, int *captured)
{
	cudaError_t e = async ? cudaSuccess : rt_capture_unsafe_check(0);

	*captured = 0;
	if (e == cudaSuccess)
		e = rt_capture_op(d, s, async ? p : NULL, captured);
	return e;
}

static struct cudaPitchedPtr pitched(const void *p, size_t pitch, size_t width, size_t height)
{
	struct cudaPitchedPtr pp = { (void *)p, pitch, width, height };

	return pp;
}

static cudaError_t capture_copy(void *dst, size_t dpitch, const void *src, size_t spitch,
				size_t width, size_t height, enum cudaMemcpyKind kind,
				struct rt_device *d, struct ag_stream *s, int async,
				int *captured)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeMemcpy };

	p.u.copy.srcPtr = pitched(src, spitch, width, height);
	p.u.copy.dstPtr = pitched(dst, dpitch, width, height);
	p.u.copy.extent.width = width;
	p.u.copy.extent.height = height;
	p.u.copy.extent.depth = 1;
	p.u.copy.kind = kind;
	return capture(d, s, async, &p, captured);
}

/* A 2D copy is height rows of width bytes; a contiguous one is one copy. */
static cudaError_t copy_rows(void *dst, size_t dpitch, const void *src, size_t spitch,
			     size_t width, size_t height, enum cudaMemcpyKind kind,
			     cudaStream_t stream, int async, int per_thread_default)
{
	struct rt_device *sd, *used = NULL;
	struct ag_stream *s;
	int captured = 0;
	cudaError_t e;

	if (!valid_kind(kind))
		return rt_error(cudaErrorInvalidMemcpyDirection);
	if (dpitch < width || spitch < width)
		return rt_error(cudaErrorInvalidPitchValue);
	e = rt_stream_get(stream, per_thread_default, &sd, &s);
	if (e == cudaSuccess && width && height)
		e = capture_copy(dst, dpitch, src, spitch, width, height, kind, sd, s, async,
				 &captured);
	if (e != cudaSuccess || captured || !width || !height)
		return rt_result(sd, e);
	if (height == 1 || (dpitch == width && spitch == width))
		return rt_result(used, copy_one(dst, src, width * height, kind, sd, s, async,
						&used));
	for (size_t y = 0; y < height && e == cudaSuccess; y++)
		e = copy_one((char *)dst + y * dpitch, (const char *)src + y * spitch, width,
			     kind, sd, s, 1, &used);
	if (e == cudaSuccess && !async)
		e = rt_ops()->stream_sync(used->b, used == sd ? s : NULL);
	return rt_result(used, e);
}

cudaError_t rt_copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
		    cudaStream_t st, int async, int per_thread)
{
	return copy_rows(dst, n, src, n, n, 1, kind, st, async, per_thread);
}

RT_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	return rt_copy(dst, src, count, kind, NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
				   enum cudaMemcpyKind kind)
{
	return rt_copy(dst, src, count, kind, NULL, 0, 1);
}

RT_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
				   enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return rt_copy(dst, src, count, kind, stream, 1, 0);
}

RT_API cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
					enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return rt_copy(dst, src, count, kind, stream, 1, 1);
}

RT_API cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
				size_t width, size_t height, enum cudaMemcpyKind kind)
{
	return copy_rows(dst, dpitch, src, spitch, width, height, kind, NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
				     size_t width, size_t height, enum cudaMemcpyKind kind)
{
	return copy_rows(dst, dpitch, src, spitch, width, height, kind, NULL, 0, 1);
}

RT_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
				     size_t width, size_t height, enum cudaMemcpyKind kind,
				     cudaStream_t stream)
{
	return copy_rows(dst, dpitch, src, spitch, width, height, kind, stream, 1, 0);
}

RT_API cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src,
					  size_t spitch, size_t width, size_t height,
					  enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return copy_rows(dst, dpitch, src, spitch, width, height, kind, stream, 1, 1);
}

/* The table knows which device each pointer lives on. */
RT_API cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
				  size_t count)
{
	return rt_copy(dst, src, count, cudaMemcpyDefault, NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
				       int srcDevice, size_t count, cudaStream_t stream)
{
	return rt_copy(dst, src, count, cudaMemcpyDefault, stream, 1, 0);
}

static cudaError_t fill_rows(void *ptr, size_t pitch, int value, size_t width, size_t height,
			     cudaStream_t stream, int async, int per_thread_default)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeMemset };
	struct rt_device *sd;
	struct ag_stream *s;
	struct side ds;
	int captured = 0;
	cudaError_t e;

	if (pitch < width)
		return rt_error(cudaErrorInvalidPitchValue);
	p.u.fill.dst = ptr;
	p.u.fill.pitch = pitch;
	p.u.fill.value = (unsigned char)value;
	p.u.fill.elementSize = 1;
	p.u.fill.width = width;
	p.u.fill.height = height;
	e = rt_stream_get(stream, per_thread_default, &sd, &s);
	if (e != cudaSuccess || !width || !height)
		return rt_result(sd, e);
	e = resolve(ptr, pitch * (height - 1) + width, WANT_DEVICE, &ds);
	if (e == cudaSuccess)
		e = capture(sd, s, async, &p, &captured);
	if (e == cudaSuccess && !captured && ds.d != sd) {
		e = rt_ops()->stream_sync(sd->b, s);
		s = NULL;
		async = 0;
	}
	if (e != cudaSuccess || captured)
		return rt_result(sd, e);
	if (height == 1 || pitch == width)
		return rt_result(ds.d, rt_ops()->memset(ds.d->b, s, ds.p, value,
							 width * height, async));
	for (size_t y = 0; y < height && e == cudaSuccess; y++)
		e = rt_ops()->memset(ds.d->b, s, ds.p + y * pitch, value, width, 1);
	if (e == cudaSuccess && !async)
		e = rt_ops()->stream_sync(ds.d->b, s);
	return rt_result(ds.d, e);
}

RT_API cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	return fill_rows(devPtr, count, value, count, 1, NULL, 0, 0);
}

RT_API cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count)
{
	return fill_rows(devPtr, count, value, count, 1, NULL, 0, 1);
}

RT_API cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	return fill_rows(devPtr, count, value, count, 1, stream, 1, 0);
}

RT_API cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count,
					cudaStream_t stream)
{
	return fill_rows(devPtr, count, value, count, 1, stream, 1, 1);
}

RT_API cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
				size_t height)
{
	return fill_rows(devPtr, pitch, value, width, height, NULL, 0, 0);
}

RT_API cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width,
				     size_t height)
{
	return fill_rows(devPtr, pitch, value, width, height, NULL, 0, 1);
}

RT_API cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
				     size_t height, cudaStream_t stream)
{
	return fill_rows(devPtr, pitch, value, width, height, stream, 1, 0);
}

RT_API cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
					  size_t height, cudaStream_t stream)
{
	return fill_rows(devPtr, pitch, value, width, height, stream, 1, 1);
}

/* 3D: depth slices of 2D copies between pitched pointers.  Every slice but
 * the last is queued; the last one waits when the call is synchronous,
 * which waits for the others on the same stream.  CUDA arrays do not
 * exist here. */
static cudaError_t copy_3d(const struct cudaMemcpy3DParms *p, cudaStream_t stream, int async,
			   int per_thread_default)
{
	struct cudaMemcpy3DParms flat;
	cudaError_t e = cudaSuccess;

	if (!p)
		return rt_error(cudaErrorInvalidValue);
	if (p->srcArray || p->dstArray) {
		e = rt_array_flatten(p, &flat);
		if (e != cudaSuccess)
			return rt_error(e);
		p = &flat;
	}
	for (size_t z = 0; z < p->extent.depth && e == cudaSuccess; z++) {
		const struct cudaPitchedPtr *s = &p->srcPtr, *d = &p->dstPtr;
		const char *src = (const char *)s->ptr + p->srcPos.x +
			(p->srcPos.y + (p->srcPos.z + z) * s->ysize) * s->pitch;
		char *dst = (char *)d->ptr + p->dstPos.x +
			(p->dstPos.y + (p->dstPos.z + z) * d->ysize) * d->pitch;

		e = copy_rows(dst, d->pitch, src, s->pitch, p->extent.width, p->extent.height,
			      p->kind, stream, async || z + 1 < p->extent.depth,
			      per_thread_default);
	}
	return e;
}

cudaError_t rt_copy_3d(const struct cudaMemcpy3DParms *p, cudaStream_t stream, int async,
		       int per_thread_default)
{
	return copy_3d(p, stream, async, per_thread_default);
}

RT_API cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
	return copy_3d(p, NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p)
{
	return copy_3d(p, NULL, 0, 1);
}

RT_API cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
	return copy_3d(p, stream, 1, 0);
}

RT_API cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p,
					  cudaStream_t stream)
{
	return copy_3d(p, stream, 1, 1);
}

static cudaError_t fill_3d(struct cudaPitchedPtr p, int value, struct cudaExtent extent,
			   cudaStream_t stream, int async, int per_thread_default)
{
	cudaError_t e = cudaSuccess;

	for (size_t z = 0; z < extent.depth && e == cudaSuccess; z++)
		e = fill_rows((char *)p.ptr + z * p.ysize * p.pitch, p.pitch, value, extent.width,
			      extent.height, stream, async || z + 1 < extent.depth,
			      per_thread_default);
	return e;
}

RT_API cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
				struct cudaExtent extent)
{
	return fill_3d(pitchedDevPtr, value, extent, NULL, 0, 0);
}

RT_API cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr pitchedDevPtr, int value,
				     struct cudaExtent extent)
{
	return fill_3d(pitchedDevPtr, value, extent, NULL, 0, 1);
}

RT_API cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
				     struct cudaExtent extent, cudaStream_t stream)
{
	return fill_3d(pitchedDevPtr, value, extent, stream, 1, 0);
}

RT_API cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pitchedDevPtr, int value,
					  struct cudaExtent extent, cudaStream_t stream)
{
	return fill_3d(pitchedDevPtr, value, extent, stream, 1, 1);
}

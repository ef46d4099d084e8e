/*
 * um.c - unified memory hints: cudaMemPrefetchAsync, cudaMemAdvise,
 * cudaStreamAttachMemAsync and what cudaMemRangeGetAttribute(s) reports
 * back.
 *
 * Managed memory is one memory for host and device here, so nothing ever
 * moves: a hint is checked as CUDA checks it (managed range, valid
 * location, flags) and remembered, for the whole allocation, in the
 * allocation table, so that the range attributes read back what was said.
 * The CUDA 13 and CUDA 12 entry points (whose signatures differ) are in
 * abi13.c and abi12.c; they call rt_mem_prefetch and rt_mem_advise.  The
 * batch calls (CUDA 13) check every range and location first, then record.
 */
#include "rt.h"

#include <string.h>

/* The managed allocation that holds [p, p + count). */
static cudaError_t managed_range(const void *p, size_t count, struct rt_range *r)
{
	if (!p || !count || !rt_mem_find(p, r) || r->kind != RT_MEM_MANAGED ||
	    count > r->size - ((uintptr_t)p - r->base))
		return cudaErrorInvalidValue;
	return cudaSuccess;
}

static cudaError_t check_location(struct cudaMemLocation loc)
{
	struct rt_device *d;

	switch (loc.type) {
	case cudaMemLocationTypeDevice:
		if (loc.id < 0 || loc.id >= rt_device_count())
			return cudaErrorInvalidDevice;
		return rt_device_get(loc.id, &d);
	case cudaMemLocationTypeHost:
	case cudaMemLocationTypeHostNumaCurrent:
		return cudaSuccess;
	case cudaMemLocationTypeHostNuma:
		return loc.id == 0 ? cudaSuccess : cudaErrorInvalidValue;
	default:
		return cudaErrorInvalidValue;
	}
}

/* Checks one prefetch; *r is its managed allocation. */
static cudaError_t check_prefetch(const void *p, size_t count, struct cudaMemLocation loc,
				  struct rt_range *r)
{
	cudaError_t e = managed_range(p, count, r);

	return e == cudaSuccess ? check_location(loc) : e;
}

static void record_prefetch(struct rt_range *r, struct cudaMemLocation loc)
{
	r->advice.prefetched = loc;
	rt_mem_set_advice(r->base, &r->advice);
}

cudaError_t rt_mem_prefetch(const void *p, size_t count, struct cudaMemLocation loc,
			    unsigned flags, cudaStream_t stream, int per_thread_default)
{
	struct rt_device *d;
	struct ag_stream *s;
	struct rt_range r;
	cudaError_t e = rt_stream_get(stream, per_thread_default, &d, &s);

	if (e != cudaSuccess)
		return rt_result(d, e);
	e = flags ? cudaErrorInvalidValue : check_prefetch(p, count, loc, &r);
	if (e != cudaSuccess)
		return rt_error(e);
	record_prefetch(&r, loc);
	return cudaSuccess;
}

/* What every batch call checks: a stream other than the legacy one, on a
 * device where host and device may use managed memory at once, flags 0,
 * and count managed ranges. */
static cudaError_t check_batch(void **dptrs, size_t *sizes, size_t count,
			       unsigned long long flags, cudaStream_t stream)
{
	struct rt_device *d;
	struct ag_stream *s;
	struct rt_range r;
	cudaError_t e;

	if (!stream || stream == cudaStreamLegacy || flags || !count || !dptrs || !sizes)
		return cudaErrorInvalidValue;
	e = rt_stream_get(stream, 0, &d, &s);
	if (e == cudaSuccess && !d->info.concurrent_managed)
		e = cudaErrorNotSupported;
	for (size_t i = 0; i < count && e == cudaSuccess; i++)
		e = managed_range(dptrs[i], sizes[i], &r);
	return e;
}

/* The location of operation i: locs[k] applies from idxs[k] on. */
static struct cudaMemLocation batch_location(size_t i, const struct cudaMemLocation *locs,
					     const size_t *idxs, size_t nlocs)
{
	size_t k = nlocs - 1;

	while (idxs[k] > i)
		k--;
	return locs[k];
}

/* idxs starts at 0 and rises, below count; every location is valid. */
static cudaError_t check_batch_locations(size_t count, const struct cudaMemLocation *locs,
					 const size_t *idxs, size_t nlocs)
{
	cudaError_t e = cudaSuccess;

	if (!locs || !idxs || !nlocs || nlocs > count || idxs[0] != 0)
		return cudaErrorInvalidValue;
	for (size_t k = 0; k < nlocs && e == cudaSuccess; k++) {
		if (idxs[k] >= count || (k && idxs[k] <= idxs[k - 1]))
			return cudaErrorInvalidValue;
		e = check_location(locs[k]);
	}
	return e;
}

static cudaError_t prefetch_batch(void **dptrs, size_t *sizes, size_t count,
				  struct cudaMemLocation *locs, size_t *idxs, size_t nlocs,
				  unsigned long long flags, cudaStream_t stream)
{
	struct rt_range r;
	cudaError_t e = check_batch(dptrs, sizes, count, flags, stream);

	if (e == cudaSuccess)
		e = check_batch_locations(count, locs, idxs, nlocs);
	if (e != cudaSuccess)
		return rt_error(e);
	for (size_t i = 0; i < count; i++) {
		managed_range(dptrs[i], sizes[i], &r);
		record_prefetch(&r, batch_location(i, locs, idxs, nlocs));
	}
	return cudaSuccess;
}

RT_API cudaError_t cudaMemPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
					     struct cudaMemLocation *prefetchLocs,
					     size_t *prefetchLocIdxs, size_t numPrefetchLocs,
					     unsigned long long flags, cudaStream_t stream)
{
	return prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs,
			      numPrefetchLocs, flags, stream);
}

/* Discarded contents may keep their old values: nothing to do once the
 * ranges are checked. */
RT_API cudaError_t cudaMemDiscardBatchAsync(void **dptrs, size_t *sizes, size_t count,
					    unsigned long long flags, cudaStream_t stream)
{
	return rt_error(check_batch(dptrs, sizes, count, flags, stream));
}

RT_API cudaError_t cudaMemDiscardAndPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
						       struct cudaMemLocation *prefetchLocs,
						       size_t *prefetchLocIdxs,
						       size_t numPrefetchLocs,
						       unsigned long long flags, cudaStream_t stream)
{
	return prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs,
			      numPrefetchLocs, flags, stream);
}

static void set_accessed_by(struct rt_advice *a, struct cudaMemLocation loc, int on)
{
	if (loc.type == cudaMemLocationTypeDevice) {
		if (on)
			a->accessed_by |= 1u << loc.id;
		else
			a->accessed_by &= ~(1u << loc.id);
	} else {
		a->accessed_by_host = on;
	}
}

cudaError_t rt_mem_advise(const void *p, size_t count, enum cudaMemoryAdvise advice,
			  struct cudaMemLocation loc)
{
	struct rt_range r;
	cudaError_t e;

	if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
		return rt_error(cudaErrorInvalidValue);
	e = managed_range(p, count, &r);
	/* The read-mostly and unset-preferred advice ignore the location. */
	if (e == cudaSuccess && advice != cudaMemAdviseSetReadMostly &&
	    advice != cudaMemAdviseUnsetReadMostly && advice != cudaMemAdviseUnsetPreferredLocation)
		e = check_location(loc);
	if (e != cudaSuccess)
		return rt_error(e);
	switch (advice) {
	case cudaMemAdviseSetReadMostly:
	case cudaMemAdviseUnsetReadMostly:
		r.advice.read_mostly = advice == cudaMemAdviseSetReadMostly;
		break;
	case cudaMemAdviseSetPreferredLocation:
		r.advice.preferred = loc;
		break;
	case cudaMemAdviseUnsetPreferredLocation:
		memset(&r.advice.preferred, 0, sizeof(r.advice.preferred));
		break;
	default:
		set_accessed_by(&r.advice, loc, advice == cudaMemAdviseSetAccessedBy);
		break;
	}
	rt_mem_set_advice(r.base, &r.advice);
	return cudaSuccess;
}

/* A location as the legacy int attributes give it: a device ordinal,
 * cudaCpuDeviceId for the host, cudaInvalidDeviceId for none. */
static int legacy_id(struct cudaMemLocation loc)
{
	switch (loc.type) {
	case cudaMemLocationTypeDevice:
		return loc.id;
	case cudaMemLocationTypeInvalid:
		return cudaInvalidDeviceId;
	default:
		return cudaCpuDeviceId;
	}
}

static void accessed_by(const struct rt_advice *a, int *out, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		out[i] = cudaInvalidDeviceId;
	if (a->accessed_by_host && k < n)
		out[k++] = cudaCpuDeviceId;
	for (int dev = 0; dev < RT_MAX_DEVICES && k < n; dev++)
		if (a->accessed_by & (1u << dev))
			out[k++] = dev;
}

static cudaError_t range_attribute(void *data, size_t size, enum cudaMemRangeAttribute attr,
				   const struct rt_advice *a)
{
	int *v = data;

	if (!data || size < sizeof(int) || size % sizeof(int))
		return cudaErrorInvalidValue;
	if (attr == cudaMemRangeAttributeAccessedBy) {
		accessed_by(a, v, size / sizeof(int));
		return cudaSuccess;
	}
	if (size != sizeof(int))
		return cudaErrorInvalidValue;
	switch (attr) {
	case cudaMemRangeAttributeReadMostly:
		*v = a->read_mostly;
		break;
	case cudaMemRangeAttributePreferredLocation:
		*v = legacy_id(a->preferred);
		break;
	case cudaMemRangeAttributeLastPrefetchLocation:
		*v = legacy_id(a->prefetched);
		break;
	case cudaMemRangeAttributePreferredLocationType:
		*v = a->preferred.type;
		break;
	case cudaMemRangeAttributePreferredLocationId:
		*v = a->preferred.id;
		break;
	case cudaMemRangeAttributeLastPrefetchLocationType:
		*v = a->prefetched.type;
		break;
	case cudaMemRangeAttributeLastPrefetchLocationId:
		*v = a->prefetched.id;
		break;
	default:
		return cudaErrorInvalidValue;
	}
	return cudaSuccess;
}

RT_API cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize,
					    enum cudaMemRangeAttribute attribute,
					    const void *devPtr, size_t count)
{
	struct rt_range r;
	cudaError_t e = managed_range(devPtr, count, &r);

	if (e == cudaSuccess)
		e = range_attribute(data, dataSize, attribute, &r.advice);
	return rt_error(e);
}

RT_API cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
					     enum cudaMemRangeAttribute *attributes,
					     size_t numAttributes, const void *devPtr, size_t count)
{
	struct rt_range r;
	cudaError_t e = managed_range(devPtr, count, &r);

	if (e == cudaSuccess && (!data || !dataSizes || !attributes || !numAttributes))
		e = cudaErrorInvalidValue;
	for (size_t i = 0; e == cudaSuccess && i < numAttributes; i++)
		e = range_attribute(data[i], dataSizes[i], attributes[i], &r.advice);
	return rt_error(e);
}

#define ATTACH_FLAGS (cudaMemAttachGlobal | cudaMemAttachHost | cudaMemAttachSingle)

/* Which stream may touch a managed range: host and device share it here,
 * so only the arguments matter.  length 0 means the whole allocation. */
static cudaError_t attach(cudaStream_t stream, void *p, size_t length, unsigned flags,
			  int per_thread_default)
{
	struct rt_device *d;
	struct ag_stream *s;
	struct rt_range r;
	cudaError_t e = rt_stream_get(stream, per_thread_default, &d, &s);

	if (e != cudaSuccess)
		return rt_result(d, e);
	if (!flags || (flags & ~(unsigned)ATTACH_FLAGS) || (flags & (flags - 1)))
		return rt_error(cudaErrorInvalidValue);
	if (!length)
		e = rt_mem_find(p, &r) && r.kind == RT_MEM_MANAGED && r.base == (uintptr_t)p
		    ? cudaSuccess : cudaErrorInvalidValue;
	else
		e = managed_range(p, length, &r);
	return rt_error(e);
}

RT_API cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
					    unsigned int flags)
{
	return attach(stream, devPtr, length, flags, 0);
}

RT_API cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr,
						 size_t length, unsigned int flags)
{
	return attach(stream, devPtr, length, flags, 1);
}

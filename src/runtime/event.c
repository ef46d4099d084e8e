/*
 * event.c - events: create, record, wait for, query, time, destroy.
 *
 * A cudaEvent_t is a struct rt_event that remembers its device; the backend
 * does the work.  Recording on a capturing stream is capture.c's business.
 */
#include "graph.h"

#include <stdlib.h>

#include "util/strbuf.h"

struct rt_event {
	struct rt_handle h;            /* first: see handles.c */
	struct ag_event *e;
};

static struct rt_handles live = RT_HANDLES_INIT;

#define EVENT_FLAGS (cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess)

cudaError_t rt_event_get(cudaEvent_t h, struct rt_device **d, struct ag_event **e)
{
	struct rt_event *ev = rt_handle_find(&live, h);
	cudaError_t err;

	*d = NULL;
	if (!ev)
		return cudaErrorInvalidResourceHandle;
	err = rt_device_get(ev->h.dev, d);
	*e = ev->e;
	return err;
}

void rt_events_forget_device(int dev)
{
	rt_handles_forget_device(&live, dev);
}

RT_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	struct rt_device *d;
	struct rt_event *ev;
	struct ag_event *e;
	cudaError_t err;

	if (!event || (flags & ~(unsigned)EVENT_FLAGS))
		return rt_error(cudaErrorInvalidValue);
	if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
		return rt_error(cudaErrorInvalidValue);
	err = rt_current(&d);
	if (err == cudaSuccess)
		err = rt_ops()->event_create(d->b, flags & ~(unsigned)cudaEventInterprocess, &e);
	if (err != cudaSuccess)
		return rt_result(d, err);
	ev = xcalloc(1, sizeof(*ev));
	ev->h.dev = d->ordinal;
	ev->h.generation = d->generation;
	ev->e = e;
	rt_handle_add(&live, &ev->h);
	*event = (cudaEvent_t)ev;
	return cudaSuccess;
}

RT_API cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	return cudaEventCreateWithFlags(event, cudaEventDefault);
}

RT_API cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	struct rt_event *ev = rt_handle_find(&live, event);
	struct rt_device *d;
	cudaError_t err;

	if (!ev || !rt_handle_remove(&live, &ev->h))
		return rt_error(cudaErrorInvalidResourceHandle);
	err = rt_device_get(ev->h.dev, &d);
	rt_capture_forget_event(ev->e);
	if (d && d->b)
		err = rt_ops()->event_destroy(d->b, ev->e);
	free(ev);
	return rt_result(d, err);
}

static cudaError_t event_record(cudaEvent_t event, cudaStream_t stream, unsigned flags,
				int per_thread_default)
{
	struct rt_device *d, *sd;
	struct ag_stream *s;
	struct ag_event *e;
	int captured = 0;
	cudaError_t err;

	if (flags & ~(unsigned)cudaEventRecordExternal)
		return rt_error(cudaErrorInvalidValue);
	err = rt_event_get(event, &d, &e);
	if (err != cudaSuccess)
		return rt_result(d, err);
	err = rt_stream_get(stream, per_thread_default, &sd, &s);
	if (err == cudaSuccess && sd != d)
		err = cudaErrorInvalidResourceHandle;   /* as CUDA: event and stream differ */
	if (err == cudaSuccess)
		err = rt_capture_record(d, s, event, e, flags, &captured);
	if (err == cudaSuccess && !captured)
		err = rt_ops()->event_record(d->b, e, s);
	return rt_result(d, err);
}

RT_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	return event_record(event, stream, 0, 0);
}

RT_API cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
	return event_record(event, stream, 0, 1);
}

RT_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
					    unsigned int flags)
{
	return event_record(event, stream, flags, 0);
}

RT_API cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
						 unsigned int flags)
{
	return event_record(event, stream, flags, 1);
}

/* Synchronize or query: a backend call on the event alone, which has no
 * meaning for an event recorded in a capture.  Once the event has
 * happened, pools may release memory. */
static cudaError_t event_call(cudaEvent_t event,
			      cudaError_t (*op)(struct ag_backend *, struct ag_event *))
{
	struct rt_device *d;
	struct ag_event *e;
	cudaError_t err = rt_event_get(event, &d, &e);

	if (err == cudaSuccess)
		err = rt_capture_event_check(e);
	if (err == cudaSuccess)
		err = op(d->b, e);
	if (err == cudaSuccess)
		rt_pools_release(d);
	return rt_result(d, err);
}

RT_API cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	return event_call(event, rt_ops()->event_sync);
}

RT_API cudaError_t cudaEventQuery(cudaEvent_t event)
{
	return event_call(event, rt_ops()->event_query);
}

RT_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	struct rt_device *d, *d2;
	struct ag_event *a, *b;
	cudaError_t err;

	if (!ms)
		return rt_error(cudaErrorInvalidValue);
	err = rt_event_get(start, &d, &a);
	if (err == cudaSuccess)
		err = rt_event_get(end, &d2, &b);
	if (err == cudaSuccess && d != d2)
		err = cudaErrorInvalidResourceHandle;
	if (err == cudaSuccess)
		err = rt_ops()->event_elapsed(d->b, a, b, ms);
	return rt_result(d, err);
}

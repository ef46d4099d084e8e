/*
 * stream.c - streams: created ones, the legacy default stream and the
 * per-thread default stream.
 *
 * A cudaStream_t the program holds is a struct rt_stream; the runtime keeps
 * the set of live ones so that a destroyed or garbage handle is an error
 * code, not a crash.  NULL means the legacy stream (the backend's NULL
 * stream), or the per-thread stream in the _ptsz entry points that
 * --default-stream per-thread selects; cudaStreamLegacy and
 * cudaStreamPerThread name them explicitly.  The per-thread stream is an
 * ordinary blocking stream created on a thread's first use of it and
 * destroyed when the thread exits.  Work queued on a capturing stream
 * goes to capture.c instead of the backend.
 */
#include "graph.h"

#include <stdlib.h>

#include "util/strbuf.h"

#define PRIORITY_LEAST 0
#define PRIORITY_GREATEST (-5)

struct rt_stream {
	struct rt_handle h;            /* first: see handles.c */
	struct ag_stream *s;
	unsigned flags;
	int priority;
};

static struct rt_handles live = RT_HANDLES_INIT;

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;
static __thread struct {
	struct rt_stream *st;
	unsigned generation;
} per_thread[RT_MAX_DEVICES];

static cudaError_t stream_new(struct rt_device *d, unsigned flags, int priority,
			      struct rt_stream **out)
{
	struct rt_stream *st;
	struct ag_stream *s;
	cudaError_t e;

	e = rt_ops()->stream_create(d->b, flags, priority, &s);
	if (e != cudaSuccess)
		return e;
	st = xcalloc(1, sizeof(*st));
	st->h.dev = d->ordinal;
	st->h.generation = d->generation;
	st->s = s;
	st->flags = flags;
	st->priority = priority;
	rt_handle_add(&live, &st->h);
	*out = st;
	return cudaSuccess;
}

static cudaError_t stream_destroy(struct rt_stream *st)
{
	struct rt_device *d = rt_device_at(st->h.dev);
	cudaError_t e = cudaSuccess;

	if (rt_handle_remove(&live, &st->h)) {
		rt_capture_forget_stream(st->s);
		e = rt_ops()->stream_destroy(d->b, st->s);
	}
	free(st);
	return e;
}

static void destroy_thread_streams(void *unused)
{
	for (int i = 0; i < RT_MAX_DEVICES; i++) {
		struct rt_device *d = rt_device_at(i);

		if (per_thread[i].st && per_thread[i].generation == d->generation)
			stream_destroy(per_thread[i].st);
		per_thread[i].st = NULL;
	}
}

static void make_key(void)
{
	pthread_key_create(&thread_key, destroy_thread_streams);
}

static cudaError_t thread_stream(struct rt_device *d, struct ag_stream **s)
{
	int i = d->ordinal;
	cudaError_t e;

	if (!per_thread[i].st || per_thread[i].generation != d->generation) {
		e = stream_new(d, cudaStreamDefault, 0, &per_thread[i].st);
		if (e != cudaSuccess) {
			per_thread[i].st = NULL;
			return e;
		}
		per_thread[i].generation = d->generation;
		pthread_once(&key_once, make_key);
		pthread_setspecific(thread_key, &per_thread);
	}
	*s = per_thread[i].st->s;
	return cudaSuccess;
}

static int is_per_thread(cudaStream_t h, int per_thread_default)
{
	return h == cudaStreamPerThread || (!h && per_thread_default);
}

cudaError_t rt_stream_get(cudaStream_t h, int per_thread_default, struct rt_device **d,
			  struct ag_stream **s)
{
	struct rt_stream *st;
	cudaError_t e;

	*s = NULL;
	if (!h || h == cudaStreamLegacy || h == cudaStreamPerThread) {
		e = rt_current(d);
		if (e == cudaSuccess && is_per_thread(h, per_thread_default))
			e = thread_stream(*d, s);
		return e;
	}
	st = rt_handle_find(&live, h);
	if (!st)
		return cudaErrorInvalidResourceHandle;
	e = rt_device_get(st->h.dev, d);
	*s = st->s;
	return e;
}

void rt_streams_forget_device(int dev)
{
	rt_handles_forget_device(&live, dev);
}

RT_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
						int priority)
{
	struct rt_device *d;
	struct rt_stream *st;
	cudaError_t e;

	if (!pStream || (flags & ~(unsigned)cudaStreamNonBlocking))
		return rt_error(cudaErrorInvalidValue);
	if (priority < PRIORITY_GREATEST)
		priority = PRIORITY_GREATEST;
	if (priority > PRIORITY_LEAST)
		priority = PRIORITY_LEAST;
	e = rt_current(&d);
	if (e == cudaSuccess)
		e = stream_new(d, flags, priority, &st);
	if (e == cudaSuccess)
		*pStream = (cudaStream_t)st;
	return rt_result(d, e);
}

RT_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
	return cudaStreamCreateWithPriority(pStream, flags, 0);
}

RT_API cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
	return cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0);
}

RT_API cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	struct rt_stream *st = rt_handle_find(&live, stream);
	struct rt_device *d;
	cudaError_t e;

	if (!st)
		return rt_error(cudaErrorInvalidResourceHandle);
	e = rt_device_get(st->h.dev, &d);
	if (e != cudaSuccess)
		return rt_error(e);
	return rt_result(d, stream_destroy(st));
}

/* Synchronize or query: a backend call on the stream alone (which a
 * capture forbids); once the stream is idle, pools may release memory. */
static cudaError_t stream_call(cudaStream_t stream, int per_thread_default,
			       cudaError_t (*op)(struct ag_backend *, struct ag_stream *))
{
	struct rt_device *d;
	struct ag_stream *s;
	int captured;
	cudaError_t e = rt_stream_get(stream, per_thread_default, &d, &s);

	if (e == cudaSuccess)
		e = rt_capture_op(d, s, NULL, &captured);
	if (e == cudaSuccess)
		e = op(d->b, s);
	if (e == cudaSuccess)
		rt_pools_release(d);
	return rt_result(d, e);
}

RT_API cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	return stream_call(stream, 0, rt_ops()->stream_sync);
}

RT_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
	return stream_call(stream, 1, rt_ops()->stream_sync);
}

RT_API cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	return stream_call(stream, 0, rt_ops()->stream_query);
}

RT_API cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
	return stream_call(stream, 1, rt_ops()->stream_query);
}

static cudaError_t stream_wait_event(cudaStream_t stream, cudaEvent_t event, unsigned flags,
				     int per_thread_default)
{
	struct rt_device *d, *ed;
	struct ag_stream *s;
	struct ag_event *ev;
	unsigned sflags;
	int captured = 0;
	cudaError_t e;

	if (flags & ~(unsigned)cudaEventWaitExternal)
		return rt_error(cudaErrorInvalidValue);
	e = rt_event_get(event, &ed, &ev);
	if (e != cudaSuccess)
		return rt_error(e);
	e = rt_stream_get(stream, per_thread_default, &d, &s);
	if (e == cudaSuccess)
		e = cudaStreamGetFlags(stream, &sflags);
	if (e == cudaSuccess)
		e = rt_capture_wait(d, s, !(sflags & cudaStreamNonBlocking), event, ev, flags,
				    &captured);
	if (e != cudaSuccess || captured)
		return rt_result(d, e);
	if (d != ed) {
		/* Another device's backend cannot see this event: wait here. */
		e = rt_ops()->event_sync(ed->b, ev);
		return rt_result(ed, e);
	}
	return rt_result(d, rt_ops()->stream_wait_event(d->b, s, ev));
}

RT_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
				       unsigned int flags)
{
	return stream_wait_event(stream, event, flags, 0);
}

RT_API cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
					    unsigned int flags)
{
	return stream_wait_event(stream, event, flags, 1);
}

/* capturable: 0 for a callback that runs once (it frees its wrapper). */
static cudaError_t host_func(cudaStream_t stream, void (*fn)(void *), void *data,
			     int per_thread_default, int capturable)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeHost };
	struct rt_device *d;
	struct ag_stream *s;
	int captured = 0;
	cudaError_t e;

	if (!fn)
		return rt_error(cudaErrorInvalidValue);
	p.u.host.fn = fn;
	p.u.host.userData = data;
	e = rt_stream_get(stream, per_thread_default, &d, &s);
	if (e == cudaSuccess)
		e = rt_capture_op(d, s, capturable ? &p : NULL, &captured);
	if (e == cudaSuccess && !captured)
		e = rt_ops()->host_func(d->b, s, fn, data);
	return rt_result(d, e);
}

RT_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
	return host_func(stream, fn, userData, 0, 1);
}

RT_API cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn,
					   void *userData)
{
	return host_func(stream, fn, userData, 1, 1);
}

/* cudaStreamAddCallback's callback also gets the stream and a status. */
struct callback {
	cudaStreamCallback_t fn;
	cudaStream_t stream;
	void *data;
};

static void run_callback(void *p)
{
	struct callback *cb = p;

	cb->fn(cb->stream, cudaSuccess, cb->data);
	free(cb);
}

static cudaError_t add_callback(cudaStream_t stream, cudaStreamCallback_t fn, void *data,
				unsigned flags, int per_thread_default)
{
	struct callback *cb;
	cudaError_t e;

	if (!fn || flags)
		return rt_error(cudaErrorInvalidValue);
	cb = xmalloc(sizeof(*cb));
	cb->fn = fn;
	cb->stream = stream;
	cb->data = data;
	e = host_func(stream, run_callback, cb, per_thread_default, 0);
	if (e != cudaSuccess)
		free(cb);
	return e;
}

RT_API cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
					 void *userData, unsigned int flags)
{
	return add_callback(stream, callback, userData, flags, 0);
}

RT_API cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream,
					      cudaStreamCallback_t callback, void *userData,
					      unsigned int flags)
{
	return add_callback(stream, callback, userData, flags, 1);
}

RT_API cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
	if (leastPriority)
		*leastPriority = PRIORITY_LEAST;
	if (greatestPriority)
		*greatestPriority = PRIORITY_GREATEST;
	return cudaSuccess;
}

/* Flags and priority of a handle; the default streams are blocking and of
 * normal priority. */
static cudaError_t stream_props(cudaStream_t h, unsigned *flags, int *priority)
{
	struct rt_stream *st;

	*flags = cudaStreamDefault;
	*priority = 0;
	if (!h || h == cudaStreamLegacy || h == cudaStreamPerThread)
		return cudaSuccess;
	st = rt_handle_find(&live, h);
	if (!st)
		return cudaErrorInvalidResourceHandle;
	*flags = st->flags;
	*priority = st->priority;
	return cudaSuccess;
}

RT_API cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
	int priority;

	if (!flags)
		return rt_error(cudaErrorInvalidValue);
	return rt_error(stream_props(hStream, flags, &priority));
}

RT_API cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags)
{
	return cudaStreamGetFlags(hStream, flags);
}

RT_API cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
	unsigned flags;

	if (!priority)
		return rt_error(cudaErrorInvalidValue);
	return rt_error(stream_props(hStream, &flags, priority));
}

RT_API cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority)
{
	return cudaStreamGetPriority(hStream, priority);
}

static cudaError_t stream_device(cudaStream_t h, int *device, int per_thread_default)
{
	struct rt_device *d;
	struct ag_stream *s;
	cudaError_t e;

	if (!device)
		return rt_error(cudaErrorInvalidValue);
	e = rt_stream_get(h, per_thread_default, &d, &s);
	if (e == cudaSuccess)
		*device = d->ordinal;
	return rt_error(e);
}

RT_API cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device)
{
	return stream_device(hStream, device, 0);
}

RT_API cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device)
{
	return stream_device(hStream, device, 1);
}

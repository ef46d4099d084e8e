/*
 * capture.c - stream capture: while a stream captures, the work queued on
 * it becomes nodes of a graph instead of running.
 *
 * A capture sequence starts on one stream (cudaStreamBeginCapture) and
 * spreads to others the way CUDA samples fork and join: an event recorded
 * on a capturing stream remembers the stream's position (its current
 * dependencies), and a stream that waits on that event joins the capture
 * with those dependencies.  Each stream in a capture keeps its own
 * dependency set: a captured operation depends on it and replaces it.  The
 * capture ends on the stream that began it, once every stream that joined
 * has been joined back (its last nodes precede the origin's).  Breaking a
 * rule CUDA enforces returns the error CUDA returns and invalidates the
 * capture, which then ends with no graph.
 *
 * Streams and events are known here by their backend handles; the legacy
 * stream (NULL) never captures, and using it while a blocking stream of the
 * same device captures is an implicit dependency CUDA refuses.
 */
#include "graph.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

struct capture {
	struct rt_graph *graph;
	int own_graph;                 /* made for it (not cudaStreamBeginCaptureToGraph's) */
	unsigned long long id;
	enum cudaStreamCaptureMode mode;
	pthread_t thread;              /* that began it */
	int dev;
	int invalidated;
	int nblocking;                 /* blocking streams among the members */
	struct member **members;       /* members[0] is the origin */
	size_t nmembers;
};

/* A stream taking part in a capture, and its current dependencies. */
struct member {
	struct capture *c;
	struct ag_stream *s;
	int blocking;
	struct rt_node **deps;
	cudaGraphEdgeData *edges;      /* all zero, for cudaStreamGetCaptureInfo */
	size_t ndeps, cap;
};

/* An event last recorded on a capturing stream: where that stream was. */
struct marked_event {
	unsigned long long id;
	struct rt_node **deps;
	size_t ndeps;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_ptrmap members;       /* ag_stream -> member */
static struct rt_ptrmap marked;        /* ag_event -> marked_event */
static struct capture **active;
static size_t nactive;                 /* read without the lock: see idle() */
static unsigned long long last_id;
static __thread enum cudaStreamCaptureMode thread_mode = cudaStreamCaptureModeGlobal;

static void set_deps(struct member *m, struct rt_node *const *deps, size_t n)
{
	m->ndeps = n;
	if (!n)
		return;
	if (n > m->cap) {
		m->cap = n;
		m->deps = xrealloc(m->deps, n * sizeof(*m->deps));
		m->edges = xrealloc(m->edges, n * sizeof(*m->edges));
	}
	memcpy(m->deps, deps, n * sizeof(*deps));
	memset(m->edges, 0, n * sizeof(*m->edges));
}

static void add_deps(struct member *m, struct rt_node *const *deps, size_t n)
{
	struct rt_node **all = xmalloc((m->ndeps + n + 1) * sizeof(*all));
	size_t k = 0;

	for (size_t i = 0; i < m->ndeps; i++)
		all[k++] = m->deps[i];
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < k && all[j] != deps[i])
			j++;
		if (j == k)
			all[k++] = deps[i];
	}
	set_deps(m, all, k);
	free(all);
}

static struct member *join(struct capture *c, struct ag_stream *s, int blocking)
{
	struct member *m = xcalloc(1, sizeof(*m));

	m->c = c;
	m->s = s;
	m->blocking = blocking;
	c->nblocking += blocking;
	c->members = xrealloc(c->members, (c->nmembers + 1) * sizeof(*c->members));
	c->members[c->nmembers++] = m;
	rt_ptrmap_put(&members, s, m);
	return m;
}

static void leave(struct member *m)
{
	struct capture *c = m->c;
	size_t k = 0;

	while (c->members[k] != m)
		k++;
	memmove(&c->members[k], &c->members[k + 1], (c->nmembers - k - 1) * sizeof(m));
	c->nmembers--;
	c->nblocking -= m->blocking;
	rt_ptrmap_del(&members, m->s);
	free(m->deps);
	free(m->edges);
	free(m);
}

/* Every stream leaves the capture; the graph goes to the caller. */
static struct rt_graph *finish(struct capture *c)
{
	struct rt_graph *g = c->graph;
	size_t i = 0;

	while (c->nmembers)
		leave(c->members[c->nmembers - 1]);
	while (active[i] != c)
		i++;
	active[i] = active[nactive - 1];
	__atomic_store_n(&nactive, nactive - 1, __ATOMIC_RELEASE);
	free(c->members);
	free(c);
	return g;
}

/* A capture that failed: the graph goes too unless it is the program's. */
static void discard(struct capture *c)
{
	int own = c->own_graph;
	struct rt_graph *g = finish(c);

	if (own)
		rt_graph_free(g);
}

static struct capture *find_active(unsigned long long id)
{
	for (size_t i = 0; i < nactive; i++)
		if (active[i]->id == id)
			return active[i];
	return NULL;
}

/* The legacy stream waits for blocking streams: using it while one of them
 * captures would make it depend on work that does not run. */
static cudaError_t legacy_check(const struct rt_device *d)
{
	cudaError_t e = cudaSuccess;

	for (size_t i = 0; i < nactive; i++) {
		if (active[i]->dev == d->ordinal && active[i]->nblocking) {
			active[i]->invalidated = 1;
			e = cudaErrorStreamCaptureImplicit;
		}
	}
	return e;
}

/* No capture anywhere: what every launch and copy asks first, without the
 * lock.  A capture that begins meanwhile on another thread cannot involve
 * the caller's stream, which this thread is using. */
static int idle(void)
{
	return __atomic_load_n(&nactive, __ATOMIC_ACQUIRE) == 0;
}

/* Adds a node after m's dependencies; it becomes m's only dependency. */
static cudaError_t append(struct member *m, const struct rt_node_params *p)
{
	struct rt_node *n;
	cudaError_t e = rt_graph_add(m->c->graph, p, m->deps, m->ndeps, &n);

	if (e == cudaSuccess)
		set_deps(m, &n, 1);
	else
		m->c->invalidated = 1;
	return e;
}

int rt_capture_member(struct ag_stream *s)
{
	int member;

	if (idle())
		return 0;
	pthread_mutex_lock(&lock);
	member = rt_ptrmap_get(&members, s) != NULL;
	pthread_mutex_unlock(&lock);
	return member;
}

cudaError_t rt_capture_op(struct rt_device *d, struct ag_stream *s,
			  const struct rt_node_params *p, int *captured)
{
	struct member *m;
	cudaError_t e = cudaSuccess;

	*captured = 0;
	if (idle())
		return cudaSuccess;
	pthread_mutex_lock(&lock);
	m = s ? rt_ptrmap_get(&members, s) : NULL;
	if (!s) {
		e = legacy_check(d);
	} else if (m) {
		*captured = 1;
		if (!p) {
			m->c->invalidated = 1;
			e = cudaErrorStreamCaptureUnsupported;
		} else if (m->c->invalidated) {
			e = cudaErrorStreamCaptureInvalidated;
		} else {
			e = append(m, p);
		}
	}
	pthread_mutex_unlock(&lock);
	return e;
}

/* cudaThreadExchangeStreamCaptureMode's rules: in global mode a thread may
 * not make potentially unsafe calls while it captures (other than relaxed)
 * or while any thread captures in global mode; in thread-local mode only
 * its own captures count; relaxed never forbids.  Synchronising the whole
 * device conflicts with every capture. */
static int forbids(const struct capture *c, int device_wide)
{
	int mine = pthread_equal(c->thread, pthread_self()) &&
		   c->mode != cudaStreamCaptureModeRelaxed;

	if (device_wide)
		return 1;
	switch (thread_mode) {
	case cudaStreamCaptureModeGlobal:
		return mine || c->mode == cudaStreamCaptureModeGlobal;
	case cudaStreamCaptureModeThreadLocal:
		return mine;
	default:
		return 0;
	}
}

cudaError_t rt_capture_unsafe_check(int device_wide)
{
	cudaError_t e = cudaSuccess;

	if (idle())
		return cudaSuccess;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < nactive; i++) {
		if (forbids(active[i], device_wide)) {
			active[i]->invalidated = 1;
			e = cudaErrorStreamCaptureUnsupported;
		}
	}
	pthread_mutex_unlock(&lock);
	return e;
}

static void unmark(struct ag_event *e)
{
	struct marked_event *me = rt_ptrmap_get(&marked, e);

	if (!me)
		return;
	rt_ptrmap_del(&marked, e);
	free(me->deps);
	free(me);
}

cudaError_t rt_capture_record(struct rt_device *d, struct ag_stream *s, cudaEvent_t h,
			      struct ag_event *e, unsigned flags, int *captured)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeEventRecord };
	struct marked_event *me;
	struct member *m;
	cudaError_t err = cudaSuccess;

	*captured = 0;
	pthread_mutex_lock(&lock);
	m = s ? rt_ptrmap_get(&members, s) : NULL;
	if (!m) {
		unmark(e);
		err = s ? cudaSuccess : legacy_check(d);
		pthread_mutex_unlock(&lock);
		return err;
	}
	*captured = 1;
	p.u.event = h;
	if (m->c->invalidated)
		err = cudaErrorStreamCaptureInvalidated;
	else if (flags & cudaEventRecordExternal)
		err = append(m, &p);
	if (err == cudaSuccess) {
		unmark(e);
		me = xcalloc(1, sizeof(*me));
		me->id = m->c->id;
		me->ndeps = m->ndeps;
		me->deps = xmalloc((m->ndeps + 1) * sizeof(*me->deps));
		for (size_t i = 0; i < m->ndeps; i++)
			me->deps[i] = m->deps[i];
		rt_ptrmap_put(&marked, e, me);
	}
	pthread_mutex_unlock(&lock);
	return err;
}

/* A capturing stream waits for an event no capture recorded: a dependency
 * across the capture's boundary, unless it is an external wait node. */
static cudaError_t wait_outside(struct member *m, cudaEvent_t h, unsigned flags)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeWaitEvent };

	if (m->c->invalidated)
		return cudaErrorStreamCaptureInvalidated;
	if (!(flags & cudaEventWaitExternal)) {
		m->c->invalidated = 1;
		return cudaErrorStreamCaptureIsolation;
	}
	p.u.event = h;
	return append(m, &p);
}

cudaError_t rt_capture_wait(struct rt_device *d, struct ag_stream *s, int blocking,
			    cudaEvent_t h, struct ag_event *e, unsigned flags, int *captured)
{
	struct marked_event *me;
	struct capture *c;
	struct member *m;
	cudaError_t err = cudaSuccess;

	*captured = 0;
	pthread_mutex_lock(&lock);
	m = s ? rt_ptrmap_get(&members, s) : NULL;
	me = rt_ptrmap_get(&marked, e);
	c = me ? find_active(me->id) : NULL;
	if (!s) {
		/* The legacy stream cannot join a capture. */
		err = me ? cudaErrorStreamCaptureIsolation : legacy_check(d);
		if (c)
			c->invalidated = 1;
	} else if (!me) {
		*captured = m != NULL;
		if (m)
			err = wait_outside(m, h, flags);
	} else if (!c) {
		err = cudaErrorCapturedEvent;      /* its capture has ended */
	} else if (m && m->c != c) {
		m->c->invalidated = c->invalidated = 1;
		err = cudaErrorStreamCaptureMerge;
	} else {
		if (!m)
			m = join(c, s, blocking);
		add_deps(m, me->deps, me->ndeps);
		*captured = 1;
	}
	pthread_mutex_unlock(&lock);
	return err;
}

cudaError_t rt_capture_event_check(struct ag_event *e)
{
	void *me;

	pthread_mutex_lock(&lock);
	me = rt_ptrmap_get(&marked, e);
	pthread_mutex_unlock(&lock);
	return me ? cudaErrorCapturedEvent : cudaSuccess;
}

/* A stream destroyed while it captures invalidates its capture; the
 * capture goes with the stream that began it. */
void rt_capture_forget_stream(struct ag_stream *s)
{
	struct member *m;

	pthread_mutex_lock(&lock);
	m = rt_ptrmap_get(&members, s);
	if (m) {
		m->c->invalidated = 1;
		if (m->c->members[0] == m)
			discard(m->c);
		else
			leave(m);
	}
	pthread_mutex_unlock(&lock);
}

void rt_capture_forget_event(struct ag_event *e)
{
	pthread_mutex_lock(&lock);
	unmark(e);
	pthread_mutex_unlock(&lock);
}

static int valid_mode(enum cudaStreamCaptureMode mode)
{
	return mode == cudaStreamCaptureModeGlobal || mode == cudaStreamCaptureModeThreadLocal ||
	       mode == cudaStreamCaptureModeRelaxed;
}

/* into NULL: a new graph; else an existing one, the capture's first node
 * depending on deps. */
static cudaError_t begin_capture(cudaStream_t stream, enum cudaStreamCaptureMode mode,
				 int per_thread_default, struct rt_graph *into,
				 const cudaGraphNode_t *deps, size_t ndeps)
{
	struct rt_device *d;
	struct ag_stream *s;
	struct capture *c;
	unsigned flags;
	cudaError_t e;

	if (!valid_mode(mode))
		return rt_error(cudaErrorInvalidValue);
	e = rt_stream_get(stream, per_thread_default, &d, &s);
	if (e == cudaSuccess)
		e = cudaStreamGetFlags(stream, &flags);
	if (e != cudaSuccess)
		return rt_result(d, e);
	if (!s)
		return rt_error(cudaErrorStreamCaptureUnsupported);   /* the legacy stream */
	pthread_mutex_lock(&lock);
	e = rt_ptrmap_get(&members, s) ? cudaErrorIllegalState
	    : into ? rt_graph_check_nodes(into, deps, ndeps) : cudaSuccess;
	if (e != cudaSuccess) {
		pthread_mutex_unlock(&lock);
		return rt_error(e);
	}
	c = xcalloc(1, sizeof(*c));
	c->graph = into ? into : rt_graph_new();
	c->own_graph = !into;
	c->id = ++last_id;
	c->mode = mode;
	c->thread = pthread_self();
	c->dev = d->ordinal;
	active = xrealloc(active, (nactive + 1) * sizeof(*active));
	active[nactive] = c;
	__atomic_store_n(&nactive, nactive + 1, __ATOMIC_RELEASE);
	set_deps(join(c, s, !(flags & cudaStreamNonBlocking)), (struct rt_node *const *)deps,
		 ndeps);
	pthread_mutex_unlock(&lock);
	return cudaSuccess;
}

RT_API cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
	return begin_capture(stream, mode, 0, NULL, NULL, 0);
}

RT_API cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
					       enum cudaStreamCaptureMode mode)
{
	return begin_capture(stream, mode, 1, NULL, NULL, 0);
}

static cudaError_t begin_capture_to_graph(cudaStream_t stream, cudaGraph_t graph,
					  const cudaGraphNode_t *deps,
					  const cudaGraphEdgeData *edges, size_t ndeps,
					  enum cudaStreamCaptureMode mode, int per_thread_default)
{
	if (!graph)
		return rt_error(cudaErrorInvalidValue);
	if (!rt_plain_edges(edges, ndeps))
		return rt_error(cudaErrorNotSupported);
	return begin_capture(stream, mode, per_thread_default, (struct rt_graph *)graph, deps,
			     ndeps);
}

RT_API cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
						 const cudaGraphNode_t *dependencies,
						 const cudaGraphEdgeData *dependencyData,
						 size_t numDependencies,
						 enum cudaStreamCaptureMode mode)
{
	return begin_capture_to_graph(stream, graph, dependencies, dependencyData,
				      numDependencies, mode, 0);
}

RT_API cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
						      const cudaGraphNode_t *dependencies,
						      const cudaGraphEdgeData *dependencyData,
						      size_t numDependencies,
						      enum cudaStreamCaptureMode mode)
{
	return begin_capture_to_graph(stream, graph, dependencies, dependencyData,
				      numDependencies, mode, 1);
}

/* Every stream that joined has been joined back: its last nodes precede
 * the origin's. */
static int all_joined(const struct capture *c)
{
	const struct member *origin = c->members[0];

	for (size_t k = 1; k < c->nmembers; k++) {
		const struct member *m = c->members[k];

		for (size_t i = 0; i < m->ndeps; i++) {
			size_t j = 0;

			while (j < origin->ndeps && !rt_node_precedes(m->deps[i], origin->deps[j]))
				j++;
			if (j == origin->ndeps)
				return 0;
		}
	}
	return 1;
}

static cudaError_t end_capture(cudaStream_t stream, cudaGraph_t *pGraph, int per_thread_default)
{
	struct rt_device *d;
	struct ag_stream *s;
	struct rt_graph *g;
	struct member *m;
	struct capture *c;
	cudaError_t e;

	if (!pGraph)
		return rt_error(cudaErrorInvalidValue);
	e = rt_stream_get(stream, per_thread_default, &d, &s);
	if (e != cudaSuccess)
		return rt_result(d, e);
	pthread_mutex_lock(&lock);
	m = s ? rt_ptrmap_get(&members, s) : NULL;
	c = m ? m->c : NULL;
	if (!m)
		e = cudaErrorIllegalState;
	else if (c->members[0] != m)
		e = cudaErrorStreamCaptureUnmatched;
	else if (c->mode != cudaStreamCaptureModeRelaxed &&
		 !pthread_equal(c->thread, pthread_self()))
		e = cudaErrorStreamCaptureWrongThread;
	if (e != cudaSuccess) {
		pthread_mutex_unlock(&lock);
		return rt_error(e);
	}
	e = c->invalidated ? cudaErrorStreamCaptureInvalidated
	    : !all_joined(c) ? cudaErrorStreamCaptureUnjoined : cudaSuccess;
	g = NULL;
	if (e == cudaSuccess)
		g = finish(c);
	else
		discard(c);
	pthread_mutex_unlock(&lock);
	*pGraph = (cudaGraph_t)g;
	return rt_error(e);
}

RT_API cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
	return end_capture(stream, pGraph, 0);
}

RT_API cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
{
	return end_capture(stream, pGraph, 1);
}

/* What the capture queries return; m is NULL when s does not capture. */
struct capture_info {
	enum cudaStreamCaptureStatus status;
	unsigned long long id;
	cudaGraph_t graph;
	const cudaGraphNode_t *deps;
	const cudaGraphEdgeData *edges;
	size_t ndeps;
};

static cudaError_t capture_info(cudaStream_t stream, int per_thread_default,
				struct capture_info *out)
{
	struct rt_device *d;
	struct ag_stream *s;
	struct member *m;
	cudaError_t e = rt_stream_get(stream, per_thread_default, &d, &s);

	memset(out, 0, sizeof(*out));
	out->status = cudaStreamCaptureStatusNone;
	if (e != cudaSuccess)
		return rt_result(d, e);
	pthread_mutex_lock(&lock);
	m = s ? rt_ptrmap_get(&members, s) : NULL;
	if (!s) {
		for (size_t i = 0; i < nactive; i++)
			if (active[i]->dev == d->ordinal && active[i]->nblocking)
				e = cudaErrorStreamCaptureImplicit;
	} else if (m) {
		out->status = m->c->invalidated ? cudaStreamCaptureStatusInvalidated
						: cudaStreamCaptureStatusActive;
		out->id = m->c->id;
		out->graph = (cudaGraph_t)m->c->graph;
		out->deps = (const cudaGraphNode_t *)m->deps;
		out->edges = m->edges;
		out->ndeps = m->ndeps;
	}
	pthread_mutex_unlock(&lock);
	return rt_error(e);
}

static cudaError_t is_capturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
				int per_thread_default)
{
	struct capture_info ci;
	cudaError_t e;

	if (!status)
		return rt_error(cudaErrorInvalidValue);
	e = capture_info(stream, per_thread_default, &ci);
	*status = ci.status;
	return e;
}

RT_API cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
					 enum cudaStreamCaptureStatus *pCaptureStatus)
{
	return is_capturing(stream, pCaptureStatus, 0);
}

RT_API cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
					      enum cudaStreamCaptureStatus *pCaptureStatus)
{
	return is_capturing(stream, pCaptureStatus, 1);
}

cudaError_t rt_stream_capture_info(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
				  unsigned long long *id, cudaGraph_t *graph,
				  const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
				  size_t *ndeps, int per_thread_default)
{
	struct capture_info ci;
	cudaError_t e;

	if (!status || (edges && !deps))
		return rt_error(cudaErrorInvalidValue);
	e = capture_info(stream, per_thread_default, &ci);
	*status = ci.status;
	if (e != cudaSuccess || ci.status == cudaStreamCaptureStatusNone)
		return e;
	if (id)
		*id = ci.id;
	if (graph)
		*graph = ci.graph;
	if (deps)
		*deps = ci.deps;
	if (edges)
		*edges = ci.edges;
	if (ndeps)
		*ndeps = ci.ndeps;
	return cudaSuccess;
}

/* The stream's dependency set gets nodes of its capture's graph added
 * (flags 0, cudaStreamAddCaptureDependencies) or replaced
 * (cudaStreamSetCaptureDependencies). */
cudaError_t rt_stream_update_capture_deps(cudaStream_t stream, cudaGraphNode_t *deps,
					  const cudaGraphEdgeData *edges, size_t ndeps,
					  unsigned flags, int per_thread_default)
{
	struct rt_device *d;
	struct ag_stream *s;
	struct member *m;
	cudaError_t e = rt_stream_get(stream, per_thread_default, &d, &s);

	if (e != cudaSuccess)
		return rt_result(d, e);
	if (flags > cudaStreamSetCaptureDependencies)
		return rt_error(cudaErrorInvalidValue);
	if (!rt_plain_edges(edges, ndeps))
		return rt_error(cudaErrorNotSupported);
	pthread_mutex_lock(&lock);
	m = s ? rt_ptrmap_get(&members, s) : NULL;
	e = !m ? cudaErrorIllegalState
	    : m->c->invalidated ? cudaErrorStreamCaptureInvalidated
	    : rt_graph_check_nodes(m->c->graph, deps, ndeps);
	if (e == cudaSuccess && flags == cudaStreamSetCaptureDependencies)
		set_deps(m, (struct rt_node *const *)deps, ndeps);
	else if (e == cudaSuccess)
		add_deps(m, (struct rt_node *const *)deps, ndeps);
	pthread_mutex_unlock(&lock);
	return rt_error(e);
}

RT_API cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
	enum cudaStreamCaptureMode old = thread_mode;

	if (!mode || !valid_mode(*mode))
		return rt_error(cudaErrorInvalidValue);
	thread_mode = *mode;
	*mode = old;
	return cudaSuccess;
}

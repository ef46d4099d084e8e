/*
 * graph_exec.c - executable graphs: instantiation, launch, update.
 *
 * Instantiation orders a graph's nodes topologically (a cycle is refused)
 * and copies their parameters, so later changes to the graph do not reach
 * the executable graph.  A child graph node is instantiated in its turn
 * into a nested executable graph rather than flattened into its parent:
 * each level then keeps the one-to-one pairing of steps with its graph's
 * nodes that cudaGraphExecUpdate and cudaGraphExecChildGraphNodeSetParams
 * work on, and a launch replaying the nested steps in place queues the
 * same order flattening would.  A launch queues the steps in order on the
 * launch stream through the same calls a program would make, so a graph
 * needs nothing from the backend that a stream does not.
 */
#include "graph_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

/* Kahn's algorithm: order[] gets node indices, each after its
 * dependencies.  Returns how many it ordered: fewer than g->n when a
 * cycle leaves nodes unordered. */
static size_t topo_order(const struct rt_graph *g, size_t *order)
{
	size_t *waiting = xcalloc(g->n ? g->n : 1, sizeof(*waiting));
	size_t head = 0, tail = 0;

	for (size_t i = 0; i < g->n; i++) {
		waiting[i] = g->nodes[i]->ndeps;
		if (!waiting[i])
			order[tail++] = i;
	}
	while (head < tail) {
		struct rt_node *done = g->nodes[order[head++]];

		for (size_t i = 0; i < g->n; i++)
			if (rt_node_has_dep(g->nodes[i], done) && --waiting[i] == 0)
				order[tail++] = i;
	}
	free(waiting);
	return tail;
}

/* The graph's edges by creation index, for cudaGraphExecUpdate. */
static void record_edges(struct rt_exec *x, const struct rt_graph *g)
{
	size_t total = 0, e = 0;

	x->edge_start = xmalloc((g->n + 1) * sizeof(*x->edge_start));
	for (size_t k = 0; k < g->n; k++)
		total += g->nodes[k]->ndeps;
	x->edges = xmalloc((total ? total : 1) * sizeof(*x->edges));
	for (size_t k = 0; k < g->n; k++) {
		x->edge_start[k] = e;
		for (size_t j = 0; j < g->nodes[k]->ndeps; j++)
			x->edges[e++] = g->nodes[k]->deps[j]->index;
	}
	x->edge_start[g->n] = e;
}

static int is_mem_step(const struct rt_step *s)
{
	return s->p.type == cudaGraphNodeTypeMemAlloc || s->p.type == cudaGraphNodeTypeMemFree;
}

static void step_free(struct rt_step *s)
{
	if (s->child)
		rt_exec_free(s->child);
	if (is_mem_step(s))
		rt_gmem_exec_ref(s->p.u.mem.mem, s->p.type, -1);
	rt_params_free(&s->p);
}

/* One node's step; a child graph node's graph is instantiated in its
 * turn.  Returns 0 when that fails (a cycle in the child graph, which
 * cudaGraphAddDependencies does not let a program make). */
static int step_init(struct rt_step *s, struct rt_node *n, unsigned long long flags)
{
	s->src = n;
	if (n->p.type == cudaGraphNodeTypeGraph) {
		s->p.type = cudaGraphNodeTypeGraph;
		s->child = rt_exec_build(n->p.u.child, flags);
		return s->child != NULL;
	}
	rt_params_copy(&s->p, &n->p);
	if (is_mem_step(s))
		rt_gmem_exec_ref(s->p.u.mem.mem, s->p.type, 1);
	return 1;
}

void rt_exec_free(struct rt_exec *x)
{
	for (size_t i = 0; i < x->n; i++)
		step_free(&x->steps[i]);
	free(x->steps);
	free(x->order);
	free(x->edge_start);
	free(x->edges);
	pthread_mutex_destroy(&x->launch_lock);
	free(x);
}

struct rt_exec *rt_exec_build(const struct rt_graph *g, unsigned long long flags)
{
	size_t *order = xmalloc((g->n ? g->n : 1) * sizeof(*order));
	struct rt_exec *x;
	int ok = 1;

	if (topo_order(g, order) != g->n) {
		free(order);
		return NULL;
	}
	x = xcalloc(1, sizeof(*x));
	x->flags = flags;
	pthread_mutex_init(&x->launch_lock, NULL);
	x->steps = xcalloc(g->n ? g->n : 1, sizeof(*x->steps));
	x->order = order;
	record_edges(x, g);
	for (; x->n < g->n && ok; x->n++)
		ok = step_init(&x->steps[x->n], g->nodes[order[x->n]], flags);
	if (!ok) {
		rt_exec_free(x);
		return NULL;
	}
	return x;
}

/* Only one executable graph at a time may hold a graph's allocation and
 * free nodes (CUDA's rule: the allocations' addresses are the graph's). */
static int mem_available(const struct rt_graph *g)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct rt_node_params *p = &g->nodes[i]->p;

		if ((p->type == cudaGraphNodeTypeMemAlloc || p->type == cudaGraphNodeTypeMemFree) &&
		    rt_gmem_exec_busy(p->u.mem.mem, p->type))
			return 0;
	}
	return 1;
}

/* result: what cudaGraphInstantiateWithParams reports (no structure is
 * invalid: cudaGraphAddDependencies refuses cycles). */
static cudaError_t instantiate(cudaGraphExec_t *pExec, cudaGraph_t graph,
			       unsigned long long flags, enum cudaGraphInstantiateResult *result)
{
	static int said;
	struct rt_exec *x = NULL;
	struct rt_graph *g;

	*result = cudaGraphInstantiateError;
	if (!pExec)
		return rt_error(cudaErrorInvalidValue);
	if (flags & cudaGraphInstantiateFlagDeviceLaunch) {
		rt_warn_once(&said, "graphs launched from the device are not supported yet");
		return rt_error(cudaErrorNotSupported);
	}
	if (flags & ~(unsigned long long)(cudaGraphInstantiateFlagAutoFreeOnLaunch |
					  cudaGraphInstantiateFlagUpload |
					  cudaGraphInstantiateFlagUseNodePriority))
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_find(graph, RT_TAG_GRAPH);
	if (g && mem_available(g))
		x = rt_exec_build(g, flags);
	if (x) {
		rt_user_refs_collect(&x->urefs, g);
		rt_graph_track(x, RT_TAG_EXEC);
		*pExec = (cudaGraphExec_t)x;
		*result = cudaGraphInstantiateSuccess;
	}
	pthread_mutex_unlock(&rt_graph_lock);
	return x ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
					unsigned long long flags)
{
	enum cudaGraphInstantiateResult result;

	return instantiate(pGraphExec, graph, flags, &result);
}

RT_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
						 cudaGraph_t graph, unsigned long long flags)
{
	enum cudaGraphInstantiateResult result;

	return instantiate(pGraphExec, graph, flags, &result);
}

/* The upload the flag asks for has nothing to do: the executable graph
 * lives in the runtime. */
RT_API cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
						  cudaGraphInstantiateParams *instantiateParams)
{
	if (!instantiateParams)
		return rt_error(cudaErrorInvalidValue);
	instantiateParams->errNode_out = NULL;
	return instantiate(pGraphExec, graph, instantiateParams->flags,
			   &instantiateParams->result_out);
}

RT_API cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags)
{
	struct rt_exec *x;

	pthread_mutex_lock(&rt_graph_lock);
	x = rt_graph_find(graphExec, RT_TAG_EXEC);
	if (x && flags)
		*flags = x->flags;
	pthread_mutex_unlock(&rt_graph_lock);
	return x && flags ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
	struct rt_exec *x;

	pthread_mutex_lock(&rt_graph_lock);
	x = rt_graph_find(graphExec, RT_TAG_EXEC);
	if (x)
		rt_graph_untrack(x);
	pthread_mutex_unlock(&rt_graph_lock);
	if (!x)
		return rt_error(cudaErrorInvalidValue);
	/* Outside the lock: destroying the event asks capture.c, which calls
	 * into graphs with its own lock held.  User objects wait for the
	 * launches. */
	if (x->done && x->urefs.n)
		rt_user_refs_release_after(&x->urefs, x->done);
	else if (x->done)
		cudaEventDestroy(x->done);
	rt_user_refs_release(&x->urefs);
	rt_exec_free(x);
	return cudaSuccess;
}

struct rt_step *rt_exec_step(struct rt_exec *x, cudaGraphNode_t node)
{
	for (size_t i = 0; node && i < x->n; i++)
		if (x->steps[i].src == (struct rt_node *)node)
			return &x->steps[i];
	return NULL;
}

/* The kinds of node CUDA lets an executable graph disable. */
static int can_disable(enum cudaGraphNodeType t)
{
	return t == cudaGraphNodeTypeKernel || t == cudaGraphNodeTypeMemcpy ||
	       t == cudaGraphNodeTypeMemset;
}

/* The step of node in exec, if it is of a kind that can be disabled. */
static struct rt_step *switchable_step(cudaGraphExec_t exec, cudaGraphNode_t node)
{
	struct rt_exec *x = rt_graph_find(exec, RT_TAG_EXEC);
	struct rt_step *s = x ? rt_exec_step(x, node) : NULL;

	return s && can_disable(s->p.type) ? s : NULL;
}

RT_API cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
					   unsigned int isEnabled)
{
	struct rt_step *s;

	pthread_mutex_lock(&rt_graph_lock);
	s = switchable_step(hGraphExec, hNode);
	if (s)
		s->disabled = !isEnabled;
	pthread_mutex_unlock(&rt_graph_lock);
	return s ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
					   unsigned int *isEnabled)
{
	struct rt_step *s;

	pthread_mutex_lock(&rt_graph_lock);
	s = isEnabled ? switchable_step(hGraphExec, hNode) : NULL;
	if (s)
		*isEnabled = !s->disabled;
	pthread_mutex_unlock(&rt_graph_lock);
	return s ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

/* Pairs g's nodes with x's by creation order: same count, same types, the
 * same dependencies in the same order; child graphs the same in their
 * turn; allocation and free nodes for the same memory. */
static enum cudaGraphExecUpdateResult same_shape(const struct rt_exec *x,
						 const struct rt_graph *g,
						 cudaGraphExecUpdateResultInfo *info)
{
	if (g->n != x->n)
		return cudaGraphExecUpdateErrorTopologyChanged;
	for (size_t i = 0; i < x->n; i++) {
		size_t k = x->order[i];
		const struct rt_step *s = &x->steps[i];
		struct rt_node *n = g->nodes[k];
		size_t first = x->edge_start[k];
		enum cudaGraphExecUpdateResult r;

		info->errorNode = (cudaGraphNode_t)n;
		if (n->p.type != s->p.type)
			return cudaGraphExecUpdateErrorNodeTypeChanged;
		if (n->ndeps != x->edge_start[k + 1] - first)
			return cudaGraphExecUpdateErrorTopologyChanged;
		for (size_t j = 0; j < n->ndeps; j++) {
			if (n->deps[j]->index == x->edges[first + j])
				continue;
			info->errorFromNode = (cudaGraphNode_t)n->deps[j];
			return cudaGraphExecUpdateErrorTopologyChanged;
		}
		if (is_mem_step(s) && s->p.u.mem.mem != n->p.u.mem.mem)
			return cudaGraphExecUpdateErrorParametersChanged;
		r = s->child ? same_shape(s->child, n->p.u.child, info) : cudaGraphExecUpdateSuccess;
		if (r != cudaGraphExecUpdateSuccess)
			return r;
	}
	info->errorNode = NULL;
	return cudaGraphExecUpdateSuccess;
}

/* g has x's shape: its parameters replace x's, as when each step's node
 * parameters were set. */
static void update_params(struct rt_exec *x, const struct rt_graph *g)
{
	for (size_t i = 0; i < x->n; i++) {
		struct rt_step *s = &x->steps[i];
		const struct rt_node *n = g->nodes[x->order[i]];

		if (s->child) {
			update_params(s->child, n->p.u.child);
		} else {
			rt_params_free(&s->p);
			rt_params_copy(&s->p, &n->p);
		}
	}
}

RT_API cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
				       cudaGraphExecUpdateResultInfo *resultInfo)
{
	cudaGraphExecUpdateResultInfo info = { cudaGraphExecUpdateError, NULL, NULL };
	struct rt_exec *x;
	struct rt_graph *g;

	pthread_mutex_lock(&rt_graph_lock);
	x = rt_graph_find(hGraphExec, RT_TAG_EXEC);
	g = rt_graph_find(hGraph, RT_TAG_GRAPH);
	if (x && g)
		info.result = same_shape(x, g, &info);
	if (info.result == cudaGraphExecUpdateSuccess)
		update_params(x, g);
	pthread_mutex_unlock(&rt_graph_lock);
	if (resultInfo)
		*resultInfo = info;
	if (!x || !g)
		return rt_error(cudaErrorInvalidValue);
	return info.result == cudaGraphExecUpdateSuccess
		       ? cudaSuccess : rt_error(cudaErrorGraphExecUpdateFailure);
}

/* The child graph must have the shape of the one the node had when the
 * executable graph was made (cudaGraphExecUpdate's rules). */
RT_API cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec,
							cudaGraphNode_t node,
							cudaGraph_t childGraph)
{
	cudaGraphExecUpdateResultInfo info = { cudaGraphExecUpdateError, NULL, NULL };
	struct rt_exec *x, *child = NULL;
	struct rt_step *s;
	struct rt_graph *c;

	pthread_mutex_lock(&rt_graph_lock);
	x = rt_graph_find(hGraphExec, RT_TAG_EXEC);
	c = rt_graph_find(childGraph, RT_TAG_GRAPH);
	s = x ? rt_exec_step(x, node) : NULL;
	if (s)
		child = s->child;
	if (child && c)
		info.result = same_shape(child, c, &info);
	if (info.result == cudaGraphExecUpdateSuccess)
		update_params(child, c);
	pthread_mutex_unlock(&rt_graph_lock);
	return info.result == cudaGraphExecUpdateSuccess ? cudaSuccess
							 : rt_error(cudaErrorInvalidValue);
}

/* A graph of x's nodes and edges, with x's parameters, in the order of
 * creation x was made from. */
struct rt_graph *rt_exec_to_graph(const struct rt_exec *x)
{
	struct rt_graph *g = rt_graph_new_locked();
	size_t *step_of = xmalloc((x->n ? x->n : 1) * sizeof(*step_of));
	struct rt_node *n;

	for (size_t i = 0; i < x->n; i++)
		step_of[x->order[i]] = i;
	for (size_t k = 0; k < x->n; k++) {
		const struct rt_step *s = &x->steps[step_of[k]];
		struct rt_node_params p = s->p;

		if (s->child)
			p.u.child = rt_exec_to_graph(s->child);
		rt_graph_add_locked(g, &p, NULL, 0, &n);
		if (s->child)
			rt_graph_free_locked(p.u.child);
	}
	for (size_t k = 0; k < x->n; k++)
		for (size_t j = x->edge_start[k]; j < x->edge_start[k + 1]; j++)
			rt_graph_add_edge(g->nodes[k], g->nodes[x->edges[j]]);
	free(step_of);
	return g;
}

/* A memset of 2- or 4-byte elements is a byte fill when all the value's
 * bytes are equal; other patterns need a fill the backend lacks. */
static cudaError_t replay_fill(const struct cudaMemsetParams *m, cudaStream_t stream)
{
	static int said;
	unsigned v = m->value & 0xff;
	unsigned pattern = m->elementSize == 1 ? v : m->elementSize == 2 ? v * 0x101u
									: v * 0x1010101u;
	unsigned mask = m->elementSize == 4 ? ~0u : (1u << (8 * m->elementSize)) - 1;

	if ((m->value & mask) != pattern) {
		rt_warn_once(&said, "memset nodes of %u-byte values with unequal bytes are not "
			     "supported yet", m->elementSize);
		return cudaErrorNotSupported;
	}
	return cudaMemset2DAsync(m->dst, m->height > 1 ? m->pitch : m->width * m->elementSize,
				 (int)v, m->width * m->elementSize, m->height, stream);
}

static cudaError_t replay_exec(const struct rt_exec *x, cudaStream_t stream);

static cudaError_t replay(const struct rt_step *s, cudaStream_t stream)
{
	const struct rt_node_params *p = &s->p;

	switch (p->type) {
	case cudaGraphNodeTypeKernel:
		return rt_launch_packed(p->u.kernel.k, p->u.kernel.grid, p->u.kernel.block,
					p->u.kernel.shared, p->u.kernel.cooperative,
					p->u.kernel.params, p->u.kernel.bytes, stream);
	case cudaGraphNodeTypeMemcpy:
		return cudaMemcpy3DAsync(&p->u.copy, stream);
	case cudaGraphNodeTypeMemset:
		return replay_fill(&p->u.fill, stream);
	case cudaGraphNodeTypeHost:
		return cudaLaunchHostFunc(stream, p->u.host.fn, p->u.host.userData);
	case cudaGraphNodeTypeEventRecord:
		return cudaEventRecord(p->u.event, stream);
	case cudaGraphNodeTypeWaitEvent:
		return cudaStreamWaitEvent(stream, p->u.event, 0);
	case cudaGraphNodeTypeGraph:
		return replay_exec(s->child, stream);
	case cudaGraphNodeTypeMemAlloc:
	case cudaGraphNodeTypeMemFree:
		rt_gmem_run(p->u.mem.mem, p->type);
		return cudaSuccess;
	default:
		return cudaSuccess;
	}
}

/* The steps in topological order on one stream: each runs after all its
 * dependencies, which is what the graph asks. */
static cudaError_t replay_exec(const struct rt_exec *x, cudaStream_t stream)
{
	cudaError_t e = cudaSuccess;

	for (size_t i = 0; i < x->n && e == cudaSuccess; i++)
		if (!x->steps[i].disabled)
			e = replay(&x->steps[i], stream);
	return e;
}

/* Allocations of an earlier launch that are still allocated refuse the
 * launch, or are freed first with cudaGraphInstantiateFlagAutoFreeOnLaunch.
 * Only the top level has memory nodes: child graphs cannot. */
static cudaError_t launch_mem_check(const struct rt_exec *x)
{
	int autofree = !!(x->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch);
	cudaError_t e = cudaSuccess;

	for (size_t i = 0; i < x->n && e == cudaSuccess; i++)
		if (x->steps[i].p.type == cudaGraphNodeTypeMemAlloc)
			e = rt_gmem_launch_check(x->steps[i].p.u.mem.mem, autofree);
	return e;
}

static int has_mem_steps(const struct rt_exec *x)
{
	for (size_t i = 0; i < x->n; i++)
		if (is_mem_step(&x->steps[i]))
			return 1;
	return 0;
}

/* A graph launched into a capturing stream becomes a child graph node of
 * the capture (CUDA 12 does the same); a graph with memory nodes cannot be
 * a child, so that capture fails as for an operation it cannot take. */
static cudaError_t capture_launch(struct rt_device *d, struct ag_stream *s,
				  const struct rt_exec *x)
{
	static int said;
	struct rt_node_params p = { .type = cudaGraphNodeTypeGraph };
	int captured;
	cudaError_t e;

	pthread_mutex_lock(&rt_graph_lock);
	p.u.child = has_mem_steps(x) ? NULL : rt_exec_to_graph(x);
	pthread_mutex_unlock(&rt_graph_lock);
	if (!p.u.child)
		rt_warn_once(&said, "launching a graph with memory nodes into a stream capture "
			     "is not supported yet");
	e = rt_capture_op(d, s, p.u.child ? &p : NULL, &captured);
	if (p.u.child)
		rt_graph_free(p.u.child);
	return e;
}

/* Launches of one executable graph run in order whatever their streams
 * (CUDA orders each launch after the earlier ones): a launch on another
 * stream than the last waits for the event the last one recorded. */
static cudaError_t ordered_launch(struct rt_exec *x, struct ag_stream *s, cudaStream_t stream)
{
	cudaError_t e = cudaSuccess;

	if (x->done && x->last != s)
		e = cudaStreamWaitEvent(stream, x->done, 0);
	if (e == cudaSuccess)
		e = launch_mem_check(x);
	if (e == cudaSuccess)
		e = replay_exec(x, stream);
	if (e == cudaSuccess && !x->done)
		e = cudaEventCreateWithFlags(&x->done, cudaEventDisableTiming);
	if (e == cudaSuccess)
		e = cudaEventRecord(x->done, stream);
	if (e == cudaSuccess)
		x->last = s;
	return e;
}

static cudaError_t graph_launch(cudaGraphExec_t graphExec, cudaStream_t stream,
				int per_thread_default)
{
	struct rt_device *d;
	struct ag_stream *s;
	struct rt_exec *x;
	cudaError_t e = rt_stream_get(stream, per_thread_default, &d, &s);

	if (e != cudaSuccess)
		return rt_result(d, e);
	pthread_mutex_lock(&rt_graph_lock);
	x = rt_graph_find(graphExec, RT_TAG_EXEC);
	pthread_mutex_unlock(&rt_graph_lock);
	if (!x)
		return rt_error(cudaErrorInvalidValue);
	if (s && rt_capture_member(s))
		return rt_result(d, capture_launch(d, s, x));
	pthread_mutex_lock(&x->launch_lock);
	e = ordered_launch(x, s, stream);
	pthread_mutex_unlock(&x->launch_lock);
	return e == cudaSuccess ? e : rt_error(e);
}

RT_API cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	return graph_launch(graphExec, stream, 0);
}

RT_API cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	return graph_launch(graphExec, stream ? stream : cudaStreamPerThread, 1);
}

/* Nothing to upload: the executable graph lives in the runtime. */
static cudaError_t upload(cudaGraphExec_t graphExec)
{
	struct rt_exec *x;

	pthread_mutex_lock(&rt_graph_lock);
	x = rt_graph_find(graphExec, RT_TAG_EXEC);
	pthread_mutex_unlock(&rt_graph_lock);
	return x ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	return upload(graphExec);
}

RT_API cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	return upload(graphExec);
}

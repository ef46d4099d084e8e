/*
 * graph.c - CUDA graphs: nodes and their dependencies, built explicitly
 * (cudaGraphAdd*Node) or by stream capture, instantiated into an
 * executable graph and launched on a stream.
 *
 * A graph owns its nodes; a node owns a copy of its parameters (a kernel
 * node its packed .param block, copied when the node is added, as a driver
 * does).  Instantiation orders the nodes topologically (a cycle is refused)
 * and copies their parameters into the executable graph, so later changes
 * to the graph do not reach it.  A launch queues the nodes in that order on
 * the launch stream through the same calls a program would make, so a
 * graph needs nothing from the backend that a stream does not.
 */
#include "graph.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

struct rt_node {
	struct rt_graph *g;
	size_t index;                  /* in g->nodes: the order of creation */
	struct rt_node_params p;
	struct rt_node **deps;         /* incoming edges */
	size_t ndeps, capdeps;
	void **args;                   /* kernelParams handed out by GetParams */
};

struct rt_graph {
	struct rt_node **nodes;
	size_t n, cap;
};

/* An executable graph remembers the shape it was made from, by creation
 * index, so that cudaGraphExecUpdate can pair a graph's nodes with it. */
struct rt_exec {
	struct rt_node **src;          /* the graph's node each step came from */
	struct rt_node_params *steps;  /* topological order */
	size_t *order;                 /* creation index of each step's node */
	size_t *edge_start;            /* node k's dependencies are ... */
	size_t *edges;                 /* ... edges[edge_start[k] .. edge_start[k + 1]) */
	size_t n;
};

/* Live graphs, nodes and executable graphs: a stale or garbage handle is
 * cudaErrorInvalidValue, never a crash. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_ptrmap live;
static char tag_graph, tag_node, tag_exec;

static void *find(const void *h, const char *tag)
{
	return h && rt_ptrmap_get(&live, h) == tag ? (void *)h : NULL;
}

/* The parameters, with what they point to copied. */
static void params_copy(struct rt_node_params *dst, const struct rt_node_params *src)
{
	*dst = *src;
	if (src->type == cudaGraphNodeTypeKernel) {
		void *buf = xmalloc(src->u.kernel.bytes ? src->u.kernel.bytes : 1);

		memcpy(buf, src->u.kernel.params, src->u.kernel.bytes);
		dst->u.kernel.params = buf;
	}
}

static void params_free(struct rt_node_params *p)
{
	if (p->type == cudaGraphNodeTypeKernel)
		free((void *)p->u.kernel.params);
}

struct rt_graph *rt_graph_new(void)
{
	struct rt_graph *g = xcalloc(1, sizeof(*g));

	pthread_mutex_lock(&lock);
	rt_ptrmap_put(&live, g, &tag_graph);
	pthread_mutex_unlock(&lock);
	return g;
}

static void node_free(struct rt_node *n)
{
	rt_ptrmap_del(&live, n);
	params_free(&n->p);
	free(n->deps);
	free(n->args);
	free(n);
}

void rt_graph_free(struct rt_graph *g)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < g->n; i++)
		node_free(g->nodes[i]);
	rt_ptrmap_del(&live, g);
	pthread_mutex_unlock(&lock);
	free(g->nodes);
	free(g);
}

static void add_dep(struct rt_node *n, struct rt_node *dep)
{
	if (n->ndeps == n->capdeps) {
		n->capdeps = n->capdeps ? 2 * n->capdeps : 4;
		n->deps = xrealloc(n->deps, n->capdeps * sizeof(*n->deps));
	}
	n->deps[n->ndeps++] = dep;
}

static int has_dep(const struct rt_node *n, const struct rt_node *dep)
{
	for (size_t i = 0; i < n->ndeps; i++)
		if (n->deps[i] == dep)
			return 1;
	return 0;
}

/* Dependencies must be distinct nodes of g.  The caller locks. */
static cudaError_t check_deps(struct rt_graph *g, struct rt_node *const *deps, size_t n)
{
	if (n && !deps)
		return cudaErrorInvalidValue;
	for (size_t i = 0; i < n; i++) {
		struct rt_node *d = find(deps[i], &tag_node);

		if (!d || d->g != g)
			return cudaErrorInvalidValue;
		for (size_t j = 0; j < i; j++)
			if (deps[j] == d)
				return cudaErrorInvalidValue;
	}
	return cudaSuccess;
}

static cudaError_t graph_add_locked(struct rt_graph *g, const struct rt_node_params *p,
				    struct rt_node *const *deps, size_t ndeps,
				    struct rt_node **out)
{
	struct rt_node *n;
	cudaError_t e = check_deps(g, deps, ndeps);

	if (e != cudaSuccess)
		return e;
	n = xcalloc(1, sizeof(*n));
	n->g = g;
	n->index = g->n;
	params_copy(&n->p, p);
	for (size_t i = 0; i < ndeps; i++)
		add_dep(n, deps[i]);
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 16;
		g->nodes = xrealloc(g->nodes, g->cap * sizeof(*g->nodes));
	}
	g->nodes[g->n++] = n;
	rt_ptrmap_put(&live, n, &tag_node);
	*out = n;
	return cudaSuccess;
}

cudaError_t rt_graph_add(struct rt_graph *g, const struct rt_node_params *p,
			 struct rt_node *const *deps, size_t ndeps, struct rt_node **out)
{
	cudaError_t e;

	pthread_mutex_lock(&lock);
	e = graph_add_locked(g, p, deps, ndeps, out);
	pthread_mutex_unlock(&lock);
	return e;
}

/* A walk up from b, visiting each ancestor once. */
int rt_node_precedes(const struct rt_node *a, const struct rt_node *b)
{
	struct rt_ptrmap seen = { 0 };
	const struct rt_node **stack = xmalloc(sizeof(*stack));
	size_t n = 0, cap = 1;
	int found = 0;

	stack[n++] = b;
	while (n && !found) {
		const struct rt_node *x = stack[--n];

		found = x == a;
		for (size_t i = 0; i < x->ndeps; i++) {
			if (rt_ptrmap_get(&seen, x->deps[i]))
				continue;
			rt_ptrmap_put(&seen, x->deps[i], x->deps[i]);
			if (n == cap)
				stack = xrealloc(stack, (cap *= 2) * sizeof(*stack));
			stack[n++] = x->deps[i];
		}
	}
	free(stack);
	rt_ptrmap_free(&seen);
	return found;
}

RT_API cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
	if (!pGraph || flags)
		return rt_error(cudaErrorInvalidValue);
	*pGraph = (cudaGraph_t)rt_graph_new();
	return cudaSuccess;
}

RT_API cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
	struct rt_graph *g;

	pthread_mutex_lock(&lock);
	g = find(graph, &tag_graph);
	pthread_mutex_unlock(&lock);
	if (!g)
		return rt_error(cudaErrorInvalidValue);
	rt_graph_free(g);
	return cudaSuccess;
}

/* The common part of every cudaGraphAdd*Node call. */
static cudaError_t add_node(cudaGraphNode_t *pNode, cudaGraph_t graph,
			    const cudaGraphNode_t *deps, size_t ndeps,
			    const struct rt_node_params *p)
{
	struct rt_graph *g;
	cudaError_t e = cudaErrorInvalidValue;

	if (!pNode)
		return rt_error(e);
	pthread_mutex_lock(&lock);
	g = find(graph, &tag_graph);
	if (g)
		e = graph_add_locked(g, p, (struct rt_node *const *)deps, ndeps,
				     (struct rt_node **)pNode);
	pthread_mutex_unlock(&lock);
	return rt_error(e);
}

/* A kernel node's parameters from cudaKernelNodeParams: the arguments are
 * packed now, with the kernel's layout on the current device. */
static cudaError_t kernel_params(const struct cudaKernelNodeParams *kp,
				 struct rt_node_params *p)
{
	static int said;
	struct rt_device *d;
	void *buf;
	uint32_t bytes;
	cudaError_t e;

	memset(p, 0, sizeof(*p));
	if (!kp)
		return cudaErrorInvalidValue;
	if (kp->extra) {
		rt_warn_once(&said, "kernel node arguments in the \"extra\" form are not supported yet");
		return cudaErrorNotSupported;
	}
	memset(p, 0, sizeof(*p));
	p->type = cudaGraphNodeTypeKernel;
	p->u.kernel.k = rt_kernel_find(kp->func);
	if (!p->u.kernel.k)
		return cudaErrorInvalidDeviceFunction;
	e = rt_current(&d);
	if (e == cudaSuccess)
		e = rt_kernel_pack(p->u.kernel.k, d, kp->kernelParams, &buf, &bytes);
	if (e != cudaSuccess)
		return e;
	p->u.kernel.func = kp->func;
	p->u.kernel.grid = kp->gridDim;
	p->u.kernel.block = kp->blockDim;
	p->u.kernel.shared = kp->sharedMemBytes;
	p->u.kernel.params = buf;
	p->u.kernel.bytes = bytes;
	return cudaSuccess;
}

RT_API cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					  const cudaGraphNode_t *pDependencies,
					  size_t numDependencies,
					  const struct cudaKernelNodeParams *pNodeParams)
{
	struct rt_node_params p;
	cudaError_t e = kernel_params(pNodeParams, &p);

	if (e != cudaSuccess)
		return rt_error(e);
	e = add_node(pGraphNode, graph, pDependencies, numDependencies, &p);
	params_free(&p);
	return e;
}

static cudaError_t copy_params(const struct cudaMemcpy3DParms *cp, struct rt_node_params *p)
{
	static int said;

	memset(p, 0, sizeof(*p));
	if (!cp)
		return cudaErrorInvalidValue;
	if (cp->srcArray || cp->dstArray) {
		rt_warn_once(&said, "CUDA arrays are not supported yet (memcpy node)");
		return cudaErrorNotSupported;
	}
	if ((unsigned)cp->kind > cudaMemcpyDefault)
		return cudaErrorInvalidMemcpyDirection;
	memset(p, 0, sizeof(*p));
	p->type = cudaGraphNodeTypeMemcpy;
	p->u.copy = *cp;
	return cudaSuccess;
}

RT_API cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					  const cudaGraphNode_t *pDependencies,
					  size_t numDependencies,
					  const struct cudaMemcpy3DParms *pCopyParams)
{
	struct rt_node_params p;
	cudaError_t e = copy_params(pCopyParams, &p);

	if (e != cudaSuccess)
		return rt_error(e);
	return add_node(pGraphNode, graph, pDependencies, numDependencies, &p);
}

/* A 1D copy as the 3D parameters memcpy nodes keep. */
static struct cudaMemcpy3DParms copy_1d(void *dst, const void *src, size_t count,
					enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms cp = { 0 };

	cp.srcPtr.ptr = (void *)src;
	cp.srcPtr.pitch = cp.srcPtr.xsize = count;
	cp.srcPtr.ysize = 1;
	cp.dstPtr.ptr = dst;
	cp.dstPtr.pitch = cp.dstPtr.xsize = count;
	cp.dstPtr.ysize = 1;
	cp.extent.width = count;
	cp.extent.height = cp.extent.depth = 1;
	cp.kind = kind;
	return cp;
}

RT_API cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					    const cudaGraphNode_t *pDependencies,
					    size_t numDependencies, void *dst, const void *src,
					    size_t count, enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms cp = copy_1d(dst, src, count, kind);

	return cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &cp);
}

static cudaError_t fill_params(const struct cudaMemsetParams *m, struct rt_node_params *p)
{
	memset(p, 0, sizeof(*p));
	if (!m || !m->dst || (m->elementSize != 1 && m->elementSize != 2 && m->elementSize != 4))
		return cudaErrorInvalidValue;
	if (m->height > 1 && m->pitch < m->width * m->elementSize)
		return cudaErrorInvalidValue;
	p->type = cudaGraphNodeTypeMemset;
	p->u.fill = *m;
	return cudaSuccess;
}

RT_API cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					  const cudaGraphNode_t *pDependencies,
					  size_t numDependencies,
					  const struct cudaMemsetParams *pMemsetParams)
{
	struct rt_node_params p;
	cudaError_t e = fill_params(pMemsetParams, &p);

	if (e != cudaSuccess)
		return rt_error(e);
	return add_node(pGraphNode, graph, pDependencies, numDependencies, &p);
}

static cudaError_t host_params(const struct cudaHostNodeParams *hp, struct rt_node_params *p)
{
	memset(p, 0, sizeof(*p));
	if (!hp || !hp->fn)
		return cudaErrorInvalidValue;
	p->type = cudaGraphNodeTypeHost;
	p->u.host = *hp;
	return cudaSuccess;
}

RT_API cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					const cudaGraphNode_t *pDependencies,
					size_t numDependencies,
					const struct cudaHostNodeParams *pNodeParams)
{
	struct rt_node_params p;
	cudaError_t e = host_params(pNodeParams, &p);

	if (e != cudaSuccess)
		return rt_error(e);
	return add_node(pGraphNode, graph, pDependencies, numDependencies, &p);
}

RT_API cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					 const cudaGraphNode_t *pDependencies,
					 size_t numDependencies)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeEmpty };

	return add_node(pGraphNode, graph, pDependencies, numDependencies, &p);
}

static cudaError_t add_event_node(cudaGraphNode_t *pNode, cudaGraph_t graph,
				  const cudaGraphNode_t *deps, size_t ndeps, cudaEvent_t event,
				  enum cudaGraphNodeType type)
{
	struct rt_node_params p = { .type = type };
	struct rt_device *d;
	struct ag_event *e;

	if (rt_event_get(event, &d, &e) != cudaSuccess)
		return rt_error(cudaErrorInvalidValue);
	p.u.event = event;
	return add_node(pNode, graph, deps, ndeps, &p);
}

RT_API cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					       const cudaGraphNode_t *pDependencies,
					       size_t numDependencies, cudaEvent_t event)
{
	return add_event_node(pGraphNode, graph, pDependencies, numDependencies, event,
			      cudaGraphNodeTypeEventRecord);
}

RT_API cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					     const cudaGraphNode_t *pDependencies,
					     size_t numDependencies, cudaEvent_t event)
{
	return add_event_node(pGraphNode, graph, pDependencies, numDependencies, event,
			      cudaGraphNodeTypeWaitEvent);
}

/* Edge data other than all zeros (programmatic ports) is not supported. */
static int plain_edges(const cudaGraphEdgeData *ed, size_t n)
{
	static const cudaGraphEdgeData zero;

	for (size_t i = 0; ed && i < n; i++)
		if (memcmp(&ed[i], &zero, sizeof(zero)))
			return 0;
	return 1;
}

/* An edge from a to b is refused when either is not a node of g, when it
 * exists, or when it would close a cycle.  The caller locks. */
static int edge_allowed(struct rt_graph *g, struct rt_node *a, struct rt_node *b)
{
	return a && b && a->g == g && b->g == g && !has_dep(b, a) && !rt_node_precedes(b, a);
}

/* All the edges or none: an edge that would be refused leaves g as it was
 * (the edges added before it are taken back). */
RT_API cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
					    const cudaGraphNode_t *to,
					    const cudaGraphEdgeData *edgeData,
					    size_t numDependencies)
{
	struct rt_graph *g;
	size_t added = 0;
	int ok;

	if (numDependencies && (!from || !to))
		return rt_error(cudaErrorInvalidValue);
	if (!plain_edges(edgeData, numDependencies))
		return rt_error(cudaErrorNotSupported);
	pthread_mutex_lock(&lock);
	g = find(graph, &tag_graph);
	ok = g != NULL;
	while (ok && added < numDependencies) {
		struct rt_node *a = find(from[added], &tag_node), *b = find(to[added], &tag_node);

		ok = edge_allowed(g, a, b);
		if (ok) {
			add_dep(b, a);
			added++;
		}
	}
	while (!ok && added--)
		((struct rt_node *)to[added])->ndeps--;   /* each was appended last */
	pthread_mutex_unlock(&lock);
	return ok ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

/* The list-returning calls: NULL asks for the count; a longer array is
 * padded with NULL and *num says how many are real. */
static void hand_out(struct rt_node **src, size_t n, cudaGraphNode_t *out,
		     cudaGraphEdgeData *edges, size_t *num)
{
	if (out) {
		for (size_t i = 0; i < *num; i++) {
			out[i] = i < n ? (cudaGraphNode_t)src[i] : NULL;
			if (edges)
				memset(&edges[i], 0, sizeof(edges[i]));
		}
		if (n < *num)
			*num = n;
		return;
	}
	*num = n;
}

RT_API cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
				     size_t *numNodes)
{
	struct rt_graph *g;

	if (!numNodes)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&lock);
	g = find(graph, &tag_graph);
	if (g)
		hand_out(g->nodes, g->n, nodes, NULL, numNodes);
	pthread_mutex_unlock(&lock);
	return g ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

/* Nodes of g picked by keep(node, arg), in the graph's order (caller frees). */
static size_t select_nodes(struct rt_graph *g, int (*keep)(struct rt_node *, const void *),
			   const void *arg, struct rt_node ***out)
{
	size_t k = 0;

	*out = xmalloc((g->n ? g->n : 1) * sizeof(**out));
	for (size_t i = 0; i < g->n; i++)
		if (keep(g->nodes[i], arg))
			(*out)[k++] = g->nodes[i];
	return k;
}

static int is_root(struct rt_node *n, const void *unused)
{
	return n->ndeps == 0;
}

static int depends_on(struct rt_node *n, const void *dep)
{
	return has_dep(n, dep);
}

RT_API cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
					 size_t *pNumRootNodes)
{
	struct rt_node **sel;
	struct rt_graph *g;

	if (!pNumRootNodes)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&lock);
	g = find(graph, &tag_graph);
	if (g) {
		size_t k = select_nodes(g, is_root, NULL, &sel);

		hand_out(sel, k, pRootNodes, NULL, pNumRootNodes);
		free(sel);
	}
	pthread_mutex_unlock(&lock);
	return g ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from,
				     cudaGraphNode_t *to, cudaGraphEdgeData *edgeData,
				     size_t *numEdges)
{
	struct rt_graph *g;
	size_t k = 0;

	if (!numEdges || (!from != !to))
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&lock);
	g = find(graph, &tag_graph);
	for (size_t i = 0; g && i < g->n; i++) {
		struct rt_node *n = g->nodes[i];

		for (size_t j = 0; j < n->ndeps; j++, k++) {
			if (!from || k >= *numEdges)
				continue;
			from[k] = (cudaGraphNode_t)n->deps[j];
			to[k] = (cudaGraphNode_t)n;
			if (edgeData)
				memset(&edgeData[k], 0, sizeof(edgeData[k]));
		}
	}
	pthread_mutex_unlock(&lock);
	if (!g)
		return rt_error(cudaErrorInvalidValue);
	for (size_t i = k; from && i < *numEdges; i++)
		from[i] = to[i] = NULL;
	if (!from || k < *numEdges)
		*numEdges = k;
	return cudaSuccess;
}

RT_API cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
	struct rt_node *n;

	pthread_mutex_lock(&lock);
	n = find(node, &tag_node);
	if (n && pType)
		*pType = n->p.type;
	pthread_mutex_unlock(&lock);
	return n && pType ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node,
						cudaGraphNode_t *pDependencies,
						cudaGraphEdgeData *edgeData,
						size_t *pNumDependencies)
{
	struct rt_node *n;

	if (!pNumDependencies)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&lock);
	n = find(node, &tag_node);
	if (n)
		hand_out(n->deps, n->ndeps, pDependencies, edgeData, pNumDependencies);
	pthread_mutex_unlock(&lock);
	return n ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node,
						  cudaGraphNode_t *pDependentNodes,
						  cudaGraphEdgeData *edgeData,
						  size_t *pNumDependentNodes)
{
	struct rt_node **sel, *n;

	if (!pNumDependentNodes)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&lock);
	n = find(node, &tag_node);
	if (n) {
		size_t k = select_nodes(n->g, depends_on, n, &sel);

		hand_out(sel, k, pDependentNodes, edgeData, pNumDependentNodes);
		free(sel);
	}
	pthread_mutex_unlock(&lock);
	return n ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

/* Kernel node parameters as the program sees them: kernelParams points
 * into the node's own copy of the arguments. */
RT_API cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
						struct cudaKernelNodeParams *pNodeParams)
{
	const struct ag_func_info *info;
	struct rt_device *d;
	struct ag_func *f;
	struct rt_node *n;
	cudaError_t e = cudaErrorInvalidValue;

	pthread_mutex_lock(&lock);
	n = find(node, &tag_node);
	if (n && pNodeParams && n->p.type == cudaGraphNodeTypeKernel) {
		e = rt_current(&d);
		if (e == cudaSuccess)
			e = rt_kernel_func(n->p.u.kernel.k, d, &f, &info);
	}
	if (e == cudaSuccess) {
		free(n->args);
		n->args = xcalloc(info->nparams + 1, sizeof(*n->args));
		for (uint32_t i = 0; i < info->nparams; i++)
			n->args[i] = (char *)n->p.u.kernel.params + info->params[i].offset;
		pNodeParams->func = (void *)n->p.u.kernel.func;
		pNodeParams->gridDim = n->p.u.kernel.grid;
		pNodeParams->blockDim = n->p.u.kernel.block;
		pNodeParams->sharedMemBytes = n->p.u.kernel.shared;
		pNodeParams->kernelParams = n->args;
		pNodeParams->extra = NULL;
	}
	pthread_mutex_unlock(&lock);
	return rt_error(e);
}

/* A node's parameters of the given type (the union's member at its start). */
static cudaError_t get_params(cudaGraphNode_t node, enum cudaGraphNodeType type, void *out,
			      size_t size)
{
	struct rt_node *n;

	pthread_mutex_lock(&lock);
	n = find(node, &tag_node);
	if (n && out && n->p.type == type)
		memcpy(out, &n->p.u, size);
	else
		n = NULL;
	pthread_mutex_unlock(&lock);
	return n ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
						struct cudaMemcpy3DParms *pNodeParams)
{
	return get_params(node, cudaGraphNodeTypeMemcpy, pNodeParams, sizeof(*pNodeParams));
}

RT_API cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node,
						struct cudaMemsetParams *pNodeParams)
{
	return get_params(node, cudaGraphNodeTypeMemset, pNodeParams, sizeof(*pNodeParams));
}

RT_API cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node,
					      struct cudaHostNodeParams *pNodeParams)
{
	return get_params(node, cudaGraphNodeTypeHost, pNodeParams, sizeof(*pNodeParams));
}

/* Kahn's algorithm: order[] gets node indices, each after its
 * dependencies.  Returns 0 when a cycle leaves nodes unordered. */
static int topo_order(const struct rt_graph *g, size_t *order)
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
			if (has_dep(g->nodes[i], done) && --waiting[i] == 0)
				order[tail++] = i;
	}
	free(waiting);
	return tail == g->n;
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

static cudaError_t instantiate(cudaGraphExec_t *pExec, cudaGraph_t graph,
			       unsigned long long flags)
{
	static int said;
	struct rt_exec *x;
	struct rt_graph *g;
	size_t *order;
	int ok;

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
	pthread_mutex_lock(&lock);
	g = find(graph, &tag_graph);
	if (!g) {
		pthread_mutex_unlock(&lock);
		return rt_error(cudaErrorInvalidValue);
	}
	order = xmalloc((g->n ? g->n : 1) * sizeof(*order));
	ok = topo_order(g, order);
	x = NULL;
	if (ok) {
		x = xcalloc(1, sizeof(*x));
		x->n = g->n;
		x->src = xmalloc((g->n ? g->n : 1) * sizeof(*x->src));
		x->steps = xmalloc((g->n ? g->n : 1) * sizeof(*x->steps));
		for (size_t i = 0; i < g->n; i++) {
			x->src[i] = g->nodes[order[i]];
			params_copy(&x->steps[i], &x->src[i]->p);
		}
		x->order = order;
		order = NULL;
		record_edges(x, g);
		rt_ptrmap_put(&live, x, &tag_exec);
		*pExec = (cudaGraphExec_t)x;
	}
	pthread_mutex_unlock(&lock);
	free(order);
	return ok ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
					unsigned long long flags)
{
	return instantiate(pGraphExec, graph, flags);
}

RT_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
						 cudaGraph_t graph, unsigned long long flags)
{
	return instantiate(pGraphExec, graph, flags);
}

RT_API cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
	struct rt_exec *x;

	pthread_mutex_lock(&lock);
	x = find(graphExec, &tag_exec);
	if (x)
		rt_ptrmap_del(&live, x);
	pthread_mutex_unlock(&lock);
	if (!x)
		return rt_error(cudaErrorInvalidValue);
	for (size_t i = 0; i < x->n; i++)
		params_free(&x->steps[i]);
	free(x->steps);
	free(x->src);
	free(x->order);
	free(x->edge_start);
	free(x->edges);
	free(x);
	return cudaSuccess;
}

/* Pairs g's nodes with x's by creation order: same count, same types, the
 * same dependencies in the same order. */
static enum cudaGraphExecUpdateResult same_shape(const struct rt_exec *x,
						 const struct rt_graph *g,
						 cudaGraphExecUpdateResultInfo *info)
{
	if (g->n != x->n)
		return cudaGraphExecUpdateErrorTopologyChanged;
	for (size_t i = 0; i < x->n; i++) {
		size_t k = x->order[i];
		struct rt_node *n = g->nodes[k];
		size_t first = x->edge_start[k];

		info->errorNode = (cudaGraphNode_t)n;
		if (n->p.type != x->steps[i].type)
			return cudaGraphExecUpdateErrorNodeTypeChanged;
		if (n->ndeps != x->edge_start[k + 1] - first)
			return cudaGraphExecUpdateErrorTopologyChanged;
		for (size_t j = 0; j < n->ndeps; j++) {
			if (n->deps[j]->index == x->edges[first + j])
				continue;
			info->errorFromNode = (cudaGraphNode_t)n->deps[j];
			return cudaGraphExecUpdateErrorTopologyChanged;
		}
	}
	info->errorNode = NULL;
	return cudaGraphExecUpdateSuccess;
}

/* The parameters of a graph of the same shape replace the executable
 * graph's, as when each step's node parameters were set. */
RT_API cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
				       cudaGraphExecUpdateResultInfo *resultInfo)
{
	cudaGraphExecUpdateResultInfo info = { cudaGraphExecUpdateError, NULL, NULL };
	struct rt_exec *x;
	struct rt_graph *g;

	pthread_mutex_lock(&lock);
	x = find(hGraphExec, &tag_exec);
	g = find(hGraph, &tag_graph);
	if (x && g)
		info.result = same_shape(x, g, &info);
	for (size_t i = 0; info.result == cudaGraphExecUpdateSuccess && i < x->n; i++) {
		params_free(&x->steps[i]);
		params_copy(&x->steps[i], &g->nodes[x->order[i]]->p);
	}
	pthread_mutex_unlock(&lock);
	if (resultInfo)
		*resultInfo = info;
	if (!x || !g)
		return rt_error(cudaErrorInvalidValue);
	return info.result == cudaGraphExecUpdateSuccess
		       ? cudaSuccess : rt_error(cudaErrorGraphExecUpdateFailure);
}

/* New parameters for a node of a graph (x NULL), or for the step an
 * executable graph made of it; the node's type must stay.  built is what
 * building p returned; p's copies are freed here. */
static cudaError_t set_params(cudaGraphExec_t exec, cudaGraphNode_t node, cudaError_t built,
			      struct rt_node_params *p)
{
	struct rt_node_params *dst = NULL;
	struct rt_exec *x;
	struct rt_node *n;

	pthread_mutex_lock(&lock);
	x = exec ? find(exec, &tag_exec) : NULL;
	n = exec ? NULL : find(node, &tag_node);
	for (size_t i = 0; x && i < x->n; i++)
		if (x->src[i] == (struct rt_node *)node)
			dst = &x->steps[i];
	if (n)
		dst = &n->p;
	if (built == cudaSuccess && dst && dst->type == p->type) {
		params_free(dst);
		params_copy(dst, p);
	} else if (built == cudaSuccess) {
		built = cudaErrorInvalidValue;
	}
	pthread_mutex_unlock(&lock);
	params_free(p);
	return rt_error(built);
}

RT_API cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
						const struct cudaKernelNodeParams *pNodeParams)
{
	struct rt_node_params p;

	return set_params(NULL, node, kernel_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec,
						    cudaGraphNode_t node,
						    const struct cudaKernelNodeParams *pNodeParams)
{
	struct rt_node_params p;

	return set_params(hGraphExec, node, kernel_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
						const struct cudaMemcpy3DParms *pNodeParams)
{
	struct rt_node_params p;

	return set_params(NULL, node, copy_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec,
						    cudaGraphNode_t node,
						    const struct cudaMemcpy3DParms *pNodeParams)
{
	struct rt_node_params p;

	return set_params(hGraphExec, node, copy_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst,
						  const void *src, size_t count,
						  enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms cp = copy_1d(dst, src, count, kind);

	return cudaGraphMemcpyNodeSetParams(node, &cp);
}

RT_API cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec,
						      cudaGraphNode_t node, void *dst,
						      const void *src, size_t count,
						      enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms cp = copy_1d(dst, src, count, kind);

	return cudaGraphExecMemcpyNodeSetParams(hGraphExec, node, &cp);
}

RT_API cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
						const struct cudaMemsetParams *pNodeParams)
{
	struct rt_node_params p;

	return set_params(NULL, node, fill_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec,
						    cudaGraphNode_t node,
						    const struct cudaMemsetParams *pNodeParams)
{
	struct rt_node_params p;

	return set_params(hGraphExec, node, fill_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node,
					      const struct cudaHostNodeParams *pNodeParams)
{
	struct rt_node_params p;

	return set_params(NULL, node, host_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec,
						  cudaGraphNode_t node,
						  const struct cudaHostNodeParams *pNodeParams)
{
	struct rt_node_params p;

	return set_params(hGraphExec, node, host_params(pNodeParams, &p), &p);
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

static cudaError_t replay(const struct rt_node_params *p, cudaStream_t stream)
{
	switch (p->type) {
	case cudaGraphNodeTypeKernel:
		return rt_launch_packed(p->u.kernel.k, p->u.kernel.grid, p->u.kernel.block,
					p->u.kernel.shared, p->u.kernel.cooperative,
					p->u.kernel.params,
					p->u.kernel.bytes, stream);
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
	default:
		return cudaSuccess;
	}
}

/* The nodes in topological order on one stream: each runs after all its
 * dependencies, which is what the graph asks. */
static cudaError_t graph_launch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	struct rt_exec *x;
	cudaError_t e = cudaSuccess;

	pthread_mutex_lock(&lock);
	x = find(graphExec, &tag_exec);
	pthread_mutex_unlock(&lock);
	if (!x)
		return rt_error(cudaErrorInvalidValue);
	for (size_t i = 0; i < x->n && e == cudaSuccess; i++)
		e = replay(&x->steps[i], stream);
	return e;
}

RT_API cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	return graph_launch(graphExec, stream);
}

RT_API cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	return graph_launch(graphExec, stream ? stream : cudaStreamPerThread);
}

/* Nothing to upload: the executable graph lives in the runtime. */
static cudaError_t upload(cudaGraphExec_t graphExec)
{
	struct rt_exec *x;

	pthread_mutex_lock(&lock);
	x = find(graphExec, &tag_exec);
	pthread_mutex_unlock(&lock);
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

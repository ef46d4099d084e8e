/*
 * graph.c - CUDA graphs as structures: graphs own their nodes, nodes their
 * parameters and incoming edges.  Building (the edges, removing nodes and
 * edges), the shape queries, cloning and child graph nodes are here; the
 * cudaGraphAdd*Node calls are in graph_nodes.c, instantiation and launch
 * in graph_exec.c.
 *
 * A node owns a copy of its parameters: a kernel node its packed .param
 * block, copied when the node is added, as a driver does; a child graph
 * node a clone of the graph it was given (CUDA clones it at add time); an
 * allocation or free node a reference to the graph memory concerned.
 */
#include "graph_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

pthread_mutex_t rt_graph_lock = PTHREAD_MUTEX_INITIALIZER;

/* Live graphs, nodes and executable graphs, each mapped to its tag. */
static struct rt_ptrmap live;
static const char tags[RT_TAG_EXEC + 1];

void *rt_graph_find(const void *h, enum rt_graph_tag tag)
{
	return h && rt_ptrmap_get(&live, h) == &tags[tag] ? (void *)h : NULL;
}

void rt_graph_track(const void *h, enum rt_graph_tag tag)
{
	rt_ptrmap_put(&live, h, (void *)&tags[tag]);
}

void rt_graph_untrack(const void *h)
{
	rt_ptrmap_del(&live, h);
}

static int is_mem_node(enum cudaGraphNodeType t)
{
	return t == cudaGraphNodeTypeMemAlloc || t == cudaGraphNodeTypeMemFree;
}

/* The parameters, with what they point to copied (or referenced). */
void rt_params_copy(struct rt_node_params *dst, const struct rt_node_params *src)
{
	*dst = *src;
	if (src->type == cudaGraphNodeTypeKernel) {
		void *buf = xmalloc(src->u.kernel.bytes ? src->u.kernel.bytes : 1);

		memcpy(buf, src->u.kernel.params, src->u.kernel.bytes);
		dst->u.kernel.params = buf;
	} else if (src->type == cudaGraphNodeTypeGraph && src->u.child) {
		dst->u.child = rt_graph_clone_locked(src->u.child);
		dst->u.child->owned = 1;
	} else if (is_mem_node(src->type)) {
		size_t bytes = src->u.mem.ndescs * sizeof(*src->u.mem.descs);

		rt_gmem_ref(src->u.mem.mem);
		dst->u.mem.descs = bytes ? memcpy(xmalloc(bytes), src->u.mem.descs, bytes) : NULL;
	}
}

void rt_params_free(struct rt_node_params *p)
{
	if (p->type == cudaGraphNodeTypeKernel) {
		free((void *)p->u.kernel.params);
	} else if (p->type == cudaGraphNodeTypeGraph && p->u.child) {
		rt_graph_free_locked(p->u.child);
	} else if (is_mem_node(p->type)) {
		rt_gmem_unref(p->u.mem.mem);
		free(p->u.mem.descs);
	}
}

struct rt_graph *rt_graph_new_locked(void)
{
	struct rt_graph *g = xcalloc(1, sizeof(*g));

	rt_graph_track(g, RT_TAG_GRAPH);
	return g;
}

struct rt_graph *rt_graph_new(void)
{
	struct rt_graph *g;

	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_new_locked();
	pthread_mutex_unlock(&rt_graph_lock);
	return g;
}

/* A memory node gives up its part in the allocation's bookkeeping. */
static void node_free(struct rt_node *n)
{
	if (n->p.type == cudaGraphNodeTypeMemAlloc)
		rt_gmem_set_owner(n->p.u.mem.mem, NULL, NULL);
	else if (n->p.type == cudaGraphNodeTypeMemFree)
		rt_gmem_unclaim_free(n->p.u.mem.mem, n->g);
	rt_graph_untrack(n);
	rt_params_free(&n->p);
	free(n->deps);
	free(n->args);
	free(n->attrs);
	free(n);
}

void rt_graph_free_locked(struct rt_graph *g)
{
	for (size_t i = 0; i < g->n; i++)
		node_free(g->nodes[i]);
	rt_user_refs_release(&g->urefs);
	rt_graph_untrack(g);
	free(g->nodes);
	free(g);
}

void rt_graph_free(struct rt_graph *g)
{
	pthread_mutex_lock(&rt_graph_lock);
	rt_graph_free_locked(g);
	pthread_mutex_unlock(&rt_graph_lock);
}

void rt_graph_add_edge(struct rt_node *n, struct rt_node *dep)
{
	if (n->ndeps == n->capdeps) {
		n->capdeps = n->capdeps ? 2 * n->capdeps : 4;
		n->deps = xrealloc(n->deps, n->capdeps * sizeof(*n->deps));
	}
	n->deps[n->ndeps++] = dep;
}

int rt_node_has_dep(const struct rt_node *n, const struct rt_node *dep)
{
	for (size_t i = 0; i < n->ndeps; i++)
		if (n->deps[i] == dep)
			return 1;
	return 0;
}

/* Dependencies must be distinct nodes of g. */
static cudaError_t check_deps(struct rt_graph *g, struct rt_node *const *deps, size_t n)
{
	if (n && !deps)
		return cudaErrorInvalidValue;
	for (size_t i = 0; i < n; i++) {
		struct rt_node *d = rt_graph_find(deps[i], RT_TAG_NODE);

		if (!d || d->g != g)
			return cudaErrorInvalidValue;
		for (size_t j = 0; j < i; j++)
			if (deps[j] == d)
				return cudaErrorInvalidValue;
	}
	return cudaSuccess;
}

cudaError_t rt_graph_check_nodes(struct rt_graph *g, const cudaGraphNode_t *nodes, size_t n)
{
	cudaError_t e = cudaErrorInvalidValue;

	pthread_mutex_lock(&rt_graph_lock);
	if (rt_graph_find(g, RT_TAG_GRAPH))
		e = check_deps(g, (struct rt_node *const *)nodes, n);
	pthread_mutex_unlock(&rt_graph_lock);
	return e;
}

/* A free node in the graph of its allocation must come after the
 * allocation node. */
static int after_alloc(struct rt_graph *g, struct rt_gmem *m, struct rt_node *const *deps,
		       size_t n)
{
	const struct rt_node *alloc = rt_gmem_owner_node(m, g);

	for (size_t i = 0; alloc && i < n; i++)
		if (rt_node_precedes(alloc, deps[i]))
			return 1;
	return !alloc;
}

/* What a memory node asks of its graph: a child graph's graph takes none
 * (CUDA refuses them there), and an allocation is freed once, after it. */
static cudaError_t check_mem_node(struct rt_graph *g, const struct rt_node_params *p,
				  struct rt_node *const *deps, size_t ndeps)
{
	if (g->owned || !p->u.mem.mem)
		return cudaErrorInvalidValue;
	if (p->type != cudaGraphNodeTypeMemFree)
		return cudaSuccess;
	if (!after_alloc(g, p->u.mem.mem, deps, ndeps))
		return cudaErrorInvalidValue;
	return rt_gmem_claim_free(p->u.mem.mem, g);
}

/* A child graph node's graph: a live graph without memory nodes. */
static int child_allowed(const struct rt_graph *child)
{
	return rt_graph_find(child, RT_TAG_GRAPH) && !child->nmem;
}

cudaError_t rt_graph_add_locked(struct rt_graph *g, const struct rt_node_params *p,
				struct rt_node *const *deps, size_t ndeps, struct rt_node **out)
{
	struct rt_node *n;
	cudaError_t e = check_deps(g, deps, ndeps);

	if (e == cudaSuccess && is_mem_node(p->type))
		e = check_mem_node(g, p, deps, ndeps);
	if (e == cudaSuccess && p->type == cudaGraphNodeTypeGraph && !child_allowed(p->u.child))
		e = cudaErrorInvalidValue;
	if (e != cudaSuccess)
		return e;
	n = xcalloc(1, sizeof(*n));
	n->g = g;
	n->index = g->n;
	rt_params_copy(&n->p, p);
	for (size_t i = 0; i < ndeps; i++)
		rt_graph_add_edge(n, deps[i]);
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 16;
		g->nodes = xrealloc(g->nodes, g->cap * sizeof(*g->nodes));
	}
	g->nodes[g->n++] = n;
	if (is_mem_node(p->type))
		g->nmem++;
	if (p->type == cudaGraphNodeTypeMemAlloc)
		rt_gmem_set_owner(p->u.mem.mem, g, n);
	rt_graph_track(n, RT_TAG_NODE);
	*out = n;
	return cudaSuccess;
}

cudaError_t rt_graph_add(struct rt_graph *g, const struct rt_node_params *p,
			 struct rt_node *const *deps, size_t ndeps, struct rt_node **out)
{
	cudaError_t e;

	pthread_mutex_lock(&rt_graph_lock);
	e = rt_graph_add_locked(g, p, deps, ndeps, out);
	pthread_mutex_unlock(&rt_graph_lock);
	return e;
}

cudaError_t rt_graph_add_checked(cudaGraphNode_t *pNode, cudaGraph_t graph,
				 const cudaGraphNode_t *deps, size_t ndeps,
				 const struct rt_node_params *p)
{
	struct rt_graph *g;
	cudaError_t e = cudaErrorInvalidValue;

	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_find(graph, RT_TAG_GRAPH);
	if (g && pNode)
		e = rt_graph_add_locked(g, p, (struct rt_node *const *)deps, ndeps,
					(struct rt_node **)pNode);
	pthread_mutex_unlock(&rt_graph_lock);
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

/* A child graph node's graph belongs to the node. */
RT_API cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
	struct rt_graph *g;
	int ok;

	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_find(graph, RT_TAG_GRAPH);
	ok = g && !g->owned;
	if (ok)
		rt_graph_free_locked(g);
	pthread_mutex_unlock(&rt_graph_lock);
	return ok ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}
/* Edge data other than all zeros (programmatic ports) is not supported. */
int rt_plain_edges(const cudaGraphEdgeData *ed, size_t n)
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
	return a && b && a->g == g && b->g == g && !rt_node_has_dep(b, a) &&
	       !rt_node_precedes(b, a);
}

/* All the edges or none: an edge that would be refused leaves g as it was
 * (the edges added before it are taken back). */
cudaError_t rt_graph_add_dependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
				      const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
				      size_t numDependencies)
{
	struct rt_graph *g;
	size_t added = 0;
	int ok;

	if (numDependencies && (!from || !to))
		return rt_error(cudaErrorInvalidValue);
	if (!rt_plain_edges(edgeData, numDependencies))
		return rt_error(cudaErrorNotSupported);
	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_find(graph, RT_TAG_GRAPH);
	ok = g != NULL;
	while (ok && added < numDependencies) {
		struct rt_node *a = rt_graph_find(from[added], RT_TAG_NODE);
		struct rt_node *b = rt_graph_find(to[added], RT_TAG_NODE);

		ok = edge_allowed(g, a, b);
		if (ok) {
			rt_graph_add_edge(b, a);
			added++;
		}
	}
	while (!ok && added--)
		((struct rt_node *)to[added])->ndeps--;   /* each was appended last */
	pthread_mutex_unlock(&rt_graph_lock);
	return ok ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

static void remove_edge(struct rt_node *n, const struct rt_node *dep)
{
	size_t i = 0;

	while (n->deps[i] != dep)
		i++;
	memmove(&n->deps[i], &n->deps[i + 1], (n->ndeps - i - 1) * sizeof(*n->deps));
	n->ndeps--;
}

/* The edge from[i] -> to[i] exists and is not named twice. */
static int edge_removable(struct rt_graph *g, const cudaGraphNode_t *from,
			  const cudaGraphNode_t *to, size_t i)
{
	struct rt_node *a = rt_graph_find(from[i], RT_TAG_NODE);
	struct rt_node *b = rt_graph_find(to[i], RT_TAG_NODE);

	for (size_t j = 0; j < i; j++)
		if (from[j] == from[i] && to[j] == to[i])
			return 0;
	return a && b && a->g == g && rt_node_has_dep(b, a);
}

/* All the edges or none.  A graph with memory nodes keeps its edges, and
 * an edge with data other than zeros exists nowhere. */
cudaError_t rt_graph_remove_dependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
					 const cudaGraphNode_t *to,
					 const cudaGraphEdgeData *edgeData, size_t numDependencies)
{
	struct rt_graph *g;
	int ok;

	if (numDependencies && (!from || !to))
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_find(graph, RT_TAG_GRAPH);
	ok = g && !g->nmem && rt_plain_edges(edgeData, numDependencies);
	for (size_t i = 0; ok && i < numDependencies; i++)
		ok = edge_removable(g, from, to, i);
	for (size_t i = 0; ok && i < numDependencies; i++)
		remove_edge((struct rt_node *)to[i], (struct rt_node *)from[i]);
	pthread_mutex_unlock(&rt_graph_lock);
	return ok ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

/* The node goes with its edges both ways; the nodes after it move up one
 * place in the order of creation. */
RT_API cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node)
{
	struct rt_node *n;
	struct rt_graph *g;
	int ok;

	pthread_mutex_lock(&rt_graph_lock);
	n = rt_graph_find(node, RT_TAG_NODE);
	ok = n && !n->g->nmem;
	if (ok) {
		g = n->g;
		for (size_t i = 0; i < g->n; i++)
			while (rt_node_has_dep(g->nodes[i], n))
				remove_edge(g->nodes[i], n);
		g->n--;
		for (size_t i = n->index; i < g->n; i++) {
			g->nodes[i] = g->nodes[i + 1];
			g->nodes[i]->index = i;
		}
		node_free(n);
	}
	pthread_mutex_unlock(&rt_graph_lock);
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
	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_find(graph, RT_TAG_GRAPH);
	if (g)
		hand_out(g->nodes, g->n, nodes, NULL, numNodes);
	pthread_mutex_unlock(&rt_graph_lock);
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
	return rt_node_has_dep(n, dep);
}

RT_API cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
					 size_t *pNumRootNodes)
{
	struct rt_node **sel;
	struct rt_graph *g;

	if (!pNumRootNodes)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_find(graph, RT_TAG_GRAPH);
	if (g) {
		size_t k = select_nodes(g, is_root, NULL, &sel);

		hand_out(sel, k, pRootNodes, NULL, pNumRootNodes);
		free(sel);
	}
	pthread_mutex_unlock(&rt_graph_lock);
	return g ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

cudaError_t rt_graph_get_edges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
			      cudaGraphEdgeData *edgeData, size_t *numEdges)
{
	struct rt_graph *g;
	size_t k = 0;

	if (!numEdges || (!from != !to))
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_find(graph, RT_TAG_GRAPH);
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
	pthread_mutex_unlock(&rt_graph_lock);
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

	pthread_mutex_lock(&rt_graph_lock);
	n = rt_graph_find(node, RT_TAG_NODE);
	if (n && pType)
		*pType = n->p.type;
	pthread_mutex_unlock(&rt_graph_lock);
	return n && pType ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

cudaError_t rt_graph_node_dependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
				       cudaGraphEdgeData *edgeData, size_t *pNumDependencies)
{
	struct rt_node *n;

	if (!pNumDependencies)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&rt_graph_lock);
	n = rt_graph_find(node, RT_TAG_NODE);
	if (n)
		hand_out(n->deps, n->ndeps, pDependencies, edgeData, pNumDependencies);
	pthread_mutex_unlock(&rt_graph_lock);
	return n ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

cudaError_t rt_graph_node_dependents(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
				     cudaGraphEdgeData *edgeData, size_t *pNumDependentNodes)
{
	struct rt_node **sel, *n;

	if (!pNumDependentNodes)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&rt_graph_lock);
	n = rt_graph_find(node, RT_TAG_NODE);
	if (n) {
		size_t k = select_nodes(n->g, depends_on, n, &sel);

		hand_out(sel, k, pDependentNodes, edgeData, pNumDependentNodes);
		free(sel);
	}
	pthread_mutex_unlock(&rt_graph_lock);
	return n ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

/* Kernel node parameters as the program sees them: kernelParams points
 * into the node's own copy of the arguments. */

/* The same nodes in the same order of creation, with the same edges;
 * child graphs are cloned in their turn.  g has no memory nodes. */
struct rt_graph *rt_graph_clone_locked(const struct rt_graph *g)
{
	struct rt_graph *c = rt_graph_new_locked();

	c->cap = c->n = g->n;
	c->nodes = xmalloc((g->n ? g->n : 1) * sizeof(*c->nodes));
	for (size_t i = 0; i < g->n; i++) {
		struct rt_node *n = xcalloc(1, sizeof(*n));

		n->g = c;
		n->index = i;
		n->cloned_from = g->nodes[i];
		rt_params_copy(&n->p, &g->nodes[i]->p);
		n->nattrs = g->nodes[i]->nattrs;
		if (n->nattrs)
			n->attrs = memcpy(xmalloc(n->nattrs * sizeof(*n->attrs)),
					  g->nodes[i]->attrs, n->nattrs * sizeof(*n->attrs));
		c->nodes[i] = n;
		rt_graph_track(n, RT_TAG_NODE);
	}
	for (size_t i = 0; i < g->n; i++)
		for (size_t j = 0; j < g->nodes[i]->ndeps; j++)
			rt_graph_add_edge(c->nodes[i], c->nodes[g->nodes[i]->deps[j]->index]);
	rt_user_refs_copy(&c->urefs, &g->urefs);
	return c;
}

/* CUDA does not clone graphs with allocation or free nodes. */
RT_API cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
	struct rt_graph *g;
	int ok;

	if (!pGraphClone)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_find(originalGraph, RT_TAG_GRAPH);
	ok = g && !g->nmem;
	if (ok)
		*pGraphClone = (cudaGraph_t)rt_graph_clone_locked(g);
	pthread_mutex_unlock(&rt_graph_lock);
	return ok ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
					    cudaGraph_t clonedGraph)
{
	struct rt_node *found = NULL;
	struct rt_graph *c;

	if (!pNode)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&rt_graph_lock);
	c = rt_graph_find(clonedGraph, RT_TAG_GRAPH);
	for (size_t i = 0; c && originalNode && i < c->n && !found; i++)
		if (c->nodes[i]->cloned_from == (const struct rt_node *)originalNode)
			found = c->nodes[i];
	pthread_mutex_unlock(&rt_graph_lock);
	if (!found)
		return rt_error(cudaErrorInvalidValue);
	*pNode = (cudaGraphNode_t)found;
	return cudaSuccess;
}

/*
 * graph_impl.h - what the graph files share among themselves and with no
 * one else: the graph, node and executable-graph structures, the lock that
 * guards them, and the set of live handles.
 *
 * graph.c owns graphs and nodes (building, edges, queries, cloning, child
 * graphs); graph_nodes.c the cudaGraphAdd*Node calls and their parameters;
 * graph_generic.c the calls on struct cudaGraphNodeParams and conditional
 * nodes; graph_exec.c instantiation, launch and updates; graph_mem.c the
 * memory of allocation nodes; graph_user.c user objects; graph_attr.c
 * kernel node attributes; graph_dot.c the DOT description.
 */
#ifndef AG_RT_GRAPH_IMPL_H
#define AG_RT_GRAPH_IMPL_H

#include "graph.h"

/* A kernel node attribute other than cooperative (graph_attr.c). */
struct rt_kattr {
	cudaLaunchAttributeID id;
	cudaLaunchAttributeValue val;
};

struct rt_node {
	struct rt_graph *g;
	size_t index;                  /* in g->nodes: the order of creation */
	struct rt_node_params p;
	struct rt_node **deps;         /* incoming edges */
	size_t ndeps, capdeps;
	void **args;                   /* kernelParams handed out by GetParams */
	const struct rt_node *cloned_from;   /* compared, never followed */
	struct rt_kattr *attrs;        /* kernel nodes: the attributes set */
	size_t nattrs;
};

/* References to user objects that a graph or an executable graph owns
 * (graph_user.c). */
struct rt_user_ref {
	struct rt_user_object *o;
	unsigned long long count;
};

struct rt_user_refs {
	struct rt_user_ref *v;
	size_t n;
};

struct rt_graph {
	struct rt_node **nodes;
	size_t n, cap;
	size_t nmem;                   /* allocation and free nodes */
	int owned;                     /* a child graph node's: not the program's to destroy */
	struct rt_user_refs urefs;
};

/* One step of an executable graph: a copy of a node's parameters, or for
 * a child graph node the child graph instantiated in its turn. */
struct rt_step {
	struct rt_node *src;           /* the node it came from: compared, never followed */
	struct rt_node_params p;
	struct rt_exec *child;
	int disabled;                  /* cudaGraphNodeSetEnabled: runs as an empty node */
};

/* An executable graph remembers the shape it was made from, by creation
 * index, so that cudaGraphExecUpdate can pair a graph's nodes with it. */
struct rt_exec {
	struct rt_step *steps;         /* topological order */
	size_t *order;                 /* creation index of each step's node */
	size_t *edge_start;            /* node k's dependencies are ... */
	size_t *edges;                 /* ... edges[edge_start[k] .. edge_start[k + 1]) */
	size_t n;
	unsigned long long flags;      /* cudaGraphInstantiateFlag* */
	pthread_mutex_t launch_lock;   /* one launch at a time (graph_exec.c) */
	cudaEvent_t done;              /* recorded after each launch; NULL before the first */
	struct ag_stream *last;        /* the last launch's stream */
	struct rt_user_refs urefs;     /* its graph's and its child graphs' (top level only) */
};

/* Guards every graph, node and executable graph. */
extern pthread_mutex_t rt_graph_lock;

enum rt_graph_tag { RT_TAG_GRAPH = 1, RT_TAG_NODE, RT_TAG_EXEC };

/* A live handle of that kind, or NULL: a stale or garbage handle is
 * cudaErrorInvalidValue, never a crash.  The caller locks. */
void *rt_graph_find(const void *h, enum rt_graph_tag tag);
void rt_graph_track(const void *h, enum rt_graph_tag tag);
void rt_graph_untrack(const void *h);

/* graph.c: the caller locks. */
struct rt_graph *rt_graph_new_locked(void);
void rt_params_copy(struct rt_node_params *dst, const struct rt_node_params *src);
void rt_params_free(struct rt_node_params *p);
int rt_node_has_dep(const struct rt_node *n, const struct rt_node *dep);
cudaError_t rt_graph_add_locked(struct rt_graph *g, const struct rt_node_params *p,
				struct rt_node *const *deps, size_t ndeps, struct rt_node **out);
void rt_graph_add_edge(struct rt_node *n, struct rt_node *dep);
void rt_graph_free_locked(struct rt_graph *g);
struct rt_graph *rt_graph_clone_locked(const struct rt_graph *g);

/* graph_user.c */
void rt_user_refs_copy(struct rt_user_refs *dst, const struct rt_user_refs *src);
/* dst gets references for g's and its child graphs' user objects. */
void rt_user_refs_collect(struct rt_user_refs *dst, const struct rt_graph *g);
void rt_user_refs_release(struct rt_user_refs *r);
/* Released, and the event destroyed, once it has completed. */
void rt_user_refs_release_after(struct rt_user_refs *r, cudaEvent_t after);

/* graph_exec.c: the caller locks. */
struct rt_exec *rt_exec_build(const struct rt_graph *g, unsigned long long flags);
void rt_exec_free(struct rt_exec *x);
/* The step x made of node (its top level only), or NULL. */
struct rt_step *rt_exec_step(struct rt_exec *x, cudaGraphNode_t node);
/* A graph with x's nodes and edges, for capturing a launch as a child node. */
struct rt_graph *rt_exec_to_graph(const struct rt_exec *x);

#endif

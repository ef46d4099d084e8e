/*
 * graph_user.c - user objects: a program's pointer and destructor with a
 * reference count, whose references the program, graphs and executable
 * graphs own (cudaUserObjectCreate/Retain/Release,
 * cudaGraphRetainUserObject/ReleaseUserObject).
 *
 * A graph's references go with it: a clone or a child graph node's copy
 * gets its own, and an executable graph takes references for its graph
 * and every child graph, which it gives back once its last launch has
 * completed.  Destructors run, as CUDA says, on an internal thread and
 * never inside an API call; that thread also waits for the launches of a
 * destroyed executable graph before releasing its references.
 */
#include "graph_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

struct rt_user_object {
	void *ptr;
	cudaHostFn_t destroy;
	unsigned long long refs;
};

/* Work for the internal thread: a destructor to run, or references to
 * release once an event has completed. */
struct user_job {
	struct rt_user_object *dead;
	cudaEvent_t after;
	struct rt_user_refs refs;
	struct user_job *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static struct rt_ptrmap live;          /* live user objects */
static struct user_job *jobs, **jobs_tail = &jobs;
static int worker_started;

static struct user_job *next_job(void)
{
	struct user_job *j;

	pthread_mutex_lock(&lock);
	while (!jobs)
		pthread_cond_wait(&wake, &lock);
	j = jobs;
	jobs = j->next;
	if (!jobs)
		jobs_tail = &jobs;
	pthread_mutex_unlock(&lock);
	return j;
}

static void *worker(void *unused)
{
	for (;;) {
		struct user_job *j = next_job();

		if (j->dead) {
			j->dead->destroy(j->dead->ptr);
			free(j->dead);
		} else {
			/* An error of the device changes nothing: the launches are over. */
			cudaEventSynchronize(j->after);
			cudaEventDestroy(j->after);
			rt_user_refs_release(&j->refs);
		}
		free(j);
	}
	return NULL;
}

/* The caller locks.  Without a thread, nothing can run the job: it is
 * dropped (the destructor does not run), which only a process out of
 * threads sees. */
static void queue_locked(struct user_job *j)
{
	pthread_t t;

	if (!worker_started && pthread_create(&t, NULL, worker, NULL) == 0) {
		pthread_detach(t);
		worker_started = 1;
	}
	if (!worker_started) {
		free(j);
		return;
	}
	*jobs_tail = j;
	jobs_tail = &j->next;
	pthread_cond_signal(&wake);
}

static void release_locked(struct rt_user_object *o, unsigned long long count)
{
	struct user_job *j;

	o->refs -= count < o->refs ? count : o->refs;
	if (o->refs)
		return;
	rt_ptrmap_del(&live, o);
	j = xcalloc(1, sizeof(*j));
	j->dead = o;
	queue_locked(j);
}

/* Adds count references of o to r (o's count is the caller's business). */
static void refs_add(struct rt_user_refs *r, struct rt_user_object *o, unsigned long long count)
{
	for (size_t i = 0; i < r->n; i++) {
		if (r->v[i].o == o) {
			r->v[i].count += count;
			return;
		}
	}
	r->v = xrealloc(r->v, (r->n + 1) * sizeof(*r->v));
	r->v[r->n].o = o;
	r->v[r->n].count = count;
	r->n++;
}

/* New references, one for each that src holds. */
void rt_user_refs_copy(struct rt_user_refs *dst, const struct rt_user_refs *src)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < src->n; i++) {
		src->v[i].o->refs += src->v[i].count;
		refs_add(dst, src->v[i].o, src->v[i].count);
	}
	pthread_mutex_unlock(&lock);
}

void rt_user_refs_collect(struct rt_user_refs *dst, const struct rt_graph *g)
{
	rt_user_refs_copy(dst, &g->urefs);
	for (size_t i = 0; i < g->n; i++)
		if (g->nodes[i]->p.type == cudaGraphNodeTypeGraph)
			rt_user_refs_collect(dst, g->nodes[i]->p.u.child);
}

void rt_user_refs_release(struct rt_user_refs *r)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < r->n; i++)
		release_locked(r->v[i].o, r->v[i].count);
	pthread_mutex_unlock(&lock);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

void rt_user_refs_release_after(struct rt_user_refs *r, cudaEvent_t after)
{
	struct user_job *j = xcalloc(1, sizeof(*j));

	j->after = after;
	j->refs = *r;
	memset(r, 0, sizeof(*r));
	pthread_mutex_lock(&lock);
	queue_locked(j);
	pthread_mutex_unlock(&lock);
}

static int valid_count(unsigned int count)
{
	return count && count <= INT_MAX;
}

RT_API cudaError_t cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr,
					cudaHostFn_t destroy, unsigned int initialRefcount,
					unsigned int flags)
{
	struct rt_user_object *o;

	if (!object_out || !destroy || !valid_count(initialRefcount) ||
	    flags != cudaUserObjectNoDestructorSync)
		return rt_error(cudaErrorInvalidValue);
	o = xcalloc(1, sizeof(*o));
	o->ptr = ptr;
	o->destroy = destroy;
	o->refs = initialRefcount;
	pthread_mutex_lock(&lock);
	rt_ptrmap_put(&live, o, o);
	pthread_mutex_unlock(&lock);
	*object_out = (cudaUserObject_t)o;
	return cudaSuccess;
}

/* The live object h is, locked; NULL (unlocked) when it is not one or
 * count is out of range. */
static struct rt_user_object *lock_object(cudaUserObject_t h, unsigned int count)
{
	struct rt_user_object *o;

	if (!valid_count(count))
		return NULL;
	pthread_mutex_lock(&lock);
	o = h ? rt_ptrmap_get(&live, h) : NULL;
	if (!o)
		pthread_mutex_unlock(&lock);
	return o;
}

/* The caller's count references to h more (retain) or fewer. */
static cudaError_t adjust_refs(cudaUserObject_t h, unsigned int count, int retain)
{
	struct rt_user_object *o = lock_object(h, count);

	if (!o)
		return rt_error(cudaErrorInvalidValue);
	if (retain)
		o->refs += count;
	else
		release_locked(o, count);
	pthread_mutex_unlock(&lock);
	return cudaSuccess;
}

RT_API cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count)
{
	return adjust_refs(object, count, 1);
}

RT_API cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count)
{
	return adjust_refs(object, count, 0);
}

/* cudaGraphUserObjectMove: the caller's references become the graph's. */
RT_API cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
					     unsigned int count, unsigned int flags)
{
	struct rt_user_object *o;
	struct rt_graph *g;

	if (flags & ~(unsigned)cudaGraphUserObjectMove)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_find(graph, RT_TAG_GRAPH);
	o = g ? lock_object(object, count) : NULL;
	if (o) {
		if (!(flags & cudaGraphUserObjectMove))
			o->refs += count;
		refs_add(&g->urefs, o, count);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_unlock(&rt_graph_lock);
	return o ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

/* The graph must hold that many references. */
RT_API cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object,
					      unsigned int count)
{
	struct rt_user_object *o;
	struct rt_user_ref *ref = NULL;
	struct rt_graph *g;

	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_find(graph, RT_TAG_GRAPH);
	o = g ? lock_object(object, count) : NULL;
	for (size_t i = 0; o && i < g->urefs.n; i++)
		if (g->urefs.v[i].o == o && g->urefs.v[i].count >= count)
			ref = &g->urefs.v[i];
	if (ref && !(ref->count -= count))
		*ref = g->urefs.v[--g->urefs.n];    /* no entry may outlive its references */
	if (ref)
		release_locked(o, count);
	if (o)
		pthread_mutex_unlock(&lock);
	pthread_mutex_unlock(&rt_graph_lock);
	return ref ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

/*
 * stream.c - the cpu backend's streams and events: ordered queues of
 * commands, each drained by its own thread, with CUDA's ordering rules.
 *
 * A command may depend on other streams and events; its stream's thread
 * waits for those before running it.  The legacy (NULL) stream's commands
 * depend on all prior work of blocking streams, and blocking streams'
 * commands on prior work of the legacy stream; cudaStreamNonBlocking
 * streams take part in neither.  Streams and events are reference counted
 * (handle, thread, commands that depend on them), so destroying one while
 * work still refers to it is safe, as CUDA allows.  An error raised by a
 * command is kept in its stream (and the instance) until a synchronising
 * call reports it.
 */
#include "cpu/cpu.h"
#include "cpu/spin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A change of state that a waiter may wait for, with b->lock held: before
 * any signal of b->cv or of a stream's wake. */
static void changed(struct ag_backend *b)
{
	atomic_fetch_add(&b->progress, 1);
}

struct next_change {
	struct ag_backend *b;
	uint64_t seen;
};

static int change_came(const void *arg)
{
	const struct next_change *n = arg;

	return atomic_load(&n->b->progress) != n->seen;
}

/* Waits on cv, with b->lock held, for the next change of state: polls
 * for it without the lock first (spin.h).  Like pthread_cond_wait, it may
 * return before the caller's own condition holds. */
static void wait_change(struct ag_backend *b, pthread_cond_t *cv)
{
	struct next_change n = { b, atomic_load(&b->progress) };

	ag_spin_wait(&b->lock, cv, change_came, &n);
}

/* Handles come from callers, maybe remote ones: only live ones are used. */
static struct ag_stream *find_stream(struct ag_backend *b, struct ag_stream *s)
{
	if (!s)
		return &b->legacy;
	for (struct ag_stream *t = b->streams; t; t = t->next)
		if (t == s && !t->destroyed)
			return t;
	return NULL;
}

static struct ag_event *find_event(struct ag_backend *b, struct ag_event *e)
{
	for (struct ag_event *t = b->events; t; t = t->next)
		if (t == e && !t->destroyed)
			return t;
	return NULL;
}

static void unlink_stream(struct ag_backend *b, struct ag_stream *s)
{
	for (struct ag_stream **p = &b->streams; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			return;
		}
}

static void unlink_event(struct ag_backend *b, struct ag_event *e)
{
	for (struct ag_event **p = &b->events; *p; p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			return;
		}
}

static void free_stream(struct ag_stream *s)
{
	pthread_cond_destroy(&s->wake);
	free(s);
}

static void stream_put(struct ag_stream *s)
{
	if (s->legacy || --s->refs > 0)
		return;
	unlink_stream(s->b, s);
	free_stream(s);
}

static void event_put(struct ag_event *e)
{
	if (--e->refs > 0)
		return;
	unlink_event(e->b, e);
	free(e);
}

static void add_dep(struct ag_cmd *c, struct ag_stream *s, struct ag_event *e, uint64_t n)
{
	c->deps = xrealloc(c->deps, (c->ndeps + 1) * sizeof(*c->deps));
	c->deps[c->ndeps++] = (struct ag_dep){ s, e, n };
	if (s && !s->legacy)
		s->refs++;
	if (e)
		e->refs++;
}

static int deps_done(const struct ag_cmd *c)
{
	for (unsigned i = 0; i < c->ndeps; i++) {
		const struct ag_dep *d = &c->deps[i];
		if (d->s ? d->s->done < d->n : d->e->gen_done < d->n)
			return 0;
	}
	return 1;
}

static void free_cmd(struct ag_cmd *c)
{
	for (unsigned i = 0; i < c->ndeps; i++) {
		if (c->deps[i].s)
			stream_put(c->deps[i].s);
		if (c->deps[i].e)
			event_put(c->deps[i].e);
	}
	if (c->kind == AG_CMD_RECORD)
		event_put(c->u.record.e);
	free(c->deps);
	free(c->owned);
	free(c);
}

/* The legacy stream's implicit synchronisation, as dependencies. */
static void add_implicit_deps(struct ag_backend *b, struct ag_stream *s, struct ag_cmd *c)
{
	if (s->legacy) {
		for (struct ag_stream *t = b->streams; t; t = t->next)
			if (!(t->flags & cudaStreamNonBlocking) && t->done < t->enq)
				add_dep(c, t, NULL, t->enq);
	} else if (!(s->flags & cudaStreamNonBlocking) && b->legacy.done < b->legacy.enq) {
		add_dep(c, &b->legacy, NULL, b->legacy.enq);
	}
}

/* Runs a command that needs no lock; returns its error. */
static cudaError_t run_cmd(struct ag_backend *b, struct ag_cmd *c, char *msg, size_t msglen)
{
	switch (c->kind) {
	case AG_CMD_LAUNCH: {
		const struct ag_launch_cfg *cfg = &c->u.launch.cfg;
		struct ag_kernel_env env = {
			.nctaid = { cfg->grid[0], cfg->grid[1], cfg->grid[2] },
			.ntid = { cfg->block[0], cfg->block[1], cfg->block[2] },
			.params = c->u.launch.params,
			.dyn_shared = cfg->shared,
		};
		return ag_exec_run(b->exec, c->u.launch.f->k, &env, cfg->cooperative, msg, msglen);
	}
	case AG_CMD_COPY:
		memmove(c->u.copy.dst, c->u.copy.src, c->u.copy.n);
		return cudaSuccess;
	case AG_CMD_MEMSET:
		memset(c->u.set.dst, c->u.set.value, c->u.set.n);
		return cudaSuccess;
	case AG_CMD_HOST:
		c->u.host.fn(c->u.host.data);
		return cudaSuccess;
	case AG_CMD_RECORD:
	case AG_CMD_WAIT:
		break;
	}
	return cudaSuccess;
}

/* Bookkeeping after a command ran, with b->lock held. */
static void finish_cmd(struct ag_backend *b, struct ag_stream *s, struct ag_cmd *c,
		       cudaError_t err, const char *msg)
{
	if (err && !s->err) {
		s->err = err;
		snprintf(s->errmsg, sizeof(s->errmsg), "%s", msg);
	}
	if (err && !b->err) {
		b->err = err;
		snprintf(b->errmsg, sizeof(b->errmsg), "%s", msg);
	}
	if (c->kind == AG_CMD_RECORD) {
		struct ag_event *e = c->u.record.e;
		e->ns = now_ns();
		e->err = s->err;
		snprintf(e->errmsg, sizeof(e->errmsg), "%s", s->errmsg);
		if (c->u.record.gen > e->gen_done)
			e->gen_done = c->u.record.gen;
	}
	s->head = c->next;
	if (!s->head)
		s->tail = NULL;
	s->done++;
	free_cmd(c);
	changed(b);
	pthread_cond_broadcast(&b->cv);
}

static void *stream_main(void *arg)
{
	struct ag_stream *s = arg;
	struct ag_backend *b = s->b;
	char msg[AG_MSG_LEN];

	pthread_mutex_lock(&b->lock);
	for (;;) {
		struct ag_cmd *c = s->head;
		if (!c && (s->destroyed || b->closing))
			break;
		if (!c) {
			wait_change(b, &s->wake);
			continue;
		}
		if (!deps_done(c)) {
			wait_change(b, &b->cv);
			continue;
		}
		pthread_mutex_unlock(&b->lock);
		msg[0] = '\0';
		cudaError_t err = run_cmd(b, c, msg, sizeof(msg));
		pthread_mutex_lock(&b->lock);
		finish_cmd(b, s, c, err, msg);
	}
	s->has_thread = 0;
	b->nthreads--;
	stream_put(s);
	changed(b);
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* With b->lock held.  Threads are detached: close() waits for nthreads to
 * reach 0 instead. */
static cudaError_t start_thread(struct ag_backend *b, struct ag_stream *s)
{
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, AG_WORKER_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, stream_main, s);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		snprintf(b->msg, sizeof(b->msg), "cannot start a stream thread: %s", strerror(rc));
		return cudaErrorMemoryAllocation;
	}
	s->has_thread = 1;
	s->refs++;
	b->nthreads++;
	return cudaSuccess;
}

/* Reports and forgets the stream's error, with b->lock held. */
static cudaError_t take_error(struct ag_backend *b, struct ag_stream *s)
{
	cudaError_t err = s->err;
	if (err) {
		snprintf(b->msg, sizeof(b->msg), "%s", s->errmsg);
		s->err = cudaSuccess;
	}
	return err;
}

static void wait_done(struct ag_backend *b, struct ag_stream *s, uint64_t n)
{
	while (s->done < n)
		wait_change(b, &b->cv);
}

/* Queues c on s with b->lock held; *n is its number in the stream.  On
 * failure c stays the caller's. */
static cudaError_t enqueue(struct ag_backend *b, struct ag_stream **sp, struct ag_cmd *c,
			   uint64_t *n)
{
	struct ag_stream *s = find_stream(b, *sp);
	cudaError_t err;

	if (!s)
		return cudaErrorInvalidResourceHandle;
	if (!s->has_thread && (err = start_thread(b, s)) != cudaSuccess)
		return err;
	add_implicit_deps(b, s, c);
	c->next = NULL;
	if (s->tail)
		s->tail->next = c;
	else
		s->head = c;
	s->tail = c;
	*n = ++s->enq;
	*sp = s;
	changed(b);
	pthread_cond_signal(&s->wake);
	return cudaSuccess;
}

cudaError_t ag_cpu_submit(struct ag_backend *b, struct ag_stream *s, struct ag_cmd *c,
			  enum ag_submit how)
{
	uint64_t n;

	pthread_mutex_lock(&b->lock);
	cudaError_t err = enqueue(b, &s, c, &n);
	if (err) {
		free_cmd(c);
	} else if (how != AG_SUBMIT_ASYNC) {
		s->refs++;
		wait_done(b, s, n);
		if (how == AG_SUBMIT_SYNC)
			err = take_error(b, s);
		stream_put(s);
	}
	pthread_mutex_unlock(&b->lock);
	return err;
}

static int busy(const struct ag_stream *s)
{
	return s->done < s->enq;
}

void ag_cpu_wait_idle(struct ag_backend *b)
{
	for (;;) {
		int any = busy(&b->legacy);
		for (struct ag_stream *s = b->streams; s && !any; s = s->next)
			any = busy(s);
		if (!any)
			return;
		wait_change(b, &b->cv);
	}
}

void ag_cpu_streams_init(struct ag_backend *b)
{
	b->legacy.b = b;
	b->legacy.legacy = 1;
	b->legacy.refs = 1;
	pthread_cond_init(&b->legacy.wake, NULL);
}

void ag_cpu_streams_close(struct ag_backend *b)
{
	pthread_mutex_lock(&b->lock);
	ag_cpu_wait_idle(b);
	b->closing = 1;
	changed(b);
	pthread_cond_signal(&b->legacy.wake);
	for (struct ag_stream *s = b->streams; s; s = s->next)
		pthread_cond_signal(&s->wake);
	while (b->nthreads)
		wait_change(b, &b->cv);
	pthread_cond_destroy(&b->legacy.wake);
	while (b->streams) {
		struct ag_stream *s = b->streams;
		b->streams = s->next;
		free_stream(s);
	}
	while (b->events) {
		struct ag_event *e = b->events;
		b->events = e->next;
		free(e);
	}
	pthread_mutex_unlock(&b->lock);
}

cudaError_t ag_cpu_synchronize(struct ag_backend *b)
{
	pthread_mutex_lock(&b->lock);
	ag_cpu_wait_idle(b);
	cudaError_t err = b->err;
	if (err)
		snprintf(b->msg, sizeof(b->msg), "%s", b->errmsg);
	b->err = cudaSuccess;
	b->legacy.err = cudaSuccess;
	for (struct ag_stream *s = b->streams; s; s = s->next)
		s->err = cudaSuccess;
	pthread_mutex_unlock(&b->lock);
	return err;
}

cudaError_t ag_cpu_stream_create(struct ag_backend *b, unsigned flags, int priority,
				 struct ag_stream **out)
{
	if (flags & ~(unsigned)cudaStreamNonBlocking) {
		ag_cpu_set_msg(b, "stream flags 0x%x: only cudaStreamNonBlocking is known", flags);
		return cudaErrorInvalidValue;
	}
	struct ag_stream *s = xcalloc(1, sizeof(*s));
	s->b = b;
	s->flags = flags;
	s->refs = 1;
	pthread_cond_init(&s->wake, NULL);
	pthread_mutex_lock(&b->lock);
	s->next = b->streams;
	b->streams = s;
	pthread_mutex_unlock(&b->lock);
	*out = s;
	return cudaSuccess;
}

cudaError_t ag_cpu_stream_destroy(struct ag_backend *b, struct ag_stream *s)
{
	pthread_mutex_lock(&b->lock);
	struct ag_stream *t = s ? find_stream(b, s) : NULL;
	if (t) {
		t->destroyed = 1;
		changed(b);
		pthread_cond_signal(&t->wake);
		stream_put(t);
	}
	pthread_mutex_unlock(&b->lock);
	return t ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

static struct ag_cmd *new_cmd(enum ag_cmd_kind kind)
{
	struct ag_cmd *c = xcalloc(1, sizeof(*c));
	c->kind = kind;
	return c;
}

cudaError_t ag_cpu_stream_sync(struct ag_backend *b, struct ag_stream *s)
{
	cudaError_t err = cudaErrorInvalidResourceHandle;

	/* The legacy stream waits for blocking streams' earlier work, so
	 * syncing it does too: as a command queued on it would. */
	if (!s)
		return ag_cpu_submit(b, NULL, new_cmd(AG_CMD_WAIT), AG_SUBMIT_SYNC);
	pthread_mutex_lock(&b->lock);
	struct ag_stream *t = find_stream(b, s);
	if (t) {
		t->refs++;
		wait_done(b, t, t->enq);
		err = take_error(b, t);
		stream_put(t);
	}
	pthread_mutex_unlock(&b->lock);
	return err;
}

cudaError_t ag_cpu_stream_query(struct ag_backend *b, struct ag_stream *s)
{
	pthread_mutex_lock(&b->lock);
	struct ag_stream *t = find_stream(b, s);
	cudaError_t err = !t ? cudaErrorInvalidResourceHandle
		: busy(t) ? cudaErrorNotReady : cudaSuccess;
	pthread_mutex_unlock(&b->lock);
	return err;
}

cudaError_t ag_cpu_stream_wait_event(struct ag_backend *b, struct ag_stream *s,
				     struct ag_event *e)
{
	struct ag_cmd *c = new_cmd(AG_CMD_WAIT);
	cudaError_t err = cudaErrorInvalidResourceHandle;
	uint64_t n;

	pthread_mutex_lock(&b->lock);
	struct ag_event *t = find_event(b, e);
	if (t) {
		if (t->gen_rec > t->gen_done)
			add_dep(c, NULL, t, t->gen_rec);
		err = enqueue(b, &s, c, &n);
	}
	if (err)
		free_cmd(c);
	pthread_mutex_unlock(&b->lock);
	return err;
}

cudaError_t ag_cpu_host_func(struct ag_backend *b, struct ag_stream *s,
			     void (*fn)(void *), void *data)
{
	if (!fn)
		return cudaErrorInvalidValue;
	struct ag_cmd *c = new_cmd(AG_CMD_HOST);
	c->u.host.fn = fn;
	c->u.host.data = data;
	return ag_cpu_submit(b, s, c, AG_SUBMIT_ASYNC);
}

cudaError_t ag_cpu_event_create(struct ag_backend *b, unsigned flags, struct ag_event **out)
{
	unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
	if (flags & ~known) {
		ag_cpu_set_msg(b, "event flags 0x%x not known", flags);
		return cudaErrorInvalidValue;
	}
	struct ag_event *e = xcalloc(1, sizeof(*e));
	e->b = b;
	e->flags = flags;
	e->refs = 1;
	pthread_mutex_lock(&b->lock);
	e->next = b->events;
	b->events = e;
	pthread_mutex_unlock(&b->lock);
	*out = e;
	return cudaSuccess;
}

cudaError_t ag_cpu_event_destroy(struct ag_backend *b, struct ag_event *e)
{
	pthread_mutex_lock(&b->lock);
	struct ag_event *t = find_event(b, e);
	if (t) {
		t->destroyed = 1;
		event_put(t);
	}
	pthread_mutex_unlock(&b->lock);
	return t ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

cudaError_t ag_cpu_event_record(struct ag_backend *b, struct ag_event *e, struct ag_stream *s)
{
	struct ag_cmd *c = new_cmd(AG_CMD_RECORD);
	cudaError_t err = cudaErrorInvalidResourceHandle;
	uint64_t n;

	pthread_mutex_lock(&b->lock);
	struct ag_event *t = find_event(b, e);
	if (t) {
		c->u.record.e = t;
		c->u.record.gen = t->gen_rec + 1;
		err = enqueue(b, &s, c, &n);
	}
	if (err) {
		free(c);
	} else {
		t->refs++;
		t->gen_rec++;
	}
	pthread_mutex_unlock(&b->lock);
	return err;
}

cudaError_t ag_cpu_event_sync(struct ag_backend *b, struct ag_event *e)
{
	cudaError_t err = cudaErrorInvalidResourceHandle;

	pthread_mutex_lock(&b->lock);
	struct ag_event *t = find_event(b, e);
	if (t) {
		uint64_t gen = t->gen_rec;
		while (t->gen_done < gen)
			wait_change(b, &b->cv);
		err = t->err;
		if (err)
			snprintf(b->msg, sizeof(b->msg), "%s", t->errmsg);
	}
	pthread_mutex_unlock(&b->lock);
	return err;
}

cudaError_t ag_cpu_event_query(struct ag_backend *b, struct ag_event *e)
{
	pthread_mutex_lock(&b->lock);
	struct ag_event *t = find_event(b, e);
	cudaError_t err = !t ? cudaErrorInvalidResourceHandle
		: t->gen_done < t->gen_rec ? cudaErrorNotReady : cudaSuccess;
	pthread_mutex_unlock(&b->lock);
	return err;
}

cudaError_t ag_cpu_event_elapsed(struct ag_backend *b, struct ag_event *start,
				 struct ag_event *end, float *ms)
{
	cudaError_t err = cudaSuccess;

	pthread_mutex_lock(&b->lock);
	struct ag_event *s = find_event(b, start), *e = find_event(b, end);
	if (!s || !e || !ms)
		err = !ms ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle;
	else if ((s->flags | e->flags) & cudaEventDisableTiming)
		err = cudaErrorInvalidResourceHandle;
	else if (!s->gen_rec || !e->gen_rec)
		err = cudaErrorInvalidResourceHandle;
	else if (s->gen_done < s->gen_rec || e->gen_done < e->gen_rec)
		err = cudaErrorNotReady;
	else
		*ms = (float)(((double)e->ns - (double)s->ns) / 1e6);
	pthread_mutex_unlock(&b->lock);
	return err;
}

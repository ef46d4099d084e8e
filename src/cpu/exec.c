/*
 * exec.c - the block executor: a persistent pool of worker threads that runs
 * the blocks of one grid at a time, and the services kernels call.
 *
 * A launch publishes a job (bumping a generation number), wakes as many
 * workers as it has blocks to spare, and runs blocks itself; every
 * participant takes block indices from the job's atomic counter until they
 * run out or a block reports an error.  The launch returns when every worker
 * that joined the job has left it, so the job can live on the caller's stack
 * and no worker ever touches a finished job.  Nothing is created per launch,
 * except for cooperative grids, which get a thread per block.
 */
#include "cpu/exec.h"
#include "cpu/fault.h"
#include "cpu/spin.h"

#include <driver_types.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct worker {
	pthread_t thread;
	struct ag_exec *x;
	unsigned index;
	unsigned char *shared;  /* this worker's block shared memory */
	size_t shared_cap;
	unsigned char *scratch; /* and its blocks' own memory (svc->scratch) */
	size_t scratch_cap;
	unsigned char *carry;   /* and what a sweep leaves them (svc->carry) */
	size_t carry_cap;
};

struct job {
	const struct ag_kernel_desc *k;
	struct ag_kernel_env env;
	struct ag_exec *x;
	uint64_t nblocks;
	uint64_t chunk;                 /* blocks claimed at a time */
	size_t shared_bytes;
	atomic_uint_fast64_t next;
	atomic_int error;
	pthread_mutex_t msg_lock;
	char *msg;
	size_t msglen;
	int has_msg;
	_Alignas(8) unsigned grid_ws[2];   /* grid.sync's counter, cooperative only */
};

struct ag_exec {
	ag_print_fn print;
	void *print_ctx;
	pthread_mutex_t print_lock;     /* one printf's text at a time */
	pthread_mutex_t run_lock;       /* one launch at a time */

	pthread_mutex_t lock;           /* guards the fields below */
	pthread_cond_t wake;            /* a job was published, or stop */
	pthread_cond_t idle;            /* busy reached 0 */
	int started;
	/* atomic: a waiter polls them without the lock first (spin.h) */
	atomic_int stopping;
	atomic_uint_fast64_t gen;
	atomic_uint busy;
	unsigned want, joined;
	struct job *job;

	unsigned nworkers;
	struct worker *workers;         /* nworkers + 1: the last is the caller's */

	atomic_uint_fast64_t heap_used;  /* bytes device-side malloc handed out */
	atomic_uint_fast64_t heap_limit; /* unlimited until the runtime sets it */
	atomic_int heap_called;         /* a kernel called malloc or free */
	atomic_int printf_called;       /* a kernel called printf */
};

static void print_text(struct ag_exec *x, const char *text, size_t len)
{
	pthread_mutex_lock(&x->print_lock);
	if (x->print)
		x->print(x->print_ctx, text, len);
	else
		fwrite(text, 1, len, stdout);
	pthread_mutex_unlock(&x->print_lock);
}

/* Keeps the first error of the launch and its message. */
static void record_error(struct ag_block *b, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void record_error(struct ag_block *b, int err, const char *fmt, ...)
{
	struct job *job = b->env->svc_ctx;
	if (!b->error)
		b->error = err;
	pthread_mutex_lock(&job->msg_lock);
	if (!job->has_msg) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(job->msg, job->msglen, fmt, ap);
		va_end(ap);
		job->has_msg = 1;
	}
	pthread_mutex_unlock(&job->msg_lock);
}

static int svc_vprintf(struct ag_block *b, const char *fmt, const void *args)
{
	struct job *job = b->env->svc_ctx;
	struct strbuf sb = STRBUF_INIT;
	int n = ag_printf_format(&sb, fmt, args);

	atomic_store(&job->x->printf_called, 1);
	if (n > 0)
		print_text(job->x, sb.buf, sb.len);
	sb_free(&sb);
	return n;
}

/* Device-side malloc: host memory behind a header that keeps the size,
 * so that the bytes live count against the heap limit
 * (cudaLimitMallocHeapSize), as the device heap does on a GPU. */
#define HEAP_HEADER 16

static void *svc_malloc(struct ag_block *b, unsigned long long size)
{
	struct ag_exec *x = ((struct job *)b->env->svc_ctx)->x;
	uint64_t limit = atomic_load(&x->heap_limit);
	uint64_t used = atomic_fetch_add(&x->heap_used, size);
	unsigned char *p = NULL;

	atomic_store(&x->heap_called, 1);

	if (size <= limit && used <= limit - size && size <= UINT64_MAX - HEAP_HEADER)
		p = malloc(HEAP_HEADER + size);
	if (!p) {
		atomic_fetch_sub(&x->heap_used, size);
		return NULL;
	}
	memcpy(p, &size, sizeof(size));
	return p + HEAP_HEADER;
}

static void svc_free(struct ag_block *b, void *p)
{
	struct ag_exec *x = ((struct job *)b->env->svc_ctx)->x;
	unsigned char *h;
	unsigned long long size;

	atomic_store(&x->heap_called, 1);
	if (!p)
		return;
	h = (unsigned char *)p - HEAP_HEADER;
	memcpy(&size, h, sizeof(size));
	atomic_fetch_sub(&x->heap_used, size);
	free(h);
}

int ag_exec_set_heap_limit(struct ag_exec *x, uint64_t bytes)
{
	if (atomic_load(&x->heap_called))
		return -1;
	atomic_store(&x->heap_limit, bytes);
	return 0;
}

int ag_exec_printf_called(struct ag_exec *x)
{
	return atomic_load(&x->printf_called);
}

static void svc_assertfail(struct ag_block *b, const char *msg, const char *file,
			   unsigned line, const char *func)
{
	struct job *job = b->env->svc_ctx;
	fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
		file, line, func, b->ctaid[0], b->ctaid[1], b->ctaid[2],
		b->tid[0], b->tid[1], b->tid[2], msg);
	record_error(b, cudaErrorAssert,
		     "device-side assert triggered in kernel %s: %s:%u: block [%u,%u,%u], thread [%u,%u,%u]: Assertion `%s` failed",
		     job->k->name, file, line, b->ctaid[0], b->ctaid[1], b->ctaid[2],
		     b->tid[0], b->tid[1], b->tid[2], msg);
}

/* A worker's buffer *buf of *cap bytes, grown to at least bytes (whole
 * pages, 64-byte aligned); what it held is not kept.  -1 when out of
 * memory (the buffer is then gone). */
static int grow(unsigned char **buf, size_t *cap, unsigned long long bytes)
{
	if (bytes <= *cap)
		return 0;
	free(*buf);
	*buf = NULL;
	*cap = 0;
	if (bytes > SIZE_MAX - 4095)
		return -1;
	*buf = aligned_alloc(64, ((size_t)bytes + 4095) & ~(size_t)4095);
	if (!*buf)
		return -1;
	*cap = ((size_t)bytes + 4095) & ~(size_t)4095;
	return 0;
}

/* The worker's scratch memory (a block asks once, at its start). */
static void *svc_scratch(struct ag_block *b, unsigned long long size)
{
	struct worker *w = b->worker_ctx;

	return grow(&w->scratch, &w->scratch_cap, size) ? NULL : w->scratch;
}

static void *svc_carry(struct ag_block *b, unsigned long long size)
{
	struct worker *w = b->worker_ctx;

	return grow(&w->carry, &w->carry_cap, size) ? NULL : w->carry;
}

static void svc_fault(struct ag_block *b, int err, const char *what)
{
	struct job *job = b->env->svc_ctx;
	record_error(b, err, "kernel %s: block [%u,%u,%u], thread [%u,%u,%u]: %s",
		     job->k->name, b->ctaid[0], b->ctaid[1], b->ctaid[2],
		     b->tid[0], b->tid[1], b->tid[2], what);
}

static const struct ag_services services = {
	.vprintf = svc_vprintf,
	.malloc = svc_malloc,
	.free = svc_free,
	.assertfail = svc_assertfail,
	.fault = svc_fault,
	.scratch = svc_scratch,
	.carry = svc_carry,
};

static void ensure_shared(struct worker *w, size_t bytes)
{
	if (grow(&w->shared, &w->shared_cap, bytes)) {
		fprintf(stderr, "anygpu: out of memory (shared memory of %zu bytes)\n", bytes);
		abort();
	}
}

static void worker_release(struct worker *w)
{
	free(w->shared);
	free(w->scratch);
	free(w->carry);
}

/* Runs block i of the grid, and with an AG_KF_ROWS kernel the nb - 1
 * after it in its row, in one call. */
static void run_block(struct job *job, struct worker *w, uint64_t i, unsigned nb)
{
	const unsigned *n = job->env.nctaid;
	struct ag_block b;
	struct ag_fault fault;

	memset(&b, 0, sizeof(b));
	b.env = &job->env;
	b.ctaid[0] = (unsigned)(i % n[0]);
	b.ctaid[1] = (unsigned)(i / n[0] % n[1]);
	b.ctaid[2] = (unsigned)(i / ((uint64_t)n[0] * n[1]));
	b.shared = w->shared;
	b.worker = w->index;
	b.worker_ctx = w;
	b.nb = nb;
	ag_fault_run(job->k->fn, &b, &fault);
	if (fault.sig)
		record_error(&b, cudaErrorIllegalAddress,
			     "kernel %s: block [%u,%u,%u]: illegal address %p (%s)",
			     job->k->name, b.ctaid[0], b.ctaid[1], b.ctaid[2], fault.addr,
			     fault.sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
	if (b.error) {
		int expected = 0;
		atomic_compare_exchange_strong(&job->error, &expected, b.error);
	}
}

/* How many blocks from block i (before end) one call runs: the rest of
 * i's row of the grid for a kernel that takes rows (AG_KF_ROWS) when the
 * launch has no shared memory, which its blocks would need apart, or when
 * the kernel runs such blocks one after the other (AG_KF_SWEEP). */
static unsigned blocks_per_call(const struct job *job, uint64_t i, uint64_t end)
{
	uint64_t row_end = i - i % job->env.nctaid[0] + job->env.nctaid[0];

	if (!(job->k->flags & AG_KF_ROWS) ||
	    (job->shared_bytes && !(job->k->flags & AG_KF_SWEEP)))
		return 1;
	return (unsigned)((row_end < end ? row_end : end) - i);
}

/*
 * Threads claim runs of consecutive blocks, about eight per thread per
 * launch: a thread then walks a contiguous part of the arrays, as an OpenMP
 * static schedule does, which the hardware prefetchers follow, and the
 * shared counter moves between cores a few times instead of once per block.
 */
static void run_blocks(struct job *job, struct worker *w)
{
	ensure_shared(w, job->shared_bytes);
	while (!atomic_load_explicit(&job->error, memory_order_relaxed)) {
		uint64_t i = atomic_fetch_add(&job->next, job->chunk);
		if (i >= job->nblocks)
			break;
		uint64_t end = job->nblocks - i < job->chunk ? job->nblocks : i + job->chunk;
		while (i < end && !atomic_load_explicit(&job->error, memory_order_relaxed)) {
			unsigned nb = blocks_per_call(job, i, end);

			run_block(job, w, i, nb);
			i += nb;
		}
	}
}

/* What a worker waits for: a job published after generation seen. */
struct next_job {
	struct ag_exec *x;
	uint64_t seen;
};

static int job_published(const void *arg)
{
	const struct next_job *n = arg;

	return atomic_load(&n->x->stopping) || atomic_load(&n->x->gen) != n->seen;
}

/* Waits with x->lock held for a job after generation seen, or the stop. */
static void wait_job(struct ag_exec *x, uint64_t seen)
{
	struct next_job n = { x, seen };

	while (!job_published(&n))
		ag_spin_wait(&x->lock, &x->wake, job_published, &n);
}

static int workers_left(const void *arg)
{
	return atomic_load(&((const struct ag_exec *)arg)->busy) == 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct ag_exec *x = w->x;
	uint64_t seen = 0;

	pthread_mutex_lock(&x->lock);
	for (;;) {
		wait_job(x, seen);
		if (x->stopping)
			break;
		seen = x->gen;
		if (x->joined >= x->want)
			continue;
		x->joined++;
		struct job *job = x->job;
		pthread_mutex_unlock(&x->lock);
		run_blocks(job, w);
		pthread_mutex_lock(&x->lock);
		if (atomic_fetch_sub(&x->busy, 1) == 1)
			pthread_cond_signal(&x->idle);
	}
	pthread_mutex_unlock(&x->lock);
	return NULL;
}

/* Threads that run blocks, the launching one included: ANYGPU_THREADS
 * when it is a number from 1 to 4096, else one per online CPU. */
static unsigned thread_count(void)
{
	const char *s = getenv("ANYGPU_THREADS");
	char *end = NULL;
	long n = s && *s ? strtol(s, &end, 10) : 0;

	if (n >= 1 && n <= 4096 && end && !*end)
		return (unsigned)n;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 1 ? (unsigned)n : 1;
}

static void start_workers(struct ag_exec *x)
{
	unsigned want = thread_count() - 1;
	pthread_attr_t attr;

	x->workers = xcalloc(want + 1, sizeof(*x->workers));
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, AG_WORKER_STACK);
	for (unsigned i = 0; i < want; i++) {
		struct worker *w = &x->workers[x->nworkers];
		w->x = x;
		w->index = x->nworkers;
		if (pthread_create(&w->thread, &attr, worker_main, w) != 0)
			break;	/* run with the workers we have */
		x->nworkers++;
	}
	pthread_attr_destroy(&attr);
	x->workers[x->nworkers].index = x->nworkers;
	x->started = 1;
}

struct ag_exec *ag_exec_new(ag_print_fn print, void *print_ctx)
{
	struct ag_exec *x = xcalloc(1, sizeof(*x));
	x->print = print;
	x->print_ctx = print_ctx;
	atomic_init(&x->heap_limit, UINT64_MAX);
	pthread_mutex_init(&x->print_lock, NULL);
	pthread_mutex_init(&x->run_lock, NULL);
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->wake, NULL);
	pthread_cond_init(&x->idle, NULL);
	return x;
}

void ag_exec_free(struct ag_exec *x)
{
	if (!x)
		return;
	pthread_mutex_lock(&x->lock);
	x->stopping = 1;
	pthread_cond_broadcast(&x->wake);
	pthread_mutex_unlock(&x->lock);
	for (unsigned i = 0; i < x->nworkers; i++)
		pthread_join(x->workers[i].thread, NULL);
	if (x->workers)
		for (unsigned i = 0; i <= x->nworkers; i++)
			worker_release(&x->workers[i]);
	free(x->workers);
	pthread_cond_destroy(&x->idle);
	pthread_cond_destroy(&x->wake);
	pthread_mutex_destroy(&x->lock);
	pthread_mutex_destroy(&x->run_lock);
	pthread_mutex_destroy(&x->print_lock);
	free(x);
}

/* A cooperative grid: every block on its own thread, all resident at once,
 * so that blocks may wait for each other (grid-wide barriers).  No block
 * starts until every thread exists. */
struct resident {
	struct worker w;
	struct job *job;
	pthread_t thread;
	struct gate *gate;
};

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	int state;              /* 0: wait, 1: run, -1: give up */
};

static void *resident_main(void *arg)
{
	struct resident *r = arg;
	struct gate *g = r->gate;

	pthread_mutex_lock(&g->lock);
	while (!g->state)
		pthread_cond_wait(&g->cv, &g->lock);
	int go = g->state > 0;
	pthread_mutex_unlock(&g->lock);
	if (go) {
		ensure_shared(&r->w, r->job->shared_bytes);
		run_block(r->job, &r->w, r->w.index, 1);
	}
	worker_release(&r->w);
	return NULL;
}

static void run_resident(struct job *job)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	struct resident *r = xcalloc(job->nblocks, sizeof(*r));
	pthread_attr_t attr;
	uint64_t started = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, AG_WORKER_STACK);
	for (; started < job->nblocks; started++) {
		r[started] = (struct resident){ .w.index = (unsigned)started, .job = job, .gate = &g };
		if (pthread_create(&r[started].thread, &attr, resident_main, &r[started]) != 0)
			break;
	}
	pthread_attr_destroy(&attr);
	pthread_mutex_lock(&g.lock);
	g.state = started == job->nblocks ? 1 : -1;
	pthread_cond_broadcast(&g.cv);
	pthread_mutex_unlock(&g.lock);
	for (uint64_t i = 0; i < started; i++)
		pthread_join(r[i].thread, NULL);
	free(r);
	if (g.state < 0) {
		atomic_store(&job->error, cudaErrorCooperativeLaunchTooLarge);
		snprintf(job->msg, job->msglen,
			 "kernel %s: cannot start a thread for each of %llu cooperative blocks",
			 job->k->name, (unsigned long long)job->nblocks);
		job->has_msg = 1;
	}
}

/* The pool's way: as many workers as there are blocks to spare. */
static void run_pooled(struct ag_exec *x, struct job *job)
{
	if (!x->started)
		start_workers(x);
	uint64_t spare = job->nblocks - 1;
	unsigned want = spare < x->nworkers ? (unsigned)spare : x->nworkers;

	job->chunk = job->nblocks / (8 * (uint64_t)(want + 1));
	if (job->chunk == 0)
		job->chunk = 1;
	pthread_mutex_lock(&x->lock);
	x->job = job;
	x->want = want;
	x->joined = 0;
	x->busy = want;
	x->gen++;
	for (unsigned i = 0; i < want; i++)
		pthread_cond_signal(&x->wake);
	pthread_mutex_unlock(&x->lock);

	run_blocks(job, &x->workers[x->nworkers]);

	pthread_mutex_lock(&x->lock);
	while (x->busy)
		ag_spin_wait(&x->lock, &x->idle, workers_left, x);
	x->job = NULL;
	pthread_mutex_unlock(&x->lock);
}

int ag_exec_run(struct ag_exec *x, const struct ag_kernel_desc *k,
		const struct ag_kernel_env *env, int resident, char *msg, size_t msglen)
{
	struct job job = {
		.k = k,
		.env = *env,
		.x = x,
		.nblocks = (uint64_t)env->nctaid[0] * env->nctaid[1] * env->nctaid[2],
		.chunk = 1,
		.shared_bytes = ((k->static_shared + 15u) & ~15u) + (size_t)env->dyn_shared,
		.msg = msg,
		.msglen = msglen,
	};
	job.env.svc = &services;
	job.env.svc_ctx = &job;
	job.env.grid_ws = resident ? (uintptr_t)job.grid_ws : 0;
	atomic_init(&job.next, 0);
	atomic_init(&job.error, 0);
	pthread_mutex_init(&job.msg_lock, NULL);

	pthread_mutex_lock(&x->run_lock);
	ag_fault_arm();
	if (resident)
		run_resident(&job);
	else
		run_pooled(x, &job);
	pthread_mutex_unlock(&x->run_lock);

	pthread_mutex_destroy(&job.msg_lock);
	int err = atomic_load(&job.error);
	if (err && !job.has_msg)
		snprintf(msg, msglen, "kernel %s failed (error %d)", k->name, err);
	return err;
}

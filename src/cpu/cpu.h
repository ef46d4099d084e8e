/*
 * cpu.h - the cpu backend's insides, shared by its files: the instance,
 * its streams, events, commands, modules and memory table.
 *
 * One mutex per instance (b->lock) guards every queue, counter and list
 * here.  b->cv is broadcast whenever something completes (a command, a
 * thread's exit); each stream's own s->wake is signalled when work is
 * queued on it or it must stop, so idle stream threads sleep through other
 * streams' traffic.
 */
#ifndef AG_CPU_CPU_H
#define AG_CPU_CPU_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "backend.h"
#include "cpu/exec.h"
#include "cpu/jit.h"

#define AG_MSG_LEN 2048

/* mem.c: the table of device allocations, sorted by address. */
struct ag_alloc {
	uint64_t addr;
	uint64_t size;
};

struct ag_mem {
	struct ag_alloc *v;
	size_t n, cap;
	uint64_t used;                  /* bytes allocated, as rounded */
	uint64_t limit;                 /* 0: none */
};

cudaError_t ag_mem_alloc(struct ag_mem *m, uint64_t size, uint64_t *out);
cudaError_t ag_mem_free(struct ag_mem *m, uint64_t addr);
/* 1 when [addr, addr+n) lies inside one allocation. */
int ag_mem_contains(const struct ag_mem *m, uint64_t addr, uint64_t n);
void ag_mem_release(struct ag_mem *m);

struct ag_func {
	struct ag_module *m;
	const struct ag_kernel_desc *k;
	struct ag_func_info info;
	struct ag_param *params;
};

struct ag_module {
	struct ag_jit_module jm;
	struct ag_func *funcs;
	unsigned nfuncs;
	struct ag_module *next;
};

/* A command waits until a stream has finished n commands, or an event has
 * completed its n-th record. */
struct ag_dep {
	struct ag_stream *s;
	struct ag_event *e;
	uint64_t n;
};

enum ag_cmd_kind {
	AG_CMD_LAUNCH,
	AG_CMD_COPY,
	AG_CMD_MEMSET,
	AG_CMD_RECORD,
	AG_CMD_HOST,
	AG_CMD_WAIT,                    /* nothing but its dependencies */
};

struct ag_cmd {
	struct ag_cmd *next;
	enum ag_cmd_kind kind;
	struct ag_dep *deps;
	unsigned ndeps;
	void *owned;                    /* freed with the command */
	union {
		struct {
			const struct ag_func *f;
			struct ag_launch_cfg cfg;
			const unsigned char *params;
		} launch;
		struct {
			void *dst;
			const void *src;
			uint64_t n;
		} copy;
		struct {
			void *dst;
			int value;
			uint64_t n;
		} set;
		struct {
			struct ag_event *e;
			uint64_t gen;
		} record;
		struct {
			void (*fn)(void *);
			void *data;
		} host;
	} u;
};

struct ag_stream {
	struct ag_backend *b;
	unsigned flags;                 /* cudaStreamNonBlocking */
	int legacy;                     /* the NULL stream, part of b */
	int destroyed;                  /* handle gone; freed when refs reach 0 */
	int refs;                       /* handle, thread, dependencies on it */
	int has_thread;
	pthread_cond_t wake;            /* work queued, destroyed, or closing */
	uint64_t enq, done;             /* commands queued and finished, ever */
	struct ag_cmd *head, *tail;
	cudaError_t err;                /* first error not yet reported */
	char errmsg[AG_MSG_LEN];
	struct ag_stream *next;         /* b->streams */
};

struct ag_event {
	struct ag_backend *b;
	unsigned flags;
	int destroyed;
	int refs;                       /* handle, pending records, waiters */
	uint64_t gen_rec, gen_done;     /* records queued and completed */
	uint64_t ns;                    /* CLOCK_MONOTONIC at the last completion */
	cudaError_t err;                /* its stream's error when it completed */
	char errmsg[AG_MSG_LEN];
	struct ag_event *next;          /* b->events */
};

struct ag_backend {
	struct ag_open_args args;
	struct ag_device_info info;
	struct ag_exec *exec;

	pthread_mutex_t lock;
	pthread_cond_t cv;
	atomic_uint_fast64_t progress;  /* changes of the streams' state, which
					 * waiters poll before they sleep */
	char msg[AG_MSG_LEN];           /* last_message() */
	struct ag_stream legacy;
	struct ag_stream *streams;      /* created, including destroyed-but-busy */
	struct ag_event *events;
	int nthreads;                   /* stream threads alive */
	int closing;
	cudaError_t err;                /* first stream error since synchronize */
	char errmsg[AG_MSG_LEN];
	struct ag_mem mem;
	struct ag_module *modules;
	struct ag_cpu_tex *textures;    /* texture.c: live texture and surface objects */
};

void ag_cpu_set_msg(struct ag_backend *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* How ag_cpu_submit returns. */
enum ag_submit {
	AG_SUBMIT_ASYNC,        /* at once */
	AG_SUBMIT_DONE,         /* once the command ran; errors wait for a sync */
	AG_SUBMIT_SYNC,         /* once it ran, with the stream's error */
};

/* stream.c: queues cmd (allocated by the caller, owned from now on) on s
 * (NULL: legacy). */
cudaError_t ag_cpu_submit(struct ag_backend *b, struct ag_stream *s, struct ag_cmd *cmd,
			  enum ag_submit how);
/* Waits until no stream has work, with b->lock held. */
void ag_cpu_wait_idle(struct ag_backend *b);
void ag_cpu_streams_init(struct ag_backend *b);
/* Waits for all work, stops the threads and frees streams and events. */
void ag_cpu_streams_close(struct ag_backend *b);

cudaError_t ag_cpu_synchronize(struct ag_backend *b);
cudaError_t ag_cpu_stream_create(struct ag_backend *b, unsigned flags, int priority,
				 struct ag_stream **out);
cudaError_t ag_cpu_stream_destroy(struct ag_backend *b, struct ag_stream *s);
cudaError_t ag_cpu_stream_sync(struct ag_backend *b, struct ag_stream *s);
cudaError_t ag_cpu_stream_query(struct ag_backend *b, struct ag_stream *s);
cudaError_t ag_cpu_stream_wait_event(struct ag_backend *b, struct ag_stream *s,
				     struct ag_event *e);
cudaError_t ag_cpu_host_func(struct ag_backend *b, struct ag_stream *s,
			     void (*fn)(void *), void *data);
cudaError_t ag_cpu_event_create(struct ag_backend *b, unsigned flags, struct ag_event **out);
cudaError_t ag_cpu_event_destroy(struct ag_backend *b, struct ag_event *e);
cudaError_t ag_cpu_event_record(struct ag_backend *b, struct ag_event *e, struct ag_stream *s);
cudaError_t ag_cpu_event_sync(struct ag_backend *b, struct ag_event *e);
cudaError_t ag_cpu_event_query(struct ag_backend *b, struct ag_event *e);
cudaError_t ag_cpu_event_elapsed(struct ag_backend *b, struct ag_event *start,
				 struct ag_event *end, float *ms);

/* texture.c */
cudaError_t ag_cpu_tex_create(struct ag_backend *b, const struct ag_tex_desc *d,
			      uint64_t *handle);
cudaError_t ag_cpu_tex_destroy(struct ag_backend *b, uint64_t handle);
void ag_cpu_tex_release(struct ag_backend *b);   /* at close */

#endif

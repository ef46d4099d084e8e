/*
 * session.c - one client session in a worker process: the protocol decoder
 * in front of a local backend.
 *
 * A reader thread takes frames off the socket and queues them (answering
 * host-function completions itself, since the executor may be blocked
 * waiting for exactly that); the executor runs requests in arrival order,
 * which keeps every stream's order.  Nothing the client sends is trusted:
 * handles are indices into this session's tables, device pointers are
 * checked against this session's allocations, sizes against their ranges.
 * A frame that does not decode ends the session with a reason.  Once the
 * client is gone, a watchdog gives the session some seconds to finish;
 * a device that holds it longer (a kernel that never ends) is given up.
 *
 * The bytes of a large synchronous host-to-device chunk are not read by the
 * reader: the executor takes them off the socket when it reaches the
 * request, straight into device memory where the backend shows that as
 * host memory (the cpu backend), so they are copied once, as on a raw
 * socket.
 */
#include "server/server.h"
#include "server/outfwd.h"
#include "server/tables.h"
#include "protocol/conn.h"
#include "protocol/zchunk.h"
#include "util/strbuf.h"
#include "util/texdesc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <zstd.h>

#define MAX_QUEUED (128u << 20)   /* bytes of requests read ahead */
#define HTOD_FIELDS 16u           /* COPY_HTOD's stream, dst and async */
#define GONE_GRACE_S 10          /* see watch_teardown */
#define STREAMED_MIN (64u << 10)  /* chunks the executor reads itself */

struct qframe {
	struct qframe *next;
	struct ag_frame_hdr h;
	uint8_t *payload;
	int streamed;                   /* payload holds the fields only */
};

struct hostfn_call {
	struct session *s;
	uint64_t cookie;
};

struct session {
	struct ag_conn conn;
	const struct ag_backend_ops *ops;
	struct ag_backend *b;
	struct ag_tables t;
	char msg[256];                  /* why the current request failed */
	cudaError_t deferred;           /* first error of an unanswered call */
	char deferred_msg[256];
	int fault;                      /* the session must end */
	char reason[256];
	uint8_t *chunk;                 /* staging for one chunk of a copy */
	struct ag_outfwd *out, *err;    /* the worker's stdout and stderr */
	unsigned zlevel;                /* compression agreed at HELLO; 0: none */
	ZSTD_CCtx *zc;                  /* the executor's, when zlevel */
	ZSTD_DCtx *zd;
	uint8_t *zbuf;                  /* a compressed chunk going out */

	pthread_t reader;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct qframe *head, *tail;
	size_t queued;
	int reader_done;
	char reader_why[256];
	const struct ag_session_args *args;
	pthread_t watchdog;             /* see watch_teardown */
	int watching, torn_down;
	uint64_t *done_cookies;         /* host functions the client finished */
	size_t ndone, donecap;
	int hostfns_out;                /* read by the reader, not finished */
	int body_waiting;               /* the executor is to read a body */
};

typedef cudaError_t (*handler_fn)(struct session *s, const struct ag_frame_hdr *h,
				  struct ag_rbuf *r, struct ag_wbuf *out);

static cudaError_t malformed(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static cudaError_t malformed(struct session *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->fault) {
		va_start(ap, fmt);
		vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
		va_end(ap);
		s->fault = 1;
	}
	return cudaErrorInvalidValue;
}

/* Reads a stream handle (0: the legacy stream). */
static int get_stream(struct session *s, struct ag_rbuf *r, struct ag_stream **out)
{
	uint32_t h = ag_get_u32(r);

	*out = NULL;
	if (!h)
		return 0;
	*out = ag_table_get(&s->t.streams, h);
	return *out ? 0 : -1;
}

static cudaError_t check_range(struct session *s, ag_dptr p, uint64_t n)
{
	if (ag_ranges_find(&s->t, p, n) < 0) {
		snprintf(s->msg, sizeof(s->msg),
			 "device range 0x%llx+%llu is not inside an allocation of this session",
			 (unsigned long long)p, (unsigned long long)n);
		return cudaErrorInvalidValue;
	}
	return cudaSuccess;
}

#define DECODED(s, r, h) \
	do { if (ag_rbuf_done(r)) return malformed(s, "malformed %s frame", ag_op_name((h)->op)); } while (0)

static cudaError_t do_info(struct session *s, const struct ag_frame_hdr *h,
			   struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct ag_device_info d;
	cudaError_t e;

	DECODED(s, r, h);
	e = s->ops->info(s->b, &d);
	if (e == cudaSuccess)
		ag_put_info(out, &d);
	return e;
}

static cudaError_t do_mem_info(struct session *s, const struct ag_frame_hdr *h,
			       struct ag_rbuf *r, struct ag_wbuf *out)
{
	uint64_t free_b = 0, total = 0;
	cudaError_t e;

	DECODED(s, r, h);
	e = s->ops->mem_info(s->b, &free_b, &total);
	ag_put_u64(out, free_b);
	ag_put_u64(out, total);
	return e;
}

static cudaError_t do_synchronize(struct session *s, const struct ag_frame_hdr *h,
				  struct ag_rbuf *r, struct ag_wbuf *out)
{
	DECODED(s, r, h);
	return s->ops->synchronize(s->b);
}

static cudaError_t do_mem_alloc(struct session *s, const struct ag_frame_hdr *h,
				struct ag_rbuf *r, struct ag_wbuf *out)
{
	uint64_t size = ag_get_u64(r);
	uint32_t kind = ag_get_u32(r);
	ag_dptr p = 0;
	cudaError_t e;

	DECODED(s, r, h);
	if (kind != AG_MEM_DEVICE && kind != AG_MEM_MANAGED)
		return cudaErrorInvalidValue;
	if (s->t.limit && (size > s->t.limit || s->t.used > s->t.limit - size)) {
		snprintf(s->msg, sizeof(s->msg),
			 "allocation of %llu bytes exceeds the session's quota of %llu bytes",
			 (unsigned long long)size, (unsigned long long)s->t.limit);
		return cudaErrorMemoryAllocation;
	}
	e = s->ops->mem_alloc(s->b, size, kind, &p);
	if (e == cudaSuccess && p)
		ag_ranges_add(&s->t, p, size, 0);
	ag_put_u64(out, p);
	return e;
}

static cudaError_t do_mem_free(struct session *s, const struct ag_frame_hdr *h,
			       struct ag_rbuf *r, struct ag_wbuf *out)
{
	ag_dptr p = ag_get_u64(r);
	long i;
	cudaError_t e;

	DECODED(s, r, h);
	if (!p)
		return cudaSuccess;
	i = ag_ranges_find(&s->t, p, 0);
	if (i < 0 || s->t.ranges[i].base != p || s->t.ranges[i].module)
		return cudaErrorInvalidDevicePointer;
	e = s->ops->mem_free(s->b, p);
	if (e == cudaSuccess)
		ag_ranges_del(&s->t, i);
	return e;
}

/* The fields host-to-device requests start with. */
struct htod {
	struct ag_stream *st;
	int bad;                        /* no such stream */
	ag_dptr dst;
	uint32_t async;
};

static void get_htod(struct session *s, struct ag_rbuf *r, struct htod *c)
{
	c->bad = get_stream(s, r, &c->st);
	c->dst = ag_get_u64(r);
	c->async = ag_get_u32(r);
}

/* Whether n bytes may be copied as c says. */
static cudaError_t check_htod(struct session *s, const struct htod *c, uint64_t n)
{
	return c->bad ? cudaErrorInvalidResourceHandle : check_range(s, c->dst, n);
}

static cudaError_t do_copy_htod(struct session *s, const struct ag_frame_hdr *h,
				struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct htod c;
	size_t n;
	const void *data;
	cudaError_t e;

	get_htod(s, r, &c);
	n = ag_rbuf_left(r);
	data = ag_get_bytes(r, n);
	DECODED(s, r, h);
	if (!n && !c.bad)
		return cudaSuccess;
	e = check_htod(s, &c, n);
	if (e != cudaSuccess)
		return e;
	return s->ops->copy_htod(s->b, c.st, c.dst, data, n, AG_HOST_PAGEABLE, !!c.async);
}

/* Device memory at p as host memory, where the backend shows it so (the
 * cpu backend), once the stream has reached a copy made with async: a
 * one-byte read on the stream waits as that copy would (into pageable
 * memory it returns once done), and only this thread adds work.  A
 * synchronous chunk then lands there straight from the connection or the
 * decompressor, and a read-back is sent from there.  NULL: stage the bytes
 * and copy them on the stream (*e is set when the wait failed, and the
 * copy is not to be made). */
static void *direct_target(struct session *s, struct ag_stream *st, ag_dptr p,
			   uint32_t async, cudaError_t *e)
{
	void *h = s->ops->host_ptr(s->b, p);
	char byte;

	if (!h)
		return NULL;
	*e = s->ops->copy_dtoh(s->b, st, &byte, p, 1, AG_HOST_PAGEABLE, !!async);
	return *e == cudaSuccess ? h : NULL;
}

/* The executor has read a streamed request's bytes: the reader goes on. */
static void body_taken(struct session *s)
{
	pthread_mutex_lock(&s->lock);
	s->body_waiting = 0;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* A COPY_HTOD whose bytes are still on the connection (the reader left
 * them there and waits): they are read here, into device memory or a
 * staging buffer, whatever the request's fate, so the next frame starts
 * where it should. */
static cudaError_t take_htod_body(struct session *s, const struct ag_frame_hdr *h,
				  const uint8_t *fields)
{
	struct ag_rbuf r;
	struct htod c;
	size_t n = h->len - HTOD_FIELDS;
	cudaError_t e;
	void *to = NULL, *staging = NULL;
	char err[128];
	int rc;

	ag_rbuf_init(&r, fields, HTOD_FIELDS);
	get_htod(s, &r, &c);
	e = check_htod(s, &c, n);
	if (e == cudaSuccess && !c.async)
		to = direct_target(s, c.st, c.dst, 0, &e);
	if (!to)
		to = staging = n <= AG_PROTO_CHUNK ? s->chunk : xmalloc(n);
	rc = ag_conn_recv_body(&s->conn, h, to, n, err, sizeof(err));
	/* The reader may go on (and take a host function's answer that the
	 * staged copy below may wait for). */
	body_taken(s);
	if (rc)
		e = malformed(s, "client gone during a copy: %s", err);
	else if (e == cudaSuccess && staging)
		e = s->ops->copy_htod(s->b, c.st, c.dst, staging, n, AG_HOST_PAGEABLE, !!c.async);
	if (staging != s->chunk)
		free(staging);
	return e;
}

static cudaError_t do_copy_htod_z(struct session *s, const struct ag_frame_hdr *h,
				  struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct htod c;
	uint32_t n;
	size_t zn;
	const void *z;
	cudaError_t e;
	void *to = NULL;

	get_htod(s, r, &c);
	n = ag_get_u32(r);
	zn = ag_rbuf_left(r);
	z = ag_get_bytes(r, zn);
	DECODED(s, r, h);
	if (!s->zlevel)
		return malformed(s, "compressed copy in a session without compression");
	if (!n || n > AG_PROTO_CHUNK)
		return malformed(s, "compressed chunk of %u bytes", n);
	e = check_htod(s, &c, n);
	if (e == cudaSuccess && !c.async)
		to = direct_target(s, c.st, c.dst, 0, &e);
	if (e != cudaSuccess)
		return e;
	if (ag_zchunk_decompress(s->zd, to ? to : s->chunk, n, z, zn))
		return malformed(s, "a compressed chunk that is not %u bytes of Zstandard", n);
	return to ? cudaSuccess
		  : s->ops->copy_htod(s->b, c.st, c.dst, s->chunk, n, AG_HOST_PAGEABLE, !!c.async);
}

/* One chunk of a device-to-host copy, as DATA, or as DATA_Z when the
 * session compresses and that makes it smaller.  A large DATA chunk is
 * padded to start a page after its frame: the socket then lays its bytes
 * out in kernel pages as a raw stream's, at the same page offsets as in a
 * page-aligned destination, which the client's kernel copies markedly
 * faster than bytes shifted by the frame's fields.  0, or -1 with err set. */
static int send_chunk(struct session *s, uint64_t id, uint64_t off, const void *data,
		      uint64_t len, char *err, size_t errlen)
{
	static const uint8_t zeros[AG_PROTO_DATA_ALIGN];
	struct ag_wbuf head = { 0 };
	size_t zn = 0;
	int rc;

	if (s->zlevel)
		zn = ag_zchunk_compress(s->zc, (int)s->zlevel, s->zbuf,
					ag_zchunk_bound(AG_PROTO_CHUNK), data, len);
	ag_put_u64(&head, off);
	if (zn) {
		ag_put_u32(&head, (uint32_t)len);
	} else {
		uint32_t pad = len < AG_PROTO_DATA_PAD_MIN ? 0
			       : AG_PROTO_DATA_ALIGN - (AG_PROTO_HDR + 12) % AG_PROTO_DATA_ALIGN;

		ag_put_u32(&head, pad);
		ag_put_bytes(&head, zeros, pad);
	}
	rc = ag_conn_send(&s->conn, zn ? AG_OP_DATA_Z : AG_OP_DATA, 0, id, head.p, head.len,
			  zn ? s->zbuf : data, zn ? zn : len, err, errlen);
	ag_wbuf_free(&head);
	return rc;
}

/* Streams the range back as DATA frames of the request's id, then the
 * caller sends the reply. */
static cudaError_t do_copy_dtoh(struct session *s, const struct ag_frame_hdr *h,
				struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct ag_stream *st;
	int bad = get_stream(s, r, &st);
	ag_dptr src = ag_get_u64(r);
	uint64_t n = ag_get_u64(r), off;
	uint32_t async = ag_get_u32(r);
	const char *direct;
	cudaError_t e = cudaSuccess;
	char err[128];

	DECODED(s, r, h);
	if (bad)
		return cudaErrorInvalidResourceHandle;
	if (!n)
		return cudaSuccess;
	if (check_range(s, src, n))
		return cudaErrorInvalidValue;
	direct = direct_target(s, st, src, async, &e);
	if (e != cudaSuccess)
		return e;
	for (off = 0; off < n; off += AG_PROTO_CHUNK) {
		uint64_t len = n - off < AG_PROTO_CHUNK ? n - off : AG_PROTO_CHUNK;
		const char *data = direct ? direct + off : (const char *)s->chunk;

		/* Staged: the first chunk's copy waits as the client's copy
		 * must (a synchronous one with legacy-stream semantics). */
		if (!direct) {
			e = s->ops->copy_dtoh(s->b, st, s->chunk, src + off, len,
					      AG_HOST_PAGEABLE, off ? 1 : !!async);
			if (e != cudaSuccess)
				return e;
		}
		if (send_chunk(s, h->id, off, data, len, err, sizeof(err)))
			return malformed(s, "client gone during a copy: %s", err);
	}
	return cudaSuccess;
}

static cudaError_t do_copy_dtod(struct session *s, const struct ag_frame_hdr *h,
				struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct ag_stream *st;
	int bad = get_stream(s, r, &st);
	ag_dptr dst = ag_get_u64(r), src = ag_get_u64(r);
	uint64_t n = ag_get_u64(r);
	uint32_t async = ag_get_u32(r);

	DECODED(s, r, h);
	if (bad)
		return cudaErrorInvalidResourceHandle;
	if (!n)
		return cudaSuccess;
	if (check_range(s, dst, n) || check_range(s, src, n))
		return cudaErrorInvalidValue;
	return s->ops->copy_dtod(s->b, st, dst, src, n, !!async);
}

static cudaError_t do_memset(struct session *s, const struct ag_frame_hdr *h,
			     struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct ag_stream *st;
	int bad = get_stream(s, r, &st);
	ag_dptr dst = ag_get_u64(r);
	int value = (int)ag_get_u32(r);
	uint64_t n = ag_get_u64(r);
	uint32_t async = ag_get_u32(r);

	DECODED(s, r, h);
	if (bad)
		return cudaErrorInvalidResourceHandle;
	if (!n)
		return cudaSuccess;
	if (check_range(s, dst, n))
		return cudaErrorInvalidValue;
	return s->ops->memset(s->b, st, dst, value, n, !!async);
}

static cudaError_t do_module_load(struct session *s, const struct ag_frame_hdr *h,
				  struct ag_rbuf *r, struct ag_wbuf *out)
{
	size_t n = ag_rbuf_left(r);
	const void *image = ag_get_bytes(r, n);
	struct ag_module *m = NULL;
	cudaError_t e;

	DECODED(s, r, h);
	if (!n)
		return cudaErrorInvalidValue;
	e = s->ops->module_load(s->b, image, n, &m);
	ag_put_u32(out, e == cudaSuccess ? ag_table_add(&s->t.modules, m) : 0);
	return e;
}

static cudaError_t do_module_unload(struct session *s, const struct ag_frame_hdr *h,
				    struct ag_rbuf *r, struct ag_wbuf *out)
{
	uint32_t mh = ag_get_u32(r);
	struct ag_module *m;
	cudaError_t e;

	DECODED(s, r, h);
	m = ag_table_get(&s->t.modules, mh);
	if (!m)
		return cudaErrorInvalidResourceHandle;
	e = s->ops->module_unload(s->b, m);
	if (e == cudaSuccess)
		ag_tables_drop_module(&s->t, mh);
	return e;
}

static cudaError_t do_module_func(struct session *s, const struct ag_frame_hdr *h,
				  struct ag_rbuf *r, struct ag_wbuf *out)
{
	uint32_t mh = ag_get_u32(r);
	char name[AG_PROTO_MAX_STR + 1];
	struct ag_module *m;
	struct ag_func *f = NULL;
	const struct ag_func_info *fi = NULL;
	cudaError_t e;

	ag_get_str(r, name, sizeof(name));
	DECODED(s, r, h);
	m = ag_table_get(&s->t.modules, mh);
	if (!m)
		return cudaErrorInvalidResourceHandle;
	e = s->ops->module_func(s->b, m, name, &f, &fi);
	if (e != cudaSuccess)
		return e;
	ag_put_u32(out, ag_tables_add_func(&s->t, f, fi, mh));
	ag_put_str(out, fi->name);
	ag_put_u32(out, fi->nparams);
	for (uint32_t i = 0; i < fi->nparams; i++) {
		ag_put_u32(out, fi->params[i].offset);
		ag_put_u32(out, fi->params[i].size);
		ag_put_u32(out, fi->params[i].align);
	}
	ag_put_u32(out, fi->param_bytes);
	ag_put_u32(out, fi->max_threads);
	ag_put_u32(out, fi->static_shared);
	ag_put_u32(out, fi->local_bytes);
	ag_put_u32(out, fi->nregs);
	ag_put_u32(out, fi->ptx_version);
	ag_put_u32(out, fi->binary_version);
	return cudaSuccess;
}

static cudaError_t do_module_var(struct session *s, const struct ag_frame_hdr *h,
				 struct ag_rbuf *r, struct ag_wbuf *out)
{
	uint32_t mh = ag_get_u32(r);
	char name[AG_PROTO_MAX_STR + 1];
	struct ag_module *m;
	ag_dptr addr = 0;
	uint64_t size = 0;
	cudaError_t e;

	ag_get_str(r, name, sizeof(name));
	DECODED(s, r, h);
	m = ag_table_get(&s->t.modules, mh);
	if (!m)
		return cudaErrorInvalidResourceHandle;
	e = s->ops->module_var(s->b, m, name, &addr, &size);
	if (e != cudaSuccess)
		return e;
	/* Copies to and from the variable are then checked like any other. */
	if (ag_ranges_find(&s->t, addr, size) < 0)
		ag_ranges_add(&s->t, addr, size, mh);
	ag_put_u64(out, addr);
	ag_put_u64(out, size);
	return cudaSuccess;
}

static cudaError_t do_launch(struct session *s, const struct ag_frame_hdr *h,
			     struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct ag_stream *st;
	int bad = get_stream(s, r, &st);
	uint32_t fh = ag_get_u32(r);
	struct ag_launch_cfg cfg;
	const struct ag_sfunc *f;
	size_t n;
	const void *params;

	for (int i = 0; i < 3; i++)
		cfg.grid[i] = ag_get_u32(r);
	for (int i = 0; i < 3; i++)
		cfg.block[i] = ag_get_u32(r);
	cfg.shared = ag_get_u32(r);
	cfg.cooperative = (int)ag_get_u32(r);
	n = ag_rbuf_left(r);
	params = ag_get_bytes(r, n);
	DECODED(s, r, h);
	f = ag_table_get(&s->t.funcs, fh);
	if (bad || !f)
		return cudaErrorInvalidResourceHandle;
	if (n != f->info->param_bytes) {
		snprintf(s->msg, sizeof(s->msg),
			 "launch of %s with %zu parameter bytes, the kernel takes %u",
			 f->info->name, n, f->info->param_bytes);
		return cudaErrorInvalidValue;
	}
	return s->ops->launch(s->b, st, f->f, &cfg, params, n);
}

/* Streams and events are made and destroyed alike. */
static cudaError_t do_create(struct session *s, const struct ag_frame_hdr *h,
			     struct ag_rbuf *r, struct ag_wbuf *out)
{
	int stream = h->op == AG_OP_STREAM_CREATE;
	uint32_t flags = ag_get_u32(r);
	int prio = stream ? (int)ag_get_u32(r) : 0;
	struct ag_stream *st = NULL;
	struct ag_event *ev = NULL;
	cudaError_t e;

	DECODED(s, r, h);
	if (stream)
		e = s->ops->stream_create(s->b, flags, prio, &st);
	else
		e = s->ops->event_create(s->b, flags, &ev);
	if (e != cudaSuccess)
		return e;
	ag_put_u32(out, stream ? ag_table_add(&s->t.streams, st) : ag_table_add(&s->t.events, ev));
	return e;
}

static cudaError_t do_destroy(struct session *s, const struct ag_frame_hdr *h,
			      struct ag_rbuf *r, struct ag_wbuf *out)
{
	int stream = h->op == AG_OP_STREAM_DESTROY;
	struct ag_table *t = stream ? &s->t.streams : &s->t.events;
	uint32_t handle = ag_get_u32(r);
	void *obj;
	cudaError_t e;

	DECODED(s, r, h);
	obj = ag_table_get(t, handle);
	if (!obj)
		return cudaErrorInvalidResourceHandle;
	e = stream ? s->ops->stream_destroy(s->b, obj) : s->ops->event_destroy(s->b, obj);
	if (e == cudaSuccess)
		ag_table_del(t, handle);
	return e;
}

static cudaError_t do_stream_sync(struct session *s, const struct ag_frame_hdr *h,
				  struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct ag_stream *st;
	int bad = get_stream(s, r, &st);

	DECODED(s, r, h);
	if (bad)
		return cudaErrorInvalidResourceHandle;
	return h->op == AG_OP_STREAM_SYNC ? s->ops->stream_sync(s->b, st)
					  : s->ops->stream_query(s->b, st);
}

static cudaError_t do_stream_wait_event(struct session *s, const struct ag_frame_hdr *h,
					struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct ag_stream *st;
	int bad = get_stream(s, r, &st);
	struct ag_event *ev = ag_table_get(&s->t.events, ag_get_u32(r));

	DECODED(s, r, h);
	if (bad || !ev)
		return cudaErrorInvalidResourceHandle;
	return s->ops->stream_wait_event(s->b, st, ev);
}

/* Host functions the reader has read and the client has not finished
 * (or that failed): while there are any, no copy's bytes wait on the
 * connection for the executor (may_stream). */
static void count_hostfns(struct session *s, int delta)
{
	pthread_mutex_lock(&s->lock);
	s->hostfns_out += delta;
	pthread_mutex_unlock(&s->lock);
}

static int cookie_done(struct session *s, uint64_t cookie)
{
	for (size_t i = 0; i < s->ndone; i++) {
		if (s->done_cookies[i] == cookie) {
			s->done_cookies[i] = s->done_cookies[--s->ndone];
			return 1;
		}
	}
	return 0;
}

/* On a backend thread, when the stream reaches the host function: the
 * client runs it, and the stream goes on only once it has. */
static void run_client_hostfn(void *data)
{
	struct hostfn_call *c = data;
	struct session *s = c->s;
	char err[128];

	if (ag_conn_send(&s->conn, AG_OP_HOSTFN, 0, c->cookie, NULL, 0, NULL, 0,
			 err, sizeof(err)) == 0) {
		pthread_mutex_lock(&s->lock);
		while (!cookie_done(s, c->cookie) && !s->reader_done)
			pthread_cond_wait(&s->cond, &s->lock);
		pthread_mutex_unlock(&s->lock);
	}
	count_hostfns(s, -1);
	free(c);
}

static cudaError_t do_host_func(struct session *s, const struct ag_frame_hdr *h,
				struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct ag_stream *st;
	int bad = get_stream(s, r, &st);
	uint64_t cookie = ag_get_u64(r);
	struct hostfn_call *c;
	cudaError_t e;

	DECODED(s, r, h);
	if (bad) {
		count_hostfns(s, -1);
		return cudaErrorInvalidResourceHandle;
	}
	c = xmalloc(sizeof(*c));
	c->s = s;
	c->cookie = cookie;
	e = s->ops->host_func(s->b, st, run_client_hostfn, c);
	if (e != cudaSuccess) {
		count_hostfns(s, -1);
		free(c);
	}
	return e;
}

static cudaError_t do_event_record(struct session *s, const struct ag_frame_hdr *h,
				   struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct ag_event *ev = ag_table_get(&s->t.events, ag_get_u32(r));
	struct ag_stream *st;
	int bad = get_stream(s, r, &st);

	DECODED(s, r, h);
	if (bad || !ev)
		return cudaErrorInvalidResourceHandle;
	return s->ops->event_record(s->b, ev, st);
}

static cudaError_t do_event_sync(struct session *s, const struct ag_frame_hdr *h,
				 struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct ag_event *ev = ag_table_get(&s->t.events, ag_get_u32(r));

	DECODED(s, r, h);
	if (!ev)
		return cudaErrorInvalidResourceHandle;
	return h->op == AG_OP_EVENT_SYNC ? s->ops->event_sync(s->b, ev)
					 : s->ops->event_query(s->b, ev);
}

static cudaError_t do_event_elapsed(struct session *s, const struct ag_frame_hdr *h,
				    struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct ag_event *a = ag_table_get(&s->t.events, ag_get_u32(r));
	struct ag_event *z = ag_table_get(&s->t.events, ag_get_u32(r));
	float ms = 0;
	uint32_t bits;
	cudaError_t e;

	DECODED(s, r, h);
	if (!a || !z)
		return cudaErrorInvalidResourceHandle;
	e = s->ops->event_elapsed(s->b, a, z, &ms);
	memcpy(&bits, &ms, 4);
	ag_put_u32(out, bits);
	return e;
}

/* The runtime checks descriptors before they travel, so one that breaks
 * the rules or names memory outside this session's allocations is
 * hostile and ends the session. */
static cudaError_t do_tex_create(struct session *s, const struct ag_frame_hdr *h,
				 struct ag_rbuf *r, struct ag_wbuf *out)
{
	struct ag_tex_desc d;
	const char *why;
	uint64_t span, handle = 0;
	cudaError_t e;

	ag_get_tex_desc(r, &d);
	DECODED(s, r, h);
	if (ag_tex_desc_check(&d, &span, &why))
		return malformed(s, "tex_create: bad %s in the descriptor", why);
	if (ag_ranges_find(&s->t, d.base, span) < 0)
		return malformed(s, "tex_create over 0x%llx+%llu, outside this session's memory",
				 (unsigned long long)d.base, (unsigned long long)span);
	if (!s->ops->tex_create)
		return cudaErrorNotSupported;
	e = s->ops->tex_create(s->b, &d, &handle);
	if (e == cudaSuccess)
		ag_table_add(&s->t.textures, (void *)(uintptr_t)handle);
	ag_put_u64(out, handle);
	return e;
}

/* Only objects this session created may be destroyed. */
static cudaError_t do_tex_destroy(struct session *s, const struct ag_frame_hdr *h,
				  struct ag_rbuf *r, struct ag_wbuf *out)
{
	uint64_t handle = ag_get_u64(r);
	uint32_t i;
	cudaError_t e;

	DECODED(s, r, h);
	for (i = 1; i <= s->t.textures.n; i++)
		if (handle && (uintptr_t)ag_table_get(&s->t.textures, i) == handle)
			break;
	if (i > s->t.textures.n)
		return malformed(s, "tex_destroy of 0x%llx, not an object of this session",
				 (unsigned long long)handle);
	e = s->ops->tex_destroy(s->b, handle);
	if (e == cudaSuccess)
		ag_table_del(&s->t.textures, i);
	return e;
}

/* A limit the backend enforces.  The malloc heap is device memory: a
 * session with a quota may not ask for more heap than the quota. */
static cudaError_t do_set_limit(struct session *s, const struct ag_frame_hdr *h,
				struct ag_rbuf *r, struct ag_wbuf *out)
{
	uint32_t limit = ag_get_u32(r);
	uint64_t value = ag_get_u64(r);

	DECODED(s, r, h);
	if (limit > cudaLimitDevRuntimePendingLaunchCount)
		return cudaErrorUnsupportedLimit;
	if (limit == cudaLimitMallocHeapSize && s->t.limit && value > s->t.limit) {
		snprintf(s->msg, sizeof(s->msg),
			 "a malloc heap of %llu bytes exceeds the session's quota of %llu bytes",
			 (unsigned long long)value, (unsigned long long)s->t.limit);
		return cudaErrorMemoryAllocation;
	}
	return s->ops->set_limit ? s->ops->set_limit(s->b, (enum cudaLimit)limit, value)
				 : cudaSuccess;
}

static cudaError_t do_status(struct session *s, const struct ag_frame_hdr *h,
			     struct ag_rbuf *r, struct ag_wbuf *out)
{
	DECODED(s, r, h);
	ag_put_u64(out, ag_ranges_allocs(&s->t));
	ag_put_u64(out, s->t.used);
	ag_put_u64(out, s->t.limit);
	return cudaSuccess;
}

/* Requests after which the client learns errors of earlier unanswered
 * calls, as CUDA reports asynchronous errors at synchronising calls. */
#define SYNCS 1u

static const struct {
	handler_fn fn;
	unsigned flags;
} handlers[AG_OP_REQUEST_END] = {
	[AG_OP_INFO] = { do_info, 0 },
	[AG_OP_MEM_INFO] = { do_mem_info, 0 },
	[AG_OP_SYNCHRONIZE] = { do_synchronize, SYNCS },
	[AG_OP_MEM_ALLOC] = { do_mem_alloc, 0 },
	[AG_OP_MEM_FREE] = { do_mem_free, SYNCS },
	[AG_OP_COPY_HTOD] = { do_copy_htod, SYNCS },
	[AG_OP_COPY_DTOH] = { do_copy_dtoh, SYNCS },
	[AG_OP_COPY_DTOD] = { do_copy_dtod, SYNCS },
	[AG_OP_MEMSET] = { do_memset, SYNCS },
	[AG_OP_MODULE_LOAD] = { do_module_load, 0 },
	[AG_OP_MODULE_UNLOAD] = { do_module_unload, 0 },
	[AG_OP_MODULE_FUNC] = { do_module_func, 0 },
	[AG_OP_MODULE_VAR] = { do_module_var, 0 },
	[AG_OP_LAUNCH] = { do_launch, 0 },
	[AG_OP_STREAM_CREATE] = { do_create, 0 },
	[AG_OP_STREAM_DESTROY] = { do_destroy, 0 },
	[AG_OP_STREAM_SYNC] = { do_stream_sync, SYNCS },
	[AG_OP_STREAM_QUERY] = { do_stream_sync, SYNCS },
	[AG_OP_STREAM_WAIT_EVENT] = { do_stream_wait_event, 0 },
	[AG_OP_HOST_FUNC] = { do_host_func, 0 },
	[AG_OP_EVENT_CREATE] = { do_create, 0 },
	[AG_OP_EVENT_DESTROY] = { do_destroy, 0 },
	[AG_OP_EVENT_RECORD] = { do_event_record, 0 },
	[AG_OP_EVENT_SYNC] = { do_event_sync, SYNCS },
	[AG_OP_EVENT_QUERY] = { do_event_sync, SYNCS },
	[AG_OP_EVENT_ELAPSED] = { do_event_elapsed, 0 },
	[AG_OP_STATUS] = { do_status, 0 },
	[AG_OP_TEX_CREATE] = { do_tex_create, 0 },
	[AG_OP_TEX_DESTROY] = { do_tex_destroy, 0 },
	[AG_OP_COPY_HTOD_Z] = { do_copy_htod_z, SYNCS },
	[AG_OP_SET_LIMIT] = { do_set_limit, 0 },
};

static const char *error_message(struct session *s, cudaError_t e)
{
	const char *m;

	if (e == cudaSuccess)
		return NULL;
	if (s->msg[0])
		return s->msg;
	m = s->ops->last_message(s->b);
	return m && m[0] ? m : NULL;
}

/* Answers a request that ran with e (results in out), or, when it asked
 * for no answer, keeps its error for the next synchronising call. */
static void answer(struct session *s, const struct ag_frame_hdr *h, cudaError_t e,
		   const struct ag_wbuf *out)
{
	struct ag_wbuf head = { 0 };
	char err[128];

	if (h->flags & AG_F_NOREPLY) {
		if (e != cudaSuccess && s->deferred == cudaSuccess) {
			const char *m = error_message(s, e);

			s->deferred = e;
			snprintf(s->deferred_msg, sizeof(s->deferred_msg), "%s", m ? m : "");
		}
		return;
	}
	if (e == cudaSuccess && s->deferred != cudaSuccess && (handlers[h->op].flags & SYNCS)) {
		e = s->deferred;
		s->deferred = cudaSuccess;
		memcpy(s->msg, s->deferred_msg, sizeof(s->msg));
	}
	ag_put_u32(&head, (uint32_t)e);
	ag_put_str(&head, error_message(s, e));
	ag_outfwd_drain(s->out);
	ag_outfwd_drain(s->err);
	if (ag_conn_send(&s->conn, AG_OP_REPLY, 0, h->id, head.p, head.len, out->p, out->len,
			 err, sizeof(err)))
		malformed(s, "client gone: %s", err);
	ag_wbuf_free(&head);
}

/* Runs one request and answers it unless it asked for no answer. */
static void dispatch(struct session *s, const struct qframe *q)
{
	const struct ag_frame_hdr *h = &q->h;
	struct ag_rbuf r;
	struct ag_wbuf out = { 0 };
	cudaError_t e;
	char err[128];

	s->msg[0] = '\0';
	if (q->streamed) {
		e = take_htod_body(s, h, q->payload);
	} else if (ag_request_check(h, q->payload, err, sizeof(err))) {
		e = malformed(s, "%s", err);
	} else if (!handlers[h->op].fn) {
		e = malformed(s, "unexpected %s frame", ag_op_name(h->op));
	} else {
		ag_rbuf_init(&r, q->payload, h->len);
		e = handlers[h->op].fn(s, h, &r, &out);
	}
	if (!s->fault)
		answer(s, h, e, &out);
	ag_wbuf_free(&out);
}

/* Whether a synchronous chunk's bytes may wait on the connection for the
 * executor: not while a host function is unfinished, since the executor
 * may wait for it and its answer would be behind these bytes. */
static int may_stream(struct session *s, const uint8_t fields[HTOD_FIELDS])
{
	uint32_t async;
	int busy;

	memcpy(&async, fields + 12, 4);
	pthread_mutex_lock(&s->lock);
	busy = s->hostfns_out;
	pthread_mutex_unlock(&s->lock);
	return !async && !busy;
}

/* Reads a request's payload (NULL when empty); of a large synchronous
 * COPY_HTOD only its fields, leaving the bytes on the connection for the
 * executor (*streamed set).  0, or -1 with why set. */
static int read_request(struct session *s, const struct ag_frame_hdr *h, uint8_t **payload,
			int *streamed, char *why, size_t whylen)
{
	uint8_t fields[HTOD_FIELDS];
	size_t have = 0;

	*payload = NULL;
	*streamed = 0;
	if (!h->len)
		return 0;
	if (h->op == AG_OP_COPY_HTOD && h->len >= HTOD_FIELDS + STREAMED_MIN) {
		if (ag_conn_recv_body(&s->conn, h, fields, HTOD_FIELDS, why, whylen))
			return -1;
		*streamed = may_stream(s, fields);
		have = HTOD_FIELDS;
	}
	*payload = xmalloc(*streamed ? HTOD_FIELDS : h->len);
	memcpy(*payload, fields, have);
	if (*streamed || !ag_conn_recv_body(&s->conn, h, *payload + have, h->len - have,
					    why, whylen))
		return 0;
	free(*payload);
	*payload = NULL;
	return -1;
}

/* A host function's completion: the backend thread waiting for it goes on. */
static void hostfn_done(struct session *s, uint64_t cookie)
{
	pthread_mutex_lock(&s->lock);
	if (s->ndone == s->donecap) {
		s->donecap = s->donecap * 2 + 8;
		s->done_cookies = xrealloc(s->done_cookies, s->donecap * sizeof(uint64_t));
	}
	s->done_cookies[s->ndone++] = cookie;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* Queues a request for the executor, once there is room; a streamed one's
 * bytes are the executor's to read, so the reader waits until it has. */
static void enqueue(struct session *s, const struct ag_frame_hdr *h, uint8_t *payload,
		    int streamed)
{
	struct qframe *q = xmalloc(sizeof(*q));

	q->next = NULL;
	q->h = *h;
	q->payload = payload;
	q->streamed = streamed;
	pthread_mutex_lock(&s->lock);
	while (s->queued > MAX_QUEUED && !s->fault)
		pthread_cond_wait(&s->cond, &s->lock);
	if (s->tail)
		s->tail->next = q;
	else
		s->head = q;
	s->tail = q;
	s->queued += streamed ? HTOD_FIELDS : h->len;
	s->body_waiting = streamed;
	pthread_cond_broadcast(&s->cond);
	while (s->body_waiting && !s->fault)
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

/* Once the reader has stopped (the client is gone, or the session is
 * ending for a fault), the session finishes what is queued and closes
 * the backend.  A session still at it GONE_GRACE_S later waits on the
 * device (a kernel that never ends, a GPU that hangs) for nobody: the
 * session's owner may then end the process, which frees what the session
 * held on the device (ag_session_args.abandon). */
static void *watch_teardown(void *arg)
{
	struct session *s = arg;
	struct timespec until;
	char why[400];
	int done;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += GONE_GRACE_S;
	pthread_mutex_lock(&s->lock);
	while (!s->torn_down &&
	       pthread_cond_timedwait(&s->cond, &s->lock, &until) != ETIMEDOUT)
		;
	done = s->torn_down;
	pthread_mutex_unlock(&s->lock);
	if (!done) {
		snprintf(why, sizeof(why), "%s, and the device was still busy with the session's "
			 "work %d s later: worker ended", s->reader_why, GONE_GRACE_S);
		s->args->abandon(s->args->abandon_ctx, why);
	}
	return NULL;
}

/* The session's end has begun (the caller holds s->lock). */
static void start_watch(struct session *s)
{
	if (s->args->abandon && !s->watching)
		s->watching = pthread_create(&s->watchdog, NULL, watch_teardown, s) == 0;
}

/* The backend is closed: nothing can hold the session any more. */
static void stop_watch(struct session *s)
{
	pthread_mutex_lock(&s->lock);
	s->torn_down = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (s->watching)
		pthread_join(s->watchdog, NULL);
}

static void *reader_main(void *arg)
{
	struct session *s = arg;
	struct ag_frame_hdr h;
	struct ag_raw_buf raw = { 0 };
	uint8_t *payload;
	char why[200];
	int rc, streamed;

	for (;;) {
		rc = ag_conn_recv_hdr(&s->conn, &h, why, sizeof(why));
		if (rc == 0)
			rc = read_request(s, &h, &payload, &streamed, why, sizeof(why));
		if (rc)
			break;
		if (h.op == AG_OP_HOSTFN_DONE && !h.len) {
			hostfn_done(s, h.id);
		} else if (h.op == AG_OP_RAW) {
			/* A measurement, not work: answered here at once, ahead of
			 * anything queued (the client waits for nothing else). */
			rc = ag_raw_serve(&s->conn, &raw, &h, payload, why, sizeof(why));
			free(payload);
			if (rc)
				break;
		} else {
			if (h.op == AG_OP_HOST_FUNC)
				count_hostfns(s, 1);
			enqueue(s, &h, payload, streamed);
		}
	}
	ag_raw_buf_free(&raw);
	pthread_mutex_lock(&s->lock);
	if (rc == 1)
		snprintf(s->reader_why, sizeof(s->reader_why), "client closed");
	else
		snprintf(s->reader_why, sizeof(s->reader_why), "%s", why);
	s->reader_done = rc == 1 ? 1 : 2;
	start_watch(s);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* The next request, or NULL once the reader has stopped and the queue is
 * empty. */
static struct qframe *next_request(struct session *s)
{
	struct qframe *q;

	pthread_mutex_lock(&s->lock);
	while (!s->head && !s->reader_done)
		pthread_cond_wait(&s->cond, &s->lock);
	q = s->head;
	if (q) {
		s->head = q->next;
		if (!s->head)
			s->tail = NULL;
		s->queued -= q->streamed ? HTOD_FIELDS : q->h.len;
		pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	return q;
}

static void print_to_client(void *ctx, const char *text, size_t len)
{
	struct session *s = ctx;
	char err[128];

	while (len) {
		size_t n = len < AG_PROTO_CHUNK ? len : AG_PROTO_CHUNK;

		if (ag_conn_send(&s->conn, AG_OP_PRINT, 0, 0, text, n, NULL, 0, err, sizeof(err)))
			return;
		text += n;
		len -= n;
	}
}

/* The client asked for compression at level: the session uses it, or the
 * highest level allowed, unless zstd cannot start (then none). */
static void agree_compression(struct session *s, uint32_t level)
{
	s->zc = ZSTD_createCCtx();
	s->zd = ZSTD_createDCtx();
	if (s->zc && s->zd)
		s->zlevel = level < AG_ZSTD_MAX_LEVEL ? level : AG_ZSTD_MAX_LEVEL;
}

/* HELLO: version, token and compression.  0 with the session's quota, or
 * -1 with the reason in s->reason (the client has been told why, when it
 * spoke the protocol at all). */
static int greet(struct session *s, const struct ag_session_args *a, uint64_t *limit)
{
	struct ag_frame_hdr h;
	uint8_t *payload;
	struct ag_hello hello;
	struct ag_wbuf out = { 0 };
	char err[200], why[200] = "";
	cudaError_t e = cudaSuccess;
	int rc;

	rc = ag_conn_recv(&s->conn, &h, &payload, err, sizeof(err));
	if (rc) {
		snprintf(s->reason, sizeof(s->reason), "no hello: %s",
			 rc == 1 ? "client closed" : err);
		return -1;
	}
	rc = h.op == AG_OP_HELLO ? ag_hello_decode(payload, h.len, &hello) : -1;
	free(payload);
	if (h.op != AG_OP_HELLO || hello.magic != AG_PROTO_MAGIC ||
	    (rc && hello.version == AG_PROTO_VERSION)) {
		snprintf(s->reason, sizeof(s->reason), "not an anygpu client (first frame %s%s)",
			 ag_op_name(h.op), h.op == AG_OP_HELLO ? ", malformed" : "");
		return -1;
	}
	*limit = 0;
	if (hello.version != AG_PROTO_VERSION) {
		snprintf(why, sizeof(why), "protocol version %u, this server speaks %u",
			 hello.version, AG_PROTO_VERSION);
		e = cudaErrorInsufficientDriver;
	} else if (a->auth && a->auth(a->auth_ctx, hello.token, limit, why, sizeof(why))) {
		e = cudaErrorNotPermitted;
	}
	if (e == cudaSuccess && hello.compress && !a->no_compress)
		agree_compression(s, hello.compress);
	ag_put_u32(&out, (uint32_t)e);
	ag_put_str(&out, why[0] ? why : NULL);
	ag_put_u32(&out, AG_PROTO_VERSION);
	ag_put_u32(&out, s->zlevel);
	ag_conn_send(&s->conn, AG_OP_REPLY, 0, h.id, out.p, out.len, NULL, 0, err, sizeof(err));
	ag_wbuf_free(&out);
	if (e != cudaSuccess) {
		snprintf(s->reason, sizeof(s->reason), "refused: %s", why);
		return -1;
	}
	return 0;
}

/* The executor's buffers: a chunk's staging, and compression's.  The
 * staging is pinned where the backend can pin (the cuda backend), so that
 * a chunk's copy to or from the device is DMA, not the driver's own
 * staging; closing the backend drops the pin. */
static void buffers_open(struct session *s)
{
	ag_dptr mapped;

	s->chunk = xmalloc(AG_PROTO_CHUNK);
	if (s->ops->host_register)
		s->ops->host_register(s->b, s->chunk, AG_PROTO_CHUNK, &mapped);
	if (s->zlevel)
		s->zbuf = xmalloc(ag_zchunk_bound(AG_PROTO_CHUNK));
}

static void buffers_close(struct session *s)
{
	free(s->chunk);
	ZSTD_freeCCtx(s->zc);
	ZSTD_freeDCtx(s->zd);
	free(s->zbuf);
}

static void serve_requests(struct session *s)
{
	struct qframe *q;

	pthread_create(&s->reader, NULL, reader_main, s);
	while (!s->fault && (q = next_request(s))) {
		dispatch(s, q);
		free(q->payload);
		free(q);
	}
	/* Wake the reader if it waits for room, and make it stop reading. */
	pthread_mutex_lock(&s->lock);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	shutdown(s->conn.fd, SHUT_RDWR);
	pthread_join(s->reader, NULL);
	while ((q = s->head)) {
		s->head = q->next;
		free(q->payload);
		free(q);
	}
	if (!s->fault)
		snprintf(s->reason, sizeof(s->reason), "%s", s->reader_why);
	if (s->reader_done == 2)
		s->fault = 1;
}

#define HELLO_TIMEOUT_S 30

static void set_recv_timeout(int fd, int seconds)
{
	struct timeval tv = { .tv_sec = seconds };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

int ag_session_run(int fd, const struct ag_session_args *a, char *reason, size_t len)
{
	struct session s = { .ops = a->ops, .args = a };
	char why[256] = "";
	struct ag_open_args oa = { .print = print_to_client, .print_ctx = &s,
				   .error = why, .error_len = sizeof(why) };
	uint64_t allocs, used;
	cudaError_t e;

	ag_conn_init(&s.conn, fd);
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.cond, NULL);
	ag_tables_init(&s.t);
	/* A peer that connects and says nothing must not hold a worker. */
	set_recv_timeout(fd, HELLO_TIMEOUT_S);
	if (a->tls && ag_conn_tls_accept(&s.conn, a->tls, s.reason, sizeof(s.reason))) {
		s.fault = 1;
	} else if (greet(&s, a, &oa.mem_limit) == 0) {
		set_recv_timeout(fd, 0);
		s.t.limit = oa.mem_limit;
		s.out = ag_outfwd_start(&s.conn, 1, AG_OP_PRINT);
		s.err = ag_outfwd_start(&s.conn, 2, AG_OP_STDERR);
		e = a->ops->open(a->ordinal, &oa, &s.b);
		if (e == cudaSuccess) {
			buffers_open(&s);
			serve_requests(&s);
		} else {
			snprintf(s.reason, sizeof(s.reason), "%s backend failed to open: error %d%s%.180s",
				 a->ops->name, (int)e, why[0] ? ": " : "", why);
			s.fault = 1;
		}
	} else {
		s.fault = 1;
	}
	allocs = ag_ranges_allocs(&s.t);
	used = s.t.used;
	if (s.b)
		a->ops->close(s.b);
	stop_watch(&s);
	ag_outfwd_stop(s.out);
	ag_outfwd_stop(s.err);
	snprintf(reason, len, "%s; freed %llu allocation%s (%llu bytes)", s.reason,
		 (unsigned long long)allocs, allocs == 1 ? "" : "s", (unsigned long long)used);
	buffers_close(&s);
	free(s.done_cookies);
	ag_tables_free(&s.t);
	ag_conn_close(&s.conn);
	pthread_cond_destroy(&s.cond);
	pthread_mutex_destroy(&s.lock);
	return s.fault ? -1 : 0;
}

/*
 * remote.c - the "remote" backend: every backend.h operation becomes a
 * protocol request to an anygpu serve daemon (ANYGPU_SERVER, one device per
 * listed server, ANYGPU_TOKEN to authenticate).
 *
 * Calls CUDA makes asynchronous (launches, async copies to the device,
 * memsets, event records, stream waits, host functions) are sent without
 * waiting; the server runs requests in order and reports their errors at the
 * next synchronising call.  A reader thread receives replies, copy data,
 * kernel printf text and host-function requests, so a host function runs on
 * this side when the remote stream reaches it even if no call is waiting.
 * Stream, event and module handles are the server's table indices, carried
 * in the opaque pointers; a function keeps its parameter layout here.
 * With ANYGPU_COMPRESS set and the server agreeing, copy chunks travel
 * Zstandard-compressed whenever that makes them smaller.
 */
#include "backend.h"
#include "protocol/conn.h"
#include "protocol/zchunk.h"
#include "util/strbuf.h"

#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zstd.h>

struct call {
	struct call *next;
	uint64_t id;
	int done;
	uint8_t *reply;             /* the REPLY payload, owned by the call */
	uint32_t len;
	void *dst;                  /* where DATA frames land */
	uint64_t dstlen;
};

struct hostfn {
	struct hostfn *next;
	uint64_t cookie;
	void (*fn)(void *);
	void *data;
};

struct ag_func {
	struct ag_func *next;
	uint32_t h;
	struct ag_func_info info;
	struct ag_param *params;
	char *name;
};

struct ag_backend {
	struct ag_conn conn;
	char server[256];
	struct ag_device_info info;
	char msg[1024];
	void (*print)(void *ctx, const char *text, size_t len);
	void *print_ctx;

	pthread_t reader;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t next_id;
	struct call *calls;
	struct hostfn *hostfns;
	struct ag_func *funcs;
	int reader_started;
	int dead;
	char dead_why[256];

	unsigned zlevel;            /* compression agreed at HELLO; 0: none */
	ZSTD_DCtx *zd;              /* the reader's, for DATA_Z frames */
	uint8_t *zin;               /* a DATA_Z payload being read */

	pthread_t flusher;          /* sends queued asynchronous requests */
	pthread_cond_t flush_cond;
	int queued, stopping, flusher_started;

	pthread_t hostfn_thread;    /* runs host functions as streams reach them */
	pthread_cond_t due_cond;
	struct hostfn *due_head, *due_tail;
	int hostfn_started;
};

/* How long queued asynchronous requests wait for company before they go. */
#define FLUSH_DELAY_US 50

static uint32_t handle_of(const void *p)
{
	return (uint32_t)(uintptr_t)p;
}

static void *handle_ptr(uint32_t h)
{
	return (void *)(uintptr_t)h;
}

/* Counts the servers of ANYGPU_SERVER, or copies the ordinal-th into out. */
static int server_list(int ordinal, char *out, size_t outlen)
{
	const char *list = getenv("ANYGPU_SERVER"), *p;
	int n = 0;

	if (!list || !*list)
		return 0;
	for (p = list; *p; n++) {
		size_t len = strcspn(p, ",");

		if (n == ordinal && out && len < outlen) {
			memcpy(out, p, len);
			out[len] = '\0';
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return n;
}

static int remote_probe(char *msg, size_t msglen)
{
	int n = server_list(-1, NULL, 0);

	if (!n)
		snprintf(msg, msglen, "no server: set ANYGPU_SERVER=host:port[,host:port...]");
	return n;
}

static cudaError_t lost(struct ag_backend *b)
{
	snprintf(b->msg, sizeof(b->msg), "anygpu server %s: connection lost: %s",
		 b->server, b->dead_why);
	return cudaErrorDevicesUnavailable;
}

/* Marks the connection dead (first reason wins) and wakes every waiter. */
static void set_dead(struct ag_backend *b, const char *why)
{
	pthread_mutex_lock(&b->lock);
	if (!b->dead) {
		b->dead = 1;
		snprintf(b->dead_why, sizeof(b->dead_why), "%s", why);
	}
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

static struct call *find_call(struct ag_backend *b, uint64_t id)
{
	for (struct call *c = b->calls; c; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

/* A DATA frame: u64 offset, u32 pad, pad bytes skipped, then bytes read
 * straight into the waiting call's buffer (the call waits for its reply,
 * which comes after). */
static int take_data(struct ag_backend *b, const struct ag_frame_hdr *h, char *why,
		     size_t whylen)
{
	uint8_t fields[12], pad[AG_PROTO_DATA_ALIGN];
	struct ag_rbuf r;
	uint64_t off, len;
	uint32_t npad;
	struct call *c;
	char *dst = NULL;

	if (h->len < sizeof(fields) ||
	    ag_conn_recv_body(&b->conn, h, fields, sizeof(fields), why, whylen))
		goto bad;
	ag_rbuf_init(&r, fields, sizeof(fields));
	off = ag_get_u64(&r);
	npad = ag_get_u32(&r);
	if (npad >= sizeof(pad) || npad > h->len - sizeof(fields) ||
	    ag_conn_recv_body(&b->conn, h, pad, npad, why, whylen))
		goto bad;
	len = h->len - sizeof(fields) - npad;
	pthread_mutex_lock(&b->lock);
	c = find_call(b, h->id);
	if (c && c->dst && off <= c->dstlen && len <= c->dstlen - off)
		dst = (char *)c->dst + off;
	pthread_mutex_unlock(&b->lock);
	if (dst)
		return ag_conn_recv_body(&b->conn, h, dst, len, why, whylen);
bad:
	snprintf(why, whylen, "unexpected data frame from the server");
	return -1;
}

/* A DATA_Z frame: u64 offset, u32 length, then a Zstandard frame that the
 * reader decompresses into the waiting call's buffer. */
static int take_data_z(struct ag_backend *b, const struct ag_frame_hdr *h, char *why,
		       size_t whylen)
{
	struct ag_rbuf r;
	uint64_t off;
	uint32_t n;
	size_t zn;
	const void *z;
	struct call *c;
	char *dst = NULL;

	if (!b->zlevel || h->len > ag_zchunk_bound(AG_PROTO_CHUNK) + 12 ||
	    ag_conn_recv_body(&b->conn, h, b->zin, h->len, why, whylen))
		goto bad;
	ag_rbuf_init(&r, b->zin, h->len);
	off = ag_get_u64(&r);
	n = ag_get_u32(&r);
	zn = ag_rbuf_left(&r);
	z = ag_get_bytes(&r, zn);
	pthread_mutex_lock(&b->lock);
	c = find_call(b, h->id);
	if (!r.bad && c && c->dst && off <= c->dstlen && n <= c->dstlen - off)
		dst = (char *)c->dst + off;
	pthread_mutex_unlock(&b->lock);
	if (dst && ag_zchunk_decompress(b->zd, dst, n, z, zn) == 0)
		return 0;
bad:
	snprintf(why, whylen, "unexpected compressed data frame from the server");
	return -1;
}

/* The reader hands a host function the server's stream has reached to the
 * host-function thread: a host function may block for long (until the
 * program releases it), and replies must still be read meanwhile. */
static void hostfn_due(struct ag_backend *b, uint64_t cookie)
{
	struct hostfn **pp, *f = NULL;

	pthread_mutex_lock(&b->lock);
	for (pp = &b->hostfns; *pp; pp = &(*pp)->next) {
		if ((*pp)->cookie == cookie) {
			f = *pp;
			*pp = f->next;
			break;
		}
	}
	if (!f) {
		/* Not ours (or already gone): only answered. */
		f = xcalloc(1, sizeof(*f));
		f->cookie = cookie;
	}
	f->next = NULL;
	if (b->due_tail)
		b->due_tail->next = f;
	else
		b->due_head = f;
	b->due_tail = f;
	pthread_cond_broadcast(&b->due_cond);
	pthread_mutex_unlock(&b->lock);
}

static void *hostfn_main(void *arg)
{
	struct ag_backend *b = arg;
	struct hostfn *f;
	char err[128];

	pthread_mutex_lock(&b->lock);
	for (;;) {
		while (!b->due_head && !b->stopping)
			pthread_cond_wait(&b->due_cond, &b->lock);
		f = b->due_head;
		if (!f)
			break;
		b->due_head = f->next;
		if (!b->due_head)
			b->due_tail = NULL;
		pthread_mutex_unlock(&b->lock);
		if (f->fn)
			f->fn(f->data);
		if (ag_conn_send(&b->conn, AG_OP_HOSTFN_DONE, 0, f->cookie, NULL, 0, NULL, 0,
				 err, sizeof(err)))
			set_dead(b, err);
		free(f);
		pthread_mutex_lock(&b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

static void print_text(struct ag_backend *b, const uint8_t *p, uint32_t len)
{
	if (b->print) {
		b->print(b->print_ctx, (const char *)p, len);
		return;
	}
	fwrite(p, 1, len, stdout);
	fflush(stdout);
}

/* One incoming frame; -1 when it breaks the protocol. */
static int handle_frame(struct ag_backend *b, const struct ag_frame_hdr *h, uint8_t **payload)
{
	struct call *c;

	switch (h->op) {
	case AG_OP_REPLY:
		pthread_mutex_lock(&b->lock);
		c = find_call(b, h->id);
		if (c) {
			c->reply = *payload;
			c->len = h->len;
			c->done = 1;
			*payload = NULL;
			pthread_cond_broadcast(&b->cond);
		}
		pthread_mutex_unlock(&b->lock);
		return c ? 0 : -1;
	case AG_OP_PRINT:
		print_text(b, *payload, h->len);
		return 0;
	case AG_OP_HOSTFN:
		hostfn_due(b, h->id);
		return 0;
	case AG_OP_STDERR:
		fwrite(*payload, 1, h->len, stderr);
		return 0;
	}
	return -1;
}

/* Any frame but DATA: read whole, then handled. */
static int take_frame(struct ag_backend *b, const struct ag_frame_hdr *h, char *why,
		      size_t whylen)
{
	uint8_t *payload = h->len ? xmalloc(h->len) : NULL;
	int rc = ag_conn_recv_body(&b->conn, h, payload, h->len, why, whylen);

	if (rc == 0 && handle_frame(b, h, &payload)) {
		snprintf(why, whylen, "unexpected %s frame from the server", ag_op_name(h->op));
		rc = -1;
	}
	free(payload);
	return rc;
}

static void *reader_main(void *arg)
{
	struct ag_backend *b = arg;
	struct ag_frame_hdr h;
	char why[200];
	int rc;

	for (;;) {
		rc = ag_conn_recv_hdr(&b->conn, &h, why, sizeof(why));
		if (rc == 1)
			snprintf(why, sizeof(why), "the server closed the connection");
		if (rc)
			break;
		if (h.op == AG_OP_DATA)
			rc = take_data(b, &h, why, sizeof(why));
		else if (h.op == AG_OP_DATA_Z)
			rc = take_data_z(b, &h, why, sizeof(why));
		else
			rc = take_frame(b, &h, why, sizeof(why));
		if (rc)
			break;
	}
	set_dead(b, why);
	return NULL;
}

static void *flusher_main(void *arg)
{
	struct ag_backend *b = arg;
	char err[128];

	pthread_mutex_lock(&b->lock);
	for (;;) {
		while (!b->queued && !b->stopping)
			pthread_cond_wait(&b->flush_cond, &b->lock);
		if (b->stopping)
			break;
		b->queued = 0;
		pthread_mutex_unlock(&b->lock);
		usleep(FLUSH_DELAY_US);
		if (ag_conn_flush(&b->conn, err, sizeof(err)))
			set_dead(b, err);
		pthread_mutex_lock(&b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* Sends a request that gets no reply. */
static cudaError_t post(struct ag_backend *b, unsigned op, const struct ag_wbuf *req,
			const void *data, size_t dlen)
{
	char err[128];
	uint64_t id;
	int dead;

	pthread_mutex_lock(&b->lock);
	id = ++b->next_id;
	dead = b->dead;
	pthread_mutex_unlock(&b->lock);
	if (dead)
		return lost(b);
	if (ag_conn_queue(&b->conn, op, AG_F_NOREPLY, id, req->p, req->len, data, dlen,
			  err, sizeof(err))) {
		set_dead(b, err);
		return lost(b);
	}
	pthread_mutex_lock(&b->lock);
	if (!b->queued) {
		b->queued = 1;
		pthread_cond_signal(&b->flush_cond);
	}
	pthread_mutex_unlock(&b->lock);
	return cudaSuccess;
}

/* Sends a request and waits for its reply; on success r reads the result
 * fields and the caller calls call_end(c).  DATA frames land in dst. */
static cudaError_t call_io(struct ag_backend *b, struct call *c, unsigned op,
			   const struct ag_wbuf *req, const void *data, size_t dlen,
			   void *dst, uint64_t dstlen, struct ag_rbuf *r)
{
	char err[128];
	cudaError_t e;
	struct call **pp;
	int dead;

	memset(c, 0, sizeof(*c));
	c->dst = dst;
	c->dstlen = dstlen;
	pthread_mutex_lock(&b->lock);
	c->id = ++b->next_id;
	c->next = b->calls;
	b->calls = c;
	dead = b->dead;
	pthread_mutex_unlock(&b->lock);
	if (!dead && ag_conn_send(&b->conn, op, 0, c->id, req->p, req->len, data, dlen,
				     err, sizeof(err)))
		set_dead(b, err);
	pthread_mutex_lock(&b->lock);
	while (!c->done && !b->dead)
		pthread_cond_wait(&b->cond, &b->lock);
	for (pp = &b->calls; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	pthread_mutex_unlock(&b->lock);
	/* Empty when the connection was lost, so that reads give zeros. */
	ag_rbuf_init(r, c->reply, c->len);
	if (!c->done)
		return lost(b);
	e = (cudaError_t)ag_get_u32(r);
	ag_get_str(r, b->msg, sizeof(b->msg));
	if (r->bad) {
		snprintf(b->msg, sizeof(b->msg), "anygpu server %s: malformed %s reply",
			 b->server, ag_op_name(op));
		e = cudaErrorUnknown;
	}
	return e;
}

static void call_end(struct call *c)
{
	free(c->reply);
	c->reply = NULL;
}

/* A request whose reply carries the error and one u64, *v (0 when the
 * call failed), or only the error where v is NULL. */
static cudaError_t call_u64(struct ag_backend *b, unsigned op, struct ag_wbuf *req, uint64_t *v)
{
	struct call c;
	struct ag_rbuf r;
	cudaError_t e = call_io(b, &c, op, req, NULL, 0, NULL, 0, &r);

	if (v)
		*v = e == cudaSuccess ? ag_get_u64(&r) : 0;
	call_end(&c);
	ag_wbuf_free(req);
	return e;
}

/* A request whose reply carries only the error. */
static cudaError_t call_simple(struct ag_backend *b, unsigned op, struct ag_wbuf *req)
{
	return call_u64(b, op, req, NULL);
}

/* A request whose reply carries one u32 handle. */
static cudaError_t call_handle(struct ag_backend *b, unsigned op, struct ag_wbuf *req,
			       const void *data, size_t dlen, uint32_t *h)
{
	struct call c;
	struct ag_rbuf r;
	cudaError_t e = call_io(b, &c, op, req, data, dlen, NULL, 0, &r);

	*h = e == cudaSuccess ? ag_get_u32(&r) : 0;
	if (e == cudaSuccess && (r.bad || !*h))
		e = cudaErrorUnknown;
	call_end(&c);
	ag_wbuf_free(req);
	return e;
}

/* The async flag decides between posting and waiting. */
static cudaError_t send_op(struct ag_backend *b, unsigned op, struct ag_wbuf *req, int async)
{
	cudaError_t e;

	if (!async)
		return call_simple(b, op, req);
	e = post(b, op, req, NULL, 0);
	ag_wbuf_free(req);
	return e;
}

/* HELLO, asking for compression when ANYGPU_COMPRESS says so. */
static cudaError_t hello(struct ag_backend *b)
{
	char err[300];
	int level = ag_zchunk_level_env(), rc;

	if (level < 0) {
		snprintf(b->msg, sizeof(b->msg), "ANYGPU_COMPRESS=%s: want a Zstandard level "
			 "from 1 to %d (0: no compression)", getenv("ANYGPU_COMPRESS"),
			 AG_ZSTD_MAX_LEVEL);
		return cudaErrorInvalidValue;
	}
	rc = ag_client_hello(&b->conn, getenv("ANYGPU_TOKEN"), (unsigned)level, &b->zlevel,
			     err, sizeof(err));
	if (rc == 0 && b->zlevel) {
		b->zd = ZSTD_createDCtx();
		b->zin = xmalloc(ag_zchunk_bound(AG_PROTO_CHUNK) + 12);
		if (!b->zd) {
			snprintf(b->msg, sizeof(b->msg), "cannot start Zstandard");
			return cudaErrorMemoryAllocation;
		}
	}
	if (rc < 0) {
		snprintf(b->msg, sizeof(b->msg), "anygpu server %s: %s", b->server, err);
		return cudaErrorDevicesUnavailable;
	}
	if (rc)
		snprintf(b->msg, sizeof(b->msg), "anygpu server %s refused the session: %s",
			 b->server, err);
	return (cudaError_t)rc;
}

static cudaError_t fetch_info(struct ag_backend *b)
{
	struct ag_wbuf w = { 0 };
	struct call c;
	struct ag_rbuf r;
	cudaError_t e = call_io(b, &c, AG_OP_INFO, &w, NULL, 0, NULL, 0, &r);

	if (e == cudaSuccess) {
		ag_get_info(&r, &b->info);
		if (ag_rbuf_done(&r))
			e = cudaErrorUnknown;
	}
	call_end(&c);
	/* This process's memory is out of the server's reach, whatever the
	 * server's device can do with its own host's memory. */
	b->info.integrated = 0;
	b->info.can_map_host = 0;
	b->info.managed_memory = 0;
	b->info.concurrent_managed = 0;
	b->info.pageable_access = 0;
	return e;
}

static void remote_close(struct ag_backend *b);

/* Tells the opener why the device cannot be used. */
static void open_failed(const struct ag_open_args *args, const char *why)
{
	if (args && args->error && args->error_len)
		snprintf(args->error, args->error_len, "%s", why);
}

static cudaError_t remote_open(int ordinal, const struct ag_open_args *args,
			       struct ag_backend **out)
{
	struct ag_backend *b;
	char err[256];
	cudaError_t e;

	*out = NULL;
	if (ordinal < 0 || ordinal >= server_list(-1, NULL, 0))
		return cudaErrorInvalidDevice;
	b = xcalloc(1, sizeof(*b));
	server_list(ordinal, b->server, sizeof(b->server));
	if (args) {
		b->print = args->print;
		b->print_ctx = args->print_ctx;
	}
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	pthread_cond_init(&b->flush_cond, NULL);
	pthread_cond_init(&b->due_cond, NULL);
	if (ag_client_dial(&b->conn, b->server, err, sizeof(err))) {
		snprintf(b->msg, sizeof(b->msg), "anygpu server %s: %s", b->server, err);
		open_failed(args, b->msg);
		remote_close(b);
		return cudaErrorDevicesUnavailable;
	}
	e = hello(b);
	if (e == cudaSuccess) {
		b->reader_started = pthread_create(&b->reader, NULL, reader_main, b) == 0;
		b->flusher_started = pthread_create(&b->flusher, NULL, flusher_main, b) == 0;
		b->hostfn_started = pthread_create(&b->hostfn_thread, NULL, hostfn_main, b) == 0;
		e = b->reader_started && b->flusher_started && b->hostfn_started
			? fetch_info(b) : cudaErrorOperatingSystem;
	} else {
		b->dead = 1;
	}
	if (e != cudaSuccess) {
		open_failed(args, b->msg);
		remote_close(b);
		return e;
	}
	*out = b;
	return cudaSuccess;
}

static void remote_close(struct ag_backend *b)
{
	char err[128];

	pthread_mutex_lock(&b->lock);
	b->stopping = 1;
	pthread_cond_broadcast(&b->flush_cond);
	pthread_cond_broadcast(&b->due_cond);
	pthread_mutex_unlock(&b->lock);
	if (b->flusher_started) {
		pthread_join(b->flusher, NULL);
		/* Work posted last still reaches the server. */
		ag_conn_flush(&b->conn, err, sizeof(err));
	}
	if (b->reader_started) {
		/* The reader sees the end of the stream and stops. */
		shutdown(b->conn.fd, SHUT_RDWR);
		pthread_join(b->reader, NULL);
	}
	if (b->hostfn_started)
		pthread_join(b->hostfn_thread, NULL);
	ag_conn_close(&b->conn);
	while (b->hostfns) {
		struct hostfn *f = b->hostfns;

		b->hostfns = f->next;
		free(f);
	}
	while (b->funcs) {
		struct ag_func *f = b->funcs;

		b->funcs = f->next;
		free(f->params);
		free(f->name);
		free(f);
	}
	ZSTD_freeDCtx(b->zd);
	free(b->zin);
	pthread_cond_destroy(&b->cond);
	pthread_cond_destroy(&b->flush_cond);
	pthread_cond_destroy(&b->due_cond);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

static const char *remote_last_message(struct ag_backend *b)
{
	return b->msg;
}

static cudaError_t remote_info(struct ag_backend *b, struct ag_device_info *out)
{
	*out = b->info;
	return cudaSuccess;
}

static cudaError_t remote_mem_info(struct ag_backend *b, uint64_t *free_b, uint64_t *total)
{
	struct ag_wbuf w = { 0 };
	struct call c;
	struct ag_rbuf r;
	cudaError_t e = call_io(b, &c, AG_OP_MEM_INFO, &w, NULL, 0, NULL, 0, &r);

	*free_b = ag_get_u64(&r);
	*total = ag_get_u64(&r);
	call_end(&c);
	return e;
}

static cudaError_t remote_synchronize(struct ag_backend *b)
{
	struct ag_wbuf w = { 0 };

	return call_simple(b, AG_OP_SYNCHRONIZE, &w);
}

static cudaError_t remote_mem_alloc(struct ag_backend *b, uint64_t size,
				    enum ag_mem_kind kind, ag_dptr *out)
{
	struct ag_wbuf w = { 0 };

	ag_put_u64(&w, size);
	ag_put_u32(&w, kind);
	return call_u64(b, AG_OP_MEM_ALLOC, &w, out);
}

static cudaError_t remote_mem_free(struct ag_backend *b, ag_dptr p)
{
	struct ag_wbuf w = { 0 };

	ag_put_u64(&w, p);
	return call_simple(b, AG_OP_MEM_FREE, &w);
}

static void *remote_host_ptr(struct ag_backend *b, ag_dptr p)
{
	return NULL;
}

/* A copy's compressor, when the session compresses. */
struct zsend {
	ZSTD_CCtx *cx;
	uint8_t *buf;
	size_t cap;
};

/* One chunk of a host-to-device copy, compressed when that makes it
 * smaller; answered only when asked (a synchronous copy's last). */
static cudaError_t send_htod_chunk(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
				   const void *src, uint64_t len, int async, int answered,
				   const struct zsend *z)
{
	struct ag_wbuf w = { 0 };
	size_t zn = z->cx ? ag_zchunk_compress(z->cx, (int)b->zlevel, z->buf, z->cap, src, len) : 0;
	unsigned op = zn ? AG_OP_COPY_HTOD_Z : AG_OP_COPY_HTOD;
	const void *data = zn ? z->buf : src;
	size_t dlen = zn ? zn : len;
	cudaError_t e;

	ag_put_u32(&w, handle_of(s));
	ag_put_u64(&w, dst);
	ag_put_u32(&w, !!async);
	if (zn)
		ag_put_u32(&w, (uint32_t)len);
	if (answered) {
		struct call c;
		struct ag_rbuf r;

		e = call_io(b, &c, op, &w, data, dlen, NULL, 0, &r);
		call_end(&c);
	} else {
		e = post(b, op, &w, data, dlen);
	}
	ag_wbuf_free(&w);
	return e;
}

/* Host to device: chunks follow each other without waiting (TCP carries
 * them as one pipelined stream); each carries the copy's own async flag,
 * so that the server may put a synchronous copy's bytes straight into
 * device memory, and a synchronous copy waits for its last. */
static cudaError_t remote_copy_htod(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
				    const void *src, uint64_t n, enum ag_host_kind hk, int async)
{
	struct zsend z = { 0 };
	uint64_t off = 0;
	cudaError_t e = cudaSuccess;

	if (b->zlevel && n >= AG_ZSTD_MIN_CHUNK) {
		z.cx = ZSTD_createCCtx();
		z.cap = ag_zchunk_bound(n < AG_PROTO_CHUNK ? n : AG_PROTO_CHUNK);
		z.buf = xmalloc(z.cap);
	}
	do {
		uint64_t len = n - off < AG_PROTO_CHUNK ? n - off : AG_PROTO_CHUNK;
		int last = off + len == n;

		e = send_htod_chunk(b, s, dst + off, (const char *)src + off, len, async,
				    last && !async, &z);
		off += len;
	} while (off < n && e == cudaSuccess);
	ZSTD_freeCCtx(z.cx);
	free(z.buf);
	return e;
}

/* Device to host waits for the data even when async: the server streams it
 * back in DATA frames as soon as the stream reaches the copy. */
static cudaError_t remote_copy_dtoh(struct ag_backend *b, struct ag_stream *s, void *dst,
				    ag_dptr src, uint64_t n, enum ag_host_kind hk, int async)
{
	struct ag_wbuf w = { 0 };
	struct call c;
	struct ag_rbuf r;
	cudaError_t e;

	ag_put_u32(&w, handle_of(s));
	ag_put_u64(&w, src);
	ag_put_u64(&w, n);
	ag_put_u32(&w, !!async);
	e = call_io(b, &c, AG_OP_COPY_DTOH, &w, NULL, 0, dst, n, &r);
	call_end(&c);
	ag_wbuf_free(&w);
	return e;
}

static cudaError_t remote_copy_dtod(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
				    ag_dptr src, uint64_t n, int async)
{
	struct ag_wbuf w = { 0 };

	ag_put_u32(&w, handle_of(s));
	ag_put_u64(&w, dst);
	ag_put_u64(&w, src);
	ag_put_u64(&w, n);
	ag_put_u32(&w, !!async);
	return send_op(b, AG_OP_COPY_DTOD, &w, async);
}

static cudaError_t remote_memset(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
				 int value, uint64_t n, int async)
{
	struct ag_wbuf w = { 0 };

	ag_put_u32(&w, handle_of(s));
	ag_put_u64(&w, dst);
	ag_put_u32(&w, (uint32_t)value);
	ag_put_u64(&w, n);
	ag_put_u32(&w, !!async);
	return send_op(b, AG_OP_MEMSET, &w, async);
}

static cudaError_t remote_module_load(struct ag_backend *b, const void *image, uint64_t size,
				      struct ag_module **out)
{
	struct ag_wbuf w = { 0 };
	uint32_t h;
	cudaError_t e;

	if (size > AG_PROTO_MAX_PAYLOAD) {
		snprintf(b->msg, sizeof(b->msg), "module image of %llu bytes exceeds the "
			 "protocol's %u-byte frame", (unsigned long long)size, AG_PROTO_MAX_PAYLOAD);
		return cudaErrorInvalidValue;
	}
	e = call_handle(b, AG_OP_MODULE_LOAD, &w, image, size, &h);
	*out = handle_ptr(h);
	return e;
}

static cudaError_t remote_module_unload(struct ag_backend *b, struct ag_module *m)
{
	struct ag_wbuf w = { 0 };

	ag_put_u32(&w, handle_of(m));
	return call_simple(b, AG_OP_MODULE_UNLOAD, &w);
}

static struct ag_func *find_func(struct ag_backend *b, uint32_t h)
{
	for (struct ag_func *f = b->funcs; f; f = f->next)
		if (f->h == h)
			return f;
	return NULL;
}

/* The reply of MODULE_FUNC: handle, then the function's layout. */
static struct ag_func *read_func(struct ag_backend *b, struct ag_rbuf *r)
{
	struct ag_func *f = xcalloc(1, sizeof(*f)), *old;
	char name[AG_PROTO_MAX_STR + 1];
	uint32_t n;

	f->h = ag_get_u32(r);
	ag_get_str(r, name, sizeof(name));
	n = ag_get_u32(r);
	if (n > ag_rbuf_left(r) / 12)
		r->bad = 1;
	f->params = xcalloc(r->bad ? 1 : n + 1, sizeof(*f->params));
	for (uint32_t i = 0; !r->bad && i < n; i++) {
		f->params[i].offset = ag_get_u32(r);
		f->params[i].size = ag_get_u32(r);
		f->params[i].align = ag_get_u32(r);
	}
	f->info.nparams = r->bad ? 0 : n;
	f->info.param_bytes = ag_get_u32(r);
	f->info.max_threads = ag_get_u32(r);
	f->info.static_shared = ag_get_u32(r);
	f->info.local_bytes = ag_get_u32(r);
	f->info.nregs = ag_get_u32(r);
	f->info.ptx_version = ag_get_u32(r);
	f->info.binary_version = ag_get_u32(r);
	f->name = xstrdup(name);
	f->info.name = f->name;
	f->info.params = f->params;
	old = find_func(b, f->h);
	if (ag_rbuf_done(r) || !f->h || old) {
		free(f->params);
		free(f->name);
		free(f);
		return ag_rbuf_done(r) ? NULL : old;
	}
	f->next = b->funcs;
	b->funcs = f;
	return f;
}

/* MODULE_FUNC and MODULE_VAR: a module's symbol, by name.  r holds the
 * reply until call_end(c). */
static cudaError_t call_symbol(struct ag_backend *b, struct call *c, unsigned op,
			       struct ag_module *m, const char *name, struct ag_rbuf *r)
{
	struct ag_wbuf w = { 0 };
	cudaError_t e;

	ag_put_u32(&w, handle_of(m));
	ag_put_str(&w, name);
	e = call_io(b, c, op, &w, NULL, 0, NULL, 0, r);
	ag_wbuf_free(&w);
	return e;
}

static cudaError_t remote_module_func(struct ag_backend *b, struct ag_module *m,
				      const char *name, struct ag_func **out,
				      const struct ag_func_info **info)
{
	struct call c;
	struct ag_rbuf r;
	cudaError_t e = call_symbol(b, &c, AG_OP_MODULE_FUNC, m, name, &r);

	if (e == cudaSuccess) {
		pthread_mutex_lock(&b->lock);
		*out = read_func(b, &r);
		pthread_mutex_unlock(&b->lock);
		if (!*out)
			e = cudaErrorUnknown;
		else
			*info = &(*out)->info;
	}
	call_end(&c);
	return e;
}

static cudaError_t remote_module_var(struct ag_backend *b, struct ag_module *m,
				     const char *name, ag_dptr *addr, uint64_t *size)
{
	struct call c;
	struct ag_rbuf r;
	cudaError_t e = call_symbol(b, &c, AG_OP_MODULE_VAR, m, name, &r);

	*addr = ag_get_u64(&r);
	*size = ag_get_u64(&r);
	call_end(&c);
	return e;
}

/* The configuration errors CUDA reports at the launch itself, checked
 * here against the cached device limits since the launch is not answered. */
static cudaError_t check_launch(struct ag_backend *b, const struct ag_func *f,
				const struct ag_launch_cfg *cfg, uint64_t param_bytes)
{
	const struct ag_device_info *d = &b->info;
	uint64_t threads = (uint64_t)cfg->block[0] * cfg->block[1] * cfg->block[2];

	for (int i = 0; i < 3; i++) {
		if (!cfg->grid[i] || !cfg->block[i] ||
		    cfg->block[i] > (uint32_t)d->max_block_dim[i] ||
		    cfg->grid[i] > (uint32_t)d->max_grid_dim[i])
			return cudaErrorInvalidConfiguration;
	}
	if (threads > (uint64_t)d->max_threads_per_block ||
	    (f->info.max_threads && threads > f->info.max_threads))
		return cudaErrorInvalidConfiguration;
	if (param_bytes != f->info.param_bytes) {
		snprintf(b->msg, sizeof(b->msg), "%s takes %u parameter bytes, got %llu",
			 f->name, f->info.param_bytes, (unsigned long long)param_bytes);
		return cudaErrorInvalidValue;
	}
	return cudaSuccess;
}

static cudaError_t remote_launch(struct ag_backend *b, struct ag_stream *s, struct ag_func *f,
				 const struct ag_launch_cfg *cfg, const void *params,
				 uint64_t param_bytes)
{
	struct ag_wbuf w = { 0 };
	cudaError_t e = check_launch(b, f, cfg, param_bytes);

	if (e != cudaSuccess)
		return e;
	ag_put_u32(&w, handle_of(s));
	ag_put_u32(&w, f->h);
	for (int i = 0; i < 3; i++)
		ag_put_u32(&w, cfg->grid[i]);
	for (int i = 0; i < 3; i++)
		ag_put_u32(&w, cfg->block[i]);
	ag_put_u32(&w, cfg->shared);
	ag_put_u32(&w, (uint32_t)cfg->cooperative);
	e = post(b, AG_OP_LAUNCH, &w, params, param_bytes);
	ag_wbuf_free(&w);
	return e;
}

static cudaError_t remote_stream_create(struct ag_backend *b, unsigned flags, int priority,
					struct ag_stream **out)
{
	struct ag_wbuf w = { 0 };
	uint32_t h;
	cudaError_t e;

	ag_put_u32(&w, flags);
	ag_put_u32(&w, (uint32_t)priority);
	e = call_handle(b, AG_OP_STREAM_CREATE, &w, NULL, 0, &h);
	*out = handle_ptr(h);
	return e;
}

/* The operations that name one object and are answered with an error. */
static cudaError_t on_handle(struct ag_backend *b, unsigned op, const void *obj)
{
	struct ag_wbuf w = { 0 };

	ag_put_u32(&w, handle_of(obj));
	return call_simple(b, op, &w);
}

static cudaError_t remote_stream_destroy(struct ag_backend *b, struct ag_stream *s)
{
	return on_handle(b, AG_OP_STREAM_DESTROY, s);
}

static cudaError_t remote_stream_sync(struct ag_backend *b, struct ag_stream *s)
{
	return on_handle(b, AG_OP_STREAM_SYNC, s);
}

static cudaError_t remote_stream_query(struct ag_backend *b, struct ag_stream *s)
{
	return on_handle(b, AG_OP_STREAM_QUERY, s);
}

/* Posts an operation on two handles (stream waits, event records). */
static cudaError_t post_pair(struct ag_backend *b, unsigned op, const void *x, const void *y)
{
	struct ag_wbuf w = { 0 };

	ag_put_u32(&w, handle_of(x));
	ag_put_u32(&w, handle_of(y));
	return send_op(b, op, &w, 1);
}

static cudaError_t remote_stream_wait_event(struct ag_backend *b, struct ag_stream *s,
					    struct ag_event *e)
{
	return post_pair(b, AG_OP_STREAM_WAIT_EVENT, s, e);
}

static cudaError_t remote_host_func(struct ag_backend *b, struct ag_stream *s,
				    void (*fn)(void *), void *data)
{
	struct hostfn *f = xmalloc(sizeof(*f));
	struct ag_wbuf w = { 0 };

	f->fn = fn;
	f->data = data;
	pthread_mutex_lock(&b->lock);
	f->cookie = ++b->next_id;
	f->next = b->hostfns;
	b->hostfns = f;
	pthread_mutex_unlock(&b->lock);
	ag_put_u32(&w, handle_of(s));
	ag_put_u64(&w, f->cookie);
	return send_op(b, AG_OP_HOST_FUNC, &w, 1);
}

static cudaError_t remote_event_create(struct ag_backend *b, unsigned flags,
				       struct ag_event **out)
{
	struct ag_wbuf w = { 0 };
	uint32_t h;
	cudaError_t e;

	ag_put_u32(&w, flags);
	e = call_handle(b, AG_OP_EVENT_CREATE, &w, NULL, 0, &h);
	*out = handle_ptr(h);
	return e;
}

static cudaError_t remote_event_destroy(struct ag_backend *b, struct ag_event *e)
{
	return on_handle(b, AG_OP_EVENT_DESTROY, e);
}

static cudaError_t remote_event_record(struct ag_backend *b, struct ag_event *e,
				       struct ag_stream *s)
{
	return post_pair(b, AG_OP_EVENT_RECORD, e, s);
}

static cudaError_t remote_event_sync(struct ag_backend *b, struct ag_event *e)
{
	return on_handle(b, AG_OP_EVENT_SYNC, e);
}

static cudaError_t remote_event_query(struct ag_backend *b, struct ag_event *e)
{
	return on_handle(b, AG_OP_EVENT_QUERY, e);
}

static cudaError_t remote_event_elapsed(struct ag_backend *b, struct ag_event *start,
					struct ag_event *end, float *ms)
{
	struct ag_wbuf w = { 0 };
	struct call c;
	struct ag_rbuf r;
	uint32_t bits;
	cudaError_t e;

	ag_put_u32(&w, handle_of(start));
	ag_put_u32(&w, handle_of(end));
	e = call_io(b, &c, AG_OP_EVENT_ELAPSED, &w, NULL, 0, NULL, 0, &r);
	bits = ag_get_u32(&r);
	memcpy(ms, &bits, 4);
	call_end(&c);
	ag_wbuf_free(&w);
	return e;
}

static cudaError_t remote_set_limit(struct ag_backend *b, enum cudaLimit limit, uint64_t value)
{
	struct ag_wbuf w = { 0 };

	ag_put_u32(&w, (uint32_t)limit);
	ag_put_u64(&w, value);
	return call_simple(b, AG_OP_SET_LIMIT, &w);
}

static cudaError_t remote_tex_create(struct ag_backend *b, const struct ag_tex_desc *d,
				     uint64_t *handle)
{
	struct ag_wbuf w = { 0 };
	cudaError_t e;

	ag_put_tex_desc(&w, d);
	e = call_u64(b, AG_OP_TEX_CREATE, &w, handle);
	/* A reply too short for the handle reads as 0 too. */
	return e == cudaSuccess && !*handle ? cudaErrorUnknown : e;
}

static cudaError_t remote_tex_destroy(struct ag_backend *b, uint64_t handle)
{
	struct ag_wbuf w = { 0 };

	ag_put_u64(&w, handle);
	return call_simple(b, AG_OP_TEX_DESTROY, &w);
}

const struct ag_backend_ops ag_remote_backend = {
	.name = "remote",
	.probe = remote_probe,
	.open = remote_open,
	.close = remote_close,
	.last_message = remote_last_message,
	.info = remote_info,
	.mem_info = remote_mem_info,
	.synchronize = remote_synchronize,
	.mem_alloc = remote_mem_alloc,
	.mem_free = remote_mem_free,
	.host_ptr = remote_host_ptr,
	.copy_htod = remote_copy_htod,
	.copy_dtoh = remote_copy_dtoh,
	.copy_dtod = remote_copy_dtod,
	.memset = remote_memset,
	.module_load = remote_module_load,
	.module_unload = remote_module_unload,
	.module_func = remote_module_func,
	.module_var = remote_module_var,
	.launch = remote_launch,
	.stream_create = remote_stream_create,
	.stream_destroy = remote_stream_destroy,
	.stream_sync = remote_stream_sync,
	.stream_query = remote_stream_query,
	.stream_wait_event = remote_stream_wait_event,
	.host_func = remote_host_func,
	.event_create = remote_event_create,
	.event_destroy = remote_event_destroy,
	.event_record = remote_event_record,
	.event_sync = remote_event_sync,
	.event_query = remote_event_query,
	.event_elapsed = remote_event_elapsed,
	.set_limit = remote_set_limit,
	.tex_create = remote_tex_create,
	.tex_destroy = remote_tex_destroy,
};

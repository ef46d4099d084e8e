/*
 * raw.c - both ends of an AG_OP_RAW exchange (docs/protocol.md): bytes
 * moved on a session's own connection with no framing, no queue and no
 * device behind them.  `anygpu bench` puts the protocol's copies and calls
 * next to these, measured between the same two endpoints in the same run.
 */
#include "protocol/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define RAW_IO (4u << 20)               /* the server's reads and writes */
#define RAW_ALIGN (2u << 20)            /* a huge page */
#define RAW_MAX_BYTES (1ull << 40)
#define RAW_MAX_ECHOES (1ull << 24)

/* The bytes of the server's buffer that an exchange of n bytes goes
 * through. */
static size_t raw_span(uint64_t n)
{
	return n < AG_RAW_SPAN ? (size_t)n : (size_t)AG_RAW_SPAN;
}

/* Makes rb at least span bytes: aligned and advised to huge pages as the
 * cpu backend's device memory is, and written once, so that its pages are
 * real ones (an anonymous page never written reads as the kernel's one
 * zero page, which stays in the cache).  0, or -1 when memory is short. */
static int raw_buf_reserve(struct ag_raw_buf *rb, size_t span)
{
	void *p;

	if (span <= rb->size)
		return 0;
	if (posix_memalign(&p, RAW_ALIGN, span))
		return -1;
	madvise(p, span, MADV_HUGEPAGE);
	memset(p, 0, span);
	free(rb->p);
	rb->p = p;
	rb->size = span;
	return 0;
}

void ag_raw_buf_free(struct ag_raw_buf *rb)
{
	free(rb->p);
	*rb = (struct ag_raw_buf){ 0 };
}

/* The server's side of a sink or a source: n bytes in pieces as large as
 * a copy's chunks, into or out of rb's first min(n, AG_RAW_SPAN) bytes
 * (again from the start past that), as a copy writes or reads device
 * memory of its own size; a buffer smaller than the copy would stay in the
 * cache where the copy's memory cannot. */
static int serve_bulk(struct ag_conn *c, struct ag_raw_buf *rb, enum ag_raw_mode mode,
		      uint64_t n)
{
	size_t span = raw_span(n);
	int rc = 0;

	for (uint64_t off = 0; off < n && !rc; off += RAW_IO) {
		size_t len = n - off < RAW_IO ? n - off : RAW_IO;
		char *p = rb->p + off % span;

		rc = mode == AG_RAW_SINK ? ag_conn_read_raw(c, p, len) : ag_conn_write_raw(c, p, len);
	}
	return rc;
}

static int serve_echo(struct ag_conn *c, uint64_t n)
{
	char b;

	for (uint64_t i = 0; i < n; i++)
		if (ag_conn_read_raw(c, &b, 1) || ag_conn_write_raw(c, &b, 1))
			return -1;
	return 0;
}

int ag_raw_serve(struct ag_conn *c, struct ag_raw_buf *rb, const struct ag_frame_hdr *h,
		 const uint8_t *payload, char *err, size_t errlen)
{
	struct ag_rbuf r;
	struct ag_wbuf out = { 0 };
	uint32_t mode;
	uint64_t n;
	int rc;

	ag_rbuf_init(&r, payload, h->len);
	mode = ag_get_u32(&r);
	n = ag_get_u64(&r);
	if (ag_rbuf_done(&r) || mode >= AG_RAW_MODES ||
	    n > (mode == AG_RAW_ECHO ? RAW_MAX_ECHOES : RAW_MAX_BYTES)) {
		snprintf(err, errlen, "malformed raw frame");
		return -1;
	}
	if (mode != AG_RAW_ECHO && raw_buf_reserve(rb, raw_span(n))) {
		snprintf(err, errlen, "no memory for a raw exchange of %llu bytes",
			 (unsigned long long)n);
		return -1;
	}
	rc = mode == AG_RAW_ECHO ? serve_echo(c, n) : serve_bulk(c, rb, mode, n);
	if (rc) {
		snprintf(err, errlen, "client gone during a raw exchange");
		return -1;
	}
	ag_put_u32(&out, 0);
	ag_put_str(&out, NULL);
	rc = ag_conn_send(c, AG_OP_REPLY, 0, h->id, out.p, out.len, NULL, 0, err, errlen);
	ag_wbuf_free(&out);
	return rc;
}

static int run_echo(struct ag_conn *c, uint64_t n)
{
	char b = 1;

	for (uint64_t i = 0; i < n; i++)
		if (ag_conn_write_raw(c, &b, 1) || ag_conn_read_raw(c, &b, 1))
			return -1;
	return 0;
}

/* The reply that ends the exchange: an error code of 0 and no results. */
static int take_reply(struct ag_conn *c, uint64_t id, char *err, size_t errlen)
{
	struct ag_frame_hdr h;
	uint8_t *payload;
	struct ag_rbuf r;
	char msg[AG_PROTO_MAX_STR + 1];
	uint32_t e;

	if (ag_conn_recv(c, &h, &payload, err, errlen))
		return -1;
	ag_rbuf_init(&r, payload, h.len);
	e = ag_get_u32(&r);
	ag_get_str(&r, msg, sizeof(msg));
	free(payload);
	if (h.op == AG_OP_REPLY && h.id == id && !ag_rbuf_done(&r) && !e)
		return 0;
	snprintf(err, errlen, "unexpected answer to a raw exchange%s%s", msg[0] ? ": " : "", msg);
	return -1;
}

int ag_raw_run(struct ag_conn *c, uint64_t id, enum ag_raw_mode mode, uint64_t n, void *buf,
	       char *err, size_t errlen)
{
	struct ag_wbuf w = { 0 };
	int rc;

	ag_put_u32(&w, mode);
	ag_put_u64(&w, n);
	rc = ag_conn_send(c, AG_OP_RAW, 0, id, w.p, w.len, NULL, 0, err, errlen);
	ag_wbuf_free(&w);
	if (rc)
		return -1;
	if (mode == AG_RAW_ECHO)
		rc = run_echo(c, n);
	else if (mode == AG_RAW_SINK)
		rc = ag_conn_write_raw(c, buf, n);
	else
		rc = ag_conn_read_raw(c, buf, n);
	if (rc) {
		snprintf(err, errlen, "connection lost during a raw exchange");
		return -1;
	}
	return take_reply(c, id, err, errlen);
}

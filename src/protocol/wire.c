/*
 * wire.c - the frame header and payload codec of proto.h.
 *
 * Everything is little-endian and read through bounds-checked cursors, so a
 * hostile payload can make a decoder fail but never read past its end.
 */
#include "protocol/proto.h"
#include "backend.h"
#include "util/strbuf.h"

#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[] = {
	[AG_OP_HELLO] = "hello",
	[AG_OP_INFO] = "info",
	[AG_OP_MEM_INFO] = "mem_info",
	[AG_OP_SYNCHRONIZE] = "synchronize",
	[AG_OP_MEM_ALLOC] = "mem_alloc",
	[AG_OP_MEM_FREE] = "mem_free",
	[AG_OP_COPY_HTOD] = "copy_htod",
	[AG_OP_COPY_DTOH] = "copy_dtoh",
	[AG_OP_COPY_DTOD] = "copy_dtod",
	[AG_OP_MEMSET] = "memset",
	[AG_OP_MODULE_LOAD] = "module_load",
	[AG_OP_MODULE_UNLOAD] = "module_unload",
	[AG_OP_MODULE_FUNC] = "module_func",
	[AG_OP_MODULE_VAR] = "module_var",
	[AG_OP_LAUNCH] = "launch",
	[AG_OP_STREAM_CREATE] = "stream_create",
	[AG_OP_STREAM_DESTROY] = "stream_destroy",
	[AG_OP_STREAM_SYNC] = "stream_sync",
	[AG_OP_STREAM_QUERY] = "stream_query",
	[AG_OP_STREAM_WAIT_EVENT] = "stream_wait_event",
	[AG_OP_HOST_FUNC] = "host_func",
	[AG_OP_EVENT_CREATE] = "event_create",
	[AG_OP_EVENT_DESTROY] = "event_destroy",
	[AG_OP_EVENT_RECORD] = "event_record",
	[AG_OP_EVENT_SYNC] = "event_sync",
	[AG_OP_EVENT_QUERY] = "event_query",
	[AG_OP_EVENT_ELAPSED] = "event_elapsed",
	[AG_OP_STATUS] = "status",
	[AG_OP_HOSTFN_DONE] = "hostfn_done",
	[AG_OP_RAW] = "raw",
	[AG_OP_TEX_CREATE] = "tex_create",
	[AG_OP_TEX_DESTROY] = "tex_destroy",
	[AG_OP_COPY_HTOD_Z] = "copy_htod_z",
	[AG_OP_SET_LIMIT] = "set_limit",
};

const char *ag_op_name(unsigned op)
{
	switch (op) {
	case AG_OP_REPLY: return "reply";
	case AG_OP_DATA: return "data";
	case AG_OP_PRINT: return "print";
	case AG_OP_HOSTFN: return "hostfn";
	case AG_OP_STDERR: return "stderr";
	case AG_OP_DATA_Z: return "data_z";
	}
	if (op < sizeof(op_names) / sizeof(op_names[0]) && op_names[op])
		return op_names[op];
	return "unknown";
}

/* Request layouts: 4 a u32, 8 a u64, s a string, b the rest as bytes. */
static const char *const layouts[AG_OP_REQUEST_END] = {
	[AG_OP_HELLO] = "44s4",
	[AG_OP_INFO] = "",
	[AG_OP_MEM_INFO] = "",
	[AG_OP_SYNCHRONIZE] = "",
	[AG_OP_MEM_ALLOC] = "84",
	[AG_OP_MEM_FREE] = "8",
	[AG_OP_COPY_HTOD] = "484b",
	[AG_OP_COPY_DTOH] = "4884",
	[AG_OP_COPY_DTOD] = "48884",
	[AG_OP_MEMSET] = "48484",
	[AG_OP_MODULE_LOAD] = "b",
	[AG_OP_MODULE_UNLOAD] = "4",
	[AG_OP_MODULE_FUNC] = "4s",
	[AG_OP_MODULE_VAR] = "4s",
	[AG_OP_LAUNCH] = "4444444444b",
	[AG_OP_STREAM_CREATE] = "44",
	[AG_OP_STREAM_DESTROY] = "4",
	[AG_OP_STREAM_SYNC] = "4",
	[AG_OP_STREAM_QUERY] = "4",
	[AG_OP_STREAM_WAIT_EVENT] = "44",
	[AG_OP_HOST_FUNC] = "48",
	[AG_OP_EVENT_CREATE] = "4",
	[AG_OP_EVENT_DESTROY] = "4",
	[AG_OP_EVENT_RECORD] = "44",
	[AG_OP_EVENT_SYNC] = "4",
	[AG_OP_EVENT_QUERY] = "4",
	[AG_OP_EVENT_ELAPSED] = "44",
	[AG_OP_STATUS] = "",
	[AG_OP_HOSTFN_DONE] = "",
	[AG_OP_RAW] = "48",
	[AG_OP_TEX_CREATE] = "4444444444444888884444",
	[AG_OP_TEX_DESTROY] = "8",
	[AG_OP_COPY_HTOD_Z] = "4844b",
	[AG_OP_SET_LIMIT] = "48",
};

int ag_request_check(const struct ag_frame_hdr *h, const void *payload,
		     char *err, size_t errlen)
{
	struct ag_rbuf r;
	char str[AG_PROTO_MAX_STR + 1];
	const char *l;

	if (h->op >= AG_OP_REQUEST_END || !layouts[h->op]) {
		snprintf(err, errlen, "unexpected %s frame", ag_op_name(h->op));
		return -1;
	}
	ag_rbuf_init(&r, payload, h->len);
	for (l = layouts[h->op]; *l; l++) {
		switch (*l) {
		case '4': ag_get_u32(&r); break;
		case '8': ag_get_u64(&r); break;
		case 's': ag_get_str(&r, str, sizeof(str)); break;
		case 'b': ag_get_bytes(&r, ag_rbuf_left(&r)); break;
		}
	}
	if (ag_rbuf_done(&r)) {
		snprintf(err, errlen, "malformed %s frame", ag_op_name(h->op));
		return -1;
	}
	return 0;
}

int ag_hello_decode(const void *payload, size_t len, struct ag_hello *h)
{
	struct ag_rbuf r;

	ag_rbuf_init(&r, payload, len);
	h->magic = ag_get_u32(&r);
	h->version = ag_get_u32(&r);
	ag_get_str(&r, h->token, sizeof(h->token));
	h->compress = ag_get_u32(&r);
	if (h->magic != AG_PROTO_MAGIC || h->version != AG_PROTO_VERSION)
		return -1;
	return ag_rbuf_done(&r);
}

int ag_hello_reply_decode(const void *payload, size_t len, struct ag_hello_reply *r)
{
	struct ag_rbuf b;

	ag_rbuf_init(&b, payload, len);
	r->error = ag_get_u32(&b);
	ag_get_str(&b, r->message, sizeof(r->message));
	r->version = ag_rbuf_left(&b) ? ag_get_u32(&b) : 0;
	r->compress = ag_rbuf_left(&b) ? ag_get_u32(&b) : 0;
	return ag_rbuf_done(&b);
}

static int op_known(unsigned op)
{
	return strcmp(ag_op_name(op), "unknown") != 0;
}

void ag_hdr_encode(const struct ag_frame_hdr *h, uint8_t out[AG_PROTO_HDR])
{
	uint32_t len = htole32(h->len);
	uint16_t op = htole16(h->op), flags = htole16(h->flags);
	uint64_t id = htole64(h->id);

	memcpy(out, &len, 4);
	memcpy(out + 4, &op, 2);
	memcpy(out + 6, &flags, 2);
	memcpy(out + 8, &id, 8);
}

int ag_hdr_decode(const uint8_t in[AG_PROTO_HDR], struct ag_frame_hdr *h,
		  char *err, size_t errlen)
{
	uint32_t len;
	uint16_t op, flags;
	uint64_t id;

	memcpy(&len, in, 4);
	memcpy(&op, in + 4, 2);
	memcpy(&flags, in + 6, 2);
	memcpy(&id, in + 8, 8);
	h->len = le32toh(len);
	h->op = le16toh(op);
	h->flags = le16toh(flags);
	h->id = le64toh(id);
	if (h->len > AG_PROTO_MAX_PAYLOAD) {
		snprintf(err, errlen, "frame of %u bytes exceeds the %u-byte limit",
			 h->len, AG_PROTO_MAX_PAYLOAD);
		return -1;
	}
	if (!op_known(h->op)) {
		snprintf(err, errlen, "unknown operation %u", h->op);
		return -1;
	}
	if (h->flags & ~(AG_F_NOREPLY | AG_F_LAST)) {
		snprintf(err, errlen, "unknown flags 0x%x on %s", h->flags, ag_op_name(h->op));
		return -1;
	}
	return 0;
}

void ag_put_bytes(struct ag_wbuf *w, const void *p, size_t n)
{
	if (w->len + n > w->cap) {
		w->cap = (w->len + n) * 2 + 64;
		w->p = xrealloc(w->p, w->cap);
	}
	if (n)
		memcpy(w->p + w->len, p, n);
	w->len += n;
}

void ag_put_u32(struct ag_wbuf *w, uint32_t v)
{
	v = htole32(v);
	ag_put_bytes(w, &v, 4);
}

void ag_put_u64(struct ag_wbuf *w, uint64_t v)
{
	v = htole64(v);
	ag_put_bytes(w, &v, 8);
}

void ag_put_str(struct ag_wbuf *w, const char *s)
{
	size_t n = s ? strnlen(s, AG_PROTO_MAX_STR) : 0;

	ag_put_u32(w, (uint32_t)n);
	ag_put_bytes(w, s, n);
}

void ag_wbuf_free(struct ag_wbuf *w)
{
	free(w->p);
	w->p = NULL;
	w->len = w->cap = 0;
}

void ag_rbuf_init(struct ag_rbuf *r, const void *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->pos = 0;
	r->bad = 0;
}

const void *ag_get_bytes(struct ag_rbuf *r, size_t n)
{
	const void *p;

	if (r->bad || n > r->len - r->pos) {
		r->bad = 1;
		return NULL;
	}
	p = r->p + r->pos;
	r->pos += n;
	return p;
}

uint32_t ag_get_u32(struct ag_rbuf *r)
{
	const void *p = ag_get_bytes(r, 4);
	uint32_t v;

	if (!p)
		return 0;
	memcpy(&v, p, 4);
	return le32toh(v);
}

uint64_t ag_get_u64(struct ag_rbuf *r)
{
	const void *p = ag_get_bytes(r, 8);
	uint64_t v;

	if (!p)
		return 0;
	memcpy(&v, p, 8);
	return le64toh(v);
}

void ag_get_str(struct ag_rbuf *r, char *out, size_t outlen)
{
	uint32_t n = ag_get_u32(r);
	const char *p;

	out[0] = '\0';
	if (n > AG_PROTO_MAX_STR || n >= outlen) {
		r->bad = 1;
		return;
	}
	p = ag_get_bytes(r, n);
	if (!p || memchr(p, '\0', n)) {
		r->bad = 1;
		return;
	}
	memcpy(out, p, n);
	out[n] = '\0';
}

size_t ag_rbuf_left(const struct ag_rbuf *r)
{
	return r->bad ? 0 : r->len - r->pos;
}

int ag_rbuf_done(const struct ag_rbuf *r)
{
	return r->bad || r->pos != r->len ? -1 : 0;
}

#define INFO_INTS(X) \
	X(cc_major) X(cc_minor) X(sm_count) X(warp_size) X(max_threads_per_block) \
	X(max_threads_per_sm) X(max_blocks_per_sm) \
	X(max_block_dim[0]) X(max_block_dim[1]) X(max_block_dim[2]) \
	X(max_grid_dim[0]) X(max_grid_dim[1]) X(max_grid_dim[2]) \
	X(regs_per_block) X(regs_per_sm) X(clock_khz) X(mem_clock_khz) \
	X(mem_bus_width) X(async_engines) X(concurrent_kernels) X(integrated) \
	X(can_map_host) X(managed_memory) X(concurrent_managed) X(pageable_access) \
	X(cooperative_launch) X(pci_domain) X(pci_bus) X(pci_device) X(driver_version)

#define INFO_U64S(X) \
	X(total_mem) X(const_mem) X(shared_per_block) X(shared_per_block_optin) \
	X(shared_per_sm) X(l2_cache)

#define TEX_U32S(X) \
	X(kind) X(res) X(dims) X(channels) X(bits) X(format) X(address[0]) X(address[1]) \
	X(address[2]) X(filter) X(read_mode) X(normalized) X(layers)

#define TEX_U64S(X) X(base) X(width) X(height) X(depth) X(pitch)

void ag_put_tex_desc(struct ag_wbuf *w, const struct ag_tex_desc *d)
{
	uint32_t bits[4];

#define PUT_U32(f) ag_put_u32(w, d->f);
#define PUT_U64(f) ag_put_u64(w, d->f);
	TEX_U32S(PUT_U32)
	TEX_U64S(PUT_U64)
#undef PUT_U32
#undef PUT_U64
	memcpy(bits, d->border, sizeof(bits));
	for (int i = 0; i < 4; i++)
		ag_put_u32(w, bits[i]);
}

void ag_get_tex_desc(struct ag_rbuf *r, struct ag_tex_desc *d)
{
	uint32_t bits[4];

	memset(d, 0, sizeof(*d));
#define GET_U32(f) d->f = ag_get_u32(r);
#define GET_U64(f) d->f = ag_get_u64(r);
	TEX_U32S(GET_U32)
	TEX_U64S(GET_U64)
#undef GET_U32
#undef GET_U64
	for (int i = 0; i < 4; i++)
		bits[i] = ag_get_u32(r);
	memcpy(d->border, bits, sizeof(bits));
}

void ag_put_info(struct ag_wbuf *w, const struct ag_device_info *d)
{
	char name[sizeof(d->name)];

	memcpy(name, d->name, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	ag_put_str(w, name);
	ag_put_bytes(w, d->uuid, sizeof(d->uuid));
#define PUT_U64(f) ag_put_u64(w, d->f);
#define PUT_INT(f) ag_put_u32(w, (uint32_t)d->f);
	INFO_U64S(PUT_U64)
	INFO_INTS(PUT_INT)
#undef PUT_U64
#undef PUT_INT
}

void ag_get_info(struct ag_rbuf *r, struct ag_device_info *d)
{
	const void *uuid;

	memset(d, 0, sizeof(*d));
	ag_get_str(r, d->name, sizeof(d->name));
	uuid = ag_get_bytes(r, sizeof(d->uuid));
	if (uuid)
		memcpy(d->uuid, uuid, sizeof(d->uuid));
#define GET_U64(f) d->f = ag_get_u64(r);
#define GET_INT(f) d->f = (int32_t)ag_get_u32(r);
	INFO_U64S(GET_U64)
	INFO_INTS(GET_INT)
#undef GET_U64
#undef GET_INT
}

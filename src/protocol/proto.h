/*
 * proto.h - the anygpu wire protocol: frames, operations and their codec.
 *
 * A connection carries frames: a 16-byte header (payload length, operation,
 * flags, request id; little-endian) and a payload that is a sequence of
 * fixed-width little-endian integers, byte strings and length-prefixed
 * strings.  One request operation exists per backend.h operation; the server
 * answers with an AG_OP_REPLY frame carrying the same id, unless the request
 * had AG_F_NOREPLY (CUDA's asynchronous calls).  docs/protocol.md is the
 * specification; this header and wire.c are its only implementation.
 */
#ifndef AG_PROTO_H
#define AG_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define AG_PROTO_MAGIC 0x55504741u          /* "AGPU" in the HELLO payload */
#define AG_PROTO_VERSION 4u
#define AG_PROTO_HDR 16u
#define AG_PROTO_MAX_PAYLOAD (64u << 20)    /* a frame never exceeds this */
#define AG_PROTO_CHUNK (4u << 20)           /* bulk data travels in these */
#define AG_PROTO_MAX_STR 4096u              /* names, messages, tokens */
/* A DATA frame of this much data or more pads its fields so that the data
 * starts a multiple of AG_PROTO_DATA_ALIGN bytes after the frame's start
 * (docs/protocol.md, "Bulk data"). */
#define AG_PROTO_DATA_PAD_MIN (64u << 10)
#define AG_PROTO_DATA_ALIGN 4096u

enum ag_op {
	/* Client to server: one per backend.h operation, plus the session. */
	AG_OP_HELLO = 1,
	AG_OP_INFO,
	AG_OP_MEM_INFO,
	AG_OP_SYNCHRONIZE,
	AG_OP_MEM_ALLOC,
	AG_OP_MEM_FREE,
	AG_OP_COPY_HTOD,
	AG_OP_COPY_DTOH,
	AG_OP_COPY_DTOD,
	AG_OP_MEMSET,
	AG_OP_MODULE_LOAD,
	AG_OP_MODULE_UNLOAD,
	AG_OP_MODULE_FUNC,
	AG_OP_MODULE_VAR,
	AG_OP_LAUNCH,
	AG_OP_STREAM_CREATE,
	AG_OP_STREAM_DESTROY,
	AG_OP_STREAM_SYNC,
	AG_OP_STREAM_QUERY,
	AG_OP_STREAM_WAIT_EVENT,
	AG_OP_HOST_FUNC,
	AG_OP_EVENT_CREATE,
	AG_OP_EVENT_DESTROY,
	AG_OP_EVENT_RECORD,
	AG_OP_EVENT_SYNC,
	AG_OP_EVENT_QUERY,
	AG_OP_EVENT_ELAPSED,
	AG_OP_STATUS,
	AG_OP_HOSTFN_DONE,      /* the client ran a host function */
	AG_OP_RAW,              /* unframed bytes: the benchmark's reference */
	AG_OP_TEX_CREATE,       /* a texture or surface object */
	AG_OP_TEX_DESTROY,
	AG_OP_COPY_HTOD_Z,      /* a compressed chunk of a host-to-device copy */
	AG_OP_SET_LIMIT,        /* cudaDeviceSetLimit */
	AG_OP_REQUEST_END,      /* first value that is not a request */

	/* Server to client. */
	AG_OP_REPLY = 0x100,
	AG_OP_DATA,             /* a chunk of a device-to-host copy */
	AG_OP_PRINT,            /* kernel printf text */
	AG_OP_HOSTFN,           /* a stream reached a host function */
	AG_OP_STDERR,           /* text the server side wrote to stderr */
	AG_OP_DATA_Z,           /* a compressed chunk of a device-to-host copy */
};

#define AG_F_NOREPLY 1u         /* asynchronous: the server sends no reply */
#define AG_F_LAST 2u            /* last chunk of a chunked bulk operation */

struct ag_frame_hdr {
	uint32_t len;           /* payload bytes, at most AG_PROTO_MAX_PAYLOAD */
	uint16_t op;
	uint16_t flags;
	uint64_t id;            /* request id, echoed in the reply */
};

void ag_hdr_encode(const struct ag_frame_hdr *h, uint8_t out[AG_PROTO_HDR]);
/* 0, or -1 with err set when the header cannot be a valid frame. */
int ag_hdr_decode(const uint8_t in[AG_PROTO_HDR], struct ag_frame_hdr *h,
		  char *err, size_t errlen);
const char *ag_op_name(unsigned op);

/* Checks that a request's payload is exactly its operation's fields (the
 * layouts of docs/protocol.md), before any of it is used.  0, or -1 with
 * err set. */
int ag_request_check(const struct ag_frame_hdr *h, const void *payload,
		     char *err, size_t errlen);

/* Building a payload: appends grow the buffer (allocation cannot fail). */
struct ag_wbuf {
	uint8_t *p;
	size_t len, cap;
};

void ag_put_u32(struct ag_wbuf *w, uint32_t v);
void ag_put_u64(struct ag_wbuf *w, uint64_t v);
void ag_put_bytes(struct ag_wbuf *w, const void *p, size_t n);
/* A u32 length then the bytes, without NUL; NULL is the empty string. */
void ag_put_str(struct ag_wbuf *w, const char *s);
void ag_wbuf_free(struct ag_wbuf *w);

/* Reading a payload: every get checks the remaining length; the first
 * failure sets bad and makes every later get return zeros, so a decoder
 * reads all fields and then checks bad once. */
struct ag_rbuf {
	const uint8_t *p;
	size_t len, pos;
	int bad;
};

void ag_rbuf_init(struct ag_rbuf *r, const void *p, size_t len);
uint32_t ag_get_u32(struct ag_rbuf *r);
uint64_t ag_get_u64(struct ag_rbuf *r);
/* Returns a pointer into the payload to n bytes, NULL (and bad) if short. */
const void *ag_get_bytes(struct ag_rbuf *r, size_t n);
/* Copies a string into out (NUL-terminated); bad if longer than outlen-1
 * or than AG_PROTO_MAX_STR, or if it holds a NUL byte. */
void ag_get_str(struct ag_rbuf *r, char *out, size_t outlen);
/* Bytes left after the fields read so far. */
size_t ag_rbuf_left(const struct ag_rbuf *r);
/* 0 when the payload was read exactly to its end without error. */
int ag_rbuf_done(const struct ag_rbuf *r);

/* HELLO's payload.  Its first two fields are the same in every version,
 * so that a server can refuse another version with a clear answer. */
struct ag_hello {
	uint32_t magic, version;
	char token[AG_PROTO_MAX_STR + 1];
	uint32_t compress;      /* the Zstandard level asked for; 0: none */
};

/* Reads a HELLO payload: 0 when it is one of this version; -1 otherwise,
 * with h->magic and h->version read when the payload holds them (0 if
 * not), so that the caller can say which it was. */
int ag_hello_decode(const void *payload, size_t len, struct ag_hello *h);

/* HELLO's answer: error, message, the server's version, and the
 * compression level the session uses (0: none; at most the level asked). */
struct ag_hello_reply {
	uint32_t error, version, compress;
	char message[AG_PROTO_MAX_STR + 1];
};

/* 0, or -1 when the payload is not such an answer.  A refusal from a
 * server of another version decodes with version and compress 0 when they
 * are missing. */
int ag_hello_reply_decode(const void *payload, size_t len, struct ag_hello_reply *r);

/* AG_OP_RAW's modes (raw.c). */
enum ag_raw_mode {
	AG_RAW_SINK,            /* the client sends n bytes */
	AG_RAW_SOURCE,          /* the server sends n bytes */
	AG_RAW_ECHO,            /* n one-byte round trips */
	AG_RAW_MODES
};

/* The most memory a sink or a source goes through on the server: as much
 * as the exchange up to this, then the same again. */
#define AG_RAW_SPAN (256ull << 20)

/* struct ag_tex_desc travels field by field too (TEX_CREATE's payload). */
struct ag_tex_desc;
void ag_put_tex_desc(struct ag_wbuf *w, const struct ag_tex_desc *d);
void ag_get_tex_desc(struct ag_rbuf *r, struct ag_tex_desc *d);

/* struct ag_device_info travels field by field, never as raw memory. */
struct ag_device_info;
void ag_put_info(struct ag_wbuf *w, const struct ag_device_info *d);
void ag_get_info(struct ag_rbuf *r, struct ag_device_info *d);

#endif
